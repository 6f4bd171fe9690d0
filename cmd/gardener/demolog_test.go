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
	"github.com/driftgardener/gardener/tests/demoapp"
)

// typedValues are the values the demo's tests type into the app (fill steps, and the values of
// intent blocks their fills take), less those that cannot be told apart from what a log may
// carry for other reasons: a value shorter than four characters, or one that is also written
// in a field of a test that is not typed (a locator, a URL, an expected text, a goal), since a
// check may quote those.
func typedValues(t *testing.T) []string {
	t.Helper()
	tests, err := demoapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	typed := map[string]bool{}
	var public strings.Builder
	var walk func(steps []gardener.Step)
	walk = func(steps []gardener.Step) {
		for _, s := range steps {
			if s.Kind == gardener.Fill {
				typed[s.Value] = true
			} else {
				public.WriteString(s.String() + "\n")
			}
			public.WriteString(s.Locator.String() + "\n" + s.Goal + "\n")
			for _, v := range s.Values {
				typed[v] = true
			}
			walk(s.Steps)
		}
	}
	for _, tc := range tests {
		public.WriteString(tc.ID + "\n" + tc.Name + "\n")
		walk(tc.Steps)
	}
	var out []string
	for v := range typed {
		if len(v) >= 4 && !strings.Contains(public.String(), v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		t.Fatal("the demo's tests type no value that a log could be searched for")
	}
	return out
}

// assertNoTypedValues fails for every typed value found in text, raw or as JSON escapes it.
func assertNoTypedValues(t *testing.T, what, text string, values []string) {
	t.Helper()
	for _, v := range values {
		esc, _ := json.Marshal(v)
		if strings.Contains(text, v) || strings.Contains(text, strings.Trim(string(esc), `"`)) {
			for _, line := range strings.Split(text, "\n") {
				if strings.Contains(line, v) {
					t.Errorf("%s carries the typed value %q: %s", what, v, line)
					break
				}
			}
		}
	}
}

// checkDemoLog reads the log a demo run wrote and holds it, and the story it told, to
// carrying no value the tests type.
func checkDemoLog(t *testing.T, logPath, story string) {
	t.Helper()
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("reading the demo's log: %v", err)
	}
	if len(data) == 0 {
		t.Fatal("the demo wrote an empty log")
	}
	values := typedValues(t)
	t.Logf("searching %d bytes of log for %d typed values: %q", len(data), len(values), values)
	assertNoTypedValues(t, "the demo's log", string(data), values)
	assertNoTypedValues(t, "the demo's story", story, values)
}

// TestRunLogBoundsPageText: what a check read on the page reaches the run's log, its messages,
// its JUnit report and its JSON result bounded: an input's value (which a test may have typed,
// a password) by its length alone, any other page text quoted and cut. The page here shows a
// long text no log may copy whole, and the test types a secret into a field it then checks.
func TestRunLogBoundsPageText(t *testing.T) {
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	t.Parallel()
	const secret = "hunter2-correct-horse"
	long := strings.Repeat("confidential ledger line ", 20) + "END-OF-LEDGER"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Ledger</title><label>Password <input id="pw" type="password"></label><p id="ledger">`+long+`</p>`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		noErr(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	value := write("value.json", `{"id":"typed","steps":[{"kind":"goto","url":"/"},{"kind":"fill","locator":"#pw","value":"`+secret+`"},{"kind":"assert","assert":"value","locator":"#pw","condition":"equals","expected":"something else","timeoutMs":300}]}`)
	text := write("text.json", `{"id":"ledger","steps":[{"kind":"goto","url":"/"},{"kind":"assert","assert":"text","locator":"#ledger","condition":"equals","expected":"short","timeoutMs":300}]}`)
	passing := write("pass.json", `{"id":"read","steps":[{"kind":"goto","url":"/"},{"kind":"fill","locator":"#pw","value":"`+secret+`"},{"kind":"assert","assert":"value","locator":"#pw","condition":"contains","expected":"correct-horse"},{"kind":"assert","assert":"text","locator":"#ledger","condition":"contains","expected":"confidential"}]}`)
	report := filepath.Join(dir, "report.xml")
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"run", "--base-url", srv.URL, "--junit", report, value, text}, nil, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	var one, oneErr bytes.Buffer
	if code := dispatch([]string{"run", "--base-url", srv.URL, passing}, nil, &one, &oneErr); code != 0 {
		t.Fatalf("the passing test exited %d\nstdout:\n%s\nstderr:\n%s", code, one.String(), oneErr.String())
	}
	var js, jsErr bytes.Buffer
	dispatch([]string{"run", "--base-url", srv.URL, "--json", value}, nil, &js, &jsErr)
	junit, err := os.ReadFile(report)
	noErr(t, err)
	logs := map[string]string{"the run's output": out.String() + errOut.String(), "a passing run's step lines": one.String() + oneErr.String(), "the JUnit report": string(junit)}
	for what, text := range logs {
		assertNoTypedValues(t, what, text, []string{secret})
		if strings.Contains(text, "END-OF-LEDGER") {
			t.Errorf("%s quotes the page's long text whole:\n%s", what, text)
		}
	}
	// The run's messages still say what the check read, as far as a log may show it.
	for _, want := range []string{"value is [value redacted, 21 chars]", `text is "confidential ledger line`, "… (513 chars)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the run's output does not say %q:\n%s", want, out.String())
		}
	}
	// The JSON result is the run's data, not its log: its message is bounded too, and the step
	// record keeps what the check read for the person who reviews the run.
	var res gardener.RunResult
	noErr(t, json.Unmarshal(js.Bytes(), &res))
	if strings.Contains(res.Message, secret) || !strings.Contains(res.Message, "[value redacted, 21 chars]") {
		t.Errorf("the JSON result's message %q", res.Message)
	}
}
