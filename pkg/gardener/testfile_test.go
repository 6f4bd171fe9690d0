package gardener

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatTestIsStable: a hand-written file in the canonical layout formats to itself, the
// format decodes to the same test, and a repair of one step changes one line of the file.
func TestFormatTestIsStable(t *testing.T) {
	files, err := filepath.Glob("../../tests/demoapp/testdata/tests/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no demo tests: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		test, err := DecodeTest(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out, err := FormatTest(test)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeTest(out)
		if err != nil {
			t.Fatalf("%s formatted does not decode: %v\n%s", f, err, out)
		}
		again, _ := FormatTest(back)
		if !bytes.Equal(out, again) {
			t.Errorf("%s: formatting is not stable:\n%s\n%s", f, out, again)
		}
		if lines := strings.Count(string(out), "\n"); lines != len(test.Steps)+9 {
			t.Errorf("%s: %d lines for %d steps, want one line a step:\n%s", f, lines, len(test.Steps), out)
		}
	}
	test := Test{ID: "t", ProjectID: "p", Name: `a "quoted", name: here`, Status: StatusActive, Version: 2, Steps: []Step{
		{Kind: Goto, URL: "/a,b:c"},
		{Kind: Click, Locator: MustLocator("#go")},
		{Kind: Fill, Locator: MustLocator(`label=Say \"hi\", then: go`), Value: "x"},
	}}
	before, err := FormatTest(test)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := DecodeTest(before); err != nil || back.Name != test.Name || back.Steps[0].URL != "/a,b:c" || back.Steps[2].Locator.String() != test.Steps[2].Locator.String() {
		t.Fatalf("strings with quotes, commas and colons do not survive: %+v %v\n%s", back, err, before)
	}
	repaired := test.Clone()
	repaired.Steps[1].Locator = MustLocator("#start")
	after, _ := FormatTest(repaired)
	var changed []string
	a, b := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
	for i := range a {
		if a[i] != b[i] {
			changed = append(changed, b[i])
		}
	}
	if len(a) != len(b) || len(changed) != 1 || !strings.Contains(changed[0], "#start") {
		t.Errorf("a one-step repair changed %q", changed)
	}
}

// TestFormatTestOfNoProject: a local test (no project) is written without a project field and
// reads back as local.
func TestFormatTestOfNoProject(t *testing.T) {
	out, err := FormatTest(Test{ID: "t", Name: "local", Status: StatusActive, Steps: []Step{{Kind: Goto, URL: "/"}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), `"project"`) {
		t.Errorf("a local test is written with a project field:\n%s", out)
	}
	back, err := DecodeTest(out)
	if err != nil || back.ProjectID != "" {
		t.Errorf("decoded %+v, %v", back, err)
	}
}
