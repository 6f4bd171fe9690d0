package gardener_test

import (
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestRunForPeople: a run as people read it keeps no typed value — not in a step's values, not in
// what a value check read — and the stored run is left as it is; a check of a test version the
// run does not match is masked as a value check would be.
func TestRunForPeople(t *testing.T) {
	test := gardener.Test{ID: "t", Version: 2, Steps: []gardener.Step{
		{Kind: gardener.Fill, Locator: gardener.MustLocator("#pw"), Value: "hunter2"},
		{Kind: gardener.Assert, Subject: gardener.SubjectValue, Locator: gardener.MustLocator("#pw"), Condition: gardener.Equals, Expected: "x"},
		{Kind: gardener.Assert, Subject: gardener.SubjectText, Locator: gardener.MustLocator("h1"), Condition: gardener.Equals, Expected: "Hi"},
	}}
	res := gardener.RunResult{Steps: []gardener.StepRecord{
		{Path: "1", Kind: gardener.Fill, Values: []string{"hunter2"}},
		{Path: "2", Kind: gardener.Assert, Observed: "hunter2"},
		{Path: "3", Kind: gardener.Assert, Observed: "Welcome"},
	}}
	run := gardener.Run{ID: "r", TestID: "t", TestVersion: 2, Result: &res}
	for _, c := range []struct {
		name  string
		test  gardener.Test
		title string // what the text check's reading shows
	}{
		{"its own version", test, `"Welcome"`},
		{"another version", gardener.Test{ID: "t", Version: 3, Steps: test.Steps}, "[value redacted, 7 chars]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			shown := run.ForPeople(c.test)
			for _, st := range shown.Result.Steps {
				if len(st.Values) > 0 || strings.Contains(st.Observed, "hunter2") {
					t.Errorf("step %s shows a typed value: %+v", st.Path, st)
				}
			}
			if got := shown.Result.Steps[2].Observed; got != c.title {
				t.Errorf("the text check's reading shows %q, want %q", got, c.title)
			}
			if res.Steps[0].Values[0] != "hunter2" || res.Steps[1].Observed != "hunter2" {
				t.Error("ForPeople changed the stored run")
			}
		})
	}
}

func TestDataForPeopleMasksEveryEnteredValue(t *testing.T) {
	doc := `{"persisted":{"test":{"steps":[{"kind":"goto","url":"/a"},{"kind":"fill","locator":"css=#pw","value":"s3cret-typed"},
{"kind":"select","locator":"css=#c","value":"NL-picked"},{"kind":"set","locator":"css=#d","value":"set-typed"},{"kind":"assert","assert":"value","locator":"css=#pw","condition":"equals","expected":"shown"},
{"kind":"intent","goal":"sign in","values":{"user":"u-typed"},"steps":[{"kind":"fill","locator":"label=User","value":"u-typed"}]}]},
"ops":[{"op":"replace","index":1,"step":{"kind":"fill","locator":"label=Password","value":"s3cret-typed"}}],
"result":{"steps":[{"path":"2","kind":"fill","values":["s3cret-typed"]},{"path":"4","kind":"assert","observed":"read-back-value"}]}},"status":"x"}`
	got := string(gardener.DataForPeople([]byte(doc)))
	for _, typed := range []string{"s3cret-typed", "NL-picked", "set-typed", "u-typed", "read-back-value"} {
		if strings.Contains(got, typed) {
			t.Errorf("%q is still in %s", typed, got)
		}
	}
	for _, kept := range []string{`"/a"`, `"shown"`, `[value redacted, 12 chars]`, `label=Password`, `"sign in"`, `"status":"x"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("%s is missing from %s", kept, got)
		}
	}
	if gardener.DataForPeople([]byte("not json")) != nil {
		t.Error("a document that is not JSON is shown")
	}
}
