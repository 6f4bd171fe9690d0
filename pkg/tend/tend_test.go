package tend

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// heals answers self-heal with one new locator.
type heals struct{ to gardener.Locator }

func (h heals) Name() string { return "heals" }
func (h heals) FixLocator(context.Context, gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	return gardener.LocatorAnswer{Locator: h.to, Confidence: 1}, nil
}
func (heals) SuggestOps(context.Context, gardener.OpsAsk) (gardener.OpsAnswer, error) {
	return gardener.OpsAnswer{}, nil
}
func (heals) Diagnose(context.Context, gardener.DiagnoseAsk) (gardener.Diagnosis, error) {
	return gardener.Diagnosis{Classification: gardener.Unknown}, nil
}
func (heals) DeriveIntent(context.Context, gardener.IntentAsk) (gardener.IntentAnswer, error) {
	return gardener.IntentAnswer{}, nil
}

// greenRunner passes every replay; a probed check fails before its step only for the tests
// named in sensitive. A test's checks that pass before their step are insensitive.
type greenRunner struct{ sensitive map[string]bool }

func (g greenRunner) Replay(_ context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	rep := gardener.Replay{Result: gardener.RunResult{TestID: t.ID, Passed: true, FailedIndex: -1}}
	for i, s := range t.Steps {
		rec := gardener.StepRecord{Path: strconv.Itoa(i + 1), Kind: s.Kind, URLBefore: "http://app/login", URLAfter: "http://app/login", Passed: true}
		if s.Kind == gardener.Fill {
			rec.Values = []string{s.Value}
		}
		rep.Result.Steps = append(rep.Result.Steps, rec)
	}
	rep.Probes = map[int][]gardener.ProbeResult{}
	for a, checks := range o.Probes {
		for _, c := range checks {
			rep.Probes[a] = append(rep.Probes[a], gardener.ProbeResult{Check: c, Passed: !g.sensitive[t.ID]})
		}
	}
	return rep, nil
}

func steps() []gardener.Step {
	return []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Fill, Locator: gardener.MustLocator("label=Username"), Value: "demo"},
		{Kind: gardener.Click, Locator: gardener.MustLocator(`role=button[name="Login"]`)},
		{Kind: gardener.AssertVisible, Locator: gardener.MustLocator(`role=heading[name="Welcome"]`)},
	}
}

// stepsOf are test id's steps: b also checks, after its click, that the login button is still
// shown, by the locator the heal of a's click moves, so the propagated copy moves b's check too
// and b's own check must be proven sensitive (a check a repair moves is the repair's to prove).
func stepsOf(id string) []gardener.Step {
	s := steps()
	if id == "b" {
		s = append(s, gardener.Step{Kind: gardener.AssertVisible, Locator: gardener.MustLocator(`role=button[name="Login"]`)})
	}
	return s
}

// tendWith heals test a's click onto to with a runner that finds the checks of the tests in
// sensitive sensitive, and returns what became of a and of b, which uses the same locator.
func tendWith(t *testing.T, sensitive map[string]bool, to string) Tended {
	t.Helper()
	return tendIn(t, true, sensitive, to, func(*Job) {})
}

// tendIn is tendWith in a project whose auto-repair is autoRepair, with the job as edit makes it.
func tendIn(t *testing.T, autoRepair bool, sensitive map[string]bool, to string, edit func(*Job)) Tended {
	t.Helper()
	ctx := context.Background()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.PutProject(ctx, gardener.Project{ID: "p", Plan: gardener.PlanPro, AutoRepair: autoRepair, Model: "heals", AllowedOrigins: []string{"http://app"}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if err := store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: stepsOf(id)}); err != nil {
			t.Fatal(err)
		}
	}
	res := gardener.RunResult{TestID: "a", TestVersion: 1, FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound, Message: "no element"}
	run := gardener.Run{ID: "run-1", ProjectID: "p", TestID: "a", TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &res, At: time.Now()}
	if err := store.PutRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	lad := &ladder.Ladder{Runner: greenRunner{sensitive: sensitive}, Model: heals{to: gardener.MustLocator(to)}}
	tender := &Tender{Store: store, Life: lifecycle.New(store, nil), Ladder: lad}
	job := Job{TestID: "a", Mode: gardener.ModeApply, Run: &run, Failure: &gardener.Replay{Result: res}, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}}
	edit(&job)
	out, err := tender.Tend(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProposeModeSaysWhoAskedForIt: a trusted fix staged in propose mode says why it was staged:
// the request asked to propose (in a project that repairs itself, whose console says
// auto-repair is on), or the project's auto-repair is off — never the setting when it is on.
// The words ride the decision a state machine passes on, so persist stages with them too.
func TestProposeModeSaysWhoAskedForIt(t *testing.T) {
	for _, c := range []struct {
		name       string
		autoRepair bool
		propose    bool
		reason     string
	}{
		{"asked in an auto-repair project", true, true, "proposed for review: the request asked to propose, not to apply"},
		{"asked in a proposing project", false, true, "proposed for review: the request asked to propose, not to apply"},
		{"the project's auto-repair is off", false, false, "proposed for review: auto-repair is off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := tendIn(t, c.autoRepair, map[string]bool{"a": true, "b": true}, "#login-btn", func(j *Job) {
				j.By, j.Actor = "ann@example.com", gardener.ActorPerson
				j.Mode, j.ModeFrom = gardener.ModeOf(c.autoRepair, c.propose, gardener.ActorPerson)
			})
			if out.Persisted.Outcome != ladder.Staged || out.Persisted.Reason != c.reason || out.Persisted.Staged == nil || out.Persisted.Staged.Proposal.Reason != c.reason {
				t.Fatalf("persisted %s (%q), want staged with %q", out.Persisted.Outcome, out.Persisted.Reason, c.reason)
			}
			b, err := json.Marshal(out.Decision.Brief("h"))
			if err != nil {
				t.Fatal(err)
			}
			var back Decision
			if err := json.Unmarshal(b, &back); err != nil || back.ModeFrom != out.Decision.ModeFrom {
				t.Fatalf("the brief %s lost where the mode came from (%q): %v", b, out.Decision.ModeFrom, err)
			}
			back.Verdict = out.Decision.Verdict
			if got := gardener.Decide(*back.Verdict, back.Mode, back.ModeFrom, back.actor()); got.Apply || got.Reason != c.reason {
				t.Errorf("persist's decision from the brief: %+v, want staged with %q", got, c.reason)
			}
		})
	}
}

// Nothing propagates from a fix staged for a person (here a heal onto a generated id, a volatile
// locator); an applied one propagates, and each copy is judged against its own test: one whose
// check the copy moved is insensitive there is staged, not applied.
func TestPropagationFollowsTheOriginal(t *testing.T) {
	held := tendWith(t, map[string]bool{"b": true}, "#login-btn-48213")
	if held.Persisted.Outcome != ladder.Staged || len(held.Propagated) != 0 {
		t.Fatalf("a fix held for a person: outcome %s, propagated %+v", held.Persisted.Outcome, held.Propagated)
	}
	applied := tendWith(t, map[string]bool{"a": true}, "#login-btn")
	if applied.Persisted.Outcome != ladder.Repaired || len(applied.Propagated) != 1 {
		t.Fatalf("an applied fix: outcome %s (%s), propagated %+v", applied.Persisted.Outcome, applied.Persisted.Reason, applied.Propagated)
	}
	p := applied.Propagated[0]
	if !p.Green || p.Persisted == nil || p.Persisted.Outcome != ladder.Staged {
		t.Fatalf("the copy in b, whose check is insensitive there, must be staged: %+v", p)
	}
	both := tendWith(t, map[string]bool{"a": true, "b": true}, "#login-btn")
	if len(both.Propagated) != 1 || both.Propagated[0].Persisted == nil || both.Propagated[0].Persisted.Outcome != ladder.Repaired {
		t.Fatalf("a copy every trust check passes is applied: %+v", both.Propagated)
	}
	// The copy's repair is read and reverted through the API by its id, a path segment.
	if a := both.Propagated[0].Persisted.Applied; a == nil || a.Repair.ID == "" || url.PathEscape(a.Repair.ID) != a.Repair.ID {
		t.Errorf("the propagated repair's id is not one URL path segment: %+v", a)
	}
}

// brokenClick fails test a at its click (step 3) until the click's locator is #login-btn, as a
// drifted app does; it types the fill's value on the way, as a browser records it.
type brokenClick struct{}

func (brokenClick) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	rep := gardener.Replay{Result: gardener.RunResult{TestID: t.ID, Passed: true, FailedIndex: -1}}
	for i, s := range t.Steps {
		rec := gardener.StepRecord{Path: strconv.Itoa(i + 1), Kind: s.Kind, URLBefore: "http://app/login", URLAfter: "http://app/login", Passed: true}
		if s.Kind == gardener.Fill {
			rec.Values = []string{s.Value}
		}
		if s.Kind == gardener.Click && s.Locator.String() != "css=#login-btn" {
			rec.Passed = false
			rep.Result.Steps = append(rep.Result.Steps, rec)
			rep.Result.Passed, rep.Result.FailedStep, rep.Result.FailedIndex = false, rec.Path, i
			rep.Result.ErrorKind, rep.Result.Message, rep.Result.FinalURL = gardener.ErrElementNotFound, `no element matches role=button[name="Login"]`, "http://app/login"
			return rep, nil
		}
		rep.Result.Steps = append(rep.Result.Steps, rec)
	}
	return rep, nil
}

// TestClimbRecordsTheReproducedFailureOnARunWithoutOne: a repair started with no run (the API
// records one with no result) stores the failure the ladder reproduced on that run, so its page
// shows the failing step; a result a platform delivered, or a run of another version, is left.
func TestClimbRecordsTheReproducedFailureOnARunWithoutOne(t *testing.T) {
	delivered := gardener.RunResult{TestID: "a", TestVersion: 1, FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrTimeout, Message: "delivered"}
	cases := []struct {
		name     string
		result   *gardener.RunResult
		version  int
		wantStep string // the failing step the stored run then has; "" for none
		wantMsg  string
	}{
		{"an API-started run with no result", nil, 1, "3", "no element matches"},
		{"a run whose platform delivered a result", &delivered, 1, "2", "delivered"},
		{"a run of an older version", nil, 0, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			if err := store.PutProject(ctx, gardener.Project{ID: "p", Plan: gardener.PlanPro, Model: "heals", AllowedOrigins: []string{"http://app"}}); err != nil {
				t.Fatal(err)
			}
			if err := store.CreateTest(ctx, gardener.Test{ID: "a", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps()}); err != nil {
				t.Fatal(err)
			}
			run := gardener.Run{ID: "run-1", ProjectID: "p", TestID: "a", TestVersion: c.version, Trigger: gardener.TriggerManual, Result: c.result, At: time.Now()}
			if err := store.PutRun(ctx, run); err != nil {
				t.Fatal(err)
			}
			lad := &ladder.Ladder{Runner: brokenClick{}, Model: heals{to: gardener.MustLocator("#login-btn")}}
			tender := &Tender{Store: store, Life: lifecycle.New(store, nil), Ladder: lad}
			res, _, err := tender.Climb(ctx, Job{TestID: "a", Mode: gardener.ModePropose, Run: &run, By: "ann", Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
			if err != nil {
				t.Fatal(err)
			}
			if res.FailedRun == nil || res.FailedRun.FailedStep != "3" {
				t.Fatalf("the ladder reproduced %+v, want a failure at step 3", res.FailedRun)
			}
			got, err := store.Run(ctx, "run-1")
			if err != nil {
				t.Fatal(err)
			}
			if c.wantStep == "" {
				if got.Result != nil {
					t.Errorf("the run of another version got a result: %+v", got.Result)
				}
				return
			}
			if got.Result == nil || got.Result.FailedStep != c.wantStep || !strings.Contains(got.Result.Message, c.wantMsg) || got.Result.Passed {
				t.Fatalf("the stored run's result is %+v, want a failure at step %s saying %q", got.Result, c.wantStep, c.wantMsg)
			}
			for _, rec := range got.Result.Steps {
				if len(rec.Values) > 0 {
					t.Errorf("the stored run keeps the typed values of step %s", rec.Path)
				}
			}
		})
	}
}

// diagnosesBug heals to a locator that is not there either, and diagnoses an app bug.
type diagnosesBug struct{ heals }

func (diagnosesBug) Diagnose(context.Context, gardener.DiagnoseAsk) (gardener.Diagnosis, error) {
	return gardener.Diagnosis{Classification: gardener.AppBug, Evidence: []string{"the button is gone"}}, nil
}

// TestNoGreenRunIsNoVerdict (invariant 13): with no green run of the test's version the climb
// cannot tell drift from a bug, so a diagnosis of an app bug files no triage issue and says
// why; with a green run of the version the same diagnosis is an app bug, filed.
func TestNoGreenRunIsNoVerdict(t *testing.T) {
	for _, c := range []struct {
		name   string
		green  bool
		reason string
		filed  int
	}{
		{"no green run", false, "no green run of version 1 of test a is recorded: the gardener cannot tell drift from a bug", 0},
		{"a green run of the version", true, "diagnosed as app-bug, not test drift: nothing is repaired", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			if err := store.PutProject(ctx, gardener.Project{ID: "p", Plan: gardener.PlanPro, AutoRepair: true, Model: "heals", AllowedOrigins: []string{"http://app"}}); err != nil {
				t.Fatal(err)
			}
			if err := store.CreateTest(ctx, gardener.Test{ID: "a", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps()}); err != nil {
				t.Fatal(err)
			}
			if c.green {
				rep, _ := greenRunner{}.Replay(ctx, gardener.Test{ID: "a", Version: 1, Steps: steps()}, gardener.ReplayOptions{})
				rep.Result.TestVersion = 1
				if err := store.PutRun(ctx, gardener.Run{ID: "green-1", ProjectID: "p", TestID: "a", TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &rep.Result, At: time.Now().Add(-time.Hour)}); err != nil {
					t.Fatal(err)
				}
			}
			res := gardener.RunResult{TestID: "a", TestVersion: 1, FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound, Message: "no element"}
			run := gardener.Run{ID: "run-1", ProjectID: "p", TestID: "a", TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &res, At: time.Now()}
			if err := store.PutRun(ctx, run); err != nil {
				t.Fatal(err)
			}
			lad := &ladder.Ladder{Runner: brokenClick{}, Model: diagnosesBug{heals{to: gardener.MustLocator("#elsewhere")}}}
			tender := &Tender{Store: store, Life: lifecycle.New(store, nil), Ladder: lad}
			out, err := tender.Tend(ctx, Job{TestID: "a", Mode: gardener.ModeApply, Run: &run})
			if err != nil {
				t.Fatal(err)
			}
			if out.Persisted.Outcome != ladder.Triaged || out.Persisted.Reason != c.reason {
				t.Errorf("persisted %s (%s), want triaged (%s)", out.Persisted.Outcome, out.Persisted.Reason, c.reason)
			}
			issues, err := store.TriageIssues(ctx, "p")
			if err != nil {
				t.Fatal(err)
			}
			if len(issues) != c.filed || (out.Persisted.Triage != nil) != (c.filed > 0) {
				t.Errorf("%d triage issue(s) stored, persisted %+v; want %d", len(issues), out.Persisted.Triage, c.filed)
			}
		})
	}
}

// TestPersistedBriefReadsBrief: what Brief encodes, PersistedBrief reads back, its ids, versions
// and outcome as they were (a change to one without the other fails here).
func TestPersistedBriefReadsBrief(t *testing.T) {
	p := Persisted{Outcome: ladder.Repaired, Reason: "why",
		Applied: &lifecycle.Applied{
			Test:   gardener.Test{ID: "t", ProjectID: "p", Name: "n", Status: gardener.StatusActive, Version: 2, Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}},
			Repair: gardener.Repair{ID: "r", TestID: "t", FromVersion: 1, ToVersion: 2}},
		Triage: &gardener.TriageIssue{ID: "tri", TestID: "t"}}
	b, err := json.Marshal(p.Brief())
	if err != nil {
		t.Fatal(err)
	}
	var brief PersistedBrief
	if err := json.Unmarshal(b, &brief); err != nil {
		t.Fatal(err)
	}
	got := brief.Persisted()
	if got.Outcome != p.Outcome || got.Reason != p.Reason || got.Applied == nil || got.Applied.Test.ID != "t" || got.Applied.Test.Version != 2 ||
		got.Applied.Repair.ID != "r" || got.Applied.Repair.ToVersion != 2 || got.Triage == nil || got.Triage.ID != "tri" {
		t.Errorf("read back %+v from %s", got, b)
	}
}
