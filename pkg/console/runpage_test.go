package console_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

// TestRunPageShowsAReproducedFailureWithoutTypedValues: a run the API recorded with no result
// shows the failure the ladder reproduced once it is stored on the run (tend records it), and
// the page shows what a check read only as a step may be shown: an input's value by its length,
// never the value typed into it, whatever version the run was of.
func TestRunPageShowsAReproducedFailureWithoutTypedValues(t *testing.T) {
	const typed = "hunter2-typed"
	w := seed(t)
	ctx := context.Background()
	steps := decodeSteps(t, `[
 {"kind": "goto", "url": "/login"},
 {"kind": "fill", "locator": "label=Password", "value": "`+typed+`"},
 {"kind": "assertVisible", "locator": "role=heading[name=\"Welcome\"]"},
 {"kind": "assert", "assert": "value", "locator": "label=Password", "condition": "equals", "expected": "x"}
]`)
	if err := w.store.CreateTest(ctx, gardener.Test{ID: "login", ProjectID: "shop", Name: "Log in", Status: gardener.StatusActive, Version: 1, Steps: steps}); err != nil {
		t.Fatal(err)
	}
	reproduced := gardener.RunResult{TestID: "login", TestVersion: 1, FailedStep: "4", FailedIndex: 3, ErrorKind: gardener.ErrAssertionFailed,
		Message: "value is [value redacted, 13 chars], expected it to equal \"x\"", FinalURL: "http://shop.test/login",
		Steps: []gardener.StepRecord{
			{Path: "1", Kind: gardener.Goto, URLAfter: "http://shop.test/login", Passed: true},
			{Path: "2", Kind: gardener.Fill, Values: []string{typed}, Passed: true},
			{Path: "3", Kind: gardener.AssertVisible, Observed: "Welcome back", Passed: true},
			{Path: "4", Kind: gardener.Assert, Observed: typed},
		}}
	cases := []struct {
		name     string
		version  int  // the run's test version
		record   bool // the ladder's reproduction was stored on the run
		want     []string
		notWants []string
	}{
		{"an API-started run before its repair climbed", 1, false, []string{"No result was recorded for this run."}, nil},
		{"the reproduced failure stored on it", 1, true,
			[]string{"Failing step</dt><dd>4</dd>", "assertion-failed", "[value redacted, 13 chars]", "Welcome back"},
			[]string{typed, "No result was recorded"}},
		{"a run of a version the test moved on from", 0, true, []string{"[value redacted, 13 chars]"}, []string{typed}},
	}
	srv := serve(t, w)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := "api-login-" + string(rune('a'+i))
			if err := w.store.PutRun(ctx, gardener.Run{ID: id, ProjectID: "shop", TestID: "login", TestVersion: c.version, Trigger: gardener.TriggerManual, At: w.now.Add(-time.Minute)}); err != nil {
				t.Fatal(err)
			}
			if c.record {
				if _, err := w.store.RecordRunResult(ctx, id, reproduced); err != nil {
					t.Fatal(err)
				}
			}
			status, body, _ := ann.do("GET", "/console/runs/"+id, nil, nil)
			if status != 200 {
				t.Fatalf("GET the run page: %d %.300s", status, body)
			}
			for _, want := range c.want {
				if !strings.Contains(body, want) {
					t.Errorf("the run page lacks %q", want)
				}
			}
			for _, no := range c.notWants {
				if strings.Contains(body, no) {
					t.Errorf("the run page shows %q", no)
				}
			}
		})
	}
}

// TestRunPageSaysTheRepairsOutcome: a repair the gate turned away (its run failed on a version
// the test has left) SUCCEEDED as a state machine; the run page says its outcome beside that
// status, so nobody reads it as a repair. The machine is started and recorded as the API starts
// a manual repair, because the API itself refuses such a run before starting anything.
func TestRunPageSaysTheRepairsOutcome(t *testing.T) {
	w := seed(t)
	ctx := context.Background()
	res := gardener.RunResult{TestID: "quiet", TestVersion: 2, FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound, Message: "css=#checkout matched nothing"}
	if err := w.store.PutRun(ctx, gardener.Run{ID: "moved-run", ProjectID: "shop", TestID: "quiet", TestVersion: 2, Trigger: gardener.TriggerSchedule, Result: &res, At: w.now}); err != nil {
		t.Fatal(err)
	}
	st, err := stack.New(stack.Config{Template: "../../template.yaml", Services: handler.Services{Store: w.store, Runner: runner,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Wait)
	const name = "manual-0123456789abcdef0123456789abcdef-moved-run"
	in := map[string]any{"detail": map[string]any{"projectId": "shop", "runId": "moved-run", "testId": "quiet"}, "manual": map[string]any{"by": "ann@example.com", "execution": name}}
	id, err := st.Start(ctx, "RepairStateMachine", name, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.store.PutExecution(ctx, gardener.Execution{ID: id, Name: name, ProjectID: "shop", TestID: "quiet", RunID: "moved-run", By: "ann@example.com", At: w.now}); err != nil {
		t.Fatal(err)
	}
	st.Wait()
	srv := httptest.NewServer(st.Handler())
	t.Cleanup(srv.Close)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	_, body, _ := ann.do("GET", "/console/runs/moved-run", nil, nil)
	if !strings.Contains(body, "SUCCEEDED") || !strings.Contains(body, `outcome: <strong data-outcome>not-eligible</strong>`) {
		t.Errorf("the run page shows the execution without its outcome:\n%s", body)
	}
}
