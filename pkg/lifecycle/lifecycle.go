// Package lifecycle is the proposal and repair lifecycle as domain services over a store: stage,
// approve and apply, dismiss, supersede, auto-apply, revert, mark reviewed, and the histories
// people read (one open proposal per test, stale, the repair record; spec "The queue" and "What
// an auto-applied repair leaves behind").
//
// The services decide; the store makes each decision atomic. Every service re-reads what it
// acts on and trusts no payload: ops pass the assertion floor again before anything is written,
// and a fix is applied to the version it was computed against or not at all.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Store is the part of a gardener.Store the lifecycle keeps its state behind: the queue and the
// repair history, and the projects, tests, runs and AI history they refer to.
type Store interface {
	gardener.ProposalStore
	gardener.RepairStore
	Project(ctx context.Context, id string) (gardener.Project, error)
	Test(ctx context.Context, id string) (gardener.Test, error)
	SaveTest(ctx context.Context, t gardener.Test) (gardener.Test, error)
	Run(ctx context.Context, id string) (gardener.Run, error)
	PutRun(ctx context.Context, r gardener.Run) error
	AddModelCall(ctx context.Context, c gardener.ModelCall) error
	ModelCalls(ctx context.Context, testID string) ([]gardener.ModelCall, error)
}

// Service runs the lifecycle over a store. The zero value is not usable; call New.
type Service struct {
	store Store
	now   func() time.Time
}

// New returns a service over store; now is the clock (nil: time.Now), injectable so histories
// sort deterministically in tests.
func New(store Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: func() time.Time { return now().UTC() }}
}

// RefusedError is a fix the assertion floor or the ops check refuses at write time.
type RefusedError struct {
	TestID   string
	Refusals []gardener.Refusal
	Err      error // an op that does not apply, when there is no refusal
}

func (e *RefusedError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("test %s: the fix does not apply: %v", e.TestID, e.Err)
	}
	lines := make([]string, len(e.Refusals))
	for i, r := range e.Refusals {
		lines[i] = fmt.Sprintf("step %s: %s", r.Path, r.Reason)
	}
	return fmt.Sprintf("test %s: the assertion floor refuses the fix: %s", e.TestID, strings.Join(lines, "; "))
}

// RevertRefusedError is a revert of a repair the test has moved past: writing the pre-repair
// steps back would silently throw away every later edit.
type RevertRefusedError struct {
	RepairID      string
	TestID        string
	RepairVersion int // the version the repair wrote
	Version       int // the test's version now
}

func (e *RevertRefusedError) Error() string {
	return fmt.Sprintf("revert of repair %s refused: test %s has changed since the repair (the repair wrote version %d, the test is at version %d); reverting would throw those changes away, so edit the test instead",
		e.RepairID, e.TestID, e.RepairVersion, e.Version)
}

// Is lets errors.Is(err, gardener.ErrStale) match.
func (e *RevertRefusedError) Is(target error) bool { return target == gardener.ErrStale }

// prepare re-screens ops against the test they are written to and applies them to a copy.
// Staleness is judged first: against another version the ops' indices name other steps, so
// screening them there would refuse (or allow) changes nobody proposed, and the row must go
// stale rather than be refused.
func prepare(t gardener.Test, baseVersion int, ops []gardener.Op) ([]gardener.Step, error) {
	if len(ops) == 0 {
		return nil, &RefusedError{TestID: t.ID, Err: errors.New("the fix has no operations")}
	}
	if t.Version != baseVersion {
		return nil, &gardener.StaleError{TestID: t.ID, BaseVersion: baseVersion, Version: t.Version}
	}
	if sc := gardener.Screen(t.Steps, ops); len(sc.Refusals) > 0 {
		return nil, &RefusedError{TestID: t.ID, Refusals: sc.Refusals}
	}
	fixed, err := gardener.ApplySteps(t.Steps, ops)
	if err != nil {
		return nil, &RefusedError{TestID: t.ID, Err: err}
	}
	return fixed, nil
}

func required(what, value string) error {
	if strings.TrimSpace(value) == "" {
		return fmt.Errorf("%s is required", what)
	}
	return nil
}

// notFoundOr is err from reading the object a use case was asked to act on: an object that does
// not exist is answered with the store's own words, which name it (`proposal "p-1" not found`),
// as the API's access check answers the same id, so every door says it alike; any other failure
// is prefixed with the use case.
func notFoundOr(err error, useCase string) error {
	if errors.Is(err, gardener.ErrNotFound) {
		return err
	}
	return fmt.Errorf("%s: %w", useCase, err)
}
