package gardening

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// AnyVersion as SaveTest's base writes the edit over whatever version is stored: what a caller
// asks for on purpose (If-Match: *), never what a copy naming no version gets.
const AnyVersion = -1

// SaveTest makes the store hold t, a test of t.ProjectID, for who: a test the store does not
// hold is created in that project at version 1, whatever version t names (a version is the
// store's to give); a stored one is replaced as who's edit, at the next version, made on base:
// the version the caller names (If-Match), or with base 0 the one t names, version 1 when it
// names none (gardener.Test.CopyOf: a hand-written file is a copy of what creating the test
// made). When the test moved from that version (a repair, another edit) nothing is written:
// *workspace.MovedError. AnyVersion applies the edit on top of whatever is stored. A test does
// not move to another project, and the same steps, status, name and viewport write nothing
// (outcome unchanged), whatever version they were copied from. Every door that writes a test
// file (PUT /tests/{id}, gardener push locally and through the API) comes here, so a copy that
// names no version is never written over a repair.
func (s *Service) SaveTest(ctx context.Context, who Who, t gardener.Test, base int) (workspace.Synced, error) {
	stored, err := s.d.Store.Test(ctx, t.ID)
	if errors.Is(err, gardener.ErrNotFound) {
		if _, err := s.d.Store.Project(ctx, t.ProjectID); err != nil {
			return workspace.Synced{}, err
		}
		t.Version = 0
		created, err := (&workspace.Service{Store: s.d.Store}).SyncTest(ctx, t, nil)
		if err != nil {
			return created, err
		}
		s.d.Log.Info("test created", "test", t.ID, "project", t.ProjectID, "by", who.ID)
		return created, nil
	}
	if err != nil {
		return workspace.Synced{}, err
	}
	if stored.ProjectID != t.ProjectID {
		return workspace.Synced{}, &BadRequestError{Reason: fmt.Sprintf("test %s is of project %s: a test does not move to project %s", t.ID, stored.ProjectID, t.ProjectID)}
	}
	unnamed := base == 0 && t.Version == 0
	switch base {
	case 0:
		base = t.CopyOf()
	case AnyVersion:
		base = 0 // workspace.ReplaceTest's "on top of what is stored"
	}
	w, err := s.replace(ctx, who, t, base, "test replaced")
	if moved := (*workspace.MovedError)(nil); unnamed && errors.As(err, &moved) {
		moved.Unnamed = true
	}
	return w, err
}

// Statuses a test may be given.
var statuses = []gardener.TestStatus{gardener.StatusDraft, gardener.StatusPending, gardener.StatusActive, gardener.StatusRejected, gardener.StatusArchived}

// SetTestStatus moves a test through its review life at its next version, made on base as
// SaveTest's replace. Archiving is how a test is deleted: its runs, repairs and AI history refer
// to it and stay readable, and an archived test is never run or tended until its status brings
// it back.
func (s *Service) SetTestStatus(ctx context.Context, who Who, testID string, status gardener.TestStatus, base int) (workspace.Synced, error) {
	if !slices.Contains(statuses, status) {
		return workspace.Synced{}, &BadRequestError{Reason: fmt.Sprintf("test status: %q is not one of draft, pending, active, rejected, archived", status)}
	}
	t, err := s.d.Store.Test(ctx, testID)
	if err != nil {
		return workspace.Synced{}, err
	}
	t.Status = status
	return s.replace(ctx, who, t, base, "test status changed")
}

// replace writes a person's edit of t, made on base, and logs what it did.
func (s *Service) replace(ctx context.Context, who Who, t gardener.Test, base int, what string) (workspace.Synced, error) {
	w, err := (&workspace.Service{Store: s.d.Store}).ReplaceTest(ctx, t, base)
	if err != nil {
		return w, err
	}
	s.d.Log.Info(what, "test", w.Test.ID, "project", w.Test.ProjectID, "outcome", w.Outcome, "version", w.Test.Version, "by", who.ID)
	return w, nil
}
