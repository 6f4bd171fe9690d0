package tend

import (
	"cmp"
	"fmt"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
)

// OutcomeEvent is the outcome event of a repair whose rungs ran apart (each rung reported a rung
// event): the step that persists the decision says how the repair ended, once.
func OutcomeEvent(dec Decision, out Persisted) ladder.Event {
	e := ladder.Event{Stage: gardener.EventOutcome, TestID: dec.TestID, Outcome: string(out.Outcome), Reason: cmp.Or(out.Reason, dec.Reason)}
	if dec.Verdict != nil {
		e.Rung = dec.Verdict.Strategy
	}
	e.Message = e.Outcome
	if e.Reason != "" {
		e.Message += ": " + e.Reason
	}
	return e
}

// PersistedEvent is the event that says what persisting a decision wrote: the fix written (and
// the test's new version), staged for a person (and the proposal), or nothing, with the triage
// issue filed.
func PersistedEvent(dec Decision, out Persisted) ladder.Event {
	e := ladder.Event{TestID: dec.TestID, Outcome: string(out.Outcome), Reason: out.Reason}
	if dec.Verdict != nil {
		e.Rung = dec.Verdict.Strategy
	}
	switch {
	case out.Applied != nil:
		e.Stage, e.Version = gardener.EventWrite, out.Applied.Test.Version
		e.Message = fmt.Sprintf("written: %s is at version %d (repair %s)", out.Applied.Test.ID, out.Applied.Test.Version, out.Applied.Repair.ID)
		if out.Applied.Duplicate {
			e.Message = fmt.Sprintf("written before: repair %s of this run stands, nothing changed", out.Applied.Repair.ID)
		}
	case out.Staged != nil:
		e.Stage, e.ProposalID = gardener.EventStaged, out.Staged.Proposal.ID
		e.Message = fmt.Sprintf("staged for a person: proposal %s (%s)", out.Staged.Proposal.ID, out.Staged.Outcome)
		if out.Reason != "" {
			e.Message += ": " + out.Reason
		}
	case out.Triage != nil:
		e.Stage = gardener.EventTriage
		e.Message = fmt.Sprintf("nothing written: triage issue %s filed (%s)", out.Triage.ID, out.Triage.Classification)
		if dec.Reason != "" {
			e.Message += ": " + dec.Reason
			e.Reason = dec.Reason
		}
	default:
		e.Stage = gardener.EventTriage
		e.Message = "nothing written: " + dec.Reason
		e.Reason = dec.Reason
	}
	return e
}
