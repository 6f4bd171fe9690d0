package gardening

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/radar"
)

// approve writes an open proposal for who through the lifecycle (see Approve).
func (s *Service) approve(ctx context.Context, who Who, proposalID string) (lifecycle.Approved, error) {
	a, err := s.life.ApproveAs(ctx, proposalID, who.ID, who.Actor)
	var noGreen *lifecycle.GreenRunError
	if errors.As(err, &noGreen) {
		// The fix is written; the missing green run costs the next repair its comparison.
		s.d.Log.Warn("approve", "proposal", proposalID, "error", err.Error())
		err = nil
	}
	if err != nil {
		return lifecycle.Approved{}, err
	}
	s.d.Log.Info("approved", "proposal", proposalID, "test", a.Test.ID, "repair", a.Repair.ID, "by", who.ID, "actor", who.Actor)
	return a, nil
}

// ApprovalCautions are what a person confirms before approving an open proposal
// (gardener.ApprovalCautions: an UNVERIFIED fix, a step deleted); none when one click is
// enough. A door that asks people first shows them and asks again.
func (s *Service) ApprovalCautions(ctx context.Context, proposalID string) ([]string, error) {
	p, t, err := s.proposalOn(ctx, proposalID)
	if err != nil {
		return nil, err
	}
	return gardener.ApprovalCautions(p, t.Steps), nil
}

// proposalOn reads a proposal and its test as what the proposal's fix is read against: a test
// that moved past the proposal's version comes back without its steps, as the fix heals nothing
// in them that can be read.
func (s *Service) proposalOn(ctx context.Context, proposalID string) (gardener.Proposal, gardener.Test, error) {
	p, err := s.d.Store.Proposal(ctx, proposalID)
	if err != nil {
		return gardener.Proposal{}, gardener.Test{}, err
	}
	t, err := s.d.Store.Test(ctx, p.TestID)
	if err != nil {
		return gardener.Proposal{}, gardener.Test{}, err
	}
	if t.Version != p.BaseVersion {
		t.Steps = nil
	}
	return p, t, nil
}

// Dismiss declines an open proposal: it is not proposed again until the test or the app
// changes.
func (s *Service) Dismiss(ctx context.Context, who Who, proposalID string) (gardener.Proposal, error) {
	p, err := s.life.Dismiss(ctx, proposalID, who.ID)
	if err == nil {
		s.d.Log.Info("dismissed", "proposal", p.ID, "test", p.TestID, "by", who.ID)
	}
	return p, err
}

// RevertConfirmation is the text a person confirms before a revert, honest about the
// consequence.
func (s *Service) RevertConfirmation(ctx context.Context, repairID string) (string, error) {
	return s.life.RevertConfirmation(ctx, repairID)
}

// Revert writes a repair's pre-repair steps back and announces it.
func (s *Service) Revert(ctx context.Context, who Who, repairID string) (lifecycle.Reverted, error) {
	v, err := s.life.Revert(ctx, repairID, who.ID)
	if err != nil {
		return v, err
	}
	s.notify(ctx, Notification{Kind: NotifyReverted, ProjectID: v.Repair.ProjectID, TestID: v.Test.ID, RepairID: v.Repair.ID,
		Subject: fmt.Sprintf("Repair reverted: %s (version %d)", v.Test.ID, v.Test.Version), Summary: v.Confirmation})
	return v, nil
}

// MarkReviewed clears a repair's Auto-repaired badge and keeps the fix.
func (s *Service) MarkReviewed(ctx context.Context, who Who, repairID string) (gardener.Repair, error) {
	return s.life.MarkReviewed(ctx, repairID, who.ID)
}

// Queue is a project's staged queue, or which of the empty reasons applies.
func (s *Service) Queue(ctx context.Context, projectID string) (radar.Queue, error) {
	r := &radar.Radar{Store: s.d.Store, Now: s.d.Now, Log: s.d.Log}
	return r.Queue(ctx, projectID)
}

// Repair is one repair record.
func (s *Service) Repair(ctx context.Context, repairID string) (gardener.Repair, error) {
	return s.d.Store.Repair(ctx, repairID)
}

// RepairHistory is every repair written to a test, newest first.
func (s *Service) RepairHistory(ctx context.Context, testID string) ([]gardener.Repair, error) {
	return s.life.RepairHistory(ctx, testID)
}

// RepairsSince is a project's repairs since a time, newest first.
func (s *Service) RepairsSince(ctx context.Context, projectID string, since time.Time) ([]gardener.Repair, error) {
	return s.life.RepairsSince(ctx, projectID, since)
}

// History is a test's AI history: its model calls and repairs.
func (s *Service) History(ctx context.Context, testID string) (lifecycle.History, error) {
	return s.life.AIHistory(ctx, testID)
}

// TriageIssues are a project's triage issues.
func (s *Service) TriageIssues(ctx context.Context, projectID string) ([]gardener.TriageIssue, error) {
	return s.d.Store.TriageIssues(ctx, projectID)
}

// Settings is what a person may change of a project; a nil field keeps what is stored.
type Settings struct {
	AutoRepair *bool   `json:"autoRepair"`
	Model      *string `json:"model"`
	Radar      *bool   `json:"radar"`
}

// UpdateSettings changes a project's settings as one conditional update: two people changing
// different settings at once both keep theirs. check sees the project as stored before the
// change and refuses it with its own error (a door's precondition: an If-Match, a form's
// version). A model is checked by opening it before anything is written. A request that names
// no setting is refused; one that changes nothing writes nothing and keeps the version.
func (s *Service) UpdateSettings(ctx context.Context, projectID string, set Settings, check func(gardener.Project) error) (gardener.Project, error) {
	if set == (Settings{}) {
		// {} changes nothing, and is more likely a client that lost its fields than a request.
		return gardener.Project{}, &SettingsError{Field: "settings", Reason: "the request names no setting (autoRepair, model or radar)"}
	}
	if set.Model != nil && *set.Model != "" {
		if s.d.Models == nil {
			return gardener.Project{}, fmt.Errorf("settings of project %s: the model cannot be checked: %w", projectID, ErrUnavailable)
		}
		if _, err := s.d.Models(ctx, *set.Model); err != nil {
			return gardener.Project{}, &SettingsError{Field: "model", Reason: err.Error()}
		}
	}
	p, err := s.d.Store.UpdateProject(ctx, projectID, func(p *gardener.Project) error {
		if check != nil {
			if err := check(*p); err != nil {
				return err
			}
		}
		ProjectChange{AutoRepair: set.AutoRepair, Model: set.Model, Radar: set.Radar}.apply(p)
		return nil
	})
	if err != nil {
		return p, err
	}
	s.d.Log.Info("settings", "project", p.ID, "auto_repair", p.AutoRepair, "model", p.Model, "radar", p.Radar)
	return p, nil
}

// SettingsMovedError refuses a change of a project's settings made on a version of them that is
// gone: someone saved them after the caller read them (the API's If-Match, the console form's
// version). Nothing is written; every door says it in these words (ClassMoved).
type SettingsMovedError struct {
	ProjectID string
	// Current is the version the settings are at now.
	Current int
}

func (e *SettingsMovedError) Error() string {
	return fmt.Sprintf("someone changed the settings of project %s after you read them (they are at version %d now): nothing was saved; read them again and make your change again", e.ProjectID, e.Current)
}

// SettingsReadAt is the check UpdateSettings takes from a door whose caller read the settings
// at a version: read says whether the version they are at is one the caller read (an If-Match
// may name several, or any).
func SettingsReadAt(read func(version int) bool) func(gardener.Project) error {
	return func(p gardener.Project) error {
		if !read(p.Version) {
			return &SettingsMovedError{ProjectID: p.ID, Current: p.Version}
		}
		return nil
	}
}

// SettingsError is a setting that cannot be taken, named.
type SettingsError struct {
	Field  string
	Reason string
}

func (e *SettingsError) Error() string { return fmt.Sprintf("settings: %s: %s", e.Field, e.Reason) }
