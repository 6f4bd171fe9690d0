package gardener_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestDecide: the one apply-or-stage decision. A fix that needs a person is staged whoever acts,
// with the reason; an agent's suggestion is staged; otherwise apply mode writes and propose mode
// stages, naming what set it: the request that asked to propose, or the project's auto-repair
// being off, and never the setting when the request asked.
func TestDecide(t *testing.T) {
	clean := gardener.Verdict{IntentConfirmed: true}
	held := gardener.Verdict{IntentConfirmed: true, Unverified: "a fill recorded empty"}
	for _, c := range []struct {
		name   string
		v      gardener.Verdict
		mode   gardener.Mode
		from   gardener.ModeFrom
		actor  gardener.Actor
		apply  bool
		reason string
	}{
		{"schedule, apply mode", clean, gardener.ModeApply, gardener.FromProject, gardener.ActorSchedule, true, ""},
		{"schedule, propose mode", clean, gardener.ModePropose, gardener.FromProject, gardener.ActorSchedule, false, "proposed for review: auto-repair is off"},
		{"person, propose mode of the project", clean, gardener.ModePropose, gardener.FromProject, gardener.ActorPerson, false, "proposed for review: auto-repair is off"},
		{"person, propose mode asked", clean, gardener.ModePropose, gardener.FromRequest, gardener.ActorPerson, false, "proposed for review: the request asked to propose, not to apply"},
		{"person, apply mode", clean, gardener.ModeApply, gardener.FromProject, gardener.ActorPerson, true, ""},
		{"agent, apply mode", clean, gardener.ModeApply, gardener.FromProject, gardener.ActorAgent, false, "proposed for review: an agent's suggestion is applied by apply_repair or a person"},
		{"agent, propose mode asked", clean, gardener.ModePropose, gardener.FromRequest, gardener.ActorAgent, false, "proposed for review: an agent's suggestion is applied by apply_repair or a person"},
		{"held, schedule", held, gardener.ModeApply, gardener.FromProject, gardener.ActorSchedule, false, "a person must look: UNVERIFIED: a fill recorded empty"},
		{"held, person", held, gardener.ModeApply, gardener.FromProject, gardener.ActorPerson, false, "a person must look: UNVERIFIED: a fill recorded empty"},
		{"held, person, propose mode asked", held, gardener.ModePropose, gardener.FromRequest, gardener.ActorPerson, false, "a person must look: UNVERIFIED: a fill recorded empty"},
		{"held, agent", held, gardener.ModeApply, gardener.FromProject, gardener.ActorAgent, false, "a person must look: UNVERIFIED: a fill recorded empty"},
		{"unconfirmed intent", gardener.Verdict{}, gardener.ModeApply, gardener.FromProject, gardener.ActorSchedule, false, "a person must look: a re-derived intent block is not confirmed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := gardener.Decide(c.v, c.mode, c.from, c.actor)
			if d.Apply != c.apply || d.Reason != c.reason {
				t.Errorf("Decide = %+v, want apply %v, reason %q", d, c.apply, c.reason)
			}
		})
	}
}

// TestModeOf: the mode a repair runs in and what set it. A request to propose, or an agent's,
// proposes whatever the project says and is the request's doing; otherwise the project's
// auto-repair setting decides.
func TestModeOf(t *testing.T) {
	for _, c := range []struct {
		autoRepair, propose bool
		actor               gardener.Actor
		mode                gardener.Mode
		from                gardener.ModeFrom
	}{
		{true, false, gardener.ActorPerson, gardener.ModeApply, gardener.FromProject},
		{false, false, gardener.ActorPerson, gardener.ModePropose, gardener.FromProject},
		{true, true, gardener.ActorPerson, gardener.ModePropose, gardener.FromRequest},
		{false, true, gardener.ActorPerson, gardener.ModePropose, gardener.FromRequest},
		{true, false, gardener.ActorAgent, gardener.ModePropose, gardener.FromRequest},
		{true, false, gardener.ActorSchedule, gardener.ModeApply, gardener.FromProject},
		{false, false, gardener.ActorSchedule, gardener.ModePropose, gardener.FromProject},
	} {
		if mode, from := gardener.ModeOf(c.autoRepair, c.propose, c.actor); mode != c.mode || from != c.from {
			t.Errorf("ModeOf(autoRepair %v, propose %v, %s) = %s from %q, want %s from %q", c.autoRepair, c.propose, c.actor, mode, from, c.mode, c.from)
		}
	}
}

// TestMayApprove: a person approves any open row; an agent only a fix that needs no person.
func TestMayApprove(t *testing.T) {
	held := gardener.Proposal{ID: "p", Verdict: gardener.Verdict{IntentConfirmed: true, Notes: []gardener.Note{{Kind: gardener.NoteBehaviorChange, Text: "step 2 no longer enters a value"}}}}
	clean := gardener.Proposal{ID: "q", Verdict: gardener.Verdict{IntentConfirmed: true}}
	if err := gardener.MayApprove(held, gardener.ActorPerson); err != nil {
		t.Errorf("a person approving a held fix: %v", err)
	}
	if err := gardener.MayApprove(clean, gardener.ActorAgent); err != nil {
		t.Errorf("an agent approving a clean fix: %v", err)
	}
	err := gardener.MayApprove(held, gardener.ActorAgent)
	var h *gardener.HeldError
	if !errors.As(err, &h) || h.ProposalID != "p" {
		t.Errorf("an agent approving a held fix: %v, want a HeldError naming it", err)
	}
}

// TestConclude: a climb's outcome from its facts, for the ladder in one process and the
// machine's conclusion alike.
func TestConclude(t *testing.T) {
	noGreen := gardener.TestAtVersion{TestID: "login", Version: 3}
	const cannotTell = "no green run of version 3 of test login is recorded: the gardener cannot tell drift from a bug"
	apply := gardener.Disposition{Apply: true}
	stage := gardener.Disposition{Reason: "a person must look: x"}
	for _, c := range []struct {
		name    string
		f       gardener.ClimbFacts
		outcome gardener.Outcome
		reason  string
	}{
		{"green, written", gardener.ClimbFacts{Green: &apply}, gardener.OutcomeRepaired, ""},
		{"green, staged", gardener.ClimbFacts{Green: &stage}, gardener.OutcomeStaged, "a person must look: x"},
		{"passes", gardener.ClimbFacts{Passed: true, Refusals: 3}, gardener.OutcomeNoFix, "the test passes: there is nothing to repair"},
		{"app bug", gardener.ClimbFacts{Classification: gardener.AppBug, Refusals: 1}, gardener.OutcomeTriaged, "diagnosed as app-bug, not test drift: nothing is repaired"},
		{"environment", gardener.ClimbFacts{Classification: gardener.Environment}, gardener.OutcomeTriaged, "diagnosed as environment, not test drift: nothing is repaired"},
		{"every change refused", gardener.ClimbFacts{Refusals: 2}, gardener.OutcomeRefused, "every proposed change was refused"},
		{"refused and tried", gardener.ClimbFacts{Refusals: 2, Tried: 1}, gardener.OutcomeTriaged, "the ladder is exhausted without a green proof"},
		{"stopped", gardener.ClimbFacts{Stopped: "States.Timeout"}, gardener.OutcomeTriaged, "the ladder stopped on an error: States.Timeout"},
		{"exhausted", gardener.ClimbFacts{}, gardener.OutcomeTriaged, "the ladder is exhausted without a green proof"},
		// Invariant 13: with no green run of the version there is no verdict, and nothing filed.
		{"app bug without a baseline", gardener.ClimbFacts{Classification: gardener.AppBug, NoBaseline: &noGreen}, gardener.OutcomeTriaged, cannotTell},
		{"exhausted without a baseline", gardener.ClimbFacts{Tried: 2, NoBaseline: &noGreen}, gardener.OutcomeTriaged, cannotTell},
		{"green without a baseline", gardener.ClimbFacts{Green: &apply, NoBaseline: &noGreen}, gardener.OutcomeRepaired, ""},
		{"passes without a baseline", gardener.ClimbFacts{Passed: true, NoBaseline: &noGreen}, gardener.OutcomeNoFix, "the test passes: there is nothing to repair"},
		{"refused without a baseline", gardener.ClimbFacts{Refusals: 1, NoBaseline: &noGreen}, gardener.OutcomeRefused, "every proposed change was refused"},
		{"environment without a baseline", gardener.ClimbFacts{Classification: gardener.Environment, NoBaseline: &noGreen}, gardener.OutcomeTriaged, "diagnosed as environment, not test drift: nothing is repaired"},
		{"stopped without a baseline", gardener.ClimbFacts{Stopped: "States.Timeout", NoBaseline: &noGreen}, gardener.OutcomeTriaged, "the ladder stopped on an error: States.Timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, r := gardener.Conclude(c.f)
			if o != c.outcome || r != c.reason {
				t.Errorf("Conclude = %s (%s), want %s (%s)", o, r, c.outcome, c.reason)
			}
			// Only a triaged or refused climb files an issue, and never one whose only ground
			// is the missing green run.
			files := (o == gardener.OutcomeTriaged || o == gardener.OutcomeRefused) && r != cannotTell
			if got := gardener.FilesTriage(c.f); got != files {
				t.Errorf("FilesTriage = %v, want %v", got, files)
			}
		})
	}
	// A rung without a baseline makes the whole climb one without.
	if o, r := gardener.Conclude(gardener.ClimbFacts{}.Add(gardener.ClimbFacts{Classification: gardener.AppBug, NoBaseline: &noGreen})); o != gardener.OutcomeTriaged || r != cannotTell {
		t.Errorf("rungs added up: %s (%s), want triaged (%s)", o, r, cannotTell)
	}
	// Facts of rungs that ran apart add up as one climb's.
	sum := gardener.ClimbFacts{}.Add(gardener.ClimbFacts{}).Add(gardener.ClimbFacts{Refusals: 1})
	if o, _ := gardener.Conclude(sum); o != gardener.OutcomeRefused {
		t.Errorf("a rung with no candidate and one whose change was refused: %s, want refused", o)
	}
}

// TestApplyModeHoldsOnlyWhatTheDesignNames: in apply mode a green proof is staged only for a
// reason of DESIGN invariants 9, 10 and 13, and the reason names its rule; an added dismissal,
// an added input and an insensitive check the test always had are findings that hold nothing.
func TestApplyModeHoldsOnlyWhatTheDesignNames(t *testing.T) {
	kept := gardener.Contract{Requirements: []gardener.Requirement{{Step: "2", What: "checks", Kept: true}}}
	base := gardener.Verdict{Strategy: gardener.StrategySelfHeal, Contract: kept, IntentConfirmed: true}
	for _, k := range []gardener.NoteKind{gardener.NoteActionAdded, gardener.NoteInputAdded, gardener.NoteInsensitiveCheck, gardener.NotePageAtFailure} {
		v := base
		v.Notes = []gardener.Note{{Kind: k, Step: "3", Text: "x"}}
		if d := gardener.Decide(v, gardener.ModeApply, gardener.FromProject, gardener.ActorSchedule); !d.Apply {
			t.Errorf("a verdict with only a %s note was staged in apply mode: %s", k, d.Reason)
		}
	}
	for k, rule := range map[gardener.NoteKind]gardener.HoldRule{
		gardener.NoteFlowChange: gardener.HoldFlowChange, gardener.NoteBehaviorChange: gardener.HoldBehaviourChange, gardener.NoteUnprovenCheck: gardener.HoldInsensitiveCheck,
		gardener.NoteVolatileLocator: gardener.HoldVolatileLocator, gardener.NoteRequirementNotKept: gardener.HoldContractNotKept, gardener.NoteUnverified: gardener.HoldUnverified,
		gardener.NoteIntentUnconfirmed: gardener.HoldIntentUnconfirmed,
	} {
		v := base
		v.Notes = []gardener.Note{{Kind: gardener.NoteInputAdded, Step: "2", Text: "input added: x"}, {Kind: k, Step: "3", Text: "y"}}
		h, ok := v.Hold()
		d := gardener.Decide(v, gardener.ModeApply, gardener.FromProject, gardener.ActorSchedule)
		if !ok || h.Rule != rule || d.Apply || !strings.Contains(d.Reason, h.Text) {
			t.Errorf("%s: hold %+v (%v), decision %+v; want staged under %q", k, h, ok, d, rule)
		}
	}
	v := base
	v.Unverified = "step 2 typed nothing"
	if h, _ := v.Hold(); h.Rule != gardener.HoldUnverified {
		t.Errorf("UNVERIFIED held as %q", h.Rule)
	}
	v = base
	v.Contract.Requirements[0].Kept = false
	if h, _ := v.Hold(); h.Rule != gardener.HoldContractNotKept {
		t.Errorf("a contract not kept held as %q", h.Rule)
	}
}
