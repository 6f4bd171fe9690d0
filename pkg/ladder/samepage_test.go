package ladder

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// renamedForm is a login page on which the e-mail and password fields were both renamed: a
// replay fails at the first step whose locator is gone, and, as the browser does, says what
// each later step's locator matches on the page it failed on.
type renamedForm struct{ gone map[string]bool }

func (p renamedForm) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	res := gardener.RunResult{TestID: t.ID, TestVersion: t.Version, FailedIndex: -1}
	for i, st := range t.Steps {
		path := strconv.Itoa(i + 1)
		if !p.gone[st.Target().String()] {
			res.Steps = append(res.Steps, gardener.StepRecord{Path: path, Kind: st.Kind, Passed: true})
			continue
		}
		res.Steps = append(res.Steps, gardener.StepRecord{Path: path, Kind: st.Kind})
		res.FailedStep, res.FailedIndex, res.ErrorKind = path, i, gardener.ErrElementNotFound
		res.Message = "no element matches " + st.Target().String()
		ahead := map[string]gardener.ResolvedLocator{}
		for _, later := range t.Steps[i+1:] {
			if l := later.Target(); !l.IsZero() {
				ahead[l.String()] = gardener.ResolvedLocator{Count: boolInt(!p.gone[l.String()]), Visible: boolInt(!p.gone[l.String()])}
			}
		}
		return gardener.Replay{Result: res, Ahead: ahead, Snapshot: &gardener.Snapshot{URL: "http://app.test/login", Candidates: make([]gardener.Fingerprint, 4)}}, nil
	}
	res.Passed = true
	return gardener.Replay{Result: res}, nil
}

// perStep answers a locator ask by the index of the step asked about.
type perStep struct {
	scripted
	at map[int]string
}

func (m perStep) FixLocator(_ context.Context, ask gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	if l, ok := m.at[ask.Index]; ok {
		return gardener.LocatorAnswer{Locator: gardener.MustLocator(l), Reason: "the same field, renamed"}, nil
	}
	return gardener.LocatorAnswer{Reason: "nothing close"}, nil
}

// TestTwoRenamedFieldsOnePageOneProof: when both fields of a form were renamed, the failure at
// the first shows the second gone from the same page too, and both are healed in the first
// candidate: one reproduction and one proof, where healing them one by one took a second proof
// (and, in a browser, a second step limit waited out at the second field). The click after
// them, whose button is still there, is left as recorded.
func TestTwoRenamedFieldsOnePageOneProof(t *testing.T) {
	tc := gardener.Test{ID: "login", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Fill, Locator: gardener.MustLocator("css=#email"), Value: "a@b.test"},
		{Kind: gardener.Fill, Locator: gardener.MustLocator("css=#password"), Value: "secret"},
		{Kind: gardener.Click, Locator: gardener.MustLocator("css=#submit")},
		{Kind: gardener.AssertVisible, Locator: gardener.MustLocator("css=#welcome")},
	}}
	page := renamedForm{gone: map[string]bool{"css=#email": true, "css=#password": true}}
	model := perStep{at: map[int]string{1: "label=Email", 2: "label=Password"}}
	var reproductions, proofs int
	l := &Ladder{Runner: page, Model: model, Progress: func(e Event) {
		switch {
		case e.Stage == gardener.EventReproduce && e.Passed != nil:
			reproductions++
		case e.Stage == gardener.EventProof:
			proofs++
		}
	}}
	res, err := l.Repair(context.Background(), Request{Test: tc, Mode: gardener.ModePropose, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
	if err != nil || res.Outcome != Staged {
		t.Fatalf("%v %s %s", err, res.Outcome, res.Reason)
	}
	if reproductions != 1 || proofs != 1 || res.Timings.Replays != 2 {
		t.Errorf("%d reproductions, %d proofs, %d replays; want one reproduction and one proof covering both renamed fields", reproductions, proofs, res.Timings.Replays)
	}
	want := []string{"", "label=Email", "label=Password", "css=#submit", "css=#welcome"}
	for i, st := range res.Steps {
		if got := st.Target().String(); i > 0 && got != want[i] {
			t.Errorf("step %d targets %s, want %s", i+1, got, want[i])
		}
	}
}

// seeingProof fails the reproduction at step 2 and keeps the options each later replay was
// given.
type seeingProof struct{ opts []gardener.ReplayOptions }

func (p *seeingProof) Replay(_ context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	p.opts = append(p.opts, o)
	if len(p.opts) == 1 {
		return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrElementNotFound, Message: "no element matches css=#email"},
			Snapshot: &gardener.Snapshot{URL: "http://app.test/login", Candidates: make([]gardener.Fingerprint, 3)}}, nil
	}
	return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, Passed: true, FailedIndex: -1}}, nil
}

// TestProofGivesUpOnAQuietPage: a proof may end a step early where the settled page shows none
// of its element (patient: a slow answer or a busy page is still waited for), so it does not
// wait out a step limit at an element a look already shows absent, nor at a URL check on a
// settled page; a step with a time limit of its own keeps it.
func TestProofGivesUpOnAQuietPage(t *testing.T) {
	tc := gardener.Test{ID: "login", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Fill, Locator: gardener.MustLocator("css=#email"), Value: "a@b.test"},
		{Kind: gardener.Click, Locator: gardener.MustLocator("css=#submit")},
		{Kind: gardener.AssertVisible, Locator: gardener.MustLocator("css=#report"), TimeoutMs: 20000},
		{Kind: gardener.Assert, Subject: gardener.SubjectURL, Condition: gardener.Contains, Expected: "/report"},
		{Kind: gardener.Assert, Subject: gardener.SubjectTitle, Condition: gardener.Equals, Expected: "Report", TimeoutMs: 20000},
	}}
	runner := &seeingProof{}
	l := &Ladder{Runner: runner, Model: scripted{locator: gardener.LocatorAnswer{Locator: gardener.MustLocator("label=Email"), Reason: "same field"}}}
	if _, err := l.Repair(context.Background(), Request{Test: tc, Mode: gardener.ModePropose, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}}); err != nil {
		t.Fatal(err)
	}
	if len(runner.opts) < 2 {
		t.Fatalf("%d replays: no proof was run", len(runner.opts))
	}
	q := runner.opts[1].QuietFail
	for _, i := range []int{1, 2} {
		if got, ok := q[i]; !ok || !got.Patient || got.Reported {
			t.Errorf("step %d of the proof: %+v (set %v), want a patient quiet rule", i+1, got, ok)
		}
	}
	if _, ok := q[3]; ok {
		t.Errorf("the check with a 20 s limit of its own may give up early in the proof: %+v", q[3])
	}
	if got, ok := q[4]; !ok || !got.Patient {
		t.Errorf("the URL check of the proof: %+v (set %v), want a patient quiet rule", got, ok)
	}
	if _, ok := q[5]; ok {
		t.Errorf("the title check with a 20 s limit of its own may give up early in the proof: %+v", q[5])
	}
}

// TestQuietFailReachesIntoIntentBlocks: a reproduction's steps inside an intent block give up on
// a quiet page by their own locators, as top-level steps do: the renamed login button inside a
// block used to be waited for the whole step limit.
func TestQuietFailReachesIntoIntentBlocks(t *testing.T) {
	tc := gardener.Test{ID: "nav", Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Intent, Goal: "log in", Steps: []gardener.Step{
			{Kind: gardener.Goto, URL: "/login"},
			{Kind: gardener.Click, Locator: gardener.MustLocator("text=Login")},
		}},
		{Kind: gardener.AssertVisible, Locator: gardener.MustLocator("css=#dashboard")},
	}}
	reported := &gardener.RunResult{TestID: "nav", TestVersion: 1, FailedStep: "1.2", FailedIndex: 0, ErrorKind: gardener.ErrElementNotFound}
	q := QuietFailOf(tc, reported)
	if got, ok := q[0]; !ok || got.Reported {
		t.Errorf("the intent block: %+v (set %v), want its steps to give up by their own locators", got, ok)
	}
	if _, ok := q[1]; !ok {
		t.Error("the top-level check has no quiet rule")
	}
}

// TestNoLookAheadPastAFailingClick: when the step that failed is a click, the later steps'
// elements may be on what it opens (a confirmation dialog's button), so none is healed on the
// page the click failed on: the dialog's Delete is healed by a proof that opened the dialog.
func TestNoLookAheadPastAFailingClick(t *testing.T) {
	tc := gardener.Test{ID: "delete", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/members"},
		{Kind: gardener.Click, Locator: gardener.MustLocator("css=#delete-ada")},
		{Kind: gardener.Click, Locator: gardener.MustLocator("css=#confirm")},
	}}
	page := renamedForm{gone: map[string]bool{"css=#delete-ada": true, "css=#confirm": true}}
	model := perStep{at: map[int]string{1: "role=button[name=\"Delete Ada\"]", 2: "role=button[name=\"Delete\"]"}}
	var proofs int
	var first []string
	l := &Ladder{Runner: page, Model: model, Progress: func(e Event) {
		if e.Stage == gardener.EventProof {
			proofs++
		}
		if e.Stage == gardener.EventCandidate && len(e.Ops) > 0 && first == nil {
			first = e.Ops
		}
	}}
	res, err := l.Repair(context.Background(), Request{Test: tc, Mode: gardener.ModePropose, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
	if err != nil || res.Outcome != Staged {
		t.Fatalf("%v %s %s", err, res.Outcome, res.Reason)
	}
	for _, line := range first {
		if strings.Contains(line, "step 3") {
			t.Errorf("the first candidate healed step 3 on the page the click of step 2 failed on: %v", first)
		}
	}
	if proofs != 2 {
		t.Errorf("%d proofs, want 2: the dialog's button is healed after a proof opened the dialog", proofs)
	}
}

// TestQuietFailOfChecksOfWhereThePageIs: a reproduction's assert or wait on the URL or title
// gives up on a quiet page (gardener.QuietFail: patiently unless reported); a check that names
// an element keeps the locator rule; a timed wait and a goto have none. With no failing run
// reported every rule is patient: the replay decides whether the test fails.
func TestQuietFailOfChecksOfWhereThePageIs(t *testing.T) {
	tc := gardener.Test{ID: "login", Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Assert, Subject: gardener.SubjectTitle, Condition: gardener.Equals, Expected: "Login"},
		{Kind: gardener.Wait, For: gardener.WaitURL, URL: "/home"},
		{Kind: gardener.Assert, Subject: gardener.SubjectURL, Condition: gardener.Contains, Expected: "/home"},
		{Kind: gardener.Assert, Subject: gardener.SubjectText, Locator: gardener.MustLocator("css=h1"), Condition: gardener.Contains, Expected: "Welcome"},
		{Kind: gardener.Wait, For: gardener.WaitTime, Ms: 100},
	}}
	q := QuietFailOf(tc, nil)
	for _, i := range []int{1, 2, 3, 4} {
		// No run reported failing: this replay says whether the test fails, so it waits for
		// slow answers.
		if got, ok := q[i]; !ok || got.Reported || !got.Patient || tc.Steps[i].PlaceCheck() != (i < 4) {
			t.Errorf("step %d: %+v (set %v, a place check %v), want a patient quiet rule", i+1, got, ok, tc.Steps[i].PlaceCheck())
		}
	}
	for _, i := range []int{0, 5} {
		if got, ok := q[i]; ok {
			t.Errorf("step %d has a quiet rule: %+v", i+1, got)
		}
	}
	reported := &gardener.RunResult{TestID: "login", TestVersion: 1, Passed: false, FailedIndex: 2, FailedStep: "3", ErrorKind: gardener.ErrTimeout}
	withRun := QuietFailOf(tc, reported)
	if got := withRun[2]; !got.Reported || got.Patient {
		t.Errorf("the reported wait: %+v, want reported, not patient", got)
	}
	if got := withRun[4]; got.Patient {
		t.Errorf("the text check with a failure reported: %+v, want no patience (the replay is for a snapshot)", got)
	}
}
