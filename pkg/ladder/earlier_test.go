package ladder

import (
	"context"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// viewing answers a replay that asks for views with a snapshot before each step asked for,
// and records what it was asked.
type viewing struct {
	asked []map[int][]gardener.Locator
	fail  gardener.Replay
}

func (v *viewing) Replay(_ context.Context, _ gardener.Test, opts gardener.ReplayOptions) (gardener.Replay, error) {
	v.asked = append(v.asked, opts.Views)
	rep := v.fail
	rep.Views = map[int]gardener.View{}
	for i := range opts.Views {
		rep.Views[i] = gardener.View{URL: "http://app/members", Snapshot: &gardener.Snapshot{URL: "http://app/members", Candidates: []gardener.Fingerprint{{Tag: "BUTTON", AccessibleName: "Edit Dennis Ritchie"}}}}
	}
	return rep, nil
}

// asking is a model whose locator answer is fixed and which keeps the locator asks it got.
type asking struct {
	scripted
	asks []gardener.LocatorAsk
}

func (a *asking) FixLocator(_ context.Context, ask gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	a.asks = append(a.asks, ask)
	return a.locator, nil
}

// A positional locator that passed on another row's button after the rows moved makes a later
// step fail (the wait for the member's URL). Self-heal looks at the page before the earlier
// step and names the recorded element there, for a person: the step passed, and a heal never
// rewrites a step before the one that failed, so no candidate is built. Without an earlier step
// that acted on another element, nothing is replayed.
func TestEarlierStepOnAnotherElementIsNamedForAPerson(t *testing.T) {
	pos := gardener.MustLocator("css=tbody > tr:nth-of-type(2) > td:nth-of-type(4) > button:nth-of-type(1)")
	steps := []gardener.Step{
		{Kind: gardener.Goto, URL: "/members"},
		{Kind: gardener.Click, Locator: pos},
		{Kind: gardener.Wait, For: gardener.WaitURL, URL: "/members/7"},
	}
	tst := gardener.Test{ID: "t", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps}
	green := &gardener.RunResult{TestID: "t", TestVersion: 1, Passed: true, FailedIndex: -1, Steps: []gardener.StepRecord{
		{Path: "1", Passed: true},
		{Path: "2", Passed: true, Element: &gardener.Fingerprint{Tag: "BUTTON", AccessibleName: "Edit Dennis Ritchie", VisibleText: []string{"Edit"}}},
		{Path: "3", Passed: true},
	}}
	failed := func(clicked string) *gardener.Replay {
		return &gardener.Replay{Result: gardener.RunResult{TestID: "t", TestVersion: 1, FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrTimeout, Message: `the URL did not reach "/members/7"`,
			Steps: []gardener.StepRecord{{Path: "1", Passed: true}, {Path: "2", Passed: true, Element: &gardener.Fingerprint{Tag: "BUTTON", AccessibleName: clicked, VisibleText: []string{"Edit"}}}, {Path: "3"}}}}
	}
	healed := gardener.MustLocator(`role=button[name="Edit Dennis Ritchie"]`)
	for _, c := range []struct {
		clicked string
		replays int
	}{{"Edit Margaret Hamilton", 1}, {"Edit Dennis Ritchie", 0}} {
		run := &viewing{fail: *failed(c.clicked)}
		m := &asking{scripted: scripted{locator: gardener.LocatorAnswer{Locator: healed, Reason: "matched"}}}
		l := &Ladder{Runner: run, Model: m}
		res, err := l.Repair(context.Background(), Request{Test: tst, Mode: gardener.ModeApply, Failure: failed(c.clicked), LastGreen: green, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
		if err != nil {
			t.Fatal(err)
		}
		if len(run.asked) != c.replays {
			t.Fatalf("%s clicked: %d replays, want %d", c.clicked, len(run.asked), c.replays)
		}
		out := res.Rungs[0].Attempts[0].Outcome
		if res.Outcome != Triaged || len(res.Rungs[0].Attempts[0].Ops) != 0 {
			t.Fatalf("%s clicked: %s with %+v; want a triage and no candidate", c.clicked, res.Outcome, res.Rungs[0].Attempts)
		}
		if c.replays == 0 {
			if strings.Contains(out, "acted on") {
				t.Errorf("the same element clicked: %q", out)
			}
			continue
		}
		if _, ok := run.asked[0][1]; !ok {
			t.Errorf("the view asked for is %v, want the page before step 2", run.asked[0])
		}
		if len(m.asks) != 1 || m.asks[0].Index != 1 || m.asks[0].Recorded == nil || m.asks[0].Recorded.AccessibleName != "Edit Dennis Ritchie" ||
			len(m.asks[0].Snapshot) != 1 || m.asks[0].Result.FailedStep != "2" {
			t.Fatalf("the model was asked %+v", m.asks)
		}
		for _, want := range []string{`step 2`, `"Edit Margaret Hamilton"`, `"Edit Dennis Ritchie"`, healed.String(), "for a person"} {
			if !strings.Contains(out, want) {
				t.Errorf("outcome %q does not say %s", out, want)
			}
		}
	}
}
