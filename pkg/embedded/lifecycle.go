package embedded

import (
	"context"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/driftgardener/gardener/pkg/gardener"
)

func getProposal(tx *bolt.Tx, id string) (gardener.Proposal, error) {
	return get[gardener.Proposal](tx, bProposals, []byte(id), "proposal", id)
}

// StageProposal stages p or records it on the test's open proposal.
func (s *Store) StageProposal(ctx context.Context, p gardener.Proposal) (out gardener.Staged, err error) {
	if err := need("proposal id", p.ID); err != nil {
		return out, err
	}
	if err := need("proposal "+p.ID+": test id", p.TestID); err != nil {
		return out, err
	}
	err = s.update(ctx, func(tx *bolt.Tx) error {
		prior, open, err := readStage(tx, p)
		if err != nil {
			return err
		}
		plan, err := gardener.PlanStage(p, prior, open)
		if err != nil {
			return err
		}
		out = plan.Staged()
		switch plan.Outcome {
		case gardener.StagedNew:
			return stageNew(tx, plan.Stage)
		case gardener.StagedRestated:
			if err := tx.Bucket(bRestated).Put([]byte(p.ID), []byte(plan.Restated.ID)); err != nil {
				return err
			}
			return put(tx, bProposals, []byte(plan.Restated.ID), plan.Restated)
		case gardener.StagedSuperseded:
			if err := put(tx, bProposals, []byte(plan.Superseded.ID), plan.Superseded); err != nil {
				return err
			}
			return stageNew(tx, plan.Stage)
		}
		return nil
	})
	if err != nil {
		return gardener.Staged{}, err
	}
	return out, nil
}

// readStage reads what staging p is planned from: the row p's id names already (p itself, or
// the open row it was recorded on) and the test's open row, each nil when there is none.
func readStage(tx *bolt.Tx, p gardener.Proposal) (prior, open *gardener.Proposal, err error) {
	id := p.ID
	if into := tx.Bucket(bRestated).Get([]byte(id)); into != nil {
		id = string(into)
	}
	if id != p.ID || tx.Bucket(bProposals).Get([]byte(id)) != nil {
		row, err := getProposal(tx, id)
		return &row, nil, err
	}
	if openID := tx.Bucket(bOpen).Get([]byte(p.TestID)); openID != nil {
		row, err := getProposal(tx, string(openID))
		return nil, &row, err
	}
	return nil, nil, nil
}

func stageNew(tx *bolt.Tx, p gardener.Proposal) error {
	if err := put(tx, bProposals, []byte(p.ID), p); err != nil {
		return err
	}
	return tx.Bucket(bOpen).Put([]byte(p.TestID), []byte(p.ID))
}

// Proposal reads a proposal.
func (s *Store) Proposal(ctx context.Context, id string) (p gardener.Proposal, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		p, err = getProposal(tx, id)
		return err
	})
	return p, err
}

func (s *Store) proposals(ctx context.Context, keep func(gardener.Proposal) bool, mine func(owner) bool) (out []gardener.Proposal, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		out, err = scan(tx, bProposals, nil, "proposal", keep, mine)
		return err
	})
	return out, err
}

// OpenProposals is the project's queue, oldest staged first.
func (s *Store) OpenProposals(ctx context.Context, projectID string) ([]gardener.Proposal, error) {
	out, err := s.proposals(ctx, func(p gardener.Proposal) bool {
		return p.ProjectID == projectID && p.Status == gardener.ProposalProposed
	}, func(o owner) bool { return o.ProjectID == projectID })
	slices.SortStableFunc(out, func(a, b gardener.Proposal) int { return -gardener.NewestFirst(a.StagedAt, a.ID, b.StagedAt, b.ID) })
	return out, err
}

// TestProposals is every row of a test, newest staged first.
func (s *Store) TestProposals(ctx context.Context, testID string) ([]gardener.Proposal, error) {
	out, err := s.proposals(ctx, func(p gardener.Proposal) bool { return p.TestID == testID }, func(o owner) bool { return o.TestID == testID })
	slices.SortStableFunc(out, func(a, b gardener.Proposal) int { return gardener.NewestFirst(a.StagedAt, a.ID, b.StagedAt, b.ID) })
	return out, err
}

// closeOpen moves an open row to status, if it is still proposed, and frees the test's guard.
func closeOpen(tx *bolt.Tx, id string, status gardener.ProposalStatus, by string, at time.Time) (gardener.Proposal, error) {
	r, err := getProposal(tx, id)
	if err != nil {
		return r, err
	}
	if r, err = r.Close(status, by, at); err != nil {
		return r, err
	}
	if err := put(tx, bProposals, []byte(id), r); err != nil {
		return r, err
	}
	if string(tx.Bucket(bOpen).Get([]byte(r.TestID))) == id {
		return r, tx.Bucket(bOpen).Delete([]byte(r.TestID))
	}
	return r, nil
}

// ApplyProposal approves an open proposal atomically.
func (s *Store) ApplyProposal(ctx context.Context, a gardener.ApplyProposal) (t gardener.Test, err error) {
	if err := need("repair id", a.Repair.ID); err != nil {
		return t, err
	}
	err = s.update(ctx, func(tx *bolt.Tx) error {
		r, err := closeOpen(tx, a.ProposalID, gardener.ProposalApplied, a.Repair.ApprovedBy, a.Repair.At)
		if err != nil {
			return err
		}
		if err := a.Check(r); err != nil {
			return fmt.Errorf("embedded store: %w", err)
		}
		t, err = writeRepair(tx, a.Steps, a.Repair)
		return err
	})
	return t, err
}

// CloseProposal moves an open row to dismissed, stale or superseded.
func (s *Store) CloseProposal(ctx context.Context, c gardener.CloseProposal) (p gardener.Proposal, err error) {
	if err := c.Validate(); err != nil {
		return p, fmt.Errorf("embedded store: %w", err)
	}
	err = s.update(ctx, func(tx *bolt.Tx) error {
		r, err := closeOpen(tx, c.ProposalID, c.Status, c.By, c.At)
		if err != nil {
			return err
		}
		p = r
		if !c.Remembers() {
			return nil
		}
		known, err := dismissed(tx, c.Dismissal)
		if err != nil {
			return err
		}
		return put(tx, bDismissals, versionKey(c.Dismissal.TestID, c.Dismissal.TestVersion), c.Dismissal.AddTo(known))
	})
	return p, err
}

// dismissed reads the change fingerprints dismissed at k's test version.
func dismissed(tx *bolt.Tx, k gardener.DismissalKey) ([]string, error) {
	vk := versionKey(k.TestID, k.TestVersion)
	if tx.Bucket(bDismissals).Get(vk) == nil {
		return nil, nil
	}
	return get[[]string](tx, bDismissals, vk, "dismissals", string(vk))
}

// Dismissed reports whether every change of key was dismissed at its test version.
func (s *Store) Dismissed(ctx context.Context, k gardener.DismissalKey) (bool, error) {
	var known []string
	err := s.view(ctx, func(tx *bolt.Tx) (err error) {
		known, err = dismissed(tx, k)
		return err
	})
	return err == nil && k.CoveredBy(known), err
}

// writeRepair writes the steps at FromVersion+1 and stores the repair, if its id is new.
func writeRepair(tx *bolt.Tx, steps []gardener.Step, r gardener.Repair) (gardener.Test, error) {
	if tx.Bucket(bRepairs).Get([]byte(r.ID)) != nil {
		return gardener.Test{}, &gardener.ConflictError{Entity: "repair", ID: r.ID, Reason: "was written already"}
	}
	t, err := writeSteps(tx, r.TestID, r.FromVersion, steps)
	if err != nil {
		return t, err
	}
	r.ToVersion = t.Version
	return t, put(tx, bRepairs, []byte(r.ID), r)
}

// WriteRepair writes a fix that needs no approval.
func (s *Store) WriteRepair(ctx context.Context, w gardener.WriteRepair) (t gardener.Test, err error) {
	if err := need("repair id", w.Repair.ID); err != nil {
		return t, err
	}
	err = s.update(ctx, func(tx *bolt.Tx) error {
		t, err = writeRepair(tx, w.Steps, w.Repair)
		return err
	})
	return t, err
}

// Repair reads a repair.
func (s *Store) Repair(ctx context.Context, id string) (r gardener.Repair, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		r, err = get[gardener.Repair](tx, bRepairs, []byte(id), "repair", id)
		return err
	})
	return r, err
}

func (s *Store) repairs(ctx context.Context, keep func(gardener.Repair) bool, mine func(owner) bool) (out []gardener.Repair, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		out, err = scan(tx, bRepairs, nil, "repair", keep, mine)
		return err
	})
	slices.SortStableFunc(out, func(a, b gardener.Repair) int { return gardener.NewestFirst(a.At, a.ID, b.At, b.ID) })
	return out, err
}

// Repairs is a test's repair history, newest first.
func (s *Store) Repairs(ctx context.Context, testID string) ([]gardener.Repair, error) {
	return s.repairs(ctx, func(r gardener.Repair) bool { return r.TestID == testID }, func(o owner) bool { return o.TestID == testID })
}

// RepairsSince lists a project's repairs at or after since, newest first.
func (s *Store) RepairsSince(ctx context.Context, projectID string, since time.Time) ([]gardener.Repair, error) {
	return s.repairs(ctx, func(r gardener.Repair) bool { return r.ProjectID == projectID && !r.At.Before(since) },
		func(o owner) bool { return o.ProjectID == projectID })
}

// RevertRepair writes a repair's pre-repair steps back as a new version.
func (s *Store) RevertRepair(ctx context.Context, rv gardener.RevertRepair) (t gardener.Test, err error) {
	err = s.update(ctx, func(tx *bolt.Tx) error {
		r, err := get[gardener.Repair](tx, bRepairs, []byte(rv.RepairID), "repair", rv.RepairID)
		if err != nil {
			return err
		}
		reverted, err := r.Revert(rv.By, rv.At)
		if err != nil {
			return err
		}
		t, err = writeSteps(tx, r.TestID, r.ToVersion, r.PreSteps)
		if err != nil {
			return err
		}
		return put(tx, bRepairs, []byte(r.ID), reverted)
	})
	return t, err
}

// MarkReviewed clears a repair's badge; the fix stays.
func (s *Store) MarkReviewed(ctx context.Context, repairID, by string) (r gardener.Repair, err error) {
	err = s.update(ctx, func(tx *bolt.Tx) error {
		r, err = get[gardener.Repair](tx, bRepairs, []byte(repairID), "repair", repairID)
		if err != nil {
			return err
		}
		if r, err = r.Reviewed(by); err != nil {
			return err
		}
		return put(tx, bRepairs, []byte(r.ID), r)
	})
	return r, err
}
