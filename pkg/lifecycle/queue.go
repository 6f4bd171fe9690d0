package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Stage puts a proven fix in the queue (spec "The queue"). p carries its id, test, base
// version, verdict and triggers; status, counts and times are set here. The fix must be
// computed against the test's current version (else *gardener.StaleError) and pass the floor.
// A fix a person dismissed before, at the same test version and for the same app changes, is
// not staged again (StagedDeclined). At most one proposal per test is open: a later one for the
// same version is recorded on the open row; see gardener.ProposalStore.StageProposal.
func (s *Service) Stage(ctx context.Context, p gardener.Proposal) (gardener.Staged, error) {
	if err := required("proposal id", p.ID); err != nil {
		return gardener.Staged{}, err
	}
	if err := required("proposal "+p.ID+": test id", p.TestID); err != nil {
		return gardener.Staged{}, err
	}
	t, err := s.store.Test(ctx, p.TestID)
	if err != nil {
		return gardener.Staged{}, fmt.Errorf("stage proposal %s: %w", p.ID, err)
	}
	if p.ProjectID == "" {
		p.ProjectID = t.ProjectID
	}
	if p.ProjectID != t.ProjectID {
		return gardener.Staged{}, fmt.Errorf("stage proposal %s: it names project %s but test %s is in project %s", p.ID, p.ProjectID, t.ID, t.ProjectID)
	}
	if _, err := prepare(t, p.BaseVersion, p.Verdict.Ops); err != nil {
		return gardener.Staged{}, fmt.Errorf("stage proposal %s: %w", p.ID, err)
	}
	declined, err := s.store.Dismissed(ctx, gardener.DismissalOf(p))
	if err != nil {
		return gardener.Staged{}, fmt.Errorf("stage proposal %s: %w", p.ID, err)
	}
	if declined {
		return gardener.Staged{Outcome: gardener.StagedDeclined, Proposal: p}, nil
	}
	now := s.now()
	p.Status = gardener.ProposalProposed
	p.Restated = 0
	p.StagedAt, p.UpdatedAt = now, now
	p.DecidedBy, p.DecidedAt = "", time.Time{}
	return s.store.StageProposal(ctx, p)
}

// Approved is what an approval wrote.
type Approved struct {
	Test   gardener.Test   `json:"test"`
	Repair gardener.Repair `json:"repair"`
	// Proof is the green re-run of the proposal's operations on its version, when one is
	// recorded; it became the test's last green run. An agent's approval demands it.
	Proof *gardener.RunResult `json:"-"`
}

// UnprovenError is an approval that demanded a green proof of the proposal's operations on its
// version and found none: an agent may apply only what was proven, while a person in the queue
// may approve an UNVERIFIED proposal on purpose.
type UnprovenError struct {
	ProposalID  string
	TestID      string
	BaseVersion int
	Reason      string
}

func (e *UnprovenError) Error() string {
	return fmt.Sprintf("proposal %s is not proven green: %s", e.ProposalID, e.Reason)
}

// Approve is a person's approval from the queue: see ApproveAs.
func (s *Service) Approve(ctx context.Context, proposalID, by string) (Approved, error) {
	return s.ApproveAs(ctx, proposalID, by, gardener.ActorPerson)
}

// ApproveAs applies an open proposal for actor and records who approved it. Against a test
// edited since the proposal was computed it is refused with *gardener.StaleError and the row
// becomes stale; a row no longer proposed (dismissed, applied, or lost to a concurrent dismiss)
// is a *gardener.ConflictError. An agent may apply only what gardener.MayApprove allows (else
// *gardener.HeldError) and only with a green re-run of exactly the proposal's operations on its
// version (else *UnprovenError); the row stays open for a person either way. The proof, when one
// is recorded, becomes the test's last green run: it is what the next repair compares with. The
// test's status is left as it is: a repair does not send a test back to review.
func (s *Service) ApproveAs(ctx context.Context, proposalID, by string, actor gardener.Actor) (Approved, error) {
	if err := required("approver", by); err != nil {
		return Approved{}, fmt.Errorf("approve proposal %s: %w", proposalID, err)
	}
	p, err := s.store.Proposal(ctx, proposalID)
	if err != nil {
		return Approved{}, notFoundOr(err, "approve")
	}
	if p.Status != gardener.ProposalProposed {
		return Approved{}, notOpen(p)
	}
	t, err := s.store.Test(ctx, p.TestID)
	if err != nil {
		return Approved{}, fmt.Errorf("approve proposal %s: %w", p.ID, err)
	}
	steps, err := prepare(t, p.BaseVersion, p.Verdict.Ops)
	if err != nil {
		return Approved{}, s.markStale(ctx, p, by, fmt.Errorf("approve proposal %s: %w", p.ID, err))
	}
	if err := gardener.MayApprove(p, actor); err != nil {
		return Approved{}, err
	}
	proof, err := s.proof(ctx, p)
	var unproven *UnprovenError
	switch {
	case errors.As(err, &unproven) && actor != gardener.ActorAgent:
		proof = nil
	case err != nil:
		return Approved{}, err
	}
	now := s.now()
	r := gardener.Repair{
		ID:          gardener.RepairIDOfProposal(p.ID),
		ProjectID:   p.ProjectID,
		TestID:      p.TestID,
		RunID:       p.RunID,
		ProposalID:  p.ID,
		Verdict:     p.Verdict,
		PreSteps:    t.Steps,
		FromVersion: p.BaseVersion,
		ToVersion:   p.BaseVersion + 1,
		At:          now,
		ApprovedBy:  by,
	}
	written, err := s.store.ApplyProposal(ctx, gardener.ApplyProposal{
		ProposalID: p.ID, TestID: p.TestID, BaseVersion: p.BaseVersion, Steps: steps, Repair: r,
	})
	var decided *gardener.ConflictError
	if errors.As(err, &decided) && decided.Entity == "proposal" {
		// Another writer decided the row between the read above and this write (two approvals
		// at once, an approval and a dismissal): the same refusal as a row read decided, so the
		// loser of the race is told what the second of two sequential clicks is told.
		if now, rerr := s.store.Proposal(ctx, p.ID); rerr == nil && now.Status != gardener.ProposalProposed {
			return Approved{}, notOpen(now)
		}
	}
	if err != nil {
		return Approved{}, s.markStale(ctx, p, by, fmt.Errorf("approve proposal %s: %w", p.ID, err))
	}
	return Approved{Test: written, Repair: r, Proof: proof}, s.recordGreen(ctx, written, r.ID, proof)
}

// notOpen refuses the approval of p, a row no longer proposed (applied, dismissed, stale,
// superseded): one wording for every door and for a race lost to another writer.
func notOpen(p gardener.Proposal) error {
	return &gardener.ConflictError{Entity: "proposal", ID: p.ID, Reason: fmt.Sprintf("is %s, not proposed: only an open proposal can be approved", p.Status)}
}

// proof finds the green re-run of p's operations on p's version.
func (s *Service) proof(ctx context.Context, p gardener.Proposal) (*gardener.RunResult, error) {
	run, err := s.store.Run(ctx, gardener.ProofID(p.TestID, p.BaseVersion, p.Verdict.Ops))
	unproven := &UnprovenError{ProposalID: p.ID, TestID: p.TestID, BaseVersion: p.BaseVersion}
	switch {
	case errors.Is(err, gardener.ErrNotFound):
		unproven.Reason = fmt.Sprintf("no green re-run of its operations on version %d of test %s is recorded", p.BaseVersion, p.TestID)
		if p.Verdict.Unverified != "" {
			unproven.Reason += " (UNVERIFIED: " + p.Verdict.Unverified + ")"
		}
		return nil, unproven
	case err != nil:
		return nil, fmt.Errorf("approve proposal %s: reading its proof: %w", p.ID, err)
	case !gardener.Proven(run, p.TestID, p.BaseVersion):
		unproven.Reason = fmt.Sprintf("the re-run of its operations on version %d of test %s did not pass", p.BaseVersion, p.TestID)
		return nil, unproven
	}
	return run.Result, nil
}

// GreenRunError says a fix was written but its proof was not recorded as the test's last green
// run: the write stands (the caller answers with it), and the next repair of the test has no
// green run of this version to compare with until one is recorded.
type GreenRunError struct {
	RepairID string
	TestID   string
	Err      error
}

func (e *GreenRunError) Error() string {
	return fmt.Sprintf("repair %s is written, but its proof was not recorded as the last green run of test %s: %v", e.RepairID, e.TestID, e.Err)
}

func (e *GreenRunError) Unwrap() error { return e.Err }

// recordGreen makes the proof of a written fix the test's new last green run: it is what the
// next repair compares with. A fix written without a proof (a person's approval of an
// UNVERIFIED proposal) has nothing to record.
func (s *Service) recordGreen(ctx context.Context, t gardener.Test, repairID string, proof *gardener.RunResult) error {
	if proof == nil {
		return nil
	}
	green := *proof
	green.TestVersion = t.Version
	run := gardener.Run{ID: gardener.GreenRunID(repairID), ProjectID: t.ProjectID, TestID: t.ID, TestVersion: t.Version, Trigger: gardener.TriggerProof, Result: &green, At: s.now()}
	if err := s.store.PutRun(ctx, run); err != nil {
		return &GreenRunError{RepairID: repairID, TestID: t.ID, Err: err}
	}
	return nil
}

// StaleProposalError is an approval refused because the test moved past the version the
// proposal was computed on; the row is marked stale. Its words are what every door says.
type StaleProposalError struct {
	ProposalID string
	Stale      *gardener.StaleError
}

func (e *StaleProposalError) Error() string {
	return fmt.Sprintf("stale: proposal %s was computed on version %d of test %s, which is at version %d now; the proposal is marked stale — re-run the sweep or the repair for a fresh one",
		e.ProposalID, e.Stale.BaseVersion, e.Stale.TestID, e.Stale.Version)
}

func (e *StaleProposalError) Unwrap() error { return e.Stale }

// markStale turns a stale approval into a stale row and returns the refusal; any other error is
// returned as it is. Losing the race to close the row is fine: someone else decided it.
func (s *Service) markStale(ctx context.Context, p gardener.Proposal, by string, err error) error {
	var stale *gardener.StaleError
	if !errors.As(err, &stale) {
		return err
	}
	err = &StaleProposalError{ProposalID: p.ID, Stale: stale}
	_, cerr := s.store.CloseProposal(ctx, gardener.CloseProposal{ProposalID: p.ID, Status: gardener.ProposalStale, By: by, At: s.now()})
	if cerr != nil && !errors.Is(cerr, gardener.ErrConflict) {
		return fmt.Errorf("%w; marking it stale failed too: %v", err, cerr)
	}
	return err
}

// Dismiss declines an open proposal. The row becomes dismissed and the fix is remembered by the
// test version and the app changes it answered, so it is not proposed again until one of them
// changes. A row no longer proposed is a *gardener.ConflictError.
func (s *Service) Dismiss(ctx context.Context, proposalID, by string) (gardener.Proposal, error) {
	if err := required("person dismissing", by); err != nil {
		return gardener.Proposal{}, fmt.Errorf("dismiss proposal %s: %w", proposalID, err)
	}
	p, err := s.store.Proposal(ctx, proposalID)
	if err != nil {
		return gardener.Proposal{}, notFoundOr(err, "dismiss")
	}
	return s.store.CloseProposal(ctx, gardener.CloseProposal{
		ProposalID: p.ID, Status: gardener.ProposalDismissed, By: by, At: s.now(), Dismissal: gardener.DismissalOf(p),
	})
}

// Queue is a project's open proposals, oldest first.
func (s *Service) Queue(ctx context.Context, projectID string) ([]gardener.Proposal, error) {
	if _, err := s.store.Project(ctx, projectID); err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	return s.store.OpenProposals(ctx, projectID)
}
