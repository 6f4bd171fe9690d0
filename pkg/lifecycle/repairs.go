package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Fix is a proven fix to write without the queue: the applying gardener's (By empty) or a
// person's from the manual path (By set).
type Fix struct {
	RunID       string // the failed run the fix answers; keys the repair, so a duplicate event writes once
	TestID      string
	BaseVersion int // the version the proof ran against
	Verdict     gardener.Verdict
	By          string
	// Proof is the green re-run of the fix; once the fix is written it becomes the test's last
	// green run, what the next repair compares with.
	Proof *gardener.RunResult
}

// Applied is what ApplyFix did.
type Applied struct {
	Test   gardener.Test   `json:"test"`
	Repair gardener.Repair `json:"repair"`
	// Duplicate is true when the run's repair had been written before: nothing changed now.
	Duplicate bool `json:"duplicate"`
}

// ApplyFix writes a proven fix conditional on the version the proof ran against and keeps the
// repair record: the triggering run, the winning strategy, the exact ops, the time and the
// complete pre-repair steps. An automatic fix is gated again here (apply mode, an unattended
// run, an active test, nothing that needs a person) and badged Auto-repaired; a manual one
// passes the manual gate and records who applied it. Applying for the same run twice writes once.
func (s *Service) ApplyFix(ctx context.Context, f Fix) (Applied, error) {
	if err := required("run id", f.RunID); err != nil {
		return Applied{}, fmt.Errorf("apply fix to test %s: %w", f.TestID, err)
	}
	id := gardener.RepairIDOfRun(f.RunID)
	if prior, err := s.store.Repair(ctx, id); err == nil {
		return s.duplicate(ctx, prior)
	} else if !errors.Is(err, gardener.ErrNotFound) {
		return Applied{}, fmt.Errorf("apply fix for run %s: %w", f.RunID, err)
	}
	run, err := s.store.Run(ctx, f.RunID)
	if err != nil {
		return Applied{}, fmt.Errorf("apply fix: %w", err)
	}
	if f.TestID == "" {
		f.TestID = run.TestID
	}
	t, err := s.store.Test(ctx, f.TestID)
	if err != nil {
		return Applied{}, fmt.Errorf("apply fix for run %s: %w", f.RunID, err)
	}
	p, err := s.store.Project(ctx, t.ProjectID)
	if err != nil {
		return Applied{}, fmt.Errorf("apply fix for run %s: %w", f.RunID, err)
	}
	auto := f.By == ""
	actor := gardener.ActorPerson
	if auto {
		actor = gardener.ActorSchedule
	}
	// The version the fix is written to is judged by prepare, against the proof's version (a
	// stale fix goes stale); the gate judges the rest of the run again.
	gated := run
	gated.TestVersion = 0
	if err := gardener.Gate(actor, gardener.ModeApply, p, t, &gated); err != nil {
		return Applied{}, err
	}
	if d := gardener.Decide(f.Verdict, gardener.ModeApply, gardener.FromProject, actor); !d.Apply {
		return Applied{}, &gardener.IneligibleError{Reason: fmt.Sprintf("the fix for test %s must be staged: %s", t.ID, d.Reason)}
	}
	steps, err := prepare(t, f.BaseVersion, f.Verdict.Ops)
	if err != nil {
		return s.duplicateOr(ctx, id, fmt.Errorf("apply fix for run %s: %w", f.RunID, err))
	}
	r := gardener.Repair{
		ID:          id,
		ProjectID:   t.ProjectID,
		TestID:      t.ID,
		RunID:       f.RunID,
		Verdict:     f.Verdict,
		PreSteps:    t.Steps,
		FromVersion: f.BaseVersion,
		ToVersion:   f.BaseVersion + 1,
		At:          s.now(),
		Auto:        auto,
		ApprovedBy:  f.By,
		Badge:       auto,
	}
	written, err := s.store.WriteRepair(ctx, gardener.WriteRepair{Steps: steps, Repair: r})
	if err != nil {
		return s.duplicateOr(ctx, id, fmt.Errorf("apply fix for run %s: %w", f.RunID, err))
	}
	return Applied{Test: written, Repair: r}, s.recordGreen(ctx, written, r.ID, f.Proof)
}

// duplicateOr answers a write that failed: when the run's repair exists now, a concurrent
// delivery of the same event wrote it (and moved the test past the version this one read, or
// won the write), which is the duplicate case; otherwise err stands.
func (s *Service) duplicateOr(ctx context.Context, repairID string, err error) (Applied, error) {
	if prior, perr := s.store.Repair(ctx, repairID); perr == nil {
		return s.duplicate(ctx, prior)
	}
	return Applied{}, err
}

func (s *Service) duplicate(ctx context.Context, prior gardener.Repair) (Applied, error) {
	t, err := s.store.Test(ctx, prior.TestID)
	if err != nil {
		return Applied{}, fmt.Errorf("repair %s: %w", prior.ID, err)
	}
	return Applied{Test: t, Repair: prior, Duplicate: true}, nil
}

// RevertConfirmation is the text a person confirms before a revert. A revert that would be
// refused is refused here already, with Revert's refusal: nobody is asked to confirm a revert
// that cannot happen, and every door (the API's {} and {"confirm":true}, the CLI, which asks
// before it reverts) gives the same words for it.
func (s *Service) RevertConfirmation(ctx context.Context, repairID string) (string, error) {
	r, err := s.store.Repair(ctx, repairID)
	if err != nil {
		return "", notFoundOr(err, "revert")
	}
	t, err := s.store.Test(ctx, r.TestID)
	if err != nil {
		return "", fmt.Errorf("revert repair %s: %w", r.ID, err)
	}
	if err := revertRefusal(r, t); err != nil {
		return "", err
	}
	return confirmation(r), nil
}

// revertRefusal is why r cannot be reverted on t as it is now, in the words Revert refuses it
// with (the store decides the same at the write): reverted already, or a test moved past it.
func revertRefusal(r gardener.Repair, t gardener.Test) error {
	if _, err := r.Revert("", time.Time{}); err != nil {
		return err
	}
	if t.Version != r.ToVersion {
		return &RevertRefusedError{RepairID: r.ID, TestID: r.TestID, RepairVersion: r.ToVersion, Version: t.Version}
	}
	return nil
}

func confirmation(r gardener.Repair) string {
	// The confirmation is honest about the consequence: gardener.Repair.RevertConsequence.
	return fmt.Sprintf("Revert test %s to its %d steps from before repair %s (version %d)? After the revert, %s.",
		r.TestID, len(r.PreSteps), r.ID, r.FromVersion, r.RevertConsequence())
}

// Reverted is what a revert wrote.
type Reverted struct {
	Test         gardener.Test   `json:"test"`
	Repair       gardener.Repair `json:"repair"`
	Confirmation string          `json:"confirmation"`
}

// Revert writes a repair's pre-repair steps back exactly, as a new version. It is refused with a
// *RevertRefusedError when the test has changed since the repair, and with a
// *gardener.ConflictError when the repair was reverted already.
func (s *Service) Revert(ctx context.Context, repairID, by string) (Reverted, error) {
	if err := required("person reverting", by); err != nil {
		return Reverted{}, fmt.Errorf("revert repair %s: %w", repairID, err)
	}
	r, err := s.store.Repair(ctx, repairID)
	if err != nil {
		return Reverted{}, notFoundOr(err, "revert")
	}
	t, err := s.store.RevertRepair(ctx, gardener.RevertRepair{RepairID: r.ID, By: by, At: s.now()})
	if err != nil {
		var stale *gardener.StaleError
		if errors.As(err, &stale) {
			return Reverted{}, &RevertRefusedError{RepairID: r.ID, TestID: r.TestID, RepairVersion: r.ToVersion, Version: stale.Version}
		}
		// Reverted already: the conflict names the repair and who reverted it, as
		// RevertConfirmation's refusal does.
		var reverted *gardener.ConflictError
		if errors.As(err, &reverted) && reverted.Entity == "repair" {
			return Reverted{}, reverted
		}
		return Reverted{}, fmt.Errorf("revert repair %s: %w", r.ID, err)
	}
	r, err = s.store.Repair(ctx, r.ID)
	if err != nil {
		return Reverted{}, fmt.Errorf("revert repair %s: %w", repairID, err)
	}
	return Reverted{Test: t, Repair: r, Confirmation: confirmation(r)}, nil
}

// MarkReviewed clears a repair's Auto-repaired badge and keeps the fix.
func (s *Service) MarkReviewed(ctx context.Context, repairID, by string) (gardener.Repair, error) {
	if err := required("reviewer", by); err != nil {
		return gardener.Repair{}, fmt.Errorf("mark repair %s reviewed: %w", repairID, err)
	}
	return s.store.MarkReviewed(ctx, repairID, by)
}

// Badged returns the test's newest repair still badged Auto-repaired, and whether there is one.
func (s *Service) Badged(ctx context.Context, testID string) (gardener.Repair, bool, error) {
	rs, err := s.RepairHistory(ctx, testID)
	if err != nil {
		return gardener.Repair{}, false, err
	}
	for _, r := range rs {
		if r.Badge {
			return r, true, nil
		}
	}
	return gardener.Repair{}, false, nil
}

// RepairHistory is every repair written to a test, newest first.
func (s *Service) RepairHistory(ctx context.Context, testID string) ([]gardener.Repair, error) {
	if _, err := s.store.Test(ctx, testID); err != nil {
		return nil, fmt.Errorf("repair history: %w", err)
	}
	return s.store.Repairs(ctx, testID)
}

// RepairsSince is the project's "repaired since" view, newest first.
func (s *Service) RepairsSince(ctx context.Context, projectID string, since time.Time) ([]gardener.Repair, error) {
	if _, err := s.store.Project(ctx, projectID); err != nil {
		return nil, fmt.Errorf("repairs since %s: %w", since.Format(time.RFC3339), err)
	}
	return s.store.RepairsSince(ctx, projectID, since)
}

// History is a test's AI history: every model call made for it, beside its repairs.
type History struct {
	ModelCalls []gardener.ModelCall `json:"modelCalls"`
	Repairs    []gardener.Repair    `json:"repairs"`
}

// AIHistory returns the test's model calls and repairs, each newest first. Records that do not
// decode are left out of both and named in one *gardener.CorruptError returned beside the rest.
func (s *Service) AIHistory(ctx context.Context, testID string) (History, error) {
	var corrupt gardener.CorruptError
	rs, err := s.RepairHistory(ctx, testID)
	if bad, failure := gardener.SplitCorrupt(err); failure != nil {
		return History{}, failure
	} else if bad != nil {
		corrupt.Records = append(corrupt.Records, bad.Records...)
	}
	calls, err := s.store.ModelCalls(ctx, testID)
	if bad, failure := gardener.SplitCorrupt(err); failure != nil {
		return History{}, fmt.Errorf("AI history of test %s: %w", testID, failure)
	} else if bad != nil {
		corrupt.Records = append(corrupt.Records, bad.Records...)
	}
	return History{ModelCalls: calls, Repairs: rs}, corrupt.Err()
}

// RecordModelCall adds a call to the test's AI history; a zero At is now.
func (s *Service) RecordModelCall(ctx context.Context, c gardener.ModelCall) error {
	if err := required("model call: test id", c.TestID); err != nil {
		return err
	}
	if err := required("model call for test "+c.TestID+": ask", c.Ask); err != nil {
		return err
	}
	if c.At.IsZero() {
		c.At = s.now()
	}
	return s.store.AddModelCall(ctx, c)
}

// EditTest writes a person's edit made against t.Version; the test gets the next version, which
// is what makes proposals computed against the old one stale.
func (s *Service) EditTest(ctx context.Context, t gardener.Test) (gardener.Test, error) {
	if err := required("test id", t.ID); err != nil {
		return gardener.Test{}, err
	}
	if len(t.Steps) == 0 {
		return gardener.Test{}, fmt.Errorf("edit test %s: a test needs at least one step", t.ID)
	}
	return s.store.SaveTest(ctx, t)
}
