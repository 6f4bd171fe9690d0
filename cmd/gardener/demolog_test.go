package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

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
