package demoapp

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// rawLocators collects every locator string of a stored test as written, since decoding turns
// "css=x" and a bare "x" into the same Locator.
func rawLocators(t *testing.T, data []byte) []string {
	t.Helper()
	var doc struct {
		Steps []map[string]json.RawMessage `json:"steps"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func([]map[string]json.RawMessage)
	walk = func(steps []map[string]json.RawMessage) {
		for _, s := range steps {
			for _, f := range []string{"locator", "scope"} {
				var v string
				if raw, ok := s[f]; ok && json.Unmarshal(raw, &v) == nil {
					out = append(out, v)
				}
			}
			if raw, ok := s["steps"]; ok {
				var inner []map[string]json.RawMessage
				if err := json.Unmarshal(raw, &inner); err != nil {
					t.Fatal(err)
				}
				walk(inner)
			}
		}
	}
	walk(doc.Steps)
	return out
}

func TestSavedTestsDecode(t *testing.T) {
	tests, err := Tests()
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) < 8 || len(tests) > 14 {
		t.Errorf("%d saved tests, want 8 to 14", len(tests))
	}
	for _, tt := range tests {
		if tt.ProjectID != "demo" || tt.Status != gardener.StatusActive || tt.Version != 1 || tt.Name == "" {
			t.Errorf("test %s: project %q, status %q, version %d, name %q; want demo, active, 1 and a name", tt.ID, tt.ProjectID, tt.Status, tt.Version, tt.Name)
		}
		raw, err := TestJSON(tt.ID)
		if err != nil {
			t.Fatal(err)
		}
		again, err := gardener.DecodeTest(raw)
		if err != nil || len(again.Steps) != len(tt.Steps) {
			t.Errorf("TestJSON(%s) does not decode to the same test: %v", tt.ID, err)
		}
	}
	if _, err := TestJSON("no-such-test"); err == nil {
		t.Error("TestJSON of an unknown id gave no error")
	}
	p := Project("http://127.0.0.1:1")
	if !slices.ContainsFunc(tests, func(tt gardener.Test) bool { return tt.ID == p.SetupTestID }) {
		t.Errorf("the demo project's setup test %q is not a saved test", p.SetupTestID)
	}
}

// TestSavedTestsCoverEverything computes, from the saved tests themselves, that together they use
// every step kind, every assert subject and wait target, both kinds of audit, a negative check
// and every locator form as people write it.
func TestSavedTestsCoverEverything(t *testing.T) {
	tests, err := Tests()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	var visit func(s gardener.Step)
	visit = func(s gardener.Step) {
		have["kind "+string(s.Kind)] = true
		switch s.Kind {
		case gardener.Assert:
			have["assert "+string(s.Subject)] = true
		case gardener.Wait:
			have["wait "+string(s.For)] = true
		case gardener.A11yAudit:
			if s.ReportOnly {
				have["a11yAudit reportOnly"] = true
			} else {
				have["a11yAudit threshold"] = true
			}
		case gardener.Press:
			if s.Locator.IsZero() {
				have["press on the page"] = true
			} else {
				have["press on an element"] = true
			}
		case gardener.Intent:
			if len(s.Values) > 0 {
				have["intent with values"] = true
			}
		}
		for _, inner := range s.Steps {
			visit(inner)
		}
	}
	for _, tt := range tests {
		for _, s := range tt.Steps {
			visit(s)
		}
	}
	names, err := fs.Glob(files, testsDir+"/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range rawLocators(t, data) {
			prefix, _, ok := strings.Cut(l, "=")
			if !ok || strings.ContainsAny(prefix, "#.[ ") {
				have["locator bare css"] = true
				continue
			}
			have["locator "+prefix+"="] = true
		}
	}

	var want []string
	for _, k := range gardener.Kinds() {
		want = append(want, "kind "+string(k))
	}
	for _, s := range []gardener.Subject{gardener.SubjectURL, gardener.SubjectText, gardener.SubjectTitle, gardener.SubjectValue, gardener.SubjectVariable} {
		want = append(want, "assert "+string(s))
	}
	for _, w := range []gardener.WaitFor{gardener.WaitURL, gardener.WaitElement, gardener.WaitTime} {
		want = append(want, "wait "+string(w))
	}
	want = append(want, "a11yAudit reportOnly", "a11yAudit threshold", "press on the page", "press on an element", "intent with values",
		"locator bare css", "locator css=", "locator xpath=", "locator text=", "locator role=", "locator label=", "locator placeholder=", "locator testid=")
	for _, w := range want {
		if !have[w] {
			t.Errorf("no saved test covers %s", w)
		}
	}
}
