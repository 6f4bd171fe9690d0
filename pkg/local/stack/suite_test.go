package stack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/eventbus"
)

const suitePage = `<!doctype html><html><head><title>Suite</title></head><body><h1>Shop</h1><button id="buy">Buy</button></body></html>`

// suiteStack is a stack with one project whose app is a page served here: an active test that
// passes, an active test that fails (its button is gone), a draft test, and a second project
// with no origin to replay against.
func suiteStack(t *testing.T) (*Stack, gardener.Store) {
	t.Helper()
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("SKIP: no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, suitePage) }))
	t.Cleanup(app.Close)
	s, store := newTestStack(t)
	ctx := context.Background()
	for _, p := range []gardener.Project{
		{ID: "shop", Name: "Shop", Plan: gardener.PlanPro, AutoRepair: true, AllowedOrigins: []string{app.URL}},
		{ID: "nowhere", Name: "Nowhere", Plan: gardener.PlanPro},
	} {
		if err := store.PutProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	steps := func(locator string) []gardener.Step {
		loc, err := gardener.ParseLocator(locator)
		if err != nil {
			t.Fatal(err)
		}
		return []gardener.Step{{Kind: gardener.Goto, URL: "/"}, {Kind: gardener.Click, Locator: loc, TimeoutMs: 300}}
	}
	for _, tc := range []gardener.Test{
		{ID: "buys", ProjectID: "shop", Name: "buys", Status: gardener.StatusActive, Version: 1, Steps: steps("#buy")},
		{ID: "sells", ProjectID: "shop", Name: "sells", Status: gardener.StatusActive, Version: 2, Steps: steps("#sell")},
		{ID: "drafted", ProjectID: "shop", Name: "drafted", Status: gardener.StatusDraft, Version: 1, Steps: steps("#buy")},
		{ID: "lost", ProjectID: "nowhere", Name: "lost", Status: gardener.StatusActive, Version: 1, Steps: steps("#buy")},
	} {
		if err := store.CreateTest(ctx, tc); err != nil {
			t.Fatal(err)
		}
	}
	return s, store
}

// suiteOutput is the part of a suite execution's output the tests read.
type suiteOutput struct {
	Plan    handler.SuitePlan        `json:"plan"`
	Results []handler.SuiteRunResult `json:"results"`
}

func lastExecution(t *testing.T, s *Stack, machine string) suiteOutput {
	t.Helper()
	ex := s.Executions(machine)
	if len(ex) == 0 {
		t.Fatalf("no %s execution", machine)
	}
	last := ex[len(ex)-1]
	if last.Status != "SUCCEEDED" {
		t.Fatalf("%s ended %s: %+v", machine, last.Status, last.Failure)
	}
	var out suiteOutput
	if err := json.Unmarshal(last.Output, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScheduledSuite fires the suite's schedule on the stack of template.yaml: the active tests
// of every project are replayed, the green run is recorded as the one repairs compare with, the
// failed run is stored and its "Run Failed" (trigger schedule) starts the repair machine through
// the template's rule, and what is not replayed says why.
func TestScheduledSuite(t *testing.T) {
	s, store := suiteStack(t)
	ctx := context.Background()
	if err := s.Scheduler.FireNow(ctx, "SuiteStateMachine.Suite"); err != nil {
		t.Fatal(err)
	}
	s.Wait()
	out := lastExecution(t, s, "SuiteStateMachine")
	if out.Plan.Count != 2 || len(out.Results) != 2 {
		t.Fatalf("plan %+v, results %+v: want the two active tests of shop", out.Plan, out.Results)
	}
	if !strings.Contains(out.Plan.Skipped["nowhere"], "no allowed origin") {
		t.Errorf("the project without an origin: skipped %q", out.Plan.Skipped)
	}
	byTest := map[string]handler.SuiteRunResult{}
	for _, r := range out.Results {
		byTest[r.TestID] = r
	}
	green, err := store.LastGreenRun(ctx, "buys")
	if err != nil || green.ID != byTest["buys"].RunID || green.Trigger != gardener.TriggerSchedule || green.TestVersion != 1 {
		t.Errorf("the green run of buys: %+v, %v; the suite reported %+v", green, err, byTest["buys"])
	}
	if byTest["buys"].Report {
		t.Error("a green run was reported as a failure")
	}
	red := byTest["sells"]
	if red.Passed || !red.Report || red.FailedStep != "2" {
		t.Fatalf("the failing test: %+v", red)
	}
	run, err := store.Run(ctx, red.RunID)
	if err != nil || run.Result == nil || run.Result.Passed || run.Trigger != gardener.TriggerSchedule || run.TestVersion != 2 {
		t.Fatalf("the failed run stored: %+v, %v", run, err)
	}
	if _, err := store.LastGreenRun(ctx, "sells"); !errors.Is(err, gardener.ErrNotFound) {
		t.Errorf("a failed run was recorded green: %v", err)
	}
	repairs := s.Executions("RepairStateMachine")
	if len(repairs) != 1 {
		t.Fatalf("%d repair executions, want the one the failed run's event started", len(repairs))
	}
	var in struct{ Detail handler.RunFailed }
	if err := json.Unmarshal(repairs[0].Input, &in); err != nil || in.Detail.RunID != red.RunID || in.Detail.Trigger != gardener.TriggerSchedule {
		t.Errorf("the repair machine started on %s (%v), want run %s with trigger schedule", repairs[0].Input, err, red.RunID)
	}
}

// TestExternalRuns: another platform's events keep working. A "Run Passed" with a test version
// has the gardener replay the test and record the green run itself; one of a version that is
// gone records nothing. A "Run Failed" with only ids starts the repair machine, whose
// eligibility stores the run for the rungs to reproduce.
func TestExternalRuns(t *testing.T) {
	s, store := suiteStack(t)
	ctx := context.Background()
	put := func(detailType, detail string) eventbus.Delivery {
		t.Helper()
		d, err := s.Bus.Put(ctx, eventbus.Entry{Source: "test-platform", DetailType: detailType, Detail: json.RawMessage(detail)})
		if err != nil {
			t.Fatal(err)
		}
		s.Wait()
		return d
	}
	put("Run Passed", `{"runId":"ci-7","projectId":"shop","testId":"buys","testVersion":1}`)
	out := lastExecution(t, s, "SuiteStateMachine")
	if len(out.Results) != 1 || !out.Results[0].Passed || out.Results[0].TestID != "buys" {
		t.Fatalf("a Run Passed replayed %+v", out.Results)
	}
	green, err := store.LastGreenRun(ctx, "buys")
	if err != nil || green.ID != out.Results[0].RunID || green.Trigger != gardener.TriggerWorker {
		t.Errorf("the green run recorded for a Run Passed: %+v, %v", green, err)
	}

	put("Run Passed", `{"runId":"ci-8","projectId":"shop","testId":"sells","testVersion":1}`)
	out = lastExecution(t, s, "SuiteStateMachine")
	if out.Plan.Count != 0 || !strings.Contains(out.Plan.Skipped["sells"], "version 2 now") {
		t.Errorf("a Run Passed of a gone version: plan %+v", out.Plan)
	}

	// The platform's own failed replay of a test: no repair is asked for, the platform saw it pass.
	put("Run Passed", `{"runId":"ci-9","testId":"sells","testVersion":2}`)
	out = lastExecution(t, s, "SuiteStateMachine")
	if len(out.Results) != 1 || out.Results[0].Passed || out.Results[0].Report {
		t.Errorf("our red replay of a platform's pass: %+v", out.Results)
	}
	if n := len(s.Executions("RepairStateMachine")); n != 0 {
		t.Errorf("%d repairs started from Run Passed events", n)
	}

	d := put("Run Failed", `{"runId":"ext-1","testId":"sells","trigger":"worker"}`)
	if len(d.Matched) != 1 {
		t.Fatalf("a Run Failed with only ids matched %v", d.Matched)
	}
	run, err := store.Run(ctx, "ext-1")
	if err != nil || run.TestID != "sells" || run.ProjectID != "shop" || run.Result != nil {
		t.Errorf("the platform's run as eligibility stored it: %+v, %v", run, err)
	}
}
