package conformance_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/testkit"
)

// The suite drives every door of the gardener with the same scenarios and expects the same
// answer from each: one browser for the in-process doors and the seeding, and the gardener
// binary for the doors that are a process of their own (the CLI and MCP over stdio).
var (
	runner *browser.Runner
	binary string
	// bedrock is the hostile model's endpoint, for the scenarios whose project names a
	// Bedrock model.
	bedrock string
)

// hostileSpec is the model setting that reaches the hostile model.
const hostileSpec = "bedrock:conformance.hostile-v1"

// stepTimeout bounds each step: the app answers at once, so a missing element is drift, not a
// slow page.
const stepTimeout = 3 * time.Second

func TestMain(m *testing.M) {
	var remove func()
	binary, remove = testkit.BuildGardener("tests/conformance", "../../cmd/gardener")
	// The Converse calls are signed as to AWS; the hostile model checks no signature.
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "conformance", "AWS_SECRET_ACCESS_KEY": "conformance", "AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"} {
		os.Setenv(k, v)
	}
	model := hostileModel()
	bedrock = model.URL
	testkit.Main(m, testkit.Chromium{Package: "tests/conformance", Shared: &runner, Options: browser.Options{StepTimeout: stepTimeout}, Parallel: 3,
		AfterTests: func() {
			model.Close()
			remove()
		}})
}

// variant is what the sign-in app serves.
type variant string

const (
	baseline   variant = "baseline"   // every step of the test passes
	drift      variant = "drift"      // the button's id is renamed; its text and place stay
	regression variant = "regression" // the button is gone: nothing on the page signs in
	down       variant = "down"       // nothing answers at the app's origin: connecting is refused
)

// app is a sign-in page written for this suite: a user field, a button, and the page the
// button leads to, which greets the user.
type app struct {
	variant atomic.Value
	srv     *httptest.Server
}

func newApp(t *testing.T) *app {
	t.Helper()
	a := &app{}
	a.variant.Store(baseline)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		button := `<button id="go" type="submit">Sign in</button>`
		switch a.variant.Load().(variant) {
		case drift:
			button = `<button id="signin-button" type="submit">Sign in</button>`
		case regression:
			button = `<p>Sign-in is closed.</p>`
		}
		fmt.Fprintf(w, `<!doctype html><html><head><title>Sign in</title></head><body><main><h1>Sign in</h1>
<form action="/home" method="get"><label for="user">User</label> <input id="user" name="user"> %s</form></main></body></html>`, button)
	})
	mux.HandleFunc("GET /home", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Home</title></head><body><main><h1 id="greeting">Welcome</h1></main></body></html>`)
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

// serve has a serve v from now on; down closes its server, and its origin refuses connections.
func (a *app) serve(v variant) {
	a.variant.Store(v)
	if v == down {
		a.srv.Close()
	}
}

// canary is what the test types: no text any door gives people or agents may carry it.
const canary = "canary-typed-5e1d"

const projectID = "conformance"

// signInTest is a test written by hand for this app, not one of the demo's.
func signInTest() gardener.Test {
	return gardener.Test{ID: "sign-in", ProjectID: projectID, Name: "sign in", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Fill, Locator: gardener.MustLocator("#user"), Value: canary},
		{Kind: gardener.Click, Locator: gardener.MustLocator("#go")},
		{Kind: gardener.Assert, Subject: gardener.SubjectText, Locator: gardener.MustLocator("#greeting"), Condition: gardener.Equals, Expected: "Welcome"},
	}}
}

// failedRunID is the run every repair scenario answers: a scheduled run of version 1 that the
// platform reported failed.
const failedRunID = "sched-1"

// seed is what a scenario starts from, written to a store before any door opens it.
type seed struct {
	// model is the project's model setting; empty is builtin.
	model      string
	autoRepair bool
	green      bool // record a green run of version 1 on the baseline app
	control    bool // the failed run is a negative control run
	proposal   *gardener.Proposal
	proof      bool // record a green proof of the proposal's ops
	edited     bool // a person edits the test after the proposal was staged
	// propose: the repair is asked to propose whatever the project's mode (the API's
	// "propose": true, gardener repair --mode propose).
	propose bool
	// otherName: the doors replay against the app by another name (http://localhost:PORT) than
	// the project's allowed origin (http://127.0.0.1:PORT).
	otherName bool
}

// seedStore writes the scenario's starting state to the store at path and closes it.
func seedStore(t *testing.T, path string, a *app, s seed) {
	t.Helper()
	ctx := context.Background()
	store, err := embedded.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	p := gardener.Project{ID: projectID, Name: projectID, Plan: gardener.PlanPro, Model: cmp.Or(s.model, "builtin"), AutoRepair: s.autoRepair, AllowedOrigins: []string{a.srv.URL}}
	if err := store.PutProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	test := signInTest()
	if err := store.CreateTest(ctx, test); err != nil {
		t.Fatal(err)
	}
	if s.green {
		a.serve(baseline)
		green := greenOf(t, a)
		if err := store.PutRun(ctx, gardener.Run{ID: "green-seed", ProjectID: projectID, TestID: test.ID, TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &green, At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	run := gardener.Run{ID: failedRunID, ProjectID: projectID, TestID: test.ID, TestVersion: 1, Trigger: gardener.TriggerSchedule, Control: s.control, At: time.Now()}
	if err := store.PutRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if s.proposal != nil {
		pr := *s.proposal
		pr.ProjectID, pr.TestID, pr.BaseVersion, pr.Status = projectID, test.ID, 1, gardener.ProposalProposed
		pr.StagedAt, pr.UpdatedAt = time.Now(), time.Now()
		if _, err := store.StageProposal(ctx, pr); err != nil {
			t.Fatal(err)
		}
		if s.proof {
			res := gardener.RunResult{TestID: test.ID, TestVersion: 1, Passed: true, FailedIndex: -1}
			if err := store.PutRun(ctx, gardener.Run{ID: gardener.ProofID(test.ID, 1, pr.Verdict.Ops), ProjectID: projectID, TestID: test.ID, TestVersion: 1, Trigger: gardener.TriggerProof, Probe: true, Result: &res, At: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if s.edited {
		edit := test
		edit.Steps = append(append([]gardener.Step(nil), test.Steps...), gardener.Step{Kind: gardener.Wait, For: gardener.WaitTime, Ms: 50})
		if _, err := store.SaveTest(ctx, edit); err != nil {
			t.Fatal(err)
		}
	}
}

// green is the green run of the sign-in test on the baseline app, replayed once for the package
// on the first app that needs it, and the origin of that app.
var green struct {
	once   sync.Once
	result []byte // the run result as JSON
	origin string
	err    error
}

// greenOf is the green run of the sign-in test on a's baseline. Every app serves the same pages
// and differs only in its origin, so the one replay's result, moved to a's origin, is what a
// replay on a records: a scenario's world needs its green run, not another replay of it.
func greenOf(t *testing.T, a *app) gardener.RunResult {
	t.Helper()
	green.once.Do(func() {
		test := signInTest()
		rep, err := runner.Replay(context.Background(), test, gardener.ReplayOptions{BaseURL: a.srv.URL, AllowedOrigins: []string{a.srv.URL}})
		if err != nil || !rep.Result.Passed {
			green.err = fmt.Errorf("the sign-in test on the baseline app: %+v (%v)", rep.Result, err)
			return
		}
		green.origin = a.srv.URL
		green.result, green.err = json.Marshal(rep.Result)
	})
	if green.err != nil {
		t.Fatal(green.err)
	}
	var res gardener.RunResult
	if err := json.Unmarshal(bytes.ReplaceAll(green.result, []byte(green.origin), []byte(a.srv.URL)), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// records are what a scenario wrote, read back from the store at path.
type records struct {
	Version   int
	Repairs   int
	Open      int // open proposals
	Stale     int
	Triage    int
	Approvers []string
}

func readRecords(t *testing.T, store gardener.Store) records {
	t.Helper()
	ctx := context.Background()
	var r records
	test, err := store.Test(ctx, "sign-in")
	if err != nil {
		t.Fatal(err)
	}
	r.Version = test.Version
	repairs, err := store.Repairs(ctx, "sign-in")
	if err != nil {
		t.Fatal(err)
	}
	r.Repairs = len(repairs)
	for _, rp := range repairs {
		if rp.ApprovedBy != "" {
			r.Approvers = append(r.Approvers, "someone")
		}
	}
	props, err := store.TestProposals(ctx, "sign-in")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range props {
		switch p.Status {
		case gardener.ProposalProposed:
			r.Open++
		case gardener.ProposalStale:
			r.Stale++
		}
	}
	issues, err := store.TriageIssues(ctx, projectID)
	if err != nil {
		t.Fatal(err)
	}
	r.Triage = len(issues)
	return r
}

func readRecordsAt(t *testing.T, path string) records {
	t.Helper()
	store, err := embedded.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	return readRecords(t, store)
}
