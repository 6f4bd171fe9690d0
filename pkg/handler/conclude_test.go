package handler_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/tend"
)

// TestTriageConcludesAsTheLadder: the repair machine's rungs run apart, and its triage state
// concludes from the facts every rung handed on, by the rule the ladder in one process uses. A
// self-heal that found no candidate and a suggest-fix whose every change the floor refused is
// "every proposed change was refused" on both paths (the machine once said "exhausted" because
// not every rung said refused); a rung whose reproduction passed is nothing to repair, and files
// no triage issue.
func TestTriageConcludesAsTheLadder(t *testing.T) {
	ctx := context.Background()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	triage, err := handler.NewTriage(handler.StoreDeps{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	gate := handler.Gate{Eligible: true, RunID: "r-1", ProjectID: "acme", TestID: "login", Mode: gardener.ModeApply}
	refusal := gardener.Refusal{Path: "4", Reason: "rewriting the expectation at step 4"}
	noGreen := gardener.TestAtVersion{TestID: "login", Version: 1}
	for _, c := range []struct {
		name            string
		rungs           []tend.Decision
		outcome, reason string
		filed           bool
	}{
		{"no candidate, then every change refused", []tend.Decision{
			{Outcome: gardener.OutcomeTriaged, Facts: gardener.ClimbFacts{}},
			{Outcome: gardener.OutcomeRefused, Facts: gardener.ClimbFacts{Refusals: 1}, Refusals: []gardener.Refusal{refusal}},
		}, "refused", "every proposed change was refused", true},
		{"one change refused, another tried", []tend.Decision{
			{Outcome: gardener.OutcomeRefused, Facts: gardener.ClimbFacts{Refusals: 1}, Refusals: []gardener.Refusal{refusal}},
			{Outcome: gardener.OutcomeTriaged, Facts: gardener.ClimbFacts{Tried: 1}},
		}, "triaged", "the ladder is exhausted without a green proof", true},
		{"the test passes", []tend.Decision{
			{Outcome: gardener.OutcomeNoFix, Facts: gardener.ClimbFacts{Passed: true}},
		}, "no-fix", "the test passes: there is nothing to repair", false},
		{"diagnosed as an app bug", []tend.Decision{
			{Outcome: gardener.OutcomeTriaged},
			{Outcome: gardener.OutcomeTriaged, Facts: gardener.ClimbFacts{Classification: gardener.AppBug}},
		}, "triaged", "diagnosed as app-bug, not test drift: nothing is repaired", true},
		// Invariant 13: the rungs had no green run of the version to compare with, so the
		// diagnosis is no verdict: nothing is filed and nobody is alerted.
		{"diagnosed as an app bug with no green run", []tend.Decision{
			{Outcome: gardener.OutcomeTriaged, Facts: gardener.ClimbFacts{NoBaseline: &noGreen}},
			{Outcome: gardener.OutcomeTriaged, Facts: gardener.ClimbFacts{Classification: gardener.AppBug, NoBaseline: &noGreen}},
		}, "triaged", "no green run of version 1 of test login is recorded: the gardener cannot tell drift from a bug", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := handler.TriageInput{Gate: gate}
			results := []*handler.RungResult{}
			for _, d := range c.rungs {
				d.TestID, d.RunID = gate.TestID, gate.RunID
				results = append(results, &handler.RungResult{Decision: d})
			}
			in.SelfHeal = results[0]
			if len(results) > 1 {
				in.SuggestFix = results[1]
			}
			out, err := triage(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if string(out.Persisted.Outcome) != c.outcome || out.Persisted.Reason != c.reason {
				t.Errorf("concluded %s (%s), want %s (%s)", out.Persisted.Outcome, out.Persisted.Reason, c.outcome, c.reason)
			}
			if (out.Persisted.Triage != nil) != c.filed || out.Notify != c.filed {
				t.Errorf("triage issue %+v, notify %v; want filed and announced: %v", out.Persisted.Triage, out.Notify, c.filed)
			}
		})
	}
}
