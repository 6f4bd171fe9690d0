package gardening

import (
	"context"
	"fmt"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/tend"
)

// Approval is an approved proposal and what became of the other tests that use a locator its
// fix healed (spec 002's accept --propagate). A plain approval names them in Others and leaves
// them as they are: once the proposal is approved there is nothing left to propagate later, so
// the answer is the moment to say which tests will fail on the same change. An approval with
// propagation carries the heal to each, proven by its own green re-run and judged by the same
// trust checks as auto-repair's propagation, and says in Propagated what became of each: written,
// staged for a person (with why), or left alone (with why).
type Approval struct {
	lifecycle.Approved
	Others     []ladder.Use           `json:"others,omitempty"`
	Propagated []tend.PropagatedWrite `json:"propagated,omitempty"`
	// PropagateError is why carrying the heal stopped (the browser failed, the store did not
	// answer) after the approval was written: the approval stands, and the tests Propagated
	// does not name are left as they are.
	PropagateError string `json:"propagateError,omitempty"`
}

// OtherUse is one other test that uses a locator a fix healed (ladder.Use).
type OtherUse = ladder.Use

// Carried is what became of a test a heal was carried to.
type Carried string

// What carrying a heal did to a test.
const (
	CarriedWritten Carried = "written" // green with the heal, and written
	CarriedStaged  Carried = "staged"  // green, and staged for a person
	CarriedLeft    Carried = "left"    // not green with it, or refused: left as it is
)

// CarriedOf says what carrying a heal did to one test.
func CarriedOf(p tend.PropagatedWrite) Carried {
	switch {
	case p.Green && p.Persisted != nil && p.Persisted.Outcome == ladder.Repaired:
		return CarriedWritten
	case p.Green && p.Persisted != nil && p.Persisted.Outcome == ladder.Staged:
		return CarriedStaged
	}
	return CarriedLeft
}

// ApproveOptions are what an approval may ask beyond applying the proposal: Propagate carries
// its healed locators to the project's other tests, replayed with Here's browser.
type ApproveOptions struct {
	Propagate bool
	Here      Here
}

// Approve applies an open proposal for who (spec "Approve and apply"). A person may approve any
// open row; an agent only a proven fix that needs no person (*gardener.HeldError,
// *lifecycle.UnprovenError otherwise, the row left open). A stale row is refused with
// *gardener.StaleError and marked stale. The proof becomes the test's last green run. The answer
// names the other tests that use a locator the fix healed (Approval.Others); with
// opt.Propagate the heal is carried to them (Approval.Propagated), which needs a browser: a
// process without one refuses the approval before writing anything (ErrUnavailable).
func (s *Service) Approve(ctx context.Context, who Who, proposalID string, opt ApproveOptions) (Approval, error) {
	if opt.Propagate && opt.Here.Runner == nil {
		return Approval{}, fmt.Errorf("approve %s with propagation: no browser to prove the healed locator on the other tests in (the API in Lambda runs without Chromium; gardener serve and gardener approve --propagate replay); approve it without propagation and the answer names the other tests: %w", proposalID, ErrUnavailable)
	}
	a, err := s.approve(ctx, who, proposalID)
	if err != nil {
		return Approval{}, err
	}
	out := Approval{Approved: a}
	changes := ladder.HealedLocators(a.Repair.PreSteps, a.Repair.Verdict)
	if len(changes) == 0 {
		return out, nil
	}
	if out.Others, err = s.usersOf(ctx, a.Test, changes); err != nil {
		// The fix is written; only the names of the other tests are missing. Asked to carry
		// the heal, the answer says it could not, not that no other test uses the locator.
		s.d.Log.Warn("approve: other tests", "proposal", proposalID, "error", err.Error())
		if opt.Propagate {
			out.PropagateError = "the project's other tests could not be read: " + err.Error()
		}
		return out, nil
	}
	if !opt.Propagate || len(out.Others) == 0 {
		return out, nil
	}
	props, err := s.propagate(ctx, who, proposalID, a, opt.Here)
	out.Propagated = props
	if err != nil {
		s.d.Log.Warn("approve: propagating", "proposal", proposalID, "error", err.Error())
		out.PropagateError = err.Error()
	}
	for _, p := range props {
		s.d.Log.Info("propagated on approval", "proposal", proposalID, "from", a.Test.ID, "test", p.TestID, "green", p.Green, "reason", p.Reason)
		if p.Persisted != nil {
			s.Announce(ctx, tend.Decision{ProjectID: a.Test.ProjectID, TestID: p.TestID, BaseVersion: p.BaseVersion, Verdict: p.Verdict, By: who.ID, Actor: who.Actor, Outcome: p.Persisted.Outcome, Reason: p.Persisted.Reason}, *p.Persisted)
		}
	}
	return out, nil
}

// propagate carries the approved fix's healed locators to the project's other tests through the
// same propagation auto-repair runs after a fix is written (tend.Tender.Propagate): each test
// replayed with the change, judged against its own last green run, written only when its own
// verdict needs no person and the approver is a person (an agent's copies are staged), and
// staged for a person otherwise. The person who approved read the original's notes and asked
// for the copies, so the copies are held only for their own.
func (s *Service) propagate(ctx context.Context, who Who, proposalID string, a lifecycle.Approved, h Here) ([]tend.PropagatedWrite, error) {
	p, err := s.d.Store.Project(ctx, a.Test.ProjectID)
	if err != nil {
		return nil, err
	}
	opts, err := replayOptions(p, h.Options)
	if err != nil {
		return nil, err
	}
	// A written copy is keyed by a run, as auto-repair's copies are keyed by the failed run they
	// answer: the proposal's run when it names one, else one standing for this approval (it is
	// not stored; each copy's own run is).
	run := &gardener.Run{ID: "approval-" + proposalID, ProjectID: a.Test.ProjectID, TestID: a.Test.ID, TestVersion: a.Repair.FromVersion, Trigger: gardener.TriggerManual, At: s.now()}
	if a.Repair.RunID != "" {
		if r, err := s.d.Store.Run(ctx, a.Repair.RunID); err == nil {
			run = &r
		}
	}
	lad := &ladder.Ladder{Runner: h.Runner, Now: s.d.Now, Progress: h.Progress}
	tender := &tend.Tender{Store: s.d.Store, Life: s.life, Ladder: lad, Log: s.d.Log, Now: s.d.Now}
	job := tend.Job{TestID: a.Test.ID, Mode: gardener.ModeApply, Run: run, By: who.ID, Actor: who.Actor, Options: opts,
		Reviewed: who.Actor != gardener.ActorAgent}
	before := gardener.Test{ID: a.Test.ID, ProjectID: a.Test.ProjectID, Version: a.Repair.FromVersion, Steps: a.Repair.PreSteps}
	return tender.Propagate(ctx, job, before, a.Repair.Verdict)
}

// OthersSaid names, one line per test, the other tests that use a locator the approved fix
// healed and which steps: what a plain approval leaves as it is, in the words every door prints.
func (a Approval) OthersSaid() []string {
	var out []string
	for _, u := range a.Others {
		which, uses := "step", "uses"
		if len(u.Steps) > 1 {
			which, uses = "steps", "use"
		}
		out = append(out, fmt.Sprintf("%s: %s %s %s %s", u.TestID, which, strings.Join(u.Steps, ", "), uses, strings.Join(u.Locators, ", ")))
	}
	return out
}

// PropagatedSaid says, one line per test, what propagation did to it: written (as which
// version), staged for a person (why), or left alone (why).
func (a Approval) PropagatedSaid() []string {
	var out []string
	for _, p := range a.Propagated {
		out = append(out, p.TestID+": "+PropagatedOutcome(p))
	}
	if a.PropagateError != "" {
		out = append(out, "carrying the heal stopped, the other tests are left as they are: "+a.PropagateError)
	}
	return out
}

// PropagatedOutcome is what became of one test a heal was carried to, in words.
func PropagatedOutcome(p tend.PropagatedWrite) string {
	switch {
	case !p.Green:
		return "left as it is: " + p.Reason
	case p.Persisted == nil:
		return "green with the healed locator, nothing written"
	case p.Persisted.Outcome == ladder.Repaired && p.Persisted.Applied != nil:
		return fmt.Sprintf("written as version %d (repair %s)", p.Persisted.Applied.Test.Version, p.Persisted.Applied.Repair.ID)
	case p.Persisted.Outcome == ladder.Staged:
		why := p.Persisted.Reason
		if p.Persisted.Staged != nil && p.Persisted.Staged.Proposal.Reason != "" {
			why = p.Persisted.Staged.Proposal.Reason
		}
		return "staged for a person: " + why
	}
	return fmt.Sprintf("%s: %s", p.Persisted.Outcome, p.Persisted.Reason)
}

// OthersUsing names, for each open proposal of a project, the other tests that use a locator its
// fix heals, as an approval would answer them: what a door shows beside each row's Approve (a
// checkbox to carry the fix to them). It reads the project's tests once for the whole queue. A
// proposal whose test moved past its version heals nothing that can be read, and is not named.
func (s *Service) OthersUsing(ctx context.Context, projectID string) (map[string][]ladder.Use, error) {
	open, err := s.d.Store.OpenProposals(ctx, projectID)
	if err != nil || len(open) == 0 {
		return nil, err
	}
	all, err := s.projectTests(ctx, projectID)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]gardener.Test, len(all))
	for _, t := range all {
		byID[t.ID] = t
	}
	out := map[string][]ladder.Use{}
	for _, p := range open {
		t, ok := byID[p.TestID]
		if !ok || t.Version != p.BaseVersion {
			continue
		}
		if changes := ladder.HealedLocators(t.Steps, p.Verdict); len(changes) > 0 {
			if uses := usesBesides(t, changes, all); len(uses) > 0 {
				out[p.ID] = uses
			}
		}
	}
	return out, nil
}

// usersOf names the project's other active tests that use a locator changes heals (ladder.Uses).
func (s *Service) usersOf(ctx context.Context, t gardener.Test, changes []ladder.LocatorChange) ([]ladder.Use, error) {
	all, err := s.projectTests(ctx, t.ProjectID)
	if err != nil {
		return nil, err
	}
	return usesBesides(t, changes, all), nil
}

// projectTests are a project's tests; a test that does not decode is skipped, with a warning:
// it cannot be repaired either.
func (s *Service) projectTests(ctx context.Context, projectID string) ([]gardener.Test, error) {
	all, err := s.d.Store.Tests(ctx, projectID)
	corrupt, err := gardener.SplitCorrupt(err)
	if err != nil {
		return nil, err
	}
	if corrupt != nil {
		s.d.Log.Warn("tests skipped", "project", projectID, "error", corrupt.Error())
	}
	return all, nil
}

// usesBesides names the active tests of all other than t that use a locator changes heals.
func usesBesides(t gardener.Test, changes []ladder.LocatorChange, all []gardener.Test) []ladder.Use {
	var others []gardener.Test
	for _, o := range all {
		if o.ID != t.ID && o.Status == gardener.StatusActive {
			others = append(others, o)
		}
	}
	return ladder.Uses(changes, others)
}
