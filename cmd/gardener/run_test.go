package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
)

const runPage = `<!doctype html><html><head><title>Run page</title></head><body>
<h1>Hello</h1><button id="go" onclick="document.getElementById('out').textContent='done'">Go</button><p id="out"></p></body></html>`

func writeRunTest(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"--base-url", "http://127.0.0.1:1"}, "usage"},
		{"no base url", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"}]}`)}, "usage"},
		{"unreadable", []string{"/nonexistent/test.json", "--base-url", "http://127.0.0.1:1"}, "no such file"},
		{"strict decode names step and field", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"},{"kind":"click","locatr":"#a"}]}`), "--base-url", "http://127.0.0.1:1"}, `step 2 (click), field "locatr"`},
		{"two files", []string{"a.json", "b.json", "--base-url", "http://x"}, "one test file at a time"},
		{"base url without a scheme", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"}]}`), "--base-url", "127.0.0.1:8080"}, `"127.0.0.1:8080" is not an http or https URL`},
		{"allowed origin not http", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"}]}`), "--base-url", "http://127.0.0.1:1", "--allow-origin", "file:///etc"}, `"file:///etc" is not an http or https URL`},
		{"negative step timeout", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"}]}`), "--base-url", "http://127.0.0.1:1", "--step-timeout", "-1s"}, "--step-timeout -1s is negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := dispatch(append([]string{"run"}, c.args...), nil, &out, &errOut)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, errOut.String())
			}
			if !strings.Contains(errOut.String(), c.want) {
				t.Errorf("stderr %q does not mention %q", errOut.String(), c.want)
			}
		})
	}
}

func TestRunReplays(t *testing.T) {
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, runPage) }))
	defer srv.Close()
	pass := writeRunTest(t, `{"id":"hello","steps":[{"kind":"goto","url":"/"},{"kind":"intent","goal":"press go","steps":[{"kind":"click","locator":"role=button[name=\"Go\"]"}]},{"kind":"assert","assert":"text","locator":"#out","condition":"equals","expected":"done"}]}`)
	failing := writeRunTest(t, `{"id":"hello","steps":[{"kind":"goto","url":"/"},{"kind":"click","locator":"#missing","timeoutMs":500}]}`)
	cases := []struct {
		name  string
		args  []string
		code  int
		wants []string
	}{
		{"pass log", []string{pass, "--base-url", srv.URL}, 0, []string{"1     goto /  ok", "  2.1   click role=button[name=\"Go\"]  ok", "3     assert text css=#out equals \"done\"  ok", "PASS hello"}},
		{"fail log", []string{failing, "--base-url", srv.URL}, 1, []string{"2     click css=#missing timeout=500ms  FAIL", "FAIL hello [element-not-found] step 2 (click css=#missing timeout=500ms): no element matches css=#missing after 500ms"}},
		{"json", []string{"--json", "--base-url", srv.URL, failing}, 1, []string{`"failedStep": "2"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := dispatch(append([]string{"run"}, c.args...), nil, &out, &errOut)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out.String(), errOut.String())
			}
			for _, w := range c.wants {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output does not contain %q:\n%s", w, out.String())
				}
			}
			if c.name == "json" {
				var res gardener.RunResult
				if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.ErrorKind != gardener.ErrElementNotFound {
					t.Errorf("--json output is not the run result: %v %+v", err, res)
				}
			}
		})
	}
}
