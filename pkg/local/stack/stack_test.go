package stack

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/template"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

const templatePath = "../../../template.yaml"

func newTestStack(t *testing.T) (*Stack, gardener.Store) {
	t.Helper()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s, err := New(Config{Template: templatePath, Services: services(store)})
	if err != nil {
		t.Fatalf("the stack does not build from template.yaml: %v", err)
	}
	t.Cleanup(s.Wait)
	return s, store
}

// runner is the browser of every test stack: it starts on the first replay, and the tests that
// replay share it (each replay in a browser context of its own) rather than start one each.
var runner = browser.New(browser.Options{})

// services are the services of a test stack: the store, and a browser and models that start
// only when a function replays a test or opens a model.
func services(store gardener.Store) handler.Services {
	return handler.Services{Store: store, Runner: runner, Models: func(ctx context.Context, spec string) (gardener.Model, error) {
		return modelspec.Open(ctx, spec, modelspec.Options{})
	}}
}

// TestTemplateWiring: every function of the template has a handler (New refuses one without),
// every state machine's placeholders and substitutions match both ways (New loads each
// definition through the template reader, which checks it), and every route the API serves is
// declared in the template and the other way round.
func TestTemplateWiring(t *testing.T) {
	s, _ := newTestStack(t)
	tpl := s.Template()
	var declared []string
	for _, r := range tpl.Routes {
		declared = append(declared, r.Method+" "+r.Path)
		if r.Function != "ApiFunction" {
			t.Errorf("route %s %s goes to %s", r.Method, r.Path, r.Function)
		}
	}
	served := handler.Routes()
	sort.Strings(declared)
	sort.Strings(served)
	if strings.Join(declared, "\n") != strings.Join(served, "\n") {
		t.Errorf("template routes and handler routes differ:\n template: %v\n handler:  %v", declared, served)
	}
	for _, id := range []string{"RepairStateMachine", "StagingStateMachine"} {
		sm, ok := tpl.StateMachines[id]
		if !ok {
			t.Fatalf("no %s", id)
		}
		if _, err := os.Stat(filepath.Join("../../..", sm.DefinitionURI)); err != nil {
			t.Errorf("%s: DefinitionUri %s: %v", id, sm.DefinitionURI, err)
		}
	}
}

// TestWiringMistakeFailsLocally: the stack builds every function through the constructor its
// Lambda's main builds it with, so a function given too little fails here as its cold start
// would in AWS.
func TestWiringMistakeFailsLocally(t *testing.T) {
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	noBrowser := services(store)
	noBrowser.Runner = nil
	_, err = New(Config{Template: templatePath, Services: noBrowser})
	var missing *handler.MissingError
	if !errors.As(err, &missing) || !slices.Contains(missing.Missing, "Runner") || !strings.Contains(err.Error(), "DiagnoseFunction") {
		t.Fatalf("a stack without a browser: %v; want DiagnoseFunction (the first Chromium function) refused for its Runner", err)
	}
}

func TestTemplateLints(t *testing.T) {
	lint, err := exec.LookPath("cfn-lint")
	if err != nil {
		t.Skip("SKIP: cfn-lint is not installed; install it with: apt-get install -y pipx && pipx install cfn-lint")
	}
	out, err := exec.Command(lint, templatePath).CombinedOutput()
	if err != nil {
		t.Fatalf("cfn-lint rejects template.yaml: %v\n%s", err, out)
	}
}

// TestAPIAuthorization: the local API stands in for the JWT authorizer with development tokens:
// no token is 401 before the function runs, a caller without access to the project is 404 (as
// for a project that does not exist), and an undeclared route is 404.
func TestAPIAuthorization(t *testing.T) {
	s, store := newTestStack(t)
	ctx := context.Background()
	if err := store.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	cases := []struct {
		token, path string
		want        int
	}{
		{"", "/projects/shop/settings", http.StatusUnauthorized},
		{"Bearer not-a-dev-token", "/projects/shop/settings", http.StatusUnauthorized},
		{"Bearer " + DevToken("eve@example.com", "other"), "/projects/shop/settings", http.StatusNotFound},
		{"Bearer " + DevToken("ann@example.com", "shop"), "/projects/shop/settings", http.StatusOK},
		{"Bearer " + DevToken("ann@example.com", "*"), "/projects/shop/settings", http.StatusOK},
		{"Bearer " + DevToken("ann@example.com", "shop"), "/projects/shop/nothing", http.StatusNotFound},
		{"Bearer " + DevToken("ann@example.com", "shop"), "/proposals/none/approve", http.StatusMethodNotAllowed},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+c.path, nil)
		if c.token != "" {
			req.Header.Set("Authorization", c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := c.want
		if want == http.StatusMethodNotAllowed {
			// GET on a POST-only route: API Gateway answers 404 for a route it does not have.
			want = http.StatusNotFound
		}
		if resp.StatusCode != want {
			t.Errorf("%s with %q: %d, want %d", c.path, c.token, resp.StatusCode, want)
		}
	}
}

// TestStartIsIdempotentByName: Step Functions refuses a second execution of one name with
// another input and returns the first for the same input; so does the local stack.
func TestStartIsIdempotentByName(t *testing.T) {
	s, _ := newTestStack(t)
	ctx := context.Background()
	in := map[string]any{"detail": map[string]any{"runId": "r", "testId": "t"}}
	a, err := s.Start(ctx, "RepairStateMachine", "same", in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Start(ctx, "RepairStateMachine", "same", in)
	if err != nil || a != b {
		t.Fatalf("second start: %s, %v", b, err)
	}
	if _, err := s.Start(ctx, "RepairStateMachine", "same", map[string]any{"other": 1}); err == nil {
		t.Fatal("a start under a used name with another input was accepted")
	}
	s.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, _, err := s.Describe(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if status != "RUNNING" || time.Now().After(deadline) {
			// The run and test do not exist: eligibility fails and the machine fails cleanly.
			if status != "FAILED" {
				t.Fatalf("status %s, want FAILED for an unknown run", status)
			}
			break
		}
	}
}

// TestAPIAnswersOnlyLoopbackHosts: a request whose Host is not a loopback name with the port the
// API serves is refused before anything else, with a message saying why: a page whose name was
// rebound to 127.0.0.1 (DNS rebinding) must not reach the API with a development token.
func TestAPIAnswersOnlyLoopbackHosts(t *testing.T) {
	s, store := newTestStack(t)
	if err := store.PutProject(context.Background(), gardener.Project{ID: "shop", Plan: gardener.PlanPro}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	other := "1"
	if port == other {
		other = "2"
	}
	cases := []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + port, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"LOCALHOST:" + port, http.StatusOK},
		{"[::1]:" + port, http.StatusOK},
		{"attacker.example:" + port, http.StatusMisdirectedRequest},
		{"attacker.example", http.StatusMisdirectedRequest},
		{"localhost:" + other, http.StatusMisdirectedRequest},
		{"127.0.0.2:" + port, http.StatusMisdirectedRequest},
		{"localhost", http.StatusMisdirectedRequest},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/projects/shop/settings", nil)
		req.Host = c.host
		req.Header.Set("Authorization", "Bearer "+DevToken("ann@example.com", "*"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Host %q: %d %s, want %d", c.host, resp.StatusCode, body, c.want)
		}
		if c.want != http.StatusOK && !strings.Contains(string(body), "only to localhost, 127.0.0.1 or [::1] with port "+port) {
			t.Errorf("Host %q: the refusal does not say what is answered: %s", c.host, body)
		}
	}
}

// TestExecutionReportsTheRepairsOutcome: a manual repair the gate turns away (its run failed on
// a version the test has left) ends the repair machine in a Succeed state, so Step Functions says
// SUCCEEDED; GET /executions/{id} says the repair's outcome beside it, read from the machine's
// real output. The machine is started as the API starts a manual repair, and recorded as it
// records one, because the API itself refuses such a run before starting anything.
func TestExecutionReportsTheRepairsOutcome(t *testing.T) {
	s, store := newTestStack(t)
	ctx := context.Background()
	if err := store.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{"http://127.0.0.1:1"}}); err != nil {
		t.Fatal(err)
	}
	steps, _ := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/"}]`))
	if err := store.CreateTest(ctx, gardener.Test{ID: "t", ProjectID: "shop", Status: gardener.StatusActive, Version: 1, Steps: steps}); err != nil {
		t.Fatal(err)
	}
	res := gardener.RunResult{TestID: "t", TestVersion: 2, FailedStep: "1", FailedIndex: 0, ErrorKind: gardener.ErrNavigation, Message: "no page"}
	if err := store.PutRun(ctx, gardener.Run{ID: "r", ProjectID: "shop", TestID: "t", TestVersion: 2, Trigger: gardener.TriggerSchedule, Result: &res}); err != nil {
		t.Fatal(err)
	}
	const name = "manual-0123456789abcdef0123456789abcdef-r"
	in := map[string]any{"detail": map[string]any{"projectId": "shop", "runId": "r", "testId": "t"}, "manual": map[string]any{"by": "ann@example.com", "execution": name}}
	id, err := s.Start(ctx, "RepairStateMachine", name, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.PutExecution(ctx, gardener.Execution{ID: id, Name: name, ProjectID: "shop", TestID: "t", RunID: "r", By: "ann@example.com", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	s.Wait()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/executions/"+url.PathEscape(id), nil)
	req.Header.Set("Authorization", "Bearer "+DevToken("ann@example.com", "shop"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var x struct{ Status, Outcome string }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &x) != nil || x.Status != "SUCCEEDED" || x.Outcome != "not-eligible" {
		t.Errorf("GET the execution: %d %s; want SUCCEEDED with outcome not-eligible", resp.StatusCode, body)
	}
	// The execution's cost is recorded with its run: what the interpreter, the Lambda runner
	// and the store counted while it ran, at the template's memory sizes.
	costs, err := store.RepairCosts(ctx, "r")
	if err != nil || len(costs) != 1 {
		t.Fatalf("costs of run r: %+v, %v; want the execution's", costs, err)
	}
	c := costs[0]
	if c.Execution != name || c.Usage.Transitions == 0 || c.Usage.Invocations() == 0 || c.Usage.ReadUnits == 0 || c.Cost.USD <= 0 {
		t.Errorf("the execution's cost %+v; want its transitions, invocations and reads counted and priced", c)
	}
	for _, l := range c.Usage.Lambda {
		if f := s.Template().Functions[l.Function]; f == nil || l.MemoryMB != f.MemorySize || l.Architecture != "arm64" {
			t.Errorf("%s billed at %d MB %s; want the template's %v", l.Function, l.MemoryMB, l.Architecture, f)
		}
	}
}

// TestDeploymentSettingsReachTheFunctions: the template passes the deployment's plan to the API
// function and its one allowed Bedrock model (the model its IAM policy names) to every
// function, as the environment pkg/cloud reads them from; a parameter override changes both.
func TestDeploymentSettingsReachTheFunctions(t *testing.T) {
	for _, over := range []map[string]string{nil, {"Plan": "free", "ModelId": "anthropic.other-v2"}} {
		tpl, err := template.Load(templatePath, over)
		if err != nil {
			t.Fatal(err)
		}
		wantPlan, wantModel := cmp.Or(over["Plan"], tpl.Parameters["Plan"].Default), cmp.Or(over["ModelId"], tpl.Parameters["ModelId"].Default)
		if wantPlan != "pro" && over == nil {
			t.Errorf("the template's Plan defaults to %q, want pro", wantPlan)
		}
		for id, f := range tpl.Functions {
			model, err := tpl.ResolveString(f.Environment["BEDROCK_MODEL_ID"])
			if err != nil || model != wantModel {
				t.Errorf("%s: BEDROCK_MODEL_ID %q, %v; want %q", id, model, err, wantModel)
			}
		}
		plan, err := tpl.ResolveString(tpl.Functions["ApiFunction"].Environment["PLAN"])
		if err != nil || plan != wantPlan {
			t.Errorf("ApiFunction: PLAN %q, %v; want %q", plan, err, wantPlan)
		}
	}
}
