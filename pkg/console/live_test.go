package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/local/stack"
)

// liveApp is an app for the console's actions that replay: a catalogue page with a search
// button.
func liveApp(t *testing.T) *httptest.Server {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Shop</title><h1>Catalogue</h1><label>Search <input id="q"></label><button id="go">Search</button></html>`)
	}))
	t.Cleanup(app.Close)
	return app
}

// TestRunNowSweepNowAndTheRunPage drives the actions that replay in the process serving the
// console, over a real app in the shared Chromium: Run now records a green run and a red one
// (the run page shows the failed step and message), Sweep now records the first baseline and
// then sweeps and runs the staging pass; a repair started through the API with no run recorded
// shows, on the run page it recorded, the failure the repair machine reproduced and the
// execution's outcome beside its status. A console served without a browser says it cannot run
// or sweep here.
func TestRunNowSweepNowAndTheRunPage(t *testing.T) {
	w := seed(t)
	ctx := context.Background()
	app := liveApp(t)
	if err := w.store.PutProject(ctx, gardener.Project{ID: "live", Name: "Live shop", Plan: gardener.PlanPro, Model: "builtin", Radar: true, AllowedOrigins: []string{app.URL}}); err != nil {
		t.Fatal(err)
	}
	for id, js := range map[string]string{
		"live-green": `[{"kind": "goto", "url": "/"}, {"kind": "assertVisible", "locator": "css=#go"}]`,
		"live-red":   `[{"kind": "goto", "url": "/"}, {"kind": "click", "locator": "css=#missing"}]`,
	} {
		if err := w.store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "live", Name: id, Status: gardener.StatusActive, Version: 1, Steps: decodeSteps(t, js)}); err != nil {
			t.Fatal(err)
		}
	}
	// The red test's click waits for an element that never comes: a short bound keeps it short.
	srv, st := serveStack(t, w, time.Second)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "live")
	post := func(path, notice string) string {
		t.Helper()
		status, body, h := ann.do("POST", path, url.Values{"csrf": {ann.csrf("/console/projects/live")}}, nil)
		to := h.Get("Location")
		if status != http.StatusSeeOther || !strings.HasSuffix(to, "?done="+notice) {
			t.Fatalf("POST %s: %d to %q, want the notice %s: %s", path, status, to, notice, words(body))
		}
		status, body, _ = ann.do("GET", to, nil, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d", to, status)
		}
		return body
	}

	// Run now, green and red: the run page of each says what happened.
	if page := words(post("/console/tests/live-green/runs", "green")); !strings.Contains(page, "Ran now: the test passed") || !strings.Contains(page, "Passed in") {
		t.Errorf("the green run's page:\n%s", page)
	}
	if _, err := w.store.LastGreenRun(ctx, "live-green"); err != nil {
		t.Errorf("Run now recorded no green run: %v", err)
	}
	if page := post("/console/tests/live-red/runs", "red"); !strings.Contains(page, "Failing step</dt><dd>2</dd>") || !strings.Contains(page, "#missing") {
		t.Errorf("the red run's page does not show its failed step and message:\n%s", words(page))
	}

	// Sweep now: first the baseline (there was none), then a sweep and a staging pass.
	if page := words(post("/console/projects/live/sweep", "baselined")); !strings.Contains(page, "Baseline recorded: the project had none") {
		t.Errorf("the first Sweep now:\n%s", page)
	}
	if _, err := w.store.Baseline(ctx, "live"); err != nil {
		t.Errorf("the first Sweep now recorded no baseline: %v", err)
	}
	page := words(post("/console/projects/live/sweep", "swept"))
	for _, want := range []string{"Swept: the sections below", "1 page visited, 0 app changes seen", "Last staging pass Ran "} {
		if !strings.Contains(page, want) {
			t.Errorf("after Sweep now the radar page lacks %q:\n%s", want, page)
		}
	}

	// A repair the API starts with no run named records one with no result; the repair machine
	// reproduces the failure and stores it on the run, and the run page shows it with the
	// execution's outcome (the machine succeeds whatever the outcome).
	// Self-heal alone: the run page is the point here, not the ladder.
	req, err := http.NewRequest("POST", srv.URL+"/tests/live-red/repair", strings.NewReader(`{"rungs":["self-heal"]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+stack.DevToken("ann@example.com", "live"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	status, body := resp.StatusCode, string(raw)
	var started struct {
		ExecutionID string `json:"executionId"`
	}
	if err := json.Unmarshal([]byte(body), &started); status != http.StatusAccepted || err != nil {
		t.Fatalf("POST /tests/live-red/repair: %d %v %s", status, err, body)
	}
	st.Wait()
	x, err := w.store.Execution(ctx, started.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	_, runPage, _ := ann.do("GET", "/console/runs/"+x.RunID, nil, nil)
	if !strings.Contains(runPage, "Failing step</dt><dd>2</dd>") || !strings.Contains(runPage, "#missing") {
		t.Errorf("the page of the run the API recorded does not show the reproduced failure:\n%s", words(runPage))
	}
	if !strings.Contains(runPage, "SUCCEEDED</strong><span data-outcome-line> · outcome: <strong data-outcome>") || strings.Contains(runPage, "<strong data-outcome></strong>") {
		t.Errorf("the run page shows the execution without its outcome:\n%s", words(runPage))
	}

	// Without a browser in the serving process (the API in Lambda), both actions say so (501).
	bare := bareConsole(t, w)
	bob := newClient(t, bare.URL)
	bob.signIn("bob@example.com", "live")
	tok := bob.csrf("/console/projects/live")
	for _, path := range []string{"/console/tests/live-green/runs", "/console/projects/live/sweep"} {
		status, body, _ := bob.do("POST", path, url.Values{"csrf": {tok}}, nil)
		if status != http.StatusNotImplemented || !strings.Contains(words(body), "no browser") {
			t.Errorf("POST %s without a browser: %d %s", path, status, words(body))
		}
	}
}

// bareConsole is the console served with no browser to replay in, each page authorized by the
// project of the test or project its path names.
func bareConsole(t *testing.T, w *world) *httptest.Server {
	auth, err := console.DevAuth()
	if err != nil {
		t.Fatal(err)
	}
	c, err := console.New(console.Deps{Store: w.store, App: appOver(t, w, nil), Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	authorize := func(r *http.Request, who console.Identity) (string, error) {
		project := r.PathValue("projectId")
		if id := r.PathValue("testId"); id != "" {
			tst, err := w.store.Test(r.Context(), id)
			if err != nil {
				return "", err
			}
			project = tst.ProjectID
		}
		if !who.May(project) {
			return "", &gardener.NotFoundError{Entity: "project", ID: project}
		}
		return project, nil
	}
	mux := http.NewServeMux()
	for _, rt := range console.Routes() {
		mux.Handle(rt.Pattern, c.Handler(rt, authorize))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}
