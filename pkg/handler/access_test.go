package handler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

// machines stands in for Step Functions: it records each start, and an execution stays
// RUNNING until the test ends it.
type machines struct {
	mu     sync.Mutex
	names  []string
	status map[string]string
}

func (m *machines) Start(_ context.Context, machine, name string, _ any) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := strings.Replace(machine, ":stateMachine:", ":execution:", 1) + ":" + name
	if _, ok := m.status[id]; !ok {
		m.names = append(m.names, name)
		m.status[id] = "RUNNING"
	}
	return id, nil
}

func (m *machines) Describe(_ context.Context, id string) (string, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.status[id]
	if !ok {
		return "", "", &gardener.NotFoundError{Entity: "execution", ID: id}
	}
	return s, "", nil
}

func (m *machines) end(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.status[id] = "SUCCEEDED"
}

func (m *machines) started() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.names...)
}

// twoProjects is an API over a store with projects alpha and beta, a test and a failed run in
// each, a proposal and a repair of beta's test, and a run of alpha that names beta's test (what
// a forged Run Failed event records).
func twoProjects(t *testing.T) (*handler.API, gardener.Store, *machines) {
	t.Helper()
	m := &machines{status: map[string]string{}}
	s := twoProjectServices(t, m)
	h, err := handler.ApiFunction.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return h.(*handler.API), s.Store, m
}

// twoProjectServices are the services of twoProjects, starting executions on starter.
func twoProjectServices(t *testing.T, starter handler.Starter) handler.Services {
	t.Helper()
	s := fullServices(t)
	s.Starter = starter
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	for _, p := range []string{"alpha", "beta"} {
		if err := s.Store.PutProject(ctx, gardener.Project{ID: p, Plan: gardener.PlanPro, Model: "builtin"}); err != nil {
			t.Fatal(err)
		}
		test := gardener.Test{ID: "t-" + p, ProjectID: p, Name: "sign in", Status: gardener.StatusActive, Version: 1,
			Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, {Kind: gardener.Click, Locator: gardener.MustLocator("#go")}}}
		if err := s.Store.CreateTest(ctx, test); err != nil {
			t.Fatal(err)
		}
		if err := s.Store.PutRun(ctx, gardener.Run{ID: "r-" + p, ProjectID: p, TestID: test.ID, TestVersion: 1, Trigger: gardener.TriggerSchedule, At: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Store.PutRun(ctx, gardener.Run{ID: "r-forged", ProjectID: "alpha", TestID: "t-beta", TestVersion: 1, Trigger: gardener.TriggerSchedule, At: at}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.StageProposal(ctx, gardener.Proposal{ID: "p-beta", ProjectID: "beta", TestID: "t-beta", BaseVersion: 1, Status: gardener.ProposalProposed, StagedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	click := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator("#go2")}
	fixed := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, click}
	pre := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, {Kind: gardener.Click, Locator: gardener.MustLocator("#go")}}
	if _, err := s.Store.WriteRepair(ctx, gardener.WriteRepair{Steps: fixed, Repair: gardener.Repair{ID: "rp-beta", ProjectID: "beta", TestID: "t-beta", PreSteps: pre, FromVersion: 1, ToVersion: 2, At: at, Auto: true, Badge: true}}); err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	alphaOnly = map[string]string{"sub": "u-a", "email": "ann@alpha.test", "projects": "alpha"}
	betaOnly  = map[string]string{"sub": "u-b", "email": "bob@beta.test", "projects": "beta"}
)

// TestExecutionIsReadOnlyInItsProject: an execution a manual repair of alpha started is read by
// alpha's people, and a caller of beta alone gets the answer of an execution that does not
// exist — not its test, errors, evidence or starter.
func TestExecutionIsReadOnlyInItsProject(t *testing.T) {
	api, _, _ := twoProjects(t)
	started := viaHTTP(t, api, "POST", "/runs/r-alpha/repair", "", alphaOnly)
	var ex struct{ ExecutionID string }
	if started.status != http.StatusAccepted || json.Unmarshal([]byte(started.body), &ex) != nil || ex.ExecutionID == "" {
		t.Fatalf("manual repair: %+v", started)
	}
	path := "/executions/" + ex.ExecutionID
	if got := viaHTTP(t, api, "GET", path, "", alphaOnly); got.status != http.StatusOK || !strings.Contains(got.body, "RUNNING") {
		t.Errorf("alpha reading its own execution: %+v", got)
	}
	foreign := viaHTTP(t, api, "GET", path, "", betaOnly)
	unknownID := ex.ExecutionID + "x"
	unknown := viaHTTP(t, api, "GET", "/executions/"+unknownID, "", betaOnly)
	if foreign.status != http.StatusNotFound || foreign.body != strings.ReplaceAll(unknown.body, unknownID, ex.ExecutionID) {
		t.Errorf("beta reading alpha's execution: %+v; want the answer for an unknown id, %+v", foreign, unknown)
	}
	// An execution the API did not start (and so did not record) is nobody's to read.
	if got := viaHTTP(t, api, "GET", "/executions/arn:aws:states:us-east-1:0:execution:RepairStateMachine:auto-1", "", map[string]string{"sub": "root", "projects": "*"}); got.status != http.StatusNotFound {
		t.Errorf("an unrecorded execution: %+v", got)
	}
}

// TestRunNamingAnotherProjectsTestIsRefused: a run recorded under alpha whose test is beta's is
// bad input for an alpha caller — the repair would change beta's test — and starts nothing.
func TestRunNamingAnotherProjectsTestIsRefused(t *testing.T) {
	api, _, m := twoProjects(t)
	got := viaHTTP(t, api, "POST", "/runs/r-forged/repair", `{"rungs":["suggest-fix"]}`, alphaOnly)
	if got.status != http.StatusBadRequest || !strings.Contains(got.body, "project alpha") || !strings.Contains(got.body, "project beta") {
		t.Errorf("manual repair of a run naming another project's test: %+v, want 400 naming alpha and beta", got)
	}
	if names := m.started(); len(names) != 0 {
		t.Errorf("started %v for a refused run", names)
	}
}

// TestForeignIDsAnswerAsUnknown: every route answers an id of a project the caller may not
// touch exactly as an id that does not exist, so the answer does not tell them apart.
func TestForeignIDsAnswerAsUnknown(t *testing.T) {
	api, _, _ := twoProjects(t)
	cases := []struct{ method, path, foreign string }{
		{"GET", "/projects/%s/settings", "beta"},
		{"PUT", "/projects/%s/settings", "beta"},
		{"GET", "/projects/%s/queue", "beta"},
		{"GET", "/projects/%s/repairs", "beta"},
		{"GET", "/projects/%s/triage", "beta"},
		{"POST", "/proposals/%s/approve", "p-beta"},
		{"POST", "/proposals/%s/dismiss", "p-beta"},
		{"GET", "/tests/%s/repairs", "t-beta"},
		{"GET", "/tests/%s/history", "t-beta"},
		{"GET", "/repairs/%s", "rp-beta"},
		{"POST", "/repairs/%s/revert", "rp-beta"},
		{"POST", "/repairs/%s/reviewed", "rp-beta"},
		{"POST", "/runs/%s/repair", "r-beta"},
		{"GET", "/runs/%s", "r-beta"},
	}
	for _, c := range cases {
		body := ""
		if c.method != "GET" {
			body = "{}"
		}
		foreign := viaHTTP(t, api, c.method, fmt.Sprintf(c.path, c.foreign), body, alphaOnly)
		unknown := viaHTTP(t, api, c.method, fmt.Sprintf(c.path, "nope"), body, alphaOnly)
		if foreign.status != http.StatusNotFound || foreign.body != strings.ReplaceAll(unknown.body, `\"nope\"`, `\"`+c.foreign+`\"`) {
			t.Errorf("%s %s as alpha: foreign %+v, unknown %+v; want the same 404", c.method, c.path, foreign, unknown)
		}
		if own := viaHTTP(t, api, c.method, fmt.Sprintf(c.path, c.foreign), "", betaOnly); own.status == http.StatusNotFound {
			t.Errorf("%s %s as beta, its owner: %+v", c.method, c.path, own)
		}
	}
}

// TestManualExecutionNames: names cannot be guessed from the run and the asker, never collide
// (a long run id is cut after the random part), keep to Step Functions' 80 characters, and a
// second request by the same person while theirs runs answers with the running one.
func TestManualExecutionNames(t *testing.T) {
	api, store, m := twoProjects(t)
	long := "r-" + strings.Repeat("long-run-id-", 12)
	if err := store.PutRun(context.Background(), gardener.Run{ID: long, ProjectID: "alpha", TestID: "t-alpha", TestVersion: 1, Trigger: gardener.TriggerSchedule}); err != nil {
		t.Fatal(err)
	}
	first := viaHTTP(t, api, "POST", "/runs/"+long+"/repair", "", alphaOnly)
	again := viaHTTP(t, api, "POST", "/runs/"+long+"/repair", "", alphaOnly)
	if first.status != http.StatusAccepted || again != first {
		t.Fatalf("a second request while the first runs: %+v, first %+v; want the same 202 answer", again, first)
	}
	other := viaHTTP(t, api, "POST", "/runs/"+long+"/repair", "", map[string]string{"sub": "u-c", "email": "cy@alpha.test", "projects": "alpha"})
	var ex struct{ ExecutionID string }
	if err := json.Unmarshal([]byte(first.body), &ex); err != nil {
		t.Fatal(err)
	}
	m.end(ex.ExecutionID)
	after := viaHTTP(t, api, "POST", "/runs/"+long+"/repair", "", alphaOnly)
	if other.status != http.StatusAccepted || after.status != http.StatusAccepted || after == first || other == first {
		t.Errorf("another asker %+v and the same asker after the first ended %+v should each start one", other, after)
	}
	names := m.started()
	if len(names) != 3 {
		t.Fatalf("started %v, want 3 executions", names)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if len(n) > 80 || seen[n] || strings.Contains(n, "ann") || strings.Contains(n, "alpha.test") {
			t.Errorf("execution name %q: over 80 characters, repeated, or naming the asker (all: %v)", n, names)
		}
		seen[n] = true
	}
}

// slowStarts is Step Functions taking its time to answer a start, which is when a second API
// instance serving the same person's second request looks for a running execution.
type slowStarts struct {
	*machines
	delay time.Duration
}

func (s slowStarts) Start(ctx context.Context, machine, name string, input any) (string, error) {
	id, err := s.machines.Start(ctx, machine, name, input)
	time.Sleep(s.delay)
	return id, err
}

// TestManualStartRacesAcrossInstances: two API instances (two Lambdas) over one store serving
// one person's requests for one run at once start exactly one execution, and every request
// answers with it in the same shape; once it ended, the next burst starts exactly one more.
func TestManualStartRacesAcrossInstances(t *testing.T) {
	m := &machines{status: map[string]string{}}
	s := twoProjectServices(t, slowStarts{m, 20 * time.Millisecond})
	var apis []*handler.API
	for range 2 {
		h, err := handler.ApiFunction.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		apis = append(apis, h.(*handler.API))
	}
	const requests = 8
	for round := range 3 {
		answers := make([]answer, requests)
		var wg sync.WaitGroup
		for i := range requests {
			wg.Go(func() { answers[i] = viaHTTP(t, apis[i%2], "POST", "/runs/r-alpha/repair", "", alphaOnly) })
		}
		wg.Wait()
		names := m.started()
		if len(names) != round+1 {
			t.Fatalf("round %d: %d executions started in all (%v), want %d: one per round", round, len(names), names, round+1)
		}
		var ex struct{ ExecutionID string }
		if answers[0].status != http.StatusAccepted || json.Unmarshal([]byte(answers[0].body), &ex) != nil || !strings.HasSuffix(ex.ExecutionID, ":"+names[round]) {
			t.Fatalf("round %d: first answer %+v, want 202 with execution %s", round, answers[0], names[round])
		}
		for i, a := range answers {
			if a != answers[0] {
				t.Errorf("round %d: request %d answered %+v, request 0 %+v; want the same answer", round, i, a, answers[0])
			}
		}
		xs, err := s.Store.RunExecutions(context.Background(), "r-alpha")
		if err != nil || len(xs) != round+1 || xs[0].ID != ex.ExecutionID || xs[0].By != "ann@alpha.test" {
			t.Fatalf("round %d: recorded executions %+v, %v; want %d, the newest %s by ann", round, xs, err, round+1, ex.ExecutionID)
		}
		m.end(ex.ExecutionID)
	}
}
