// Package canary builds the records every door renders for people, from a test that types two
// canary values, so each door's tests can look for the values in what it renders: a value a
// test types never appears in text for people or agents (DESIGN §4, invariants 11 and 12).
//
// The records come from real ladder climbs over a runner and a model that need no browser: one
// climb proves a fix that drops a fill, adds one and keeps a select (behaviour notes, an added
// value, UNVERIFIED, a requirement not kept and one kept, a refusal), and one climb ends in a
// triage issue after a proof that fails at the select.
package canary

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
)

// The canaries: what the test fills and what it selects. Each is unique enough that finding
// it anywhere means a value leaked.
const (
	Typed  = "canary-7f3e-typed"
	Picked = "canary-9b1c-picked"
)

// Values are both canaries.
var Values = []string{Typed, Picked}

// Fixture is what the two climbs produced.
type Fixture struct {
	// Test is the test both climbs repaired, version 1 of project "shop".
	Test gardener.Test
	// Held is a climb that proved a fix a person must look at: staged.
	Held ladder.Result
	// Triaged is a climb that found no fix: it carries a triage issue.
	Triaged ladder.Result
	// Events are the events of both climbs, in order.
	Events []gardener.LadderEvent
	// Log is the JSON log a server writes for those events (one line each, every field).
	Log string
}

// Steps are the canary test's steps: it types Typed into the email field, picks Picked and sets
// a referral code to Typed.
func Steps() []gardener.Step {
	return []gardener.Step{
		{Kind: gardener.Goto, URL: "/signup"},
		{Kind: gardener.Fill, Locator: gardener.MustLocator("label=Email"), Value: Typed},
		{Kind: gardener.Select, Locator: gardener.MustLocator("label=Plan"), Value: Picked},
		{Kind: gardener.Click, Locator: gardener.MustLocator(`role=button[name="Sign up"]`)},
		{Kind: gardener.AssertVisible, Locator: gardener.MustLocator(`role=heading[name="Welcome"]`)},
		// A set step (what an imported recording's change becomes) enters its value too.
		{Kind: gardener.Set, Locator: gardener.MustLocator("label=Referral code"), Value: Typed},
	}
}

// Climb runs both climbs.
func Climb(t testing.TB) Fixture {
	t.Helper()
	f := Fixture{Test: gardener.Test{ID: "signup", ProjectID: "shop", Name: "Sign up", Status: gardener.StatusActive, Version: 1, Steps: Steps()}}
	var logBuf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logBuf, nil))
	progress := func(e ladder.Event) {
		f.Events = append(f.Events, e)
		log.Info("ladder", "event", e, "line", e.Line())
	}
	clock := time.Unix(1.7e9, 0)
	now := func() time.Time { clock = clock.Add(time.Millisecond); return clock }

	// The held fix: the fill of step 2, where the run failed (a heal never rewrites a step
	// before the failed one), becomes a click on a saved address (the value is no longer
	// entered: a behaviour change and a requirement not kept), a nickname field gets the same
	// value (an added input, recorded empty: UNVERIFIED), the select is kept, and the deletion
	// of the final check is refused.
	saved := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator("text=Use my saved address")}
	nick := gardener.Step{Kind: gardener.Fill, Locator: gardener.MustLocator("label=Nickname"), Value: Typed}
	held := &ladder.Ladder{Runner: runner{}, Progress: progress, Now: now, Model: model{ops: []gardener.Op{
		{Kind: gardener.OpReplace, Index: 1, Step: &saved},
		{Kind: gardener.OpInsert, Index: 3, Step: &nick},
		{Kind: gardener.OpDelete, Index: 4},
	}}}
	res, err := held.Repair(context.Background(), ladder.Request{
		Test: f.Test, Mode: gardener.ModeApply, LastGreen: lastGreen(), RunID: "run-held",
		Failure: failure(f.Test, 1, gardener.ErrElementNotFound, "no element matches the locator"),
		Rungs:   []gardener.Strategy{gardener.StrategySuggestFix},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != ladder.Staged || res.Verdict == nil || res.Verdict.Contract.AllKept() {
		t.Fatalf("the held climb ended %s (%s), want staged with a requirement not kept", res.Outcome, res.Reason)
	}
	f.Held = res

	// The triaged climb: the select fails to find its option, and so does the proof of the one
	// fix proposed; the diagnosis cannot tell.
	other := gardener.Step{Kind: gardener.Select, Locator: gardener.MustLocator("label=Your plan"), Value: Picked}
	triaged := &ladder.Ladder{Runner: runner{failAt: "Your plan"}, Progress: progress, Now: now, Model: model{
		ops:  []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: &other}},
		diag: gardener.Diagnosis{Classification: gardener.Unknown, Evidence: []string{"the plan dropdown has other options"}},
	}}
	res, err = triaged.Repair(context.Background(), ladder.Request{
		Test: f.Test, Mode: gardener.ModeApply, LastGreen: lastGreen(), RunID: "run-triaged",
		Failure: failure(f.Test, 2, gardener.ErrElementNotFound, "no option matches"),
		Rungs:   []gardener.Strategy{gardener.StrategySuggestFix, gardener.StrategyDiagnose},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != ladder.Triaged || res.Triage == nil {
		t.Fatalf("the triaged climb ended %s (%s), want a triage issue", res.Outcome, res.Reason)
	}
	f.Triaged = res
	f.Log = logBuf.String()
	return f
}

// failure is a failed replay of t at step index i, its message worded as the browser words it:
// the step rendered for people, then what went wrong.
func failure(t gardener.Test, i int, kind gardener.ErrorKind, what string) *gardener.Replay {
	path := strconv.Itoa(i + 1)
	return &gardener.Replay{Result: gardener.RunResult{
		TestID: t.ID, TestVersion: t.Version, FailedStep: path, FailedIndex: i, ErrorKind: kind,
		Message: fmt.Sprintf("step %s (%s): %s", path, t.Steps[i].Redacted(), what), FinalURL: "http://shop.test/signup",
	}}
}

// lastGreen is the canary test's last green run: it typed Typed, picked Picked and sent the
// sign-up request.
func lastGreen() *gardener.RunResult {
	return &gardener.RunResult{TestID: "signup", TestVersion: 1, Passed: true, FailedIndex: -1, Steps: []gardener.StepRecord{
		{Path: "1", Kind: gardener.Goto, URLAfter: "http://shop.test/signup", Passed: true},
		{Path: "2", Kind: gardener.Fill, Values: []string{Typed}, Passed: true},
		{Path: "3", Kind: gardener.Select, Values: []string{Picked}, Passed: true},
		{Path: "4", Kind: gardener.Click, Requests: []gardener.Request{{Method: "POST", URL: "http://shop.test/api/signup", Status: 201}}, Passed: true},
		{Path: "5", Kind: gardener.AssertVisible, Passed: true},
		{Path: "6", Kind: gardener.Set, Values: []string{Typed}, Passed: true},
	}}
}

// runner replays without a browser: every step passes and records what it entered (a nickname
// field records nothing, as a field that ignores typing would), the sign-up click sends its
// request, and every probed check is sensitive. A select whose locator names failAt fails,
// its message worded as the browser words it.
type runner struct{ failAt string }

func (r runner) Replay(_ context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	rep := gardener.Replay{Result: gardener.RunResult{TestID: t.ID, TestVersion: t.Version, Passed: true, FailedIndex: -1}}
	for i, s := range t.Steps {
		path := strconv.Itoa(i + 1)
		if r.failAt != "" && strings.Contains(s.Locator.String(), r.failAt) {
			rep.Result = failure(t, i, gardener.ErrElementNotFound, "no option matches").Result
			return rep, nil
		}
		rec := gardener.StepRecord{Path: path, Kind: s.Kind, URLBefore: "http://shop.test/signup", URLAfter: "http://shop.test/signup", Passed: true}
		switch {
		case s.Kind == gardener.Fill && strings.Contains(s.Locator.String(), "Nickname"):
			rec.Values = []string{""}
		case s.Enters():
			rec.Values = []string{s.Value}
		case s.Kind == gardener.Click && strings.Contains(s.Locator.String(), "Sign up"):
			rec.Requests = []gardener.Request{{Method: "POST", URL: "http://shop.test/api/signup", Status: 201}}
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

// model answers suggest-fix with ops and diagnosis with diag; it heals no locator.
type model struct {
	ops  []gardener.Op
	diag gardener.Diagnosis
}

func (model) Name() string { return "canary" }
func (model) FixLocator(context.Context, gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	return gardener.LocatorAnswer{}, nil
}
func (m model) SuggestOps(context.Context, gardener.OpsAsk) (gardener.OpsAnswer, error) {
	return gardener.OpsAnswer{Ops: m.ops, Reason: "the sign-up form changed"}, nil
}
func (m model) Diagnose(context.Context, gardener.DiagnoseAsk) (gardener.Diagnosis, error) {
	return m.diag, nil
}
func (model) DeriveIntent(context.Context, gardener.IntentAsk) (gardener.IntentAnswer, error) {
	return gardener.IntentAnswer{}, nil
}

// Absent fails t when text, rendered by where, carries either canary; it quotes the lines that
// do, cut short, so a failure names the leak without a page of output.
func Absent(t testing.TB, where, text string) {
	t.Helper()
	for _, v := range Values {
		if !strings.Contains(text, v) {
			continue
		}
		var lines []string
		for _, l := range strings.Split(text, "\n") {
			if i := strings.Index(l, v); i >= 0 {
				lines = append(lines, "  …"+l[max(0, i-160):min(len(l), i+len(v)+40)]+"…")
			}
		}
		t.Errorf("%s carries the typed value %q:\n%s", where, v, strings.Join(lines, "\n"))
	}
}

// AbsentJSON is Absent over v encoded as JSON.
func AbsentJSON(t testing.TB, where string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	Absent(t, where, string(b))
}

// AbsentTriage is Absent over every text of a triage issue: its error, evidence, and each
// attempt's outcome and refusals. The ops an attempt proposed are steps of the test, kept in
// its JSON for those allowed to read the test, like a proposal's ops.
func AbsentTriage(t testing.TB, where string, issue *gardener.TriageIssue) {
	t.Helper()
	if issue == nil {
		return
	}
	text := []string{issue.Error}
	text = append(text, issue.Evidence...)
	for _, a := range issue.Attempts {
		text = append(text, a.Outcome)
		for _, r := range a.Refusals {
			text = append(text, r.String())
		}
	}
	Absent(t, where, strings.Join(text, "\n"))
}
