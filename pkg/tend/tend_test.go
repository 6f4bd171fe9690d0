package tend

import (
	"context"
	"net/url"
	"path/filepath"
	"strconv"
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

// tendWith heals test a's click with a runner that finds the checks of the tests in sensitive
// sensitive, and returns what became of a and of b, which uses the same locator.
func tendWith(t *testing.T, sensitive map[string]bool) Tended {
	t.Helper()
	ctx := context.Background()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.PutProject(ctx, gardener.Project{ID: "p", Plan: gardener.PlanPro, AutoRepair: true, Model: "heals", AllowedOrigins: []string{"http://app"}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if err := store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps()}); err != nil {
			t.Fatal(err)
		}
	}
	res := gardener.RunResult{TestID: "a", TestVersion: 1, FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound, Message: "no element"}
	run := gardener.Run{ID: "run-1", ProjectID: "p", TestID: "a", TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &res, At: time.Now()}
	if err := store.PutRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	lad := &ladder.Ladder{Runner: greenRunner{sensitive: sensitive}, Model: heals{to: gardener.MustLocator("#login-btn")}}
	tender := &Tender{Store: store, Life: lifecycle.New(store, nil), Ladder: lad}
	out, err := tender.Tend(ctx, Job{TestID: "a", Mode: gardener.ModeApply, Run: &run, Failure: &gardener.Replay{Result: res}, Rungs: []gardener.Strategy{gardener.StrategySelfHeal}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Nothing propagates from a fix staged for a person; an applied one propagates, and each copy
// is judged against its own test: one whose check is insensitive there is staged, not applied.
func TestPropagationFollowsTheOriginal(t *testing.T) {
	held := tendWith(t, map[string]bool{"b": true})
	if held.Persisted.Outcome != ladder.Staged || len(held.Propagated) != 0 {
		t.Fatalf("a fix held for a person: outcome %s, propagated %+v", held.Persisted.Outcome, held.Propagated)
	}
	applied := tendWith(t, map[string]bool{"a": true})
	if applied.Persisted.Outcome != ladder.Repaired || len(applied.Propagated) != 1 {
		t.Fatalf("an applied fix: outcome %s (%s), propagated %+v", applied.Persisted.Outcome, applied.Persisted.Reason, applied.Propagated)
	}
	p := applied.Propagated[0]
	if !p.Green || p.Persisted == nil || p.Persisted.Outcome != ladder.Staged {
		t.Fatalf("the copy in b, whose check is insensitive there, must be staged: %+v", p)
	}
	both := tendWith(t, map[string]bool{"a": true, "b": true})
	if len(both.Propagated) != 1 || both.Propagated[0].Persisted == nil || both.Propagated[0].Persisted.Outcome != ladder.Repaired {
		t.Fatalf("a copy every trust check passes is applied: %+v", both.Propagated)
	}
	// The copy's repair is read and reverted through the API by its id, a path segment.
	if a := both.Propagated[0].Persisted.Applied; a == nil || a.Repair.ID == "" || url.PathEscape(a.Repair.ID) != a.Repair.ID {
		t.Errorf("the propagated repair's id is not one URL path segment: %+v", a)
	}
}
