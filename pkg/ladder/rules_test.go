package ladder

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// passing is a runner whose every replay passes, recording each top-level step on one URL (or
// on leaves, when the step is a goto to it) and evaluating the probes it is asked for with
// sensitive: a probed check fails before its step exactly when sensitive says so.
type passing struct {
	sensitive func(check gardener.Step) bool
	leaves    string // a goto to this URL changes the page's URL
}

func (p passing) Replay(_ context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	rep := gardener.Replay{Result: gardener.RunResult{TestID: t.ID, Passed: true, FailedIndex: -1}}
	url := "http://app/login"
	for i, s := range t.Steps {
		before := url
		if s.Kind == gardener.Goto && s.URL == p.leaves {
			url = "http://app" + s.URL
		}
		rec := gardener.StepRecord{Path: strconv.Itoa(i + 1), Kind: s.Kind, URLBefore: before, URLAfter: url, Passed: true}
		if s.Kind == gardener.Fill {
			rec.Values = []string{s.Value}
		}
		rep.Result.Steps = append(rep.Result.Steps, rec)
	}
	for a, checks := range o.Probes {
		if rep.Probes == nil {
			rep.Probes = map[int][]gardener.ProbeResult{}
		}
		for _, c := range checks {
			rep.Probes[a] = append(rep.Probes[a], gardener.ProbeResult{Check: c, Passed: !p.sensitive(c)})
		}
	}
	return rep, nil
}

func always(gardener.Step) bool { return true }

// loginSteps: the failing step is the wait at index 4, after an overlay appeared.
func loginSteps() []gardener.Step {
	return []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Fill, Locator: loc("label=Username"), Value: "demo"},
		{Kind: gardener.Click, Locator: loc(`role=button[name="Login"]`)},
		{Kind: gardener.Wait, For: gardener.WaitURL, URL: "/dashboard"},
		{Kind: gardener.AssertVisible, Locator: loc(`role=heading[name="Welcome"]`)},
	}
}

func repairWith(t *testing.T, r gardener.Runner, ops ...gardener.Op) Result {
	t.Helper()
	return repairAt(t, r, 3, ops...)
}

// repairAt is repairWith for a recorded run that failed at the 0-based step failed: a heal
// never rewrites the steps before it.
func repairAt(t *testing.T, r gardener.Runner, failed int, ops ...gardener.Op) Result {
	t.Helper()
	tt := gardener.Test{ID: "t", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: loginSteps()}
	fail := &gardener.Replay{Result: gardener.RunResult{TestID: "t", FailedStep: strconv.Itoa(failed + 1), FailedIndex: failed, ErrorKind: gardener.ErrAssertionFailed, Message: "url is /login"}}
	l := &Ladder{Runner: r, Model: scripted{ops: gardener.OpsAnswer{Ops: ops}}}
	res, err := l.Repair(context.Background(), Request{Test: tt, Mode: gardener.ModeApply, Failure: fail, Rungs: []gardener.Strategy{gardener.StrategySuggestFix}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func insert(i int, s gardener.Step) gardener.Op {
	return gardener.Op{Kind: gardener.OpInsert, Index: i, Step: &s}
}

func hasNote(v *gardener.Verdict, k gardener.NoteKind) bool {
	if v == nil {
		return false
	}
	for _, n := range v.Notes {
		if n.Kind == k {
			return true
		}
	}
	return false
}

// A flow change holds a repair for a person even in apply mode, however sensitive its checks:
// added navigation, an action dropped, an action replaced by a goto. Each fails at the step its
// op changes, since a heal never rewrites a step before the failed one.
func TestFlowChangesHoldForAPerson(t *testing.T) {
	goTo := gardener.Step{Kind: gardener.Goto, URL: "/dashboard"}
	for name, ops := range map[string][]gardener.Op{
		"goto added before the wait":      {insert(3, goTo)},
		"click dropped":                   {{Kind: gardener.OpDelete, Index: 2}},
		"click replaced by a goto":        {{Kind: gardener.OpReplace, Index: 2, Step: &goTo}},
		"goto redirected to another page": {{Kind: gardener.OpReplace, Index: 0, Step: &goTo}},
	} {
		res := repairAt(t, passing{sensitive: always, leaves: "/dashboard"}, min(ops[0].Index, 3), ops...)
		if res.Outcome != Staged || !hasNote(res.Verdict, gardener.NoteFlowChange) {
			t.Errorf("%s: outcome %s (%s), want staged with a flow-change note", name, res.Outcome, res.Reason)
		}
	}
}

// A repair that only adds an action (a click that dismisses an overlay) is applied when every
// check after it is proven sensitive, and held when one is not.
func TestAddedActionNeedsSensitiveChecks(t *testing.T) {
	dismiss := insert(2, gardener.Step{Kind: gardener.Click, Locator: loc(`role=button[name="Accept cookies"]`)})
	res := repairWith(t, passing{sensitive: always}, dismiss)
	if res.Outcome != Repaired || !hasNote(res.Verdict, gardener.NoteActionAdded) {
		t.Fatalf("outcome %s (%s), want repaired with an action-added note", res.Outcome, res.Reason)
	}
	insensitive := func(c gardener.Step) bool { return c.Kind != gardener.AssertVisible }
	res = repairWith(t, passing{sensitive: insensitive}, dismiss)
	if res.Outcome != Staged || !hasNote(res.Verdict, gardener.NoteUnprovenCheck) || !strings.Contains(res.Reason, "step 6") {
		t.Fatalf("outcome %s (%s), want staged for the insensitive check at step 6", res.Outcome, res.Reason)
	}
	// The check the note names is review, whatever changed in it.
	if res.Verdict.Sensitivity.Total != 2 || len(res.Verdict.Sensitivity.Insensitive) != 1 {
		t.Errorf("sensitivity %+v", res.Verdict.Sensitivity)
	}
}

// An insensitive check the repair neither touched nor precedes only gets a note.
func TestUntouchedInsensitiveCheckDoesNotHold(t *testing.T) {
	steps := loginSteps()
	healed := steps[4].Clone()
	healed.Locator = loc("css=h1.welcome")
	insensitiveWait := func(c gardener.Step) bool { return c.Kind != gardener.Wait }
	res := repairWith(t, passing{sensitive: insensitiveWait}, gardener.Op{Kind: gardener.OpReplace, Index: 4, Step: &healed})
	if res.Outcome != Repaired || !hasNote(res.Verdict, gardener.NoteInsensitiveCheck) {
		t.Fatalf("outcome %s (%s), want repaired with an insensitive-check note on the wait", res.Outcome, res.Reason)
	}
}

// A check that passes before the action it follows is the test's own when the repair only found
// that action another way: the page the probe reads is the one before the action, which a
// locator does not change, so the check passed there on the recorded test too. It gets a note
// and does not hold the repair. The same check held when the repair moved the check itself,
// or added an action before it: then the repair made what it reads.
func TestInsensitiveCheckTheTestAlwaysHadDoesNotHold(t *testing.T) {
	steps := loginSteps()
	renamed := steps[2].Clone()
	renamed.Locator = loc(`role=button[name="Sign in"]`)
	insensitive := func(c gardener.Step) bool { return c.Kind != gardener.AssertVisible }
	res := repairAt(t, passing{sensitive: insensitive}, 2, gardener.Op{Kind: gardener.OpReplace, Index: 2, Step: &renamed})
	if res.Outcome != Repaired || !hasNote(res.Verdict, gardener.NoteInsensitiveCheck) || hasNote(res.Verdict, gardener.NoteUnprovenCheck) {
		t.Fatalf("a renamed submit button before the test's own insensitive check: outcome %s (%s), want repaired with an insensitive-check note", res.Outcome, res.Reason)
	}
	moved := steps[4].Clone()
	moved.Locator = loc(`role=heading[name="Welcome back"]`)
	res = repairAt(t, passing{sensitive: insensitive}, 4, gardener.Op{Kind: gardener.OpReplace, Index: 4, Step: &moved})
	if res.Outcome != Staged || !hasNote(res.Verdict, gardener.NoteUnprovenCheck) {
		t.Fatalf("the repair moved the insensitive check: outcome %s (%s), want staged with an unproven-check note", res.Outcome, res.Reason)
	}
	pressed := gardener.Step{Kind: gardener.Press, Locator: loc("label=Username"), Key: "Enter"}
	res = repairAt(t, passing{sensitive: insensitive}, 2, gardener.Op{Kind: gardener.OpReplace, Index: 2, Step: &pressed})
	if res.Outcome != Staged || !hasNote(res.Verdict, gardener.NoteUnprovenCheck) {
		t.Fatalf("the repair replaced the click by a key press: outcome %s (%s), want staged with an unproven-check note", res.Outcome, res.Reason)
	}
}

// An intent block is confirmed by a check after it that fails when the block is skipped, or by
// ending where it did on its last green run; a check that passes either way confirms nothing.
func TestIntentConfirmation(t *testing.T) {
	block := gardener.Step{Kind: gardener.Intent, Goal: "log in", Values: map[string]string{"u": "demo"}, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Click, Locator: loc("text=Login")},
	}}
	after := gardener.Step{Kind: gardener.AssertVisible, Locator: loc("text=Welcome")}
	tt := gardener.Test{ID: "t", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{block, after}}
	fail := &gardener.Replay{Result: gardener.RunResult{TestID: "t", FailedStep: "1.2", FailedIndex: 0, ErrorKind: gardener.ErrElementNotFound}}
	derived := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, {Kind: gardener.Click, Locator: loc("#login-btn")}}
	climb := func(r gardener.Runner, green *gardener.RunResult) Result {
		l := &Ladder{Runner: r, Model: deriving{steps: derived}}
		res, err := l.Repair(context.Background(), Request{Test: tt, Mode: gardener.ModeApply, Failure: fail, LastGreen: green, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := climb(passing{sensitive: always}, nil); res.Verdict == nil || !res.Verdict.IntentConfirmed {
		t.Fatalf("a check after the block that fails without it must confirm it: %s (%s)", res.Outcome, res.Reason)
	}
	never := func(gardener.Step) bool { return false }
	res := climb(passing{sensitive: never}, nil)
	if res.Verdict == nil || res.Verdict.IntentConfirmed || res.Outcome != Staged {
		t.Fatalf("a check that passes whether or not the block ran confirms nothing: %s (%s)", res.Outcome, res.Reason)
	}
	// The same insensitive check, but the block ends where it did on its last green run.
	green := &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{{Path: "1.2", URLAfter: "http://app/login", Passed: true}}}
	proofRunner := innerRecords{passing{sensitive: never}}
	if res := climb(proofRunner, green); res.Verdict == nil || !res.Verdict.IntentConfirmed {
		t.Fatalf("a block that ends where it did on its last green run is confirmed: %s (%s)", res.Outcome, res.Reason)
	}
}

// innerRecords adds a record for the last step inside the intent block at step 1.
type innerRecords struct{ passing }

func (r innerRecords) Replay(ctx context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	rep, err := r.passing.Replay(ctx, t, o)
	rep.Result.Steps = append(rep.Result.Steps, gardener.StepRecord{Path: "1." + strconv.Itoa(len(t.Steps[0].Steps)), URLAfter: "http://app/login", Passed: true})
	return rep, err
}

type deriving struct {
	scripted
	steps []gardener.Step
}

func (d deriving) DeriveIntent(context.Context, gardener.IntentAsk) (gardener.IntentAnswer, error) {
	return gardener.IntentAnswer{Steps: gardener.CloneSteps(d.steps)}, nil
}

// A propagated fix is judged like the ladder's own: a check of the other test that the heal
// moved and that is not proven sensitive holds it for a person.
func TestPropagatedFixIsJudgedAgainstItsOwnTest(t *testing.T) {
	other := gardener.Test{ID: "other", ProjectID: "p", Status: gardener.StatusActive, Version: 3, Steps: loginSteps()}
	change := []LocatorChange{{From: loc(`role=heading[name="Welcome"]`), To: loc(`role=heading[name="Welcome back"]`)}}
	l := &Ladder{Runner: passing{sensitive: func(c gardener.Step) bool { return c.Kind != gardener.AssertVisible }}, Model: scripted{}}
	props, err := l.Propagate(context.Background(), change, []Target{{Test: other}}, gardener.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(props) != 1 || !props[0].Green {
		t.Fatalf("propagated %+v", props)
	}
	if need, why := props[0].Verdict.NeedsPerson(); !need || !strings.Contains(why, "step 5") {
		t.Fatalf("the propagated fix must need a person for its insensitive check at step 5; needs %v (%s)", need, why)
	}
	l.Runner = passing{sensitive: always}
	props, err = l.Propagate(context.Background(), change, []Target{{Test: other}}, gardener.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if need, why := props[0].Verdict.NeedsPerson(); need || props[0].Verdict.Sensitivity.Total != 2 {
		t.Fatalf("a propagated fix with every check proven sensitive needs no person: %s, sensitivity %+v", why, props[0].Verdict.Sensitivity)
	}
}

// A fix that adds a fill for a field the form now requires is named for what it is — an added
// input, its step classed review — not a behaviour change (spec 002's behaviour change is a
// step that no longer enters, picks or uploads what the recording did, and nothing the
// recording entered is lost here); it neither drops an action nor adds navigation, so in apply
// mode it is written (DESIGN invariant 10 names no hold for it) when its checks are sensitive.
func TestAnAddedInputIsNamedAsOne(t *testing.T) {
	name := insert(2, gardener.Step{Kind: gardener.Fill, Locator: loc("label=Full name"), Value: "Ann Lee"})
	res := repairWith(t, passing{sensitive: always}, name)
	if res.Outcome != Repaired {
		t.Fatalf("outcome %s (%s), want repaired: an added input is no hold the design names", res.Outcome, res.Reason)
	}
	if hasNote(res.Verdict, gardener.NoteBehaviorChange) || !hasNote(res.Verdict, gardener.NoteInputAdded) {
		t.Fatalf("notes %+v, want an input-added note and no behaviour change", res.Verdict.Notes)
	}
	for _, n := range res.Verdict.Notes {
		if n.Kind != gardener.NoteInputAdded {
			continue
		}
		const want = "the repaired test enters fill label=Full name [value redacted, 7 chars] at step 3, which the recorded test did not: a new input the test now gives"
		if n.Kind.Label() != "Input added" || !strings.HasPrefix(n.Body(), want) || n.Step != "3" || strings.Contains(n.Text, "Ann Lee") {
			t.Errorf("note %s: %q, want it to open %q", n.Kind.Label(), n.Body(), want)
		}
	}
	for _, c := range res.Verdict.Changes {
		if c.Path == "3" && c.Class != gardener.ClassReview {
			t.Errorf("the added input is classed %s, want review", c.Class)
		}
	}
}

// elementRecords records, for each click, an element named as its role locator names it, as a
// browser's proof does.
type elementRecords struct{ passing }

func (r elementRecords) Replay(ctx context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	rep, err := r.passing.Replay(ctx, t, o)
	for i := range rep.Result.Steps {
		if s := t.Steps[i]; s.Kind == gardener.Click {
			rep.Result.Steps[i].Element = &gardener.Fingerprint{Tag: "BUTTON", AccessibleName: s.Target().Name}
		}
	}
	return rep, err
}

// An inserted dismissal of an overlay (a click on "Accept cookies" that stays on the page and
// sends nothing) takes away only what the recorded page never had: a later check insensitive to
// its own action is the test's own and does not hold the fix. Any other added click still makes
// every later check the repair's to prove.
func TestAddedDismissalLeavesTheTestsOwnChecks(t *testing.T) {
	insensitive := func(c gardener.Step) bool { return c.Kind != gardener.AssertVisible }
	dismiss := insert(2, gardener.Step{Kind: gardener.Click, Locator: loc(`role=button[name="Accept cookies"]`)})
	res := repairAt(t, elementRecords{passing{sensitive: insensitive}}, 2, dismiss)
	if res.Outcome != Repaired || !hasNote(res.Verdict, gardener.NoteActionAdded) || !hasNote(res.Verdict, gardener.NoteInsensitiveCheck) {
		t.Fatalf("an added dismissal before the test's own insensitive check: outcome %s (%s), want repaired with action-added and insensitive-check notes", res.Outcome, res.Reason)
	}
	other := insert(2, gardener.Step{Kind: gardener.Click, Locator: loc(`role=button[name="Show details"]`)})
	res = repairAt(t, elementRecords{passing{sensitive: insensitive}}, 2, other)
	if res.Outcome != Staged || !hasNote(res.Verdict, gardener.NoteUnprovenCheck) {
		t.Fatalf("an added click that dismisses nothing: outcome %s (%s), want staged with an unproven-check note", res.Outcome, res.Reason)
	}
}
