package canary_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/canary"
)

// TestLadderRecordsCarryNoTypedValue: every text the ladder writes for people — event lines,
// events as JSON (what the API and SSE send), the server's JSON log, notes, the contract's
// requirements, change details, refusals, the diff, the reason, the triage issue — is free of
// both canaries, while the steps themselves (the test's own JSON) keep them.
func TestLadderRecordsCarryNoTypedValue(t *testing.T) {
	f := canary.Climb(t)
	for _, e := range f.Events {
		canary.Absent(t, "event line", e.Line())
		canary.AbsentJSON(t, "event JSON", e)
	}
	canary.Absent(t, "the JSON log of the events", f.Log)

	v := f.Held.Verdict
	for _, n := range v.Notes {
		canary.Absent(t, "note "+string(n.Kind), n.Text)
	}
	for _, r := range v.Contract.Requirements {
		canary.Absent(t, "requirement "+r.What+" of step "+r.Step, r.Detail+" | "+r.By)
	}
	for _, c := range v.Changes {
		canary.Absent(t, "change of step "+c.Path, c.Detail)
	}
	canary.Absent(t, "UNVERIFIED", v.Unverified)
	_, why := v.NeedsPerson()
	canary.Absent(t, "why a person must look", why)
	canary.Absent(t, "the outcome's reason", f.Held.Reason)
	canary.Absent(t, "the diff", gardener.RenderDiff(f.Held.Diff))
	if len(f.Held.Refusals) == 0 {
		t.Error("the held climb refused nothing: the fixture no longer covers refusals")
	}
	for _, r := range f.Held.Refusals {
		canary.Absent(t, "refusal", r.String())
	}

	tr := f.Triaged.Triage
	canary.AbsentTriage(t, "the triage issue", tr)
	canary.Absent(t, "the failure message", f.Triaged.Failure.Message)

	// The fixture covers what it claims: a requirement not kept, a value entered, an added
	// input, UNVERIFIED; and the test's own steps, in the ops a reviewer's JSON carries, still
	// hold the values (those allowed to read the test read them).
	kinds := map[gardener.NoteKind]bool{}
	for _, n := range v.Notes {
		kinds[n.Kind] = true
	}
	for _, k := range []gardener.NoteKind{gardener.NoteBehaviorChange, gardener.NoteInputAdded, gardener.NoteRequirementNotKept, gardener.NoteUnverified} {
		if !kinds[k] {
			t.Errorf("the held verdict has no %s note: %+v", k, v.Notes)
		}
	}
	ops, _ := json.Marshal(v.Ops)
	steps, _ := json.Marshal(f.Held.Steps)
	if !strings.Contains(string(ops), canary.Typed) || !strings.Contains(string(steps), canary.Picked) {
		t.Errorf("the ops and steps (the test's own JSON) lost the values: %s %s", ops, steps)
	}
}

// TestOneRenderingOfAStepForPeople: Step.Redacted masks what a fill or select enters (saying
// that a value was entered and its length) and leaves every other kind as String shows it;
// Requirement.Redacted masks a value entered, even one recorded before values were masked.
func TestOneRenderingOfAStepForPeople(t *testing.T) {
	for _, s := range canary.Steps() {
		got := s.Redacted()
		canary.Absent(t, "Redacted of "+string(s.Kind), got)
		switch s.Kind {
		case gardener.Fill, gardener.Select, gardener.Set:
			if !strings.Contains(got, fmt.Sprintf("[value redacted, %d chars]", len(s.Value))) || !strings.Contains(got, s.Locator.String()) {
				t.Errorf("%s renders as %q, want its locator and the masked value", s.Kind, got)
			}
		default:
			if got != s.String() {
				t.Errorf("%s renders as %q, want %q", s.Kind, got, s.String())
			}
		}
	}
	legacy := gardener.Requirement{Step: "2", What: "enters", Detail: `"` + canary.Typed + `"`}
	if got := legacy.Redacted(); got.Detail != "[value redacted, 17 chars]" {
		t.Errorf("a requirement recorded with its value renders as %q", got.Detail)
	}
	sends := gardener.Requirement{Step: "4", What: "sends", Detail: "POST /api/signup"}
	if got := sends.Redacted(); got != sends {
		t.Errorf("a request requirement changed: %+v", got)
	}
}
