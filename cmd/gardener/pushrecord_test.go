package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// brokenLogin is a test written for the shop that fails on it: its password field is named
// by an id the shop never had. Its fill's value is what no report may show.
const brokenLogin = `{"id": "login-typo", "name": "log in, with a typo", "steps": [
  {"kind": "goto", "url": "/login"},
  {"kind": "fill", "locator": "label=Username", "value": "demo"},
  {"kind": "fill", "locator": "#pasword", "value": "typed-canary-51", "timeoutMs": 500},
  {"kind": "click", "locator": "role=button[name=\"Login\"]"}
]}`

// recordedRuns checks push --record's report: login recorded green with the id of the run the
// store holds as its last green run, login-typo failed at step 3, recorded but never green, and
// nothing typed in the report.
func recordedRuns(t *testing.T, rep syncReport, code int, out string, store gardener.Store) {
	t.Helper()
	ctx := context.Background()
	if code != exitNegative {
		t.Errorf("exit %d, want 1 (a recorded run failed)", code)
	}
	runs := map[string]*recorded{}
	for _, s := range rep.Tests {
		runs[s.TestID] = s.Run
	}
	login, typo := runs["login"], runs["login-typo"]
	if login == nil || !login.Green || login.RunID == "" {
		t.Fatalf("login: %+v, want a green run recorded", login)
	}
	green, err := store.LastGreenRun(ctx, "login")
	if err != nil || green.ID != login.RunID || green.TestVersion != 1 {
		t.Errorf("the store's last green run of login: %+v %v, want run %s of version 1", green, err, login.RunID)
	}
	if typo == nil || typo.Green || typo.RunID == "" || typo.FailedStep != "3" || !strings.Contains(typo.Failure, "#pasword") {
		t.Fatalf("login-typo: %+v, want a failed run at step 3", typo)
	}
	if _, err := store.LastGreenRun(ctx, "login-typo"); !errors.Is(err, gardener.ErrNotFound) {
		t.Errorf("login-typo has a green run: %v", err)
	}
	if js, _ := json.Marshal(rep); strings.Contains(out+string(js), "typed-canary-51") {
		t.Errorf("the report shows what the test types:\n%s\n%s", out, js)
	}
	if rep.Counts["recorded green"] != 1 || rep.Counts["failed"] != 1 {
		t.Errorf("counts %v", rep.Counts)
	}
}

// TestPushRecordsBaselines: push --record runs each test it creates once against its app and
// records the run through the application layer — locally in this process's browser, and
// through --api by POST /tests/{testId}/runs — reporting each as recorded green (the run id)
// or failed (where and why, never recorded as green). A second push creates nothing and runs
// nothing. Costs a few replays in the package's browser (about 3 s).
func TestPushRecordsBaselines(t *testing.T) {
	t.Parallel()
	app := httptest.NewServer(demoapp.New().Handler())
	t.Cleanup(app.Close)
	write := func(t *testing.T) string {
		dir := demoDir(t, "login")
		noErr(t, os.WriteFile(filepath.Join(dir, "login-typo.json"), []byte(brokenLogin), 0o644))
		return dir
	}
	t.Run("local state", func(t *testing.T) {
		t.Parallel()
		dir, state := write(t), t.TempDir()
		var out, errb bytes.Buffer
		code := dispatch([]string{"push", dir, "--project", "demo", "--state", state, "--record", "--base-url", app.URL}, nil, &out, &errb)
		if code != exitNegative || !strings.Contains(out.String(), "recorded green run ") || !strings.Contains(out.String(), "failed: run ") || !strings.Contains(out.String(), "runs: 1 recorded green, 1 failed") {
			t.Errorf("exit %d; the text report does not say what was recorded:\n%s%s", code, out.String(), errb.String())
		}
		// The same push as JSON, on a fresh state: the report a script reads.
		state = t.TempDir()
		rep, code, stderr := syncCLI(t, "push", write(t), "--project", "demo", "--state", state, "--record", "--base-url", app.URL)
		store, err := embedded.Open(filepath.Join(state, "gardener.db"))
		noErr(t, err)
		defer store.Close()
		recordedRuns(t, rep, code, out.String()+stderr, store)
		if p, err := store.Project(context.Background(), "demo"); err != nil || len(p.AllowedOrigins) != 1 || p.AllowedOrigins[0] != app.URL {
			t.Errorf("the project's origins: %+v %v, want the app --base-url names", p.AllowedOrigins, err)
		}
	})
	t.Run("api", func(t *testing.T) {
		t.Parallel()
		store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
		noErr(t, err)
		t.Cleanup(func() { store.Close() })
		st, err := stack.New(stack.Config{Template: "../../template.yaml", Services: handler.Services{Store: store, Runner: sharedRunner,
			BaseURLs: map[string]string{"demo": app.URL}, StepTimeout: 3 * time.Second,
			Models: func(ctx context.Context, spec string) (gardener.Model, error) {
				return modelspec.Open(ctx, spec, modelspec.Options{})
			}}})
		noErr(t, err)
		t.Cleanup(st.Wait)
		srv := httptest.NewServer(st.Handler())
		t.Cleanup(srv.Close)
		req, _ := http.NewRequest("PUT", srv.URL+"/projects/demo", strings.NewReader(`{"name":"Seedling Supply","allowedOrigins":["`+app.URL+`"],"model":"builtin"}`))
		req.Header.Set("Authorization", "Bearer "+os.Getenv(tokenEnv))
		resp, err := http.DefaultClient.Do(req)
		noErr(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("creating the project: %d", resp.StatusCode)
		}
		dir := write(t)
		rep, code, stderr := syncCLI(t, "push", dir, "--project", "demo", "--api", srv.URL, "--record")
		recordedRuns(t, rep, code, stderr, store)
		again, code, _ := syncCLI(t, "push", dir, "--project", "demo", "--api", srv.URL, "--record")
		if code != exitOK || again.Counts["unchanged"] != 2 || again.Counts["recorded green"]+again.Counts["failed"] != 0 {
			t.Errorf("a second push: exit %d %+v, want both unchanged and nothing run", code, again)
		}
	})
	for _, args := range [][]string{
		{"push", "x", "--project", "demo", "--base-url", "http://127.0.0.1:1"},
		{"push", "x", "--project", "demo", "--record", "--base-url", "http://127.0.0.1:1", "--api", "http://127.0.0.1:2"},
		{"push", "x", "--project", "demo", "--record", "--base-url", "ftp://x"},
	} {
		if _, code, _ := syncCLI(t, args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
