package gardener

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// handWritten is a valid test file in a layout no command writes: keys in the author's order,
// css locators left bare, no project, no version, no status, tabs, a step spread over lines, an
// intent block, and characters encoding/json would escape.
const handWritten = `{
	"name":"Sign in, then look around",
	"id":"signin",
	"steps":[
		{"url":"/login","kind":"goto"},
		{"kind":"fill","value":"demo","locator":"#username"},
		{"locator":"#password","kind":"fill","value":"demo123"},
		{
			"kind": "click",
			"locator": "main > form button.primary"
		},
		{"kind":"wait","for":"time","ms":200},
		{"kind":"intent","goal":"open the orders","steps":[
			{"kind":"click","locator":"nav a[href='/orders']"},
			{"kind":"assertVisible","locator":"h1"}
		]},
		{"kind":"assert","assert":"url","condition":"contains","expected":"/orders?a=1&b=2"}
	]
}
`

// TestEditTestFileChangesOnlyTheRepair: writing a repaired version of a hand-written file
// changes the repaired step (in the file's own spelling and key order) and adds the version
// line, and nothing else; an inserted or deleted step is one line, an inner step of an intent
// block its own line, and a file that names its version has that line replaced.
func TestEditTestFileChangesOnlyTheRepair(t *testing.T) {
	base, err := DecodeTest([]byte(handWritten))
	if err != nil {
		t.Fatal(err)
	}
	base.ProjectID, base.Version = "local", 1 // as the CLI reads and stores it
	at := func(steps []Step, i int) *Step { return &steps[i] }
	cases := []struct {
		name           string
		change         func(*Test)
		removed, added []string
	}{
		{
			name:    "a locator moved",
			change:  func(t *Test) { at(t.Steps, 2).Locator = MustLocator("#pass-word") },
			removed: []string{`		{"locator":"#password","kind":"fill","value":"demo123"},`},
			added:   []string{`	"version":2,`, `		{"locator":"#pass-word","kind":"fill","value":"demo123"},`},
		},
		{
			name:    "a locator moved to another form",
			change:  func(t *Test) { at(t.Steps, 1).Locator = MustLocator(`label=User name`) },
			removed: []string{`		{"kind":"fill","value":"demo","locator":"#username"},`},
			added:   []string{`	"version":2,`, `		{"kind":"fill","value":"demo","locator":"label=User name"},`},
		},
		{
			name:    "a step spread over lines",
			change:  func(t *Test) { at(t.Steps, 3).Locator = MustLocator("main > form button.go") },
			removed: []string{`			"locator": "main > form button.primary"`},
			added:   []string{`	"version":2,`, `			"locator": "main > form button.go"`},
		},
		{
			name: "a step inserted",
			change: func(t *Test) {
				t.Steps = slices.Insert(t.Steps, 3, Step{Kind: Click, Locator: MustLocator("#accept-cookies")})
			},
			added: []string{`	"version":2,`, `		{"kind": "click", "locator": "css=#accept-cookies"},`},
		},
		{
			name:    "a step deleted",
			change:  func(t *Test) { t.Steps = slices.Delete(t.Steps, 4, 5) },
			removed: []string{`		{"kind":"wait","for":"time","ms":200},`},
			added:   []string{`	"version":2,`},
		},
		{
			name:    "an inner step of an intent block",
			change:  func(t *Test) { at(at(t.Steps, 5).Steps, 0).Locator = MustLocator("role=link[name=\"Orders\"]") },
			removed: []string{`			{"kind":"click","locator":"nav a[href='/orders']"},`},
			added:   []string{`	"version":2,`, `			{"kind":"click","locator":"role=link[name=\"Orders\"]"},`},
		},
		{
			name:    "a field added to a step",
			change:  func(t *Test) { at(t.Steps, 2).TimeoutMs = 9000 },
			removed: []string{`		{"locator":"#password","kind":"fill","value":"demo123"},`},
			added:   []string{`	"version":2,`, `		{"locator":"#password","kind":"fill","value":"demo123","timeoutMs":9000},`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next := base.Clone()
			c.change(&next)
			next.Version = 2
			out, err := EditTestFile([]byte(handWritten), next)
			if err != nil {
				t.Fatal(err)
			}
			removed, added := lineDiff(handWritten, string(out))
			if !slices.Equal(removed, c.removed) || !slices.Equal(added, c.added) {
				t.Errorf("removed %q\nadded %q\nwant removed %q\nadded %q\nfile:\n%s", removed, added, c.removed, c.added, out)
			}
			back, err := DecodeTest(out)
			if err != nil || back.Version != 2 || !slices.EqualFunc(back.Steps, next.Steps, Step.Equal) || back.ProjectID != "" {
				t.Errorf("reads back as %+v, %v", back, err)
			}
			// Written again with nothing changed, the file is left byte for byte.
			again, err := EditTestFile(out, next)
			if err != nil || string(again) != string(out) {
				t.Errorf("a second write of the same version changed the file: %v\n%s", err, again)
			}
		})
	}

	// A file that names its version has it replaced where it stands.
	canonical, err := FormatTest(base)
	if err != nil {
		t.Fatal(err)
	}
	next := base.Clone()
	next.Version = 2
	next.Steps[2].Locator = MustLocator("#pass-word")
	out, err := EditTestFile(canonical, next)
	if err != nil {
		t.Fatal(err)
	}
	removed, added := lineDiff(string(canonical), string(out))
	if len(removed) != 2 || len(added) != 2 || added[0] != `  "version": 2,` || !strings.Contains(added[1], "css=#pass-word") {
		t.Errorf("removed %q, added %q", removed, added)
	}

	// A file of another test is refused.
	other := base.Clone()
	other.ID = "other"
	if _, err := EditTestFile([]byte(handWritten), other); err == nil {
		t.Error("a file of test signin was edited into test other")
	}
}

// TestFormatTestWritesCharactersAsTheyAre: the canonical layout writes <, > and & in strings as
// themselves, and a backslash escape before them stays what it was.
func TestFormatTestWritesCharactersAsTheyAre(t *testing.T) {
	test := Test{ID: "t", Status: StatusActive, Steps: []Step{
		{Kind: Click, Locator: MustLocator("main > a")},
		{Kind: Assert, Subject: SubjectURL, Condition: Contains, Expected: `?a=1&b=<2> \u003e`},
	}}
	out, err := FormatTest(test)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"css=main > a"`) || !strings.Contains(string(out), `"?a=1&b=<2> \\u003e"`) {
		t.Errorf("formatted:\n%s", out)
	}
	back, err := DecodeTest(out)
	if err != nil || !slices.EqualFunc(back.Steps, test.Steps, Step.Equal) {
		t.Errorf("reads back as %+v, %v", back, err)
	}
}

// lineDiff is the lines only a has and the lines only b has, in order (a longest common
// subsequence of lines is what both keep).
func lineDiff(a, b string) (removed, added []string) {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			removed = append(removed, x[i])
			i++
		default:
			added = append(added, y[j])
			j++
		}
	}
	removed = append(removed, x[i:]...)
	added = append(added, y[j:]...)
	return removed, added
}

// TestEditTestFileOnTheLaboratoryTests: for every saved test of both apps, every one-step change
// a repair makes (a locator moved, inside an intent block too; a step inserted; a step deleted)
// is written in place as that step's line and the version line (a deleted last step, the comma
// of the one before too).
func TestEditTestFileOnTheLaboratoryTests(t *testing.T) {
	files, _ := filepath.Glob("../../tests/demoapp/testdata/tests/*.json")
	more, _ := filepath.Glob("../../tests/spaapp/testdata/tests/*.json")
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("%d laboratory tests found", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base, err := DecodeTest(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		check := func(what string, next Test, lines int) {
			t.Helper()
			next.Version = base.Version + 1
			out, err := EditTestFile(b, next)
			if err != nil {
				t.Errorf("%s, %s: %v", f, what, err)
				return
			}
			removed, added := lineDiff(string(b), string(out))
			if len(removed)+len(added) != lines {
				t.Errorf("%s, %s: removed %q, added %q; want %d lines changed", f, what, removed, added, lines)
			}
		}
		for i, s := range base.Steps {
			if !s.Locator.IsZero() {
				next := base.Clone()
				next.Steps[i].Locator = MustLocator("#moved-by-a-repair")
				check(fmt.Sprintf("step %d's locator moved", i+1), next, 4)
			}
			for j, in := range s.Steps {
				if !in.Locator.IsZero() {
					next := base.Clone()
					next.Steps[i].Steps[j].Locator = MustLocator("text=Moved")
					check(fmt.Sprintf("step %d.%d's locator moved", i+1, j+1), next, 4)
				}
			}
			if s.Kind != Intent {
				next := base.Clone()
				next.Steps = slices.Insert(next.Steps, i, Step{Kind: Click, Locator: MustLocator("#dismiss-banner")})
				check(fmt.Sprintf("a step inserted before step %d", i+1), next, 3)
				if len(base.Steps) > 1 {
					next = base.Clone()
					next.Steps = slices.Delete(next.Steps, i, i+1)
					lines := 3
					if i == len(base.Steps)-1 {
						lines = 5 // the step before the last loses its comma: JSON allows none after the last
					}
					check(fmt.Sprintf("step %d deleted", i+1), next, lines)
				}
			}
		}
	}
}
