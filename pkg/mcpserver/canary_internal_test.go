package mcpserver

import (
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/tests/canary"
)

// TestSuggestionCarriesNoTypedValue: suggest_fix's answer — its text content and its
// structuredContent (diff, changes, notes, the contract's requirements, refusals, the error) —
// carries no value the test types, for a staged fix, for a fix the climb called repaired that
// the write-time gate staged (the recorded outcome and reason replace the climb's), and for a
// triaged failure, and for a requirement recorded before values were masked. The answer is made
// by suggestionOf and finish, as Local.Suggest makes it.
func TestSuggestionCarriesNoTypedValue(t *testing.T) {
	f := canary.Climb(t)
	legacy := *f.Held.Verdict
	legacy.Contract.Requirements = append([]gardener.Requirement{{Step: "2", What: "enters", Detail: `"` + canary.Typed + `"`}}, legacy.Contract.Requirements...)
	held := f.Held
	held.Verdict = &legacy
	staged := &gardener.Staged{Outcome: gardener.StagedNew, Proposal: gardener.Proposal{ID: "p-1", TestID: f.Test.ID, BaseVersion: 1, Verdict: legacy}}
	gated := held
	gated.Outcome = ladder.Repaired
	gate := gardener.Decide(legacy, gardener.ModeApply, gardener.FromProject, gardener.ActorSchedule)
	for _, c := range []struct {
		name      string
		r         ladder.Result
		persisted tend.Persisted
	}{
		{"staged", held, tend.Persisted{Outcome: ladder.Staged, Staged: staged, Reason: held.Reason}},
		{"staged by the write-time gate", gated, tend.Persisted{Outcome: ladder.Staged, Staged: staged, Reason: gate.Reason}},
		{"triaged", f.Triaged, tend.Persisted{Outcome: f.Triaged.Outcome, Triage: f.Triaged.Triage, Reason: f.Triaged.Reason}},
		{"not recorded", held, tend.Persisted{}},
	} {
		s := suggestionOf(f.Test, c.r, c.persisted)
		finish(&s)
		if c.persisted.Outcome != "" && s.Outcome != string(c.persisted.Outcome) {
			t.Errorf("%s: the answer says %s, the record %s", c.name, s.Outcome, c.persisted.Outcome)
		}
		canary.Absent(t, "suggest_fix text content ("+c.name+")", summarize(s))
		canary.AbsentJSON(t, "suggest_fix structuredContent ("+c.name+")", s)
	}
}
