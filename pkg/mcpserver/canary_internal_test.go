package mcpserver

import (
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/canary"
)

// TestSuggestionCarriesNoTypedValue: suggest_fix's answer — its text content and its
// structuredContent (diff, changes, notes, the contract's requirements, refusals, the error) —
// carries no value the test types, for a staged fix and for a triaged failure, and for a
// requirement recorded before values were masked.
func TestSuggestionCarriesNoTypedValue(t *testing.T) {
	f := canary.Climb(t)
	legacy := *f.Held.Verdict
	legacy.Contract.Requirements = append([]gardener.Requirement{{Step: "2", What: "enters", Detail: `"` + canary.Typed + `"`}}, legacy.Contract.Requirements...)
	held := f.Held
	held.Verdict = &legacy
	for _, res := range []struct {
		name string
		r    *gardener.Verdict
		out  string
	}{{"staged", held.Verdict, string(held.Outcome)}, {"triaged", nil, string(f.Triaged.Outcome)}} {
		r := held
		if res.r == nil {
			r = f.Triaged
		}
		// Assembled as Local.Suggest assembles it.
		s := Suggestion{Outcome: string(r.Outcome), Reason: r.Reason, TestID: f.Test.ID, BaseVersion: 1, Version: 1}
		if fl := r.Failure; fl != nil {
			s.FailedStep, s.Error = fl.Step, fl.Message
		}
		if v := r.Verdict; v != nil {
			describeVerdict(&s, f.Test.Steps, *v)
		}
		describeRefusals(&s, r.Refusals)
		finish(&s)
		canary.Absent(t, "suggest_fix text content ("+res.name+")", summarize(s))
		canary.AbsentJSON(t, "suggest_fix structuredContent ("+res.name+")", s)
	}
}
