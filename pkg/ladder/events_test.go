package ladder

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// replays answers the reproduction with a failure at the fill and every later replay green.
type replays struct{ n int }

func (r *replays) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	r.n++
	if r.n == 1 {
		return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrElementNotFound, Message: "no element matches css=#pw"},
			Snapshot: &gardener.Snapshot{URL: "http://app.test/login", Candidates: make([]gardener.Fingerprint, 3)}}, nil
	}
	res := gardener.RunResult{TestID: t.ID, Passed: true, FailedIndex: -1}
	for i, st := range t.Steps {
		res.Steps = append(res.Steps, gardener.StepRecord{Path: string(rune('1' + i)), Kind: st.Kind, Passed: true, Values: []string{st.Value}})
	}
	return gardener.Replay{Result: res}, nil
}

// TestEventsNumberedInOrderAndRedacted: a climb emits every stage in order, numbered from 1 and
// timed, with the structured fields of each, and no event carries the value a fill types.
func TestEventsNumberedInOrderAndRedacted(t *testing.T) {
	secret := "hunter2-secret"
	tc := gardener.Test{ID: "login", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Fill, Locator: gardener.MustLocator("css=#pw"), Value: secret},
		{Kind: gardener.AssertVisible, Locator: gardener.MustLocator("css=#ok")},
	}}
	var evs []Event
	clock := time.Unix(1e9, 0)
	l := &Ladder{Runner: &replays{}, Model: scripted{locator: gardener.LocatorAnswer{Locator: gardener.MustLocator("label=Password"), Reason: "same field"}},
		Progress: func(e Event) { evs = append(evs, e) }, Now: func() time.Time { clock = clock.Add(time.Millisecond); return clock }}
	res, err := l.Repair(context.Background(), Request{Test: tc, Mode: gardener.ModePropose, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
	if err != nil || res.Outcome != Staged {
		t.Fatalf("%v %s %s", err, res.Outcome, res.Reason)
	}
	var got []gardener.EventStage
	for i, e := range evs {
		if e.Seq != i+1 || e.At.IsZero() || e.TestID != "login" {
			t.Fatalf("event %d: %+v", i, e)
		}
		if len(got) == 0 || got[len(got)-1] != e.Stage {
			got = append(got, e.Stage)
		}
	}
	want := []gardener.EventStage{gardener.EventReproduce, gardener.EventSnapshot, gardener.EventCandidate, gardener.EventProofStep, gardener.EventProof,
		gardener.EventSensitivity, gardener.EventContract, gardener.EventVerdict, gardener.EventOutcome}
	if strings.Join(stageNames(got), ",") != strings.Join(stageNames(want), ",") {
		t.Fatalf("stages %v, want %v", got, want)
	}
	raw, _ := json.Marshal(evs)
	if strings.Contains(string(raw), secret) {
		t.Fatalf("an event carries the typed value: %s", raw)
	}
	for _, e := range evs {
		if e.Stage == gardener.EventReproduce && e.Passed != nil && (*e.Passed || e.Step != "2") {
			t.Fatalf("reproduce: %+v", e)
		}
		if e.Stage == gardener.EventCandidate && len(e.Ops) > 0 && !strings.Contains(strings.Join(e.Ops, "\n"), "label=Password") {
			t.Fatalf("candidate ops: %+v", e.Ops)
		}
		if e.Stage == gardener.EventOutcome && e.Outcome != string(Staged) {
			t.Fatalf("outcome: %+v", e)
		}
	}
}

func stageNames(s []gardener.EventStage) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return out
}

// stepwise answers the reproduction with a failure at the fill and runs every later replay step
// by step, reporting each step through the replay's OnStep before it runs the next; it records,
// for each proof-step event the ladder emitted, whether a replay was still running then.
type stepwise struct {
	n       int
	running bool
	// live is, per proof-step event seen, whether it came while the replay ran.
	live []bool
}

func (r *stepwise) Replay(ctx context.Context, t gardener.Test, opts gardener.ReplayOptions) (gardener.Replay, error) {
	r.n++
	if r.n == 1 {
		return (&replays{}).Replay(ctx, t, opts)
	}
	r.running = true
	defer func() { r.running = false }()
	res := gardener.RunResult{TestID: t.ID, Passed: true, FailedIndex: -1}
	for i, st := range t.Steps {
		rec := gardener.StepRecord{Path: string(rune('1' + i)), Kind: st.Kind, Passed: true}
		res.Steps = append(res.Steps, rec)
		if opts.OnStep != nil {
			opts.OnStep(rec)
		}
	}
	return gardener.Replay{Result: res}, nil
}

// TestProofStepsEmittedWhileTheReplayRuns: each proof-step event is emitted as its step
// finishes, while the proof's replay still runs (the runner reports the step, the ladder emits
// the event, and only then does the runner go on), once per step — not read from the result
// after the replay returned.
func TestProofStepsEmittedWhileTheReplayRuns(t *testing.T) {
	tc := gardener.Test{ID: "login", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Fill, Locator: gardener.MustLocator("css=#pw"), Value: "x"},
		{Kind: gardener.AssertVisible, Locator: gardener.MustLocator("css=#ok")},
	}}
	r := &stepwise{}
	var steps []string
	l := &Ladder{Runner: r, Model: scripted{locator: gardener.LocatorAnswer{Locator: gardener.MustLocator("label=Password"), Reason: "same field"}},
		Progress: func(e Event) {
			if e.Stage == gardener.EventProofStep {
				steps = append(steps, e.Step)
				r.live = append(r.live, r.running)
			}
		}}
	res, err := l.Repair(context.Background(), Request{Test: tc, Mode: gardener.ModePropose, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
	if err != nil || res.Outcome != Staged {
		t.Fatalf("%v %s %s", err, res.Outcome, res.Reason)
	}
	if strings.Join(steps, ",") != "1,2,3" {
		t.Fatalf("proof-step events for steps %v, want each of 1,2,3 once", steps)
	}
	for i, live := range r.live {
		if !live {
			t.Errorf("the proof-step event of step %s came after the replay returned", steps[i])
		}
	}
}
