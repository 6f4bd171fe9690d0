package gardening

import (
	"context"
	"fmt"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/tend"
)

// NotificationKind is what happened to a test.
type NotificationKind string

// Auto-repair events (spec: "The outcome fans out to your notifications as an auto-repair
// event").
const (
	NotifyApplied  NotificationKind = "applied"
	NotifyStaged   NotificationKind = "staged"
	NotifyTriaged  NotificationKind = "triaged"
	NotifyReverted NotificationKind = "reverted"
)

// Notification is one auto-repair event, small enough for an SNS message.
type Notification struct {
	Kind       NotificationKind `json:"kind"`
	ProjectID  string           `json:"projectId"`
	TestID     string           `json:"testId"`
	RunID      string           `json:"runId,omitempty"`
	RepairID   string           `json:"repairId,omitempty"`
	ProposalID string           `json:"proposalId,omitempty"`
	Strategy   string           `json:"strategy,omitempty"`
	Subject    string           `json:"subject"`
	Summary    string           `json:"summary"`
}

// NotificationOf is the event a persisted repair sends people, or none (ok false): a test that
// passes, or a repair that ended writing nothing and filing nothing, is nobody's news.
func NotificationOf(d tend.Decision, p tend.Persisted) (n Notification, ok bool) {
	n = Notification{ProjectID: d.ProjectID, TestID: d.TestID, RunID: d.RunID}
	if d.Verdict != nil {
		n.Strategy = string(d.Verdict.Strategy)
	}
	switch {
	case p.Applied != nil:
		n.Kind, n.RepairID = NotifyApplied, p.Applied.Repair.ID
		n.Subject = fmt.Sprintf("Auto-repaired: %s (version %d)", d.TestID, p.Applied.Test.Version)
		n.Summary = summarize(d.Verdict, "")
	case p.Staged != nil:
		n.Kind, n.ProposalID = NotifyStaged, p.Staged.Proposal.ID
		n.Subject = fmt.Sprintf("Repair staged for review: %s", d.TestID)
		n.Summary = summarize(d.Verdict, p.Reason)
	case p.Triage != nil:
		n.Kind = NotifyTriaged
		n.Subject = fmt.Sprintf("Not repaired: %s", d.TestID)
		n.Summary = p.Reason
		if p.Outcome == gardener.OutcomeRefused {
			n.Summary = "every proposed change was refused"
		}
		n.Summary += fmt.Sprintf(" (%s; triage issue %s)", p.Triage.Classification, p.Triage.ID)
	default:
		return Notification{}, false
	}
	return n, true
}

func summarize(v *gardener.Verdict, reason string) string {
	if v == nil {
		return reason
	}
	var b strings.Builder
	counts := gardener.Summarize(v.Changes)
	fmt.Fprintf(&b, "%s: %s; %d repair, %d to review", v.Strategy, gardener.Plural(len(v.Ops), "op", "ops"), counts[gardener.ClassRepair], counts[gardener.ClassReview])
	if k, n := v.Contract.Kept(); n > 0 {
		fmt.Fprintf(&b, "; requirement contract %d of %d kept", k, n)
	}
	fmt.Fprintf(&b, "; checks proven sensitive in %d of %d", v.Sensitivity.Sensitive, v.Sensitivity.Total)
	if reason != "" {
		fmt.Fprintf(&b, "; %s", reason)
	}
	return b.String()
}

// notify publishes n; a failed publish is logged, not the caller's failure: what it announces
// is written.
func (s *Service) notify(ctx context.Context, n Notification) {
	if s.d.Notifier == nil {
		return
	}
	if err := s.d.Notifier.Publish(ctx, n.Subject, n); err != nil {
		s.d.Log.Warn("notify", "kind", n.Kind, "test", n.TestID, "error", err.Error())
	}
}

// Announce publishes the event of a persisted repair, if it is anybody's news, and returns it.
func (s *Service) Announce(ctx context.Context, d tend.Decision, p tend.Persisted) (Notification, bool) {
	n, ok := NotificationOf(d, p)
	if ok {
		s.notify(ctx, n)
	}
	return n, ok
}
