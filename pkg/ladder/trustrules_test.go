package ladder

import (
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// signupSteps: an absence check after the submit names the first-name field by the start of
// its name, so it finds nothing on the page before the submit or after it.
func signupSteps() []gardener.Step {
	return []gardener.Step{
		{Kind: gardener.Goto, URL: "/signup"},
		{Kind: gardener.Fill, Locator: loc(`role=textbox[name="Firstname Required"]`), Value: "Ada"},
		{Kind: gardener.Click, Locator: loc(`role=button[name="Sign up"]`)},
		{Kind: gardener.AssertHidden, Locator: loc(`role=textbox[name="Firstname"]`)},
	}
}

func signupProof(shown string) gardener.Replay {
	rep := gardener.Replay{Result: gardener.RunResult{Passed: true, FailedIndex: -1}}
	for i, p := range []string{"1", "2", "3", "4"} {
		rep.Result.Steps = append(rep.Result.Steps, gardener.StepRecord{Path: p, Kind: signupSteps()[i].Kind, Passed: true})
	}
	rep.Probes = map[int][]gardener.ProbeResult{2: {{Check: signupSteps()[3], Path: "3", Passed: true, Shown: shown}}}
	return rep
}

// An absence check naming a control by the start of its name is named, with the control the
// page showed before its step in full: as an insensitive check when the repair did not touch
// it, and as the reason it is held when the repair changed the step it follows.
func TestAbsenceCheckNamingTheStartOfAName(t *testing.T) {
	const full = `role=textbox[name="Firstname Required"]`
	base := signupSteps()
	for name, heal := range map[string]int{"untouched": 1, "touched": 2} {
		cand := gardener.CloneSteps(base)
		switch heal {
		case 1:
			cand[1].Locator = loc("label=Firstname Required")
		case 2:
			cand[2].Locator = loc(`role=button[name="Create account"]`)
		}
		ops := []gardener.Op{{Kind: gardener.OpReplace, Index: heal, Step: &cand[heal]}}
		v, _ := judge(evidence{strategy: gardener.StrategySelfHeal, ops: ops, base: base, cand: gardener.Test{ID: "t", Steps: cand}, proof: signupProof(full)})
		want := gardener.NoteInsensitiveCheck
		if heal == 2 {
			want = gardener.NoteUnprovenCheck
		}
		var text string
		for _, n := range v.Notes {
			if n.Kind == want && n.Step == "4" {
				text = n.Text
			}
		}
		if !strings.Contains(text, "by the start of its name") || !strings.Contains(text, full) || !strings.Contains(text, "before or after step 3") {
			t.Errorf("%s: %s note on step 4 is %q, want it to name %s as a control named by the start of the check's name", name, want, text, full)
		}
	}
	// A probe that found no such control keeps the plain wording.
	cand := gardener.CloneSteps(base)
	cand[1].Locator = loc("label=Firstname Required")
	v, _ := judge(evidence{strategy: gardener.StrategySelfHeal, ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &cand[1]}}, base: base, cand: gardener.Test{ID: "t", Steps: cand}, proof: signupProof("")})
	for _, n := range v.Notes {
		if strings.Contains(n.Text, "start of its name") {
			t.Errorf("note %q without a control shown by the start of the name", n.Text)
		}
	}
}
