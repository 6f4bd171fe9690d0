package gardening

import (
	"context"
	"fmt"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Edit sources.
const (
	// EditBuilder is a person's edit in the step editor: applied as they made it.
	EditBuilder = "builder"
	// EditChat is an edit a chat assistant made on a person's request: a machine edit, screened
	// by the assertion floor and staged for the person like a proposal.
	EditChat = "chat"
)

// StrategyChat names a staged chat edit in the queue and the repair record.
const StrategyChat = gardener.StrategyChat

// chatUnproven is why a staged chat edit is UNVERIFIED: it reached the queue without a re-run.
const chatUnproven = "a chat edit is staged without a re-run of the test; run the test with it before approving"

// EditRequest is an edit of a test: operations on the steps of Version, the version it was made
// on, from a builder or a chat.
type EditRequest struct {
	Source  string
	Version int
	Ops     []gardener.Op
}

// Edited is what an edit did: a builder edit applied (the test at its next version); a chat
// edit's allowed operations staged as a proposal, and its protected changes withheld, each with
// the pointer to the step editor.
type Edited struct {
	Outcome  string             `json:"outcome"` // applied | staged | withheld | declined
	Test     *gardener.Test     `json:"test,omitempty"`
	Proposal *gardener.Proposal `json:"proposal,omitempty"`
	Withheld []Withheld         `json:"withheld"`
	Message  string             `json:"message"`
}

// Withheld is a change of a chat edit the assertion floor refused, and where a person can make
// it instead.
type Withheld struct {
	Step    string            `json:"step"`
	Kind    gardener.StepKind `json:"kind,omitempty"`
	Reason  string            `json:"reason"`
	Pointer string            `json:"pointer"`
}

// EditBaseError is an edit made on a version the test is no longer at: its operations index
// that version's steps, so it is not made on another.
type EditBaseError struct {
	TestID        string
	Base, Version int
}

func (e *EditBaseError) Error() string {
	return fmt.Sprintf("edit: test %s is at version %d, not %d the edit was made on; its operations index that version's steps", e.TestID, e.Version, e.Base)
}

// openProposalError is a chat edit of a test whose proposal is open: staging on an open row of
// the same version only restates it, so the chat edit would vanish into the other proposal.
type openProposalError struct{ testID, proposalID string }

func (e *openProposalError) Error() string {
	return fmt.Sprintf("edit of test %s: proposal %s is open for it; approve or dismiss it before a chat edit is staged", e.testID, e.proposalID)
}

func (e *openProposalError) Is(target error) bool { return target == gardener.ErrConflict }

// Edit applies a builder edit, or screens and stages a chat edit, for who. Both are made on a
// version: a test that moved since is not edited (*EditBaseError), because the operations
// index the steps of the version they were made on.
//
// A chat edit is not applied, even when nothing in it is protected: an edit replays nothing, so
// it cannot prove the edit green, and nothing a machine proposes is written without a green
// proof or a person. Staged, it is the test's open proposal, marked UNVERIFIED: a person sees it
// in the queue beside its withheld changes and approves it, and an agent's approval (which wants
// a proof) refuses it. The next ladder on the test replays it first.
func (s *Service) Edit(ctx context.Context, who Who, testID string, req EditRequest) (Edited, error) {
	if req.Source != EditBuilder && req.Source != EditChat {
		return Edited{}, &BadRequestError{Reason: fmt.Sprintf("edit: source %q is not %q or %q", req.Source, EditBuilder, EditChat)}
	}
	if len(req.Ops) == 0 {
		return Edited{}, &BadRequestError{Reason: "edit: ops is empty: give at least one operation"}
	}
	t, err := s.d.Store.Test(ctx, testID)
	if err != nil {
		return Edited{}, err
	}
	if t.Version != req.Version {
		return Edited{}, &EditBaseError{TestID: t.ID, Base: req.Version, Version: t.Version}
	}
	if req.Source == EditBuilder {
		return s.builderEdit(ctx, who, t, req.Ops)
	}
	return s.chatEdit(ctx, who, t, req.Ops)
}

// builderEdit writes a person's edit at the next version, conditional on the version it was
// made on; operations that do not apply are refused naming the first.
func (s *Service) builderEdit(ctx context.Context, who Who, t gardener.Test, ops []gardener.Op) (Edited, error) {
	steps, err := gardener.ApplySteps(t.Steps, ops)
	if err != nil {
		return Edited{}, &BadRequestError{Reason: fmt.Sprintf("edit of test %s: %v", t.ID, err)}
	}
	for i, st := range steps {
		if err := gardener.ValidateStep(st); err != nil {
			return Edited{}, &BadRequestError{Reason: fmt.Sprintf("edit of test %s: step %d: %v", t.ID, i+1, err)}
		}
	}
	edited := t
	edited.Steps = steps
	w, err := s.replace(ctx, who, edited, t.Version, "test edited in the builder")
	if err != nil {
		return Edited{}, err
	}
	return Edited{Outcome: "applied", Test: &w.Test, Withheld: []Withheld{}, Message: fmt.Sprintf("test %s is now version %d", w.Test.ID, w.Test.Version)}, nil
}

// chatEdit screens a chat edit with the assertion floor, withholds what it refuses with the
// pointer to the step editor, and stages the rest as the test's open proposal.
func (s *Service) chatEdit(ctx context.Context, who Who, t gardener.Test, ops []gardener.Op) (Edited, error) {
	sc := gardener.Screen(t.Steps, ops)
	out := Edited{Outcome: "withheld", Withheld: []Withheld{}}
	for _, r := range sc.Refusals {
		out.Withheld = append(out.Withheld, Withheld{Step: r.Path, Kind: r.Kind, Reason: r.Reason, Pointer: stepEditorPointer(r.Path)})
	}
	if len(sc.Allowed) == 0 {
		out.Message = withheldMessage(out.Withheld)
		s.d.Log.Info("chat edit withheld", "test", t.ID, "withheld", len(out.Withheld), "by", who.ID)
		return out, nil
	}
	open, err := s.d.Store.TestProposals(ctx, t.ID)
	if err != nil {
		return Edited{}, err
	}
	for _, p := range open {
		if p.Status == gardener.ProposalProposed {
			return Edited{}, &openProposalError{testID: t.ID, proposalID: p.ID}
		}
	}
	after, err := gardener.ApplySteps(t.Steps, sc.Allowed)
	if err != nil {
		return Edited{}, &BadRequestError{Reason: fmt.Sprintf("edit of test %s: %v", t.ID, err)}
	}
	p := gardener.Proposal{
		ID: gardener.NewChatProposalID(), ProjectID: t.ProjectID, TestID: t.ID, BaseVersion: t.Version,
		Verdict: gardener.Verdict{
			Strategy: StrategyChat, Ops: sc.Allowed, Changes: gardener.Classify(t.Steps, after),
			Notes:      []gardener.Note{{Kind: gardener.NoteUnverified, Text: "UNVERIFIED: " + chatUnproven}},
			Unverified: chatUnproven, IntentConfirmed: true,
		},
		Reason:   "a chat edit asked by " + who.ID,
		Withheld: sc.Refusals,
	}
	staged, err := s.life.Stage(ctx, p)
	if err != nil {
		return Edited{}, err
	}
	if staged.Outcome == gardener.StagedDeclined {
		out.Outcome = "declined"
		out.Message = "a person dismissed this same edit of this version before: it is not staged again. " + withheldMessage(out.Withheld)
		return out, nil
	}
	out.Outcome, out.Proposal = "staged", &staged.Proposal
	out.Message = fmt.Sprintf("staged as proposal %s for a person to approve in the queue (not yet proven green). %s", staged.Proposal.ID, withheldMessage(out.Withheld))
	s.d.Log.Info("chat edit staged", "test", t.ID, "proposal", staged.Proposal.ID, "withheld", len(out.Withheld), "by", who.ID)
	return out, nil
}

// stepEditorPointer is the answer to a chat request that would change a check: the change is
// withheld, and a person can make it in the step editor.
func stepEditorPointer(step string) string {
	return fmt.Sprintf("This change is withheld: a chat edit never removes or changes a check. Open step %s in the step editor, where a person can make it.", step)
}

func withheldMessage(w []Withheld) string {
	if len(w) == 0 {
		return ""
	}
	parts := make([]string, len(w))
	for i, x := range w {
		parts[i] = fmt.Sprintf("step %s: %s", x.Step, x.Reason)
	}
	return fmt.Sprintf("Withheld (%s). A chat edit never removes or changes a check: open the step editor, where a person can make it.", strings.Join(parts, "; "))
}
