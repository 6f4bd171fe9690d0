package handler_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

// brokenApp is a runner for an app that answers nothing the test looks for: every replay fails
// at the click and leaves an empty page, so no rung finds a fix and the ladder is exhausted.
type brokenApp struct{}

func (brokenApp) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	res := gardener.RunResult{TestID: t.ID, TestVersion: t.Version, FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrElementNotFound,
		Message: "step 2 (click css=#go): no element matches css=#go",
		Steps:   []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, {Path: "2", Kind: gardener.Click}}}
	return gardener.Replay{Result: res, Snapshot: &gardener.Snapshot{URL: "https://app.test/login", Title: "Login"}}, nil
}

// brokenStack is the local stack over a fresh store whose rungs replay on brokenApp, with the
// project acme and its test login (a goto and a click of #go), version 1.
func brokenStack(t *testing.T) (*embedded.Store, *stack.Stack) {
	t.Helper()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	st, err := stack.New(stack.Config{Template: "../../template.yaml", Services: handler.Services{Store: store, Runner: brokenApp{}, StepTimeout: time.Second,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Wait)
	ctx := context.Background()
	if err := store.PutProject(ctx, gardener.Project{ID: "acme", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{"https://app.test"}}); err != nil {
		t.Fatal(err)
	}
	test := gardener.Test{ID: "login", ProjectID: "acme", Name: "sign in", Status: gardener.StatusActive, Version: 1,
		Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, {Kind: gardener.Click, Locator: gardener.MustLocator("#go")}}}
	if err := store.CreateTest(ctx, test); err != nil {
		t.Fatal(err)
	}
	return store, st
}

// TestRepairMachineReportsOneOutcome: on the local stack, where each rung of the repair machine
// is its own function climbing its own ladder, a manual execution that climbs every rung
// records one rung event per rung and exactly one outcome event, the triage step's, followed by
// the triage event. A run that is not eligible ends with one outcome too.
func TestRepairMachineReportsOneOutcome(t *testing.T) {
	ctx := context.Background()
	store, st := brokenStack(t)
	failed := gardener.Run{ID: "r-1", ProjectID: "acme", TestID: "login", TestVersion: 1, Trigger: gardener.TriggerSchedule, At: time.Now(),
		Result: &gardener.RunResult{TestID: "login", TestVersion: 1, FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrElementNotFound, Message: "no element matches css=#go"}}
	// A run of a version the test is not at is not eligible.
	other := gardener.Run{ID: "r-other", ProjectID: "acme", TestID: "login", TestVersion: 2, Trigger: gardener.TriggerSchedule, At: time.Now()}
	for _, r := range []gardener.Run{failed, other} {
		if err := store.PutRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(st.Handler())
	defer srv.Close()
	start := func(run string) string {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+"/runs/"+run+"/repair", strings.NewReader(`{"propose":true}`))
		req.Header.Set("Authorization", "Bearer "+stack.DevToken("ann@example.com", "acme"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /runs/%s/repair: %d", run, resp.StatusCode)
		}
		st.Wait()
		xs, err := store.RunExecutions(ctx, run)
		if err != nil || len(xs) != 1 {
			t.Fatalf("executions of run %s: %+v (%v)", run, xs, err)
		}
		return xs[0].Name
	}
	evs, err := store.Events(ctx, start("r-1"), 0, gardener.MaxEventPage)
	if err != nil {
		t.Fatal(err)
	}
	var stages []string
	count := map[gardener.EventStage]int{}
	rungs := map[gardener.Strategy]bool{}
	for _, e := range evs {
		stages = append(stages, string(e.Stage))
		count[e.Stage]++
		if e.Stage == gardener.EventRung {
			rungs[e.Rung] = true
		}
	}
	n := len(evs)
	if count[gardener.EventOutcome] != 1 || n < 2 || evs[n-2].Stage != gardener.EventOutcome || evs[n-1].Stage != gardener.EventTriage {
		t.Fatalf("stages %v: want exactly one outcome, just before the triage event that ends the log", stages)
	}
	if out := evs[n-2]; out.Outcome != "triaged" || out.Reason == "" {
		t.Errorf("the outcome %+v, want triaged with its reason", out)
	}
	if len(rungs) != 3 || count[gardener.EventRung] != 3 {
		t.Errorf("stages %v: want one rung event for each of the three rungs", stages)
	}

	// A run of a version that is gone is refused at the door, by the gate the machine's
	// eligibility asks too: nothing is started and nothing recorded.
	req, _ := http.NewRequest("POST", srv.URL+"/runs/r-other/repair", strings.NewReader(`{"propose":true}`))
	req.Header.Set("Authorization", "Bearer "+stack.DevToken("ann@example.com", "acme"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "which is at version 1 now") {
		t.Errorf("POST /runs/r-other/repair: %d %s, want 403 naming the version", resp.StatusCode, b)
	}
	if xs, err := store.RunExecutions(ctx, "r-other"); err != nil || len(xs) != 0 {
		t.Errorf("a refused request started executions: %+v (%v)", xs, err)
	}
}
