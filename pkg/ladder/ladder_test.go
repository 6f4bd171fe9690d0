package ladder

import (
	"context"
	"errors"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// scripted is a model that answers from fields; the ladder's logic is tested with it where no
// page is needed. Everything a browser does is tested in real Chromium (tests/e2e).
type scripted struct {
	locator gardener.LocatorAnswer
	ops     gardener.OpsAnswer
	diag    gardener.Diagnosis
	err     error
}

func (s scripted) Name() string { return "scripted" }
func (s scripted) FixLocator(context.Context, gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	return s.locator, s.err
}
func (s scripted) SuggestOps(context.Context, gardener.OpsAsk) (gardener.OpsAnswer, error) {
	return s.ops, s.err
}
func (s scripted) Diagnose(context.Context, gardener.DiagnoseAsk) (gardener.Diagnosis, error) {
	return s.diag, s.err
}
func (s scripted) DeriveIntent(context.Context, gardener.IntentAsk) (gardener.IntentAnswer, error) {
	return gardener.IntentAnswer{}, s.err
}

// noBrowser fails the test if the ladder replays anything: these cases must be decided before
// any candidate reaches the gate.
type noBrowser struct{ t *testing.T }

func (n noBrowser) Replay(context.Context, gardener.Test, gardener.ReplayOptions) (gardener.Replay, error) {
	n.t.Fatal("the ladder replayed a candidate that should never have reached the gate")
	return gardener.Replay{}, nil
}

type retryable struct{}

func (retryable) Error() string   { return "throttled" }
func (retryable) Retryable() bool { return true }

func failing() *gardener.Replay {
	return &gardener.Replay{Result: gardener.RunResult{TestID: "t", FailedStep: "4", FailedIndex: 3, ErrorKind: gardener.ErrAssertionFailed, Message: "url is /login"}}
}

func test() gardener.Test {
	return gardener.Test{ID: "t", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: checkout()}
}

func TestEveryChangeRefusedIsItsOwnOutcome(t *testing.T) {
	rewrite := gardener.Step{Kind: gardener.AssertToast, Text: "Payment failed"}
	m := scripted{ops: gardener.OpsAnswer{Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 3, Step: &rewrite}}}}
	l := &Ladder{Runner: noBrowser{t}, Model: m}
	res, err := l.Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: failing(), Rungs: []gardener.Strategy{gardener.StrategySuggestFix}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != Refused || res.Reason != "every proposed change was refused" {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	if len(res.Refusals) != 1 || res.Refusals[0].Path != "4" || res.Triage == nil {
		t.Fatalf("refusals %+v, triage %v", res.Refusals, res.Triage)
	}
}

func TestAppBugDiagnosisEndsTheLadder(t *testing.T) {
	fix := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator("css=#x")}
	m := scripted{diag: gardener.Diagnosis{Classification: gardener.AppBug, Evidence: []string{"500 from POST /payments"}, Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: &fix}}}}
	l := &Ladder{Runner: noBrowser{t}, Model: m}
	res, err := l.Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: failing(), Rungs: []gardener.Strategy{gardener.StrategyDiagnose}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != Triaged || res.Triage.Classification != gardener.AppBug || res.Triage.Evidence[0] != "500 from POST /payments" {
		t.Fatalf("%s: %+v", res.Outcome, res.Triage)
	}
}

func TestRetryableModelErrorsGoBackToTheStateMachine(t *testing.T) {
	l := &Ladder{Runner: noBrowser{t}, Model: scripted{err: retryable{}}}
	_, err := l.Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: failing(), Rungs: []gardener.Strategy{gardener.StrategySuggestFix}})
	if !errors.As(err, new(retryable)) {
		t.Fatalf("got %v, want the retryable error itself", err)
	}
	// Any other model error is one rung's bad luck: recorded, and the ladder goes on.
	res, err := (&Ladder{Runner: noBrowser{t}, Model: scripted{err: errors.New("bad json")}}).Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: failing(), Rungs: []gardener.Strategy{gardener.StrategySuggestFix}})
	if err != nil || res.Outcome != Triaged || res.Rungs[0].Attempts[0].Outcome != "model error: bad json" {
		t.Fatalf("%v %s %+v", err, res.Outcome, res.Rungs)
	}
}

func TestSelfHealLeavesAssertionFailuresAlone(t *testing.T) {
	m := scripted{locator: gardener.LocatorAnswer{Locator: gardener.MustLocator("css=#elsewhere")}}
	l := &Ladder{Runner: noBrowser{t}, Model: m}
	res, err := l.Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: failing(), Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != Triaged || res.Rungs[0].Attempts[0].Outcome != "no candidate: step 4 failed with assertion-failed, which a new locator cannot fix" {
		t.Fatalf("%s %+v", res.Outcome, res.Rungs)
	}
}
