package ladder

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// bookingApp replays a booking test as the browser runner would on a page whose department
// select offers options (value, label): a select step picks the option whose value, else whose
// label, is the step's value, and its record holds the option's value followed by its label
// when that differs (pkg/browser's pick). The booking button posts the booking; every probed
// check fails before its step.
type bookingApp struct{ options [][2]string }

func (a bookingApp) Replay(_ context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	var values []string
	for _, opt := range a.options {
		values = append(values, opt[0])
	}
	dept := &gardener.Fingerprint{Tag: "SELECT", ID: "dept", Name: "dept", Role: "combobox", Label: "Department", Options: values}
	rep := gardener.Replay{Result: gardener.RunResult{TestID: t.ID, Passed: true, FailedIndex: -1}}
	for i, s := range t.Steps {
		rec := gardener.StepRecord{Path: strconv.Itoa(i + 1), Kind: s.Kind, URLBefore: "http://app/book", URLAfter: "http://app/book", Passed: true}
		switch s.Kind {
		case gardener.Select:
			rec.Element = dept
			at := slices.IndexFunc(a.options, func(opt [2]string) bool { return opt[0] == s.Value })
			if at < 0 {
				at = slices.IndexFunc(a.options, func(opt [2]string) bool { return opt[1] == s.Value })
			}
			if at < 0 {
				rec.Passed = false
				rep.Result.Steps = append(rep.Result.Steps, rec)
				rep.Result.Passed, rep.Result.FailedIndex, rep.Result.FailedStep = false, i, rec.Path
				rep.Result.ErrorKind, rep.Result.Message = gardener.ErrElementNotFound, "css=#dept has no option matching the value"
				return rep, nil
			}
			rec.Values = []string{a.options[at][0]}
			if a.options[at][1] != a.options[at][0] {
				rec.Values = append(rec.Values, a.options[at][1])
			}
		case gardener.Click:
			rec.Requests = []gardener.Request{{Method: "POST", URL: "http://app/api/bookings", Status: 201}}
		}
		rep.Result.Steps = append(rep.Result.Steps, rec)
	}
	for a, checks := range o.Probes {
		if rep.Probes == nil {
			rep.Probes = map[int][]gardener.ProbeResult{}
		}
		for _, c := range checks {
			rep.Probes[a] = append(rep.Probes[a], gardener.ProbeResult{Check: c, Passed: false})
		}
	}
	return rep, nil
}

// A select step names its option by its label ("Cardiology"); the app relabels the option
// ("Heart (Cardiology)") and keeps its value. The built-in rule rewrites the step to pick the
// value the last green run recorded, the proof passes, and the form sends what it sent: the
// same option picked is neither a behaviour change nor a requirement broken (spec 002), so in
// apply mode the fix is written. Both were raised before (the label, recorded beside the value,
// was required too, and the step's text was compared), which staged the fix with a note whose
// two sides read alike. Picking another option still is both, and its note says so in words.
func TestRelabelledOptionPickedByItsValue(t *testing.T) {
	steps := []gardener.Step{
		{Kind: gardener.Goto, URL: "/book"},
		{Kind: gardener.Select, Locator: loc("css=#dept"), Value: "Cardiology"},
		{Kind: gardener.Click, Locator: loc(`role=button[name="Book"]`)},
		{Kind: gardener.AssertToast, Text: "Booked"},
	}
	tt := gardener.Test{ID: "t", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps}
	recorded := bookingApp{options: [][2]string{{"cardiology", "Cardiology"}, {"dermatology", "Dermatology"}}}
	relabelled := bookingApp{options: [][2]string{{"cardiology", "Heart (Cardiology)"}, {"dermatology", "Skin (Dermatology)"}}}
	green, err := recorded.Replay(context.Background(), tt, gardener.ReplayOptions{})
	if err != nil || !green.Result.Passed {
		t.Fatalf("the recorded app: %+v, %v", green.Result, err)
	}
	repair := func(app gardener.Runner, model gardener.Model) Result {
		l := &Ladder{Runner: app, Model: model}
		res, err := l.Repair(context.Background(), Request{Test: tt, Mode: gardener.ModeApply, LastGreen: &green.Result, Rungs: []gardener.Strategy{gardener.StrategySuggestFix}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := repair(relabelled, builtin.Engine{})
	if res.Outcome != Repaired || len(res.Steps) != 4 || res.Steps[1].Value != "cardiology" {
		t.Fatalf("outcome %s (%s), steps %v: want step 2 repaired to pick the value cardiology, and written", res.Outcome, res.Reason, res.Steps)
	}
	if hasNote(res.Verdict, gardener.NoteBehaviorChange) || !res.Verdict.Contract.AllKept() {
		t.Errorf("the same option picked under a new label: notes %+v, contract %+v", res.Verdict.Notes, res.Verdict.Contract)
	}

	// The app moved cardiology out, and a fix picks dermatology: another option, another
	// value sent. Both judgements still see it, and the note says the value is another one.
	other := steps[1].Clone()
	other.Value = "dermatology"
	res = repair(relabelled, scripted{ops: gardener.OpsAnswer{Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &other}}}})
	if res.Outcome != Staged || !hasNote(res.Verdict, gardener.NoteBehaviorChange) || res.Verdict.Contract.AllKept() {
		t.Fatalf("another option picked: outcome %s (%s), want staged with a behaviour change and a requirement not kept", res.Outcome, res.Reason)
	}
	for _, n := range res.Verdict.Notes {
		if n.Kind != gardener.NoteBehaviorChange {
			continue
		}
		if !strings.Contains(n.Text, "picks another value") {
			t.Errorf("behaviour note %q does not say the step picks another value", n.Text)
		}
		for _, v := range []string{"cardiology", "Cardiology", "dermatology", "Dermatology"} {
			if strings.Contains(n.Text, v) {
				t.Errorf("behaviour note %q shows a value the test picks", n.Text)
			}
		}
	}
}
