package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/testkit/netkit"
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
		{"a missing file among several", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"}]}`), "/nonexistent/b.json", "--base-url", "http://x"}, "/nonexistent/b.json"},
		{"every bad file named", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"gotoo","url":"/"}]}`), writeRunTest(t, `{"id":"y","steps":[{"kind":"click"}]}`), "--base-url", "http://x"}, "step 1 (click)"},
		{"a folder without tests", []string{t.TempDir(), "--base-url", "http://x"}, "holds no test file"},
		{"parallel zero", []string{"a.json", "--parallel", "0", "--base-url", "http://x"}, "--parallel 0"},
		{"junit folder missing", []string{"a.json", "--junit", "/nonexistent/dir/report.xml", "--base-url", "http://x"}, "/nonexistent/dir does not exist"},
		{"base url without a scheme", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"}]}`), "--base-url", "127.0.0.1:8080"}, `"127.0.0.1:8080" is not an http or https URL`},
		{"allowed origin not http", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"}]}`), "--base-url", "http://127.0.0.1:1", "--allow-origin", "file:///etc"}, `"file:///etc" is not an http or https URL`},
		{"a state without --record", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"}]}`), "--base-url", "http://127.0.0.1:1", "--state", t.TempDir()}, "--state is for --record"},
		{"negative step timeout", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"}]}`), "--base-url", "http://127.0.0.1:1", "--step-timeout", "-1s"}, "--step-timeout -1s is negative"},
		{"step timeout past a step's bound", []string{writeRunTest(t, `{"id":"x","steps":[{"kind":"goto","url":"/"}]}`), "--base-url", "http://127.0.0.1:1", "--step-timeout", "11m"}, "--step-timeout 11m0s is over 10m0s"},
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
	t.Parallel()
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

// TestRunMany: several files and a folder replay side by side in one browser, each prints its
// line, the summary counts them, --json holds every result and --junit writes a report a CI reads:
// one testcase per test, the failure naming the step and the error. Any red test exits 1.
func TestRunMany(t *testing.T) {
	srv, dir := runPageServer(t)
	write := func(rel, body string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("suite/a.json", `{"id":"press","steps":[{"kind":"goto","url":"/"},{"kind":"click","locator":"#go"},{"kind":"assert","assert":"text","locator":"#out","condition":"equals","expected":"done"}]}`)
	write("suite/nested/b.json", `{"id":"heading","steps":[{"kind":"goto","url":"/"},{"kind":"assertVisible","locator":"role=heading[name=\"Hello\"]"}]}`)
	write("suite/.hidden/c.json", `not a test`)
	write("suite/notes.txt", `not a test either`)
	red := write("red.json", `{"id":"missing","steps":[{"kind":"goto","url":"/"},{"kind":"click","locator":"#missing","timeoutMs":300}]}`)
	report := filepath.Join(dir, "report.xml")

	var out, errOut bytes.Buffer
	code := dispatch([]string{"run", "--base-url", srv.URL, "--parallel", "2", "--junit", report, filepath.Join(dir, "suite"), red}, nil, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a red test)\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"running 3 tests", "PASS  press", "PASS  heading", "FAIL  missing  " + red + "  [element-not-found] step 2", "3 tests: 2 passed, 1 failed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output does not contain %q:\n%s", want, out.String())
		}
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &rep); err != nil {
		t.Fatalf("the JUnit report does not parse: %v\n%s", err, b)
	}
	if rep.Tests != 3 || rep.Failures != 1 || len(rep.Suites) != 1 || len(rep.Suites[0].Cases) != 3 {
		t.Fatalf("JUnit report:\n%s", b)
	}
	for _, c := range rep.Suites[0].Cases {
		if (c.Failure != nil) != (c.Name == "missing") {
			t.Errorf("testcase %s: failure %+v", c.Name, c.Failure)
		}
		if c.Failure != nil && (!strings.HasPrefix(c.Failure.Message, "step 2 (click css=#missing") || c.Failure.Type != "element-not-found") {
			t.Errorf("the failure does not name the step and the error: %+v", c.Failure)
		}
	}

	out.Reset()
	code = dispatch([]string{"run", "--json", "--base-url", srv.URL, filepath.Join(dir, "suite")}, nil, &out, &errOut)
	var sum runSummary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil || code != 0 || sum.Passed != 2 || sum.Failed != 0 || len(sum.Results) != 2 {
		t.Fatalf("a green folder with --json: exit %d, %v, %+v\n%s", code, err, sum, out.String())
	}
}

// TestRunRecordRecordsTheGreenRun: `gardener run --record` records each run in the state: a
// passing test's run is the green run a later repair of that version compares with, a failing
// one's is recorded and is no green run.
func TestRunRecordRecordsTheGreenRun(t *testing.T) {
	srv, dir := runPageServer(t)
	pass := filepath.Join(dir, "pass.json")
	failing := filepath.Join(dir, "failing.json")
	if err := os.WriteFile(pass, []byte(`{"id":"hello","project":"site","version":3,"steps":[{"kind":"goto","url":"/"},{"kind":"click","locator":"#go"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(failing, []byte(`{"id":"gone","project":"site","steps":[{"kind":"goto","url":"/"},{"kind":"click","locator":"#missing","timeoutMs":500}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	recorded := filepath.Join(t.TempDir(), "state")
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"run", "--record", "--base-url", srv.URL, "--state", recorded, pass, failing}, nil, &out, &errOut); code != 1 {
		t.Fatalf("run --record: exit %d, want 1 (one test fails)\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "[record] hello version 3: green run") {
		t.Errorf("stderr does not say the green run was recorded:\n%s", errOut.String())
	}
	// Each test's line names the run recorded for it (hello's is checked against the state below).
	if line := lineWith(out.String(), "FAIL  gone  "+failing); !strings.Contains(line, "  run ") || strings.HasSuffix(line, "  run ") {
		t.Errorf("the failing test's line names no run: %q\n%s", line, out.String())
	}
	store, err := openState(recorded)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := t.Context()
	green, err := store.LastGreenRun(ctx, "hello")
	if err != nil || green.TestVersion != 3 || green.Result == nil || !green.Result.Passed {
		t.Errorf("hello's last green run %+v (%v), want a passing run of version 3", green, err)
	}
	if line := lineWith(out.String(), "PASS  hello"); !strings.HasSuffix(line, "  run "+green.ID) {
		t.Errorf("hello's line %q does not name its green run %s", line, green.ID)
	}
	if g, err := store.LastGreenRun(ctx, "gone"); err == nil {
		t.Errorf("the failing test has a green run: %+v", g)
	}
	if !strings.Contains(errOut.String(), "[record] gone version 1: run ") || !strings.Contains(errOut.String(), "it failed, so it is no green run") {
		t.Errorf("stderr does not say the failing run was recorded as no green run:\n%s", errOut.String())
	}
	// The project the state made for the files can be repaired from any door (MCP's suggest_fix
	// included): it is on the builtin model, which needs no key.
	if p, err := store.Project(ctx, "site"); err != nil || p.Model != builtin.Name {
		t.Errorf("the project run --record made: %+v (%v), want it on the builtin model", p, err)
	}
}

// lineWith is the first line of out that contains s, or "".
func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestRunOfAnUnreachablePage: a page of a test that the network cannot load (a refused
// connection) is no failing test: the run exits 3 and says the app was not reached, alone and
// among several. About a second of browser.
func TestRunOfAnUnreachablePage(t *testing.T) {
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, runPage) }))
	defer srv.Close()
	closed := closedOrigin(t)
	gone := writeRunTest(t, `{"id":"elsewhere","steps":[{"kind":"goto","url":"`+closed+`/"}]}`)
	here := writeRunTest(t, `{"id":"hello","steps":[{"kind":"goto","url":"/"}]}`)
	for _, args := range [][]string{{gone}, {gone, here}} {
		var out, errOut bytes.Buffer
		code := dispatch(append([]string{"run", "--base-url", srv.URL, "--allow-origin", closed}, args...), nil, &out, &errOut)
		if code != exitFailure || !strings.Contains(out.String()+errOut.String(), "the app was not reached") {
			t.Errorf("%v: exit %d, want 3 saying the app was not reached\n%s%s", args, code, out.String(), errOut.String())
		}
	}
}

// closedOrigin is the origin of a loopback port nothing listens on, for the whole test.
func closedOrigin(t *testing.T) string {
	t.Helper()
	return "http://" + netkit.RefusedAddr(t)
}

// TestRunRefusesAFileBehindTheState: a test file that names no version (a copy of version 1),
// run with --record after a repair moved the state's test to version 2, is refused: nothing is
// replayed and the repair is not written over, the output says how to bring the file up to
// date, and the exit status is 1, alone and among several files.
func TestRunRefusesAFileBehindTheState(t *testing.T) {
	srv, dir := runPageServer(t)
	hello := filepath.Join(dir, "hello.json")
	other := filepath.Join(dir, "other.json")
	noErr(t, os.WriteFile(hello, []byte(`{"id":"hello","project":"site","steps":[{"kind":"goto","url":"/"},{"kind":"click","locator":"#go"}]}`), 0o644))
	noErr(t, os.WriteFile(other, []byte(`{"id":"other","project":"site","steps":[{"kind":"goto","url":"/"}]}`), 0o644))
	state := filepath.Join(t.TempDir(), "state")
	if code := dispatch([]string{"run", "--record", "--base-url", srv.URL, "--state", state, hello, other}, nil, io.Discard, io.Discard); code != exitOK {
		t.Fatalf("first run: exit %d", code)
	}
	store, err := openState(state)
	noErr(t, err)
	repaired := repairInStore(t, store, "hello", 1, `role=button[name="Go"]`)
	noErr(t, store.Close())

	for _, files := range [][]string{{hello}, {hello, other}} {
		var out, errb bytes.Buffer
		code := dispatch(append([]string{"run", "--record", "--base-url", srv.URL, "--state", state}, files...), nil, &out, &errb)
		text := out.String() + errb.String()
		if code != exitNegative {
			t.Errorf("run %v: exit %d, want 1\n%s", files, code, text)
		}
		for _, want := range []string{hello, "names no version", "test hello is at version 2 in the local state", "gardener pull " + dir + " --project site --state " + state} {
			if !strings.Contains(text, want) {
				t.Errorf("run %v does not say %q:\n%s", files, want, text)
			}
		}
	}
	store, err = openState(state)
	noErr(t, err)
	defer store.Close()
	got, err := store.Test(t.Context(), "hello")
	noErr(t, err)
	if got.Version != 2 || !slices.EqualFunc(got.Steps, repaired.Steps, gardener.Step.Equal) {
		t.Errorf("the repair was written over: version %d, steps %v", got.Version, got.Steps)
	}
}

// runPageServer skips t without Chromium, runs it in parallel and serves runPage for it, with a
// folder for its test files.
func runPageServer(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, runPage) }))
	t.Cleanup(srv.Close)
	return srv, t.TempDir()
}
