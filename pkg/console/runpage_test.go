package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
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

// TestRunPageSaysTheRepairsOutcome: a repair the gate turned away SUCCEEDED as a state machine;
// the run page says its outcome beside that status, so nobody reads it as a repair.
func TestRunPageSaysTheRepairsOutcome(t *testing.T) {
	w := seed(t)
	ctx := context.Background()
	if err := w.store.PutProject(ctx, gardener.Project{ID: "free", Name: "Free shop", Plan: gardener.PlanFree, Model: "builtin", AllowedOrigins: []string{"http://shop.test"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.store.CreateTest(ctx, gardener.Test{ID: "free-checkout", ProjectID: "free", Name: "Checkout", Status: gardener.StatusActive, Version: 1, Steps: decodeSteps(t, checkoutSteps)}); err != nil {
		t.Fatal(err)
	}
	res := gardener.RunResult{TestID: "free-checkout", TestVersion: 1, FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound, Message: "css=#checkout matched nothing"}
	if err := w.store.PutRun(ctx, gardener.Run{ID: "free-run", ProjectID: "free", TestID: "free-checkout", TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &res, At: w.now}); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, w)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "free")
	tok := ann.csrf("/console/runs/free-run")
	if status, body, _ := ann.do("POST", "/console/runs/free-run/repair", url.Values{"csrf": {tok}, "rung": {"ladder"}}, http.Header{"Origin": {srv.URL}}); status != http.StatusSeeOther {
		t.Fatalf("asking for the ladder: %d %.300s", status, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body, _ := ann.do("GET", "/console/runs/free-run", nil, nil)
		if strings.Contains(body, "SUCCEEDED") {
			if !strings.Contains(body, `outcome: <strong data-outcome>not-eligible</strong>`) {
				t.Errorf("the run page shows a SUCCEEDED execution without its outcome:\n%s", body)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the execution did not end:\n%s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
