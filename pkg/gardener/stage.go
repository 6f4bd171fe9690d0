package gardener

// StagePlan is how a store stages a proposal, decided by PlanStage from what the store read. A
// driver writes the plan in one atomic step, conditional on what it read still holding, and
// plans again from a fresh read when that condition fails; it decides nothing itself.
type StagePlan struct {
	// Outcome is what staging does; the fields below it needs are set, the others are zero.
	Outcome StageOutcome
	// Stage is the row to put as the test's open proposal, the proposal with its triggers in
	// order (StagedNew, StagedSuperseded).
	Stage Proposal
	// Restated is the open row with the proposal recorded on it (StagedRestated). The store also
	// remembers that the proposal's id was recorded on this row, so staging it again is a
	// duplicate and leaves no row of its own.
	Restated Proposal
	// Superseded is the open row the proposal replaces, closed as superseded
	// (StagedSuperseded).
	Superseded Proposal
	// Duplicate is the row the proposal's id names already (StagedDuplicate): nothing is
	// written.
	Duplicate Proposal
}

// Staged is what StageProposal returns once the plan is written: the test's open proposal after
// the write, or the row a duplicate names.
func (pl StagePlan) Staged() Staged {
	switch pl.Outcome {
	case StagedRestated:
		return Staged{Outcome: pl.Outcome, Proposal: pl.Restated}
	case StagedSuperseded:
		return Staged{Outcome: pl.Outcome, Proposal: pl.Stage, Superseded: pl.Superseded.ID}
	case StagedDuplicate:
		return Staged{Outcome: pl.Outcome, Proposal: pl.Duplicate}
	default:
		return Staged{Outcome: pl.Outcome, Proposal: pl.Stage}
	}
}

// PlanStage decides how p is staged (see ProposalStore.StageProposal): prior is the row p's id
// names already (p itself, staged before, or the open row p was recorded on; nil when the id
// is new) and open the test's open proposal (nil when it has none). With no prior row and no
// open one p is staged; against an open row of the same base version p is recorded on it (its
// triggers merged, its restated count one higher, updated at p's time); against an older one
// that one is superseded at p's staging time and p staged; against a newer one p is a
// *StaleError.
func PlanStage(p Proposal, prior, open *Proposal) (StagePlan, error) {
	if prior != nil {
		return StagePlan{Outcome: StagedDuplicate, Duplicate: *prior}, nil
	}
	p.Triggers = MergeTriggers(nil, p.Triggers)
	switch {
	case open == nil:
		return StagePlan{Outcome: StagedNew, Stage: p}, nil
	case open.ID == p.ID:
		// p became the open row between the store's reads: another delivery staged it.
		return StagePlan{Outcome: StagedDuplicate, Duplicate: *open}, nil
	case p.BaseVersion == open.BaseVersion:
		r := *open
		r.Triggers = MergeTriggers(open.Triggers, p.Triggers)
		r.Restated++
		r.UpdatedAt = p.UpdatedAt
		return StagePlan{Outcome: StagedRestated, Restated: r}, nil
	case p.BaseVersion > open.BaseVersion:
		closed, err := open.Close(ProposalSuperseded, "", p.StagedAt)
		if err != nil {
			return StagePlan{}, err
		}
		return StagePlan{Outcome: StagedSuperseded, Stage: p, Superseded: closed}, nil
	default:
		return StagePlan{}, &StaleError{TestID: p.TestID, BaseVersion: p.BaseVersion, Version: open.BaseVersion}
	}
}
