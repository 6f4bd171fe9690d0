// Package events holds a sample event for every function and API route (for
// `sam local invoke -e events/FILE.json FUNCTION`); its test feeds each one to its handler on
// the local stack, through the same JSON round trip as Lambda.
package events

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// sample says which function a file is for and what a correct answer looks like.
type sample struct {
	function string
	// browser marks the functions that replay a test; they need Chromium.
	browser bool
	// wantErr is the error type name the function answers with, or "" for success.
	wantErr string
	// status is the HTTP status an API event answers with.
	status int
}

var samples = map[string]sample{
	"run-failed.json":          {function: "EligibilityFunction"},
	"gate.json":                {function: "SelfHealFunction", browser: true},
	"rung-result.json":         {function: "PersistFunction", wantErr: "UnprovenError"},
	"propagate.json":           {function: "PropagateFunction"},
	"triage.json":              {function: "TriageFunction"},
	"notification.json":        {function: "NotifyFunction"},
	"radar-schedule.json":      {function: "RadarFunction", browser: true},
	"staging-select.json":      {function: "StagingSelectFunction"},
	"dryrun-item.json":         {function: "DryRunFunction", browser: true},
	"staging-state.json":       {function: "StagingSummaryFunction"},
	"suite-schedule.json":      {function: "SuitePlanFunction"},
	"suite-item.json":          {function: "SuiteRunFunction", browser: true},
	"suite-results.json":       {function: "SuiteReportFunction"},
	"sweep-completed.json":     {function: "StagingStateMachine"},
	"api-queue.json":           {function: "ApiFunction", status: http.StatusOK},
	"api-get-settings.json":    {function: "ApiFunction", status: http.StatusOK},
	"api-put-settings.json":    {function: "ApiFunction", status: http.StatusOK},
	"api-project-repairs.json": {function: "ApiFunction", status: http.StatusOK},
	"api-project-triage.json":  {function: "ApiFunction", status: http.StatusOK},
	"api-approve.json":         {function: "ApiFunction", status: http.StatusNotFound},
	"api-dismiss.json":         {function: "ApiFunction", status: http.StatusNotFound},
	"api-test-repairs.json":    {function: "ApiFunction", status: http.StatusOK},
	"api-test-history.json":    {function: "ApiFunction", status: http.StatusOK},
	"api-test-runs.json":       {function: "ApiFunction", status: http.StatusOK},
	"api-repair.json":          {function: "ApiFunction", status: http.StatusNotFound},
	"api-revert.json":          {function: "ApiFunction", status: http.StatusNotFound},
	"api-reviewed.json":        {function: "ApiFunction", status: http.StatusNotFound},
	"api-manual-repair.json":   {function: "ApiFunction", status: http.StatusAccepted},
	"api-get-run.json":         {function: "ApiFunction", status: http.StatusOK},
	"api-execution.json":       {function: "ApiFunction", status: http.StatusNotFound},
	// The console's pages have no authorizer; without a session a page sends the browser to
	// sign in and a form is refused.
	"console-home.json":             {function: "ApiFunction", status: http.StatusSeeOther},
	"console-asset.json":            {function: "ApiFunction", status: http.StatusOK},
	"console-signin-page.json":      {function: "ApiFunction", status: http.StatusOK},
	"console-signin.json":           {function: "ApiFunction", status: http.StatusForbidden},
	"console-callback.json":         {function: "ApiFunction", status: http.StatusNotFound},
	"console-signout.json":          {function: "ApiFunction", status: http.StatusUnauthorized},
	"console-radar.json":            {function: "ApiFunction", status: http.StatusSeeOther},
	"console-tests.json":            {function: "ApiFunction", status: http.StatusSeeOther},
	"console-settings.json":         {function: "ApiFunction", status: http.StatusSeeOther},
	"console-save-settings.json":    {function: "ApiFunction", status: http.StatusUnauthorized},
	"console-test.json":             {function: "ApiFunction", status: http.StatusSeeOther},
	"console-run.json":              {function: "ApiFunction", status: http.StatusSeeOther},
	"console-run-repair.json":       {function: "ApiFunction", status: http.StatusUnauthorized},
	"console-approve.json":          {function: "ApiFunction", status: http.StatusUnauthorized},
	"console-dismiss.json":          {function: "ApiFunction", status: http.StatusUnauthorized},
	"console-revert.json":           {function: "ApiFunction", status: http.StatusUnauthorized},
	"console-reviewed.json":         {function: "ApiFunction", status: http.StatusUnauthorized},
	"console-sweep.json":            {function: "ApiFunction", status: http.StatusUnauthorized},
	"console-run-now.json":          {function: "ApiFunction", status: http.StatusUnauthorized},
	"api-get-project.json":          {function: "ApiFunction", status: http.StatusOK},
	"api-put-project.json":          {function: "ApiFunction", status: http.StatusOK},
	"api-project-tests.json":        {function: "ApiFunction", status: http.StatusOK},
	"api-get-test.json":             {function: "ApiFunction", status: http.StatusOK},
	"api-put-test.json":             {function: "ApiFunction", status: http.StatusCreated},
	"api-archive-test.json":         {function: "ApiFunction", status: http.StatusOK},
	"api-test-status.json":          {function: "ApiFunction", status: http.StatusOK},
	"api-test-repair.json":          {function: "ApiFunction", status: http.StatusAccepted},
	"api-test-edits.json":           {function: "ApiFunction", status: http.StatusOK},
	"api-test-run-now.json":         {function: "ApiFunction", browser: true, status: http.StatusCreated},
	"api-execution-events.json":     {function: "ApiFunction", status: http.StatusNotFound},
	"console-execution-events.json": {function: "ApiFunction", status: http.StatusSeeOther},
}

func TestEverySampleIsUsed(t *testing.T) {
	files, _ := filepath.Glob("*.json")
	for _, f := range files {
		if _, ok := samples[f]; !ok {
			t.Errorf("%s is not fed to any handler by this test", f)
		}
	}
	for f := range samples {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the table names %s, which does not exist", f)
		}
	}
	// Every function and every API route has a sample.
	st := newStack(t, nil, "")
	have := map[string]bool{}
	routes := map[string]bool{}
	for f, s := range samples {
		have[s.function] = true
		if s.function == "ApiFunction" {
			var ev events.APIGatewayV2HTTPRequest
			b, _ := os.ReadFile(f)
			_ = json.Unmarshal(b, &ev)
			routes[ev.RouteKey] = true
		}
	}
	for id := range st.Template().Functions {
		if !have[id] && id != "SuggestFixFunction" && id != "DiagnoseFunction" && id != "ProposeFunction" {
			t.Errorf("function %s has no sample event", id)
		}
	}
	for _, r := range handler.Routes() {
		if !routes[r] {
			t.Errorf("route %s has no sample event", r)
		}
	}
}

// newStack builds the local stack over a fresh embedded store seeded with the demo project and
// its tests, the demo app served at appURL.
func newStack(t *testing.T, runner gardener.Runner, appURL string) *stack.Stack {
	t.Helper()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ctx := context.Background()
	p := demoapp.Project(appURL)
	p.Plan, p.AutoRepair, p.Model = gardener.PlanPro, true, "builtin"
	if err := store.PutProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	tests, err := demoapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if err := store.CreateTest(ctx, tt); err != nil {
			t.Fatal(err)
		}
	}
	// The sample runs are the scheduled run of the login test the events name.
	for _, id := range []string{"run-login-0300"} {
		if err := store.PutRun(ctx, gardener.Run{ID: id, ProjectID: "demo", TestID: "login", TestVersion: 1, Trigger: gardener.TriggerSchedule, At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if runner == nil {
		// Every function is built as in Lambda, the Chromium ones with a browser that starts on
		// its first replay; without Chromium their samples are skipped and it never starts.
		idle := browser.New(browser.Options{})
		t.Cleanup(func() { idle.Close() })
		runner = idle
	}
	services := handler.Services{Store: store, Runner: runner, BaseURLs: map[string]string{"demo": appURL}, StepTimeout: 10 * time.Second,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		}}
	st, err := stack.New(stack.Config{Template: "../template.yaml", Services: services})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Wait)
	return st
}

func TestSamplesFedToHandlers(t *testing.T) {
	var runner *browser.Runner
	appURL := "http://127.0.0.1:1"
	if _, err := browser.ChromePath(); err == nil {
		app := demoapp.New()
		srv := httptest.NewServer(app.Handler())
		t.Cleanup(srv.Close)
		appURL = srv.URL
		runner = browser.New(browser.Options{})
		t.Cleanup(func() { runner.Close() })
	}
	names := make([]string, 0, len(samples))
	for f := range samples {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		s := samples[f]
		t.Run(strings.TrimSuffix(f, ".json"), func(t *testing.T) {
			if s.browser && runner == nil {
				t.Skip("SKIP: no Chromium for a function that replays tests; install it with: apt-get install -y chromium")
			}
			st := newStack(t, runner, appURL)
			payload, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if s.function == "StagingStateMachine" {
				// The sweep-completed event starts the staging machine through its rule.
				var ev struct {
					Source     string          `json:"source"`
					DetailType string          `json:"detail-type"`
					Detail     json.RawMessage `json:"detail"`
				}
				if err := json.Unmarshal(payload, &ev); err != nil {
					t.Fatal(err)
				}
				if err := st.PutEvent(ctx, ev.DetailType, ev.Detail); err != nil {
					t.Fatal(err)
				}
				st.Wait()
				if ex := st.Executions("StagingStateMachine"); len(ex) != 1 || ex[0].Status != "SUCCEEDED" {
					t.Fatalf("the staging machine did not run to success: %+v", ex)
				}
				return
			}
			out, err := st.Invoke(ctx, s.function, payload)
			if s.wantErr != "" {
				if err == nil || !strings.Contains(typeName(err), s.wantErr) {
					t.Fatalf("got %v (%s), want a %s", err, typeName(err), s.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", s.function, err)
			}
			if s.status != 0 {
				var resp events.APIGatewayV2HTTPResponse
				if err := json.Unmarshal(out, &resp); err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != s.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, s.status, resp.Body)
				}
			}
			if !json.Valid(out) {
				t.Fatalf("the answer is not JSON: %s", out)
			}
		})
	}
}

func typeName(err error) string { return fmt.Sprintf("%T", err) }
