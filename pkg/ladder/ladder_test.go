package ladder

import (
	"context"
	"errors"
	"strconv"
	"strings"
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
	green := &gardener.RunResult{TestID: "t", TestVersion: 1, Passed: true, FailedIndex: -1}
	res, err := l.Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: failing(), LastGreen: green, Rungs: []gardener.Strategy{gardener.StrategyDiagnose}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != Triaged || res.Triage == nil || res.Triage.Classification != gardener.AppBug || res.Triage.Evidence[0] != "500 from POST /payments" {
		t.Fatalf("%s: %+v", res.Outcome, res.Triage)
	}
	// Invariant 13: without a green run of the version the same diagnosis compared the failure
	// with nothing; the ladder says it cannot tell, and its facts ground no triage issue.
	res, err = l.Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: failing(), Rungs: []gardener.Strategy{gardener.StrategyDiagnose}})
	if err != nil {
		t.Fatal(err)
	}
	const cannotTell = "no green run of version 1 of test t is recorded: the gardener cannot tell drift from a bug"
	if res.Outcome != Triaged || res.Reason != cannotTell || gardener.FilesTriage(res.Facts) || res.Facts.NoBaseline == nil {
		t.Fatalf("no green run: %s (%s), triage %+v, facts %+v", res.Outcome, res.Reason, res.Triage, res.Facts)
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

// A timeout the browser itself caused (it did not answer a script call or a mouse event in
// time) says nothing about the page: self-heal builds no candidate on it, whatever the model
// would answer, and a page-side timeout at the same step still gets its candidate.
func TestSelfHealBuildsNothingOnTheBrowsersOwnTimeout(t *testing.T) {
	m := scripted{locator: gardener.LocatorAnswer{Locator: gardener.MustLocator("css=#elsewhere")}}
	slow := failing()
	slow.Result.FailedStep, slow.Result.FailedIndex, slow.Result.ErrorKind = "3", 2, gardener.ErrTimeout
	slow.Result.Cause, slow.Result.Message = gardener.CauseBrowserSlow, "the browser did not answer the click in time"
	res, err := (&Ladder{Runner: noBrowser{t}, Model: m}).Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: slow, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != Triaged || res.Rungs[0].Attempts[0].Outcome != "no candidate: step 3 failed with timeout, which a new locator cannot fix" {
		t.Fatalf("%s %+v", res.Outcome, res.Rungs)
	}
	page := failing()
	page.Result.FailedStep, page.Result.FailedIndex, page.Result.ErrorKind = "3", 2, gardener.ErrTimeout
	replays := &counting{}
	if _, err := (&Ladder{Runner: replays, Model: m}).Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: page, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}}); err != nil {
		t.Fatal(err)
	}
	if replays.n == 0 {
		t.Error("a page's timeout got no candidate proof")
	}
}

// A self-heal rung on its own (one Lambda of the state machine) does not reproduce a failure
// that the run already shows no locator can fix; one that a locator may fix is reproduced.
func TestSelfHealSkipsReproducingWhatNoLocatorFixes(t *testing.T) {
	reported := failing().Result
	reported.TestVersion = 1
	l := &Ladder{Runner: noBrowser{t}, Model: scripted{}}
	res, err := l.Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Reported: &reported, RunID: "run-1", Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
	if err != nil {
		t.Fatal(err)
	}
	want := "no candidate: run run-1 failed at step 4 with assertion-failed, which a new locator cannot fix; not replayed"
	if res.Outcome != Triaged || res.Timings.Replays != 0 || res.Rungs[0].Attempts[0].Outcome != want || res.Triage == nil || res.Triage.FailedStep != "4" {
		t.Fatalf("%s replays=%d %+v triage %+v", res.Outcome, res.Timings.Replays, res.Rungs, res.Triage)
	}

	for name, mutate := range map[string]func(*Request){
		"locator trouble": func(r *Request) {
			r.Reported.ErrorKind, r.Reported.FailedStep, r.Reported.FailedIndex = gardener.ErrElementNotFound, "3", 2
		},
		"other rungs too":    func(r *Request) { r.Rungs = append(r.Rungs, gardener.StrategySuggestFix) },
		"older test version": func(r *Request) { r.Reported.TestVersion = 0 },
		"staged fix to retry": func(r *Request) {
			r.Staged = &gardener.Proposal{Status: gardener.ProposalProposed, BaseVersion: 1, Verdict: gardener.Verdict{Ops: []gardener.Op{{Kind: gardener.OpDelete, Index: 0}}}}
		},
	} {
		rep := reported
		req := Request{Test: test(), Mode: gardener.ModeApply, Reported: &rep, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}}
		mutate(&req)
		replays := &counting{}
		if _, err := (&Ladder{Runner: replays, Model: scripted{}}).Repair(context.Background(), req); err != nil {
			t.Fatal(name, err)
		}
		if replays.n == 0 {
			t.Errorf("%s: the ladder did not reproduce the failure", name)
		}
	}
}

// counting answers every replay with the same assertion failure and counts them.
type counting struct{ n int }

func (c *counting) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	c.n++
	r := failing()
	r.Result.TestVersion = t.Version
	return *r, nil
}

// A heal reaches the later steps that used the same locator for the same recorded element,
// so one green proof covers them all; a step with that locator for another element is left
// to its own proof.
func TestHealCarriesToLaterStepsOnTheSameElement(t *testing.T) {
	old, healed := gardener.MustLocator("css=.add"), gardener.MustLocator(`role=button[name="Add to cart"]`)
	steps := []gardener.Step{
		{Kind: gardener.Goto, URL: "/p/1"},
		{Kind: gardener.Click, Locator: old},
		{Kind: gardener.Goto, URL: "/p/2"},
		{Kind: gardener.Click, Locator: old},
		{Kind: gardener.Click, Locator: old},
	}
	add := gardener.Fingerprint{Tag: "button", Role: "button", AccessibleName: "Add to cart"}
	other := gardener.Fingerprint{Tag: "button", Role: "button", AccessibleName: "Add to wishlist"}
	green := &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{
		{Path: "1", Passed: true}, {Path: "2", Element: &add, Passed: true}, {Path: "3", Passed: true},
		{Path: "4", Element: &add, Passed: true}, {Path: "5", Element: &other, Passed: true},
	}}
	var proofs []gardener.Test
	runner := runnerFunc(func(tt gardener.Test) gardener.Replay {
		proofs = append(proofs, tt)
		for i, st := range tt.Steps {
			if st.Kind == gardener.Click && st.Locator == old {
				return gardener.Replay{Result: gardener.RunResult{TestID: tt.ID, TestVersion: tt.Version, FailedIndex: i, FailedStep: strconv.Itoa(i + 1), ErrorKind: gardener.ErrElementNotFound}}
			}
		}
		return gardener.Replay{Result: gardener.RunResult{TestID: tt.ID, TestVersion: tt.Version, Passed: true}}
	})
	tst := gardener.Test{ID: "t", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps}
	l := &Ladder{Runner: runner, Model: scripted{locator: gardener.LocatorAnswer{Locator: healed}}}
	res, err := l.Repair(context.Background(), Request{Test: tst, Mode: gardener.ModeApply, LastGreen: green, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
	if err != nil {
		t.Fatal(err)
	}
	if len(proofs) < 2 {
		t.Fatalf("%d replays", len(proofs))
	}
	first := proofs[1] // proofs[0] reproduced the failure
	if first.Steps[1].Locator != healed || first.Steps[3].Locator != healed || first.Steps[4].Locator != old {
		t.Fatalf("first candidate: %v / %v / %v", first.Steps[1].Locator, first.Steps[3].Locator, first.Steps[4].Locator)
	}
	// Step 5 names another element: its own red proof and its own heal, then green.
	if res.Outcome != Repaired || len(proofs) != 3 {
		t.Fatalf("%s after %d replays: %s", res.Outcome, len(proofs), res.Reason)
	}
}

func TestHealCarriesARenamedFrameToLaterActionsInIt(t *testing.T) {
	card := gardener.MustLocator("frame=#payment-frame >> #card-number")
	steps := []gardener.Step{
		{Kind: gardener.Goto, URL: "/billing"},
		{Kind: gardener.Fill, Locator: card, Value: "4242"},
		{Kind: gardener.Fill, Locator: gardener.MustLocator("frame=#payment-frame >> label=Expiry"), Value: "12/30"},
		{Kind: gardener.AssertVisible, Locator: gardener.MustLocator("frame=#payment-frame >> #ok")},
		{Kind: gardener.Click, Locator: gardener.MustLocator(`frame=#payment-frame >> role=button[name="Pay"]`)},
		{Kind: gardener.Click, Locator: gardener.MustLocator("frame=#other >> #x")},
	}
	healed := gardener.MustLocator("frame=#checkout-frame >> #card-number")
	var proofs []gardener.Test
	runner := runnerFunc(func(tt gardener.Test) gardener.Replay {
		proofs = append(proofs, tt)
		for i, st := range tt.Steps {
			if st.Target().Frame == "#payment-frame" {
				return gardener.Replay{Result: gardener.RunResult{TestID: tt.ID, TestVersion: tt.Version, FailedIndex: i, FailedStep: strconv.Itoa(i + 1), ErrorKind: gardener.ErrElementNotFound}}
			}
		}
		return gardener.Replay{Result: gardener.RunResult{TestID: tt.ID, TestVersion: tt.Version, Passed: true}}
	})
	tst := gardener.Test{ID: "t", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps}
	l := &Ladder{Runner: runner, Model: scripted{locator: gardener.LocatorAnswer{Locator: healed}}}
	_, err := l.Repair(context.Background(), Request{Test: tst, Mode: gardener.ModePropose, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
	if err != nil {
		t.Fatal(err)
	}
	if len(proofs) < 2 {
		t.Fatalf("%d replays", len(proofs))
	}
	first := proofs[1] // proofs[0] reproduced the failure
	// The check keeps its frame (where a check looks is the floor's business), and so does the
	// action in another frame.
	want := []string{"frame=#checkout-frame >> css=#card-number", "frame=#checkout-frame >> label=Expiry", "frame=#payment-frame >> css=#ok",
		`frame=#checkout-frame >> role=button[name="Pay"]`, "frame=#other >> css=#x"}
	for i, w := range want {
		if got := first.Steps[i+1].Target().String(); got != w {
			t.Errorf("first candidate step %d: %s, want %s", i+2, got, w)
		}
	}
}

type runnerFunc func(gardener.Test) gardener.Replay

func (f runnerFunc) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	return f(t), nil
}

// recording keeps the steps of every candidate it is asked to replay, and fails them all as
// the recorded run failed.
type recording struct{ seen [][]gardener.Step }

func (r *recording) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	r.seen = append(r.seen, gardener.CloneSteps(t.Steps))
	f := failing()
	f.Result.TestVersion = t.Version
	return *f, nil
}

// Spec 002: a heal never rewrites the steps before the one that failed. Suggest-fix proposing a
// new card number for step 2 when step 3 failed has that op refused, named, and kept out of the
// candidate; the fix of the failed step itself still goes on to its proof.
func TestAHealNeverRewritesTheStepsBeforeTheOneThatFailed(t *testing.T) {
	early := gardener.Step{Kind: gardener.Fill, Locator: loc("label=Card"), Value: "5555 5555"}
	click := gardener.Step{Kind: gardener.Click, Locator: loc(`role=button[name="Pay now"]`)}
	fail := failing()
	fail.Result.FailedStep, fail.Result.FailedIndex, fail.Result.ErrorKind = "3", 2, gardener.ErrElementNotFound
	m := scripted{ops: gardener.OpsAnswer{Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &early}, {Kind: gardener.OpReplace, Index: 2, Step: &click}}}}
	runner := &recording{}
	res, err := (&Ladder{Runner: runner, Model: m}).Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: fail, Rungs: []gardener.Strategy{gardener.StrategySuggestFix}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refusals) == 0 || res.Refusals[0].Path != "2" || !strings.Contains(res.Refusals[0].Reason, "a heal never rewrites the steps before the one that failed") {
		t.Fatalf("refusals %+v", res.Refusals)
	}
	if len(runner.seen) == 0 {
		t.Fatal("the fix of the failed step was never proven")
	}
	for _, steps := range runner.seen {
		if !steps[1].Equal(test().Steps[1]) {
			t.Fatalf("a candidate rewrote step 2, which passed: %s", steps[1].Redacted())
		}
	}
	if !runner.seen[0][2].Equal(click) {
		t.Fatalf("the failed step's fix is not in the candidate: %s", runner.seen[0][2].Redacted())
	}
	// Only earlier steps proposed: nothing reaches the gate.
	m.ops.Ops = m.ops.Ops[:1]
	res, err = (&Ladder{Runner: noBrowser{t}, Model: m}).Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: fail, Rungs: []gardener.Strategy{gardener.StrategySuggestFix}})
	if err != nil || res.Outcome != Refused {
		t.Fatalf("%v: %s (%s)", err, res.Outcome, res.Reason)
	}
}

// TestDriftWhoseRepairFailsIsNotFiledAsDrift: a diagnosis that takes the failure for drift and
// names its repair, whose proof then fails as the run did (a renamed field in front of a dead
// button), files the issue as unknown, saying why; the diagnosis's own evidence stays.
func TestDriftWhoseRepairFailsIsNotFiledAsDrift(t *testing.T) {
	fix := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator(`role=button[name="Accept all"]`)}
	m := scripted{diag: gardener.Diagnosis{Classification: gardener.TestDrift, Evidence: []string{"a banner stands in the way"}, Ops: []gardener.Op{{Kind: gardener.OpInsert, Index: 3, Step: &fix}}}}
	l := &Ladder{Runner: runnerFunc(func(gardener.Test) gardener.Replay { return *failing() }), Model: m}
	green := &gardener.RunResult{TestID: "t", TestVersion: 1, Passed: true, FailedIndex: -1}
	res, err := l.Repair(context.Background(), Request{Test: test(), Mode: gardener.ModeApply, Failure: failing(), LastGreen: green, Rungs: []gardener.Strategy{gardener.StrategyDiagnose}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != Triaged || res.Triage == nil || res.Triage.Classification != gardener.Unknown {
		t.Fatalf("%s (%s): %+v", res.Outcome, res.Reason, res.Triage)
	}
	ev := strings.Join(res.Triage.Evidence, "; ")
	if !strings.Contains(ev, "a banner stands in the way") || !strings.Contains(ev, "did not pass its proof") {
		t.Errorf("evidence: %s", ev)
	}
}
