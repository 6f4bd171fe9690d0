package ladder

import (
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestRepathFollowsInsertedSteps: after a candidate inserted a dismissal before a step and
// another inside an intent block, the green run's record of each step is found under the
// step's path in the candidate, and a deleted step's record is gone.
func TestRepathFollowsInsertedSteps(t *testing.T) {
	loc := func(v string) gardener.Locator { return gardener.Locator{Kind: gardener.ByCSS, Value: v} }
	click := func(v string) gardener.Step { return gardener.Step{Kind: gardener.Click, Locator: loc(v)} }
	fill := func(v string) gardener.Step { return gardener.Step{Kind: gardener.Fill, Locator: loc(v), Value: "x"} }
	goTo := gardener.Step{Kind: gardener.Goto, URL: "/login"}
	block := gardener.Step{Kind: gardener.Intent, Goal: "log in", Steps: []gardener.Step{goTo, fill("#user"), fill("#pass"), click("#go")}}
	base := []gardener.Step{goTo, block, click("#help"), click("#next")}
	inBlock := block.Clone()
	inBlock.Steps = []gardener.Step{goTo, click("#ok"), fill("#user"), fill("#pass"), click("#go")}
	cand := []gardener.Step{goTo, click("#ok"), inBlock, click("#next")}
	origin := []int{0, -1, 1, 3} // base step 3 (#help) deleted
	el := func(id string) *gardener.Fingerprint { return &gardener.Fingerprint{ID: id} }
	green := &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{
		{Path: "1"}, {Path: "2", Skipped: true}, {Path: "2.1"}, {Path: "2.2", Element: el("user")}, {Path: "2.3", Element: el("pass")}, {Path: "2.4", Element: el("go")},
		{Path: "3", Element: el("help")}, {Path: "4", Element: el("next")},
	}}
	got := repath(green, base, cand, origin)
	for path, want := range map[string]string{"3.3": "user", "3.4": "pass", "3.5": "go", "4": "next"} {
		if fp := got.Element(path); fp == nil || fp.ID != want {
			t.Errorf("step %s: recorded %+v, want #%s", path, fp, want)
		}
	}
	for _, path := range []string{"2", "3.2"} {
		if fp := got.Element(path); fp != nil {
			t.Errorf("step %s, which the candidate inserted, has the record of #%s", path, fp.ID)
		}
	}
	for _, r := range got.Steps {
		if r.Element != nil && r.Element.ID == "help" {
			t.Errorf("the deleted step's record is still there at %s", r.Path)
		}
	}
	if green.Steps[3].Path != "2.2" {
		t.Errorf("repath changed the last green run it was given: %s", green.Steps[3].Path)
	}
}
