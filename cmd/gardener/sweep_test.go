package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
)

func testDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSweepBadInput(t *testing.T) {
	one := `{"id":"a","project":"p","steps":[{"kind":"goto","url":"/"}]}`
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no tests dir", []string{"--base-url", "http://127.0.0.1:1"}, "usage"},
		{"no base url", []string{"--tests", testDir(t, map[string]string{"a.json": one})}, "--base-url is required"},
		{"empty dir", []string{"--tests", t.TempDir(), "--base-url", "http://127.0.0.1:1"}, "no *.json test files"},
		{"two projects", []string{"--tests", testDir(t, map[string]string{"a.json": one, "b.json": `{"id":"b","project":"q","steps":[{"kind":"goto","url":"/"}]}`}), "--base-url", "http://127.0.0.1:1"}, "one project's tests at a time"},
		{"same id twice", []string{"--tests", testDir(t, map[string]string{"a.json": one, "b.json": one}), "--base-url", "http://127.0.0.1:1"}, `a second test with id "a"`},
		{"bad test", []string{"--tests", testDir(t, map[string]string{"a.json": `{"id":"a","steps":[{"kind":"click"}]}`}), "--base-url", "http://127.0.0.1:1"}, "a.json"},
		{"unknown setup", []string{"--tests", testDir(t, map[string]string{"a.json": one}), "--base-url", "http://127.0.0.1:1", "--setup", "login"}, `--setup "login"`},
		{"unknown model", []string{"--tests", testDir(t, map[string]string{"a.json": one}), "--base-url", "http://127.0.0.1:1", "--model", "gpt"}, "gpt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := dispatch(append([]string{"sweep"}, c.args...), nil, &out, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), c.want)
			}
		})
	}
}

// TestSweepStagesOnTheDemoApp records a baseline of two demo tests on the first sweep (none
// existed), then sweeps the id-renamed variant: the login test is at risk, dry-run red and
// staged; the other still passes.
func TestSweepStagesOnTheDemoApp(t *testing.T) {
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	t.Parallel()
	app := demoapp.New()
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	files := map[string]string{}
	for _, id := range []string{"login", "login-invalid"} {
		b, err := demoapp.TestJSON(id)
		if err != nil {
			t.Fatal(err)
		}
		files[id+".json"] = string(b)
	}
	dir, state := testDir(t, files), t.TempDir()
	args := []string{"sweep", "--tests", dir, "--base-url", srv.URL, "--state", state, "--step-timeout", "4s"}

	var out, errOut bytes.Buffer
	if code := dispatch(args, nil, &out, &errOut); code != 0 {
		t.Fatalf("first sweep: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"none existed", "At-risk tests: 0", "No repairs waiting"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("first sweep does not say %q:\n%s", want, out.String())
		}
	}

	if err := app.SetVariant("id-renamed"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if code := dispatch(append(args, "--json"), nil, &out, &errOut); code != 0 {
		t.Fatalf("second sweep: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	var got sweepOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("--json printed %q: %v", out.String(), err)
	}
	if got.Baseline != nil {
		t.Error("the second sweep recorded a baseline again")
	}
	var risky []string
	for _, r := range got.Sweep.AtRisk {
		risky = append(risky, r.TestID)
	}
	if !slices.Equal(risky, []string{"login"}) {
		t.Errorf("at risk %v, want [login]", risky)
	}
	if len(got.Pass.Proposed) != 1 || got.Pass.Proposed[0].Staged != gardener.StagedNew {
		t.Errorf("proposed %+v", got.Pass.Proposed)
	}
	if len(got.Queue.Rows) != 1 || got.Queue.Rows[0].TestID != "login" || len(got.Queue.Rows[0].Diff) == 0 {
		t.Errorf("queue %+v", got.Queue)
	}
}
