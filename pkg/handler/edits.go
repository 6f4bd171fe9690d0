package handler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/workspace"
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
const StrategyChat gardener.Strategy = "chat-edit"

// chatUnproven is why a staged chat edit is UNVERIFIED: it reached the queue without a re-run.
const chatUnproven = "a chat edit is staged without a re-run of the test; run the test with it before approving"

// editRequest is a body of POST /tests/{testId}/edits: operations on the steps of the version
// the edit was made on (If-Match, or the body's version).
type editRequest struct {
	Source  string        `json:"source"`
	Ops     []gardener.Op `json:"ops"`
	Version int           `json:"version"`
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

// stepEditorPointer is the answer to a chat request that would change a check: the change is
// withheld, and a person can make it in the step editor.
func stepEditorPointer(step string) string {
	return fmt.Sprintf("This change is withheld: a chat edit never removes or changes a check. Open step %s in the step editor, where a person can make it.", step)
}

// testEdits applies a builder edit, or screens and stages a chat edit. Both are made on a
// version: a test that moved since is not edited (412 with the current ETag), because the
// operations index the steps of the version they were made on.
//
// A chat edit is not applied, even when nothing in it is protected: the API replays nothing, so
// it cannot prove the edit green, and nothing a machine proposes is written without a green
// proof or a person. Staged, it is the test's open proposal, marked UNVERIFIED: a person sees it
// in the queue beside its withheld changes and approves it, and apply_repair (which wants a
// proof) refuses it. The next ladder on the test replays it first.
func (a *API) testEdits(ctx context.Context, c call) (any, int) {
	body, err := readBody(c.r)
	if err != nil {
		return errBody("edit: " + err.Error()), http.StatusBadRequest
	}
	var e editRequest
	if err := decodeBody(body, &e); err != nil {
		return errBody("edit: " + err.Error()), http.StatusBadRequest
	}
	if e.Source != EditBuilder && e.Source != EditChat {
		return errBody(fmt.Sprintf("edit: source %q is not %q or %q", e.Source, EditBuilder, EditChat)), http.StatusBadRequest
	}
	if len(e.Ops) == 0 {
		return errBody("edit: ops is empty: give at least one operation"), http.StatusBadRequest
	}
	base, err := editBase(c.r, e.Version)
	if err != nil {
		return errBody("edit: " + err.Error()), http.StatusBadRequest
	}
	t, err := a.Store.Test(ctx, c.r.PathValue("testId"))
	if err != nil {
		return fail(err)
	}
	if t.Version != base {
		c.header.Set("ETag", etag(t.Version))
		return errBody(fmt.Sprintf("edit: test %s is at version %d, not %d the edit was made on; its operations index that version's steps", t.ID, t.Version, base)), http.StatusPreconditionFailed
	}
	if e.Source == EditBuilder {
		return a.builderEdit(ctx, c, t, e.Ops)
	}
	return a.chatEdit(ctx, c, t, e.Ops)
}

// editBase is the version an edit was made on: If-Match or the body's version, which must agree.
func editBase(r *http.Request, body int) (int, error) {
	want, err := ifMatch(r)
	if err != nil {
		return 0, err
	}
	if want == nil || want.any {
		if body <= 0 {
			return 0, errors.New(`give the version the edit was made on (If-Match: "<version>" or the body's "version"): its operations index that version's steps`)
		}
		return body, nil
	}
	if len(want.versions) != 1 || body != 0 && body != want.versions[0] {
		return 0, fmt.Errorf("If-Match %s and the body's version %d must name the one version the edit was made on", want.raw, body)
	}
	return want.versions[0], nil
}

// builderEdit writes a person's edit at the next version, conditional on the version it was
// made on; operations that do not apply are refused with 400 naming the first.
func (a *API) builderEdit(ctx context.Context, c call, t gardener.Test, ops []gardener.Op) (any, int) {
	steps, err := gardener.ApplySteps(t.Steps, ops)
	if err != nil {
		return errBody(fmt.Sprintf("edit of test %s: %v", t.ID, err)), http.StatusBadRequest
	}
	for i, s := range steps {
		if err := gardener.ValidateStep(s); err != nil {
			return errBody(fmt.Sprintf("edit of test %s: step %d: %v", t.ID, i+1, err)), http.StatusBadRequest
		}
	}
	edited := t
	edited.Steps = steps
	w, err := (&workspace.Service{Store: a.Store}).ReplaceTest(ctx, edited, t.Version)
	body, status := a.written(c, w, err, "test edited in the builder")
	if status != http.StatusOK {
		return body, status
	}
	return Edited{Outcome: "applied", Test: &w.Test, Withheld: []Withheld{}, Message: fmt.Sprintf("test %s is now version %d", w.Test.ID, w.Test.Version)}, http.StatusOK
}

// chatEdit screens a chat edit with the assertion floor, withholds what it refuses with the
// pointer to the step editor, and stages the rest as the test's open proposal.
func (a *API) chatEdit(ctx context.Context, c call, t gardener.Test, ops []gardener.Op) (any, int) {
	sc := gardener.Screen(t.Steps, ops)
	out := Edited{Outcome: "withheld", Withheld: []Withheld{}}
	for _, r := range sc.Refusals {
		out.Withheld = append(out.Withheld, Withheld{Step: r.Path, Kind: r.Kind, Reason: r.Reason, Pointer: stepEditorPointer(r.Path)})
	}
	if len(sc.Allowed) == 0 {
		out.Message = withheldMessage(out.Withheld)
		a.log().Info("chat edit withheld", "test", t.ID, "withheld", len(out.Withheld), "by", c.caller.ID)
		return out, http.StatusOK
	}
	open, err := a.Store.TestProposals(ctx, t.ID)
	if err != nil {
		return fail(err)
	}
	for _, p := range open {
		if p.Status == gardener.ProposalProposed {
			// Staging on an open row of the same version only restates it: the chat edit would
			// vanish into the other proposal.
			return errBody(fmt.Sprintf("edit of test %s: proposal %s is open for it; approve or dismiss it before a chat edit is staged", t.ID, p.ID)), http.StatusConflict
		}
	}
	after, err := gardener.ApplySteps(t.Steps, sc.Allowed)
	if err != nil {
		return errBody(fmt.Sprintf("edit of test %s: %v", t.ID, err)), http.StatusBadRequest
	}
	p := gardener.Proposal{
		ID: gardener.NewChatProposalID(), ProjectID: t.ProjectID, TestID: t.ID, BaseVersion: t.Version,
		Verdict: gardener.Verdict{
			Strategy: StrategyChat, Ops: sc.Allowed, Changes: gardener.Classify(t.Steps, after),
			Notes:      []gardener.Note{{Kind: gardener.NoteUnverified, Text: "UNVERIFIED: " + chatUnproven}},
			Unverified: chatUnproven, IntentConfirmed: true,
		},
		Reason: "a chat edit asked by " + c.caller.ID,
	}
	staged, err := a.life().Stage(ctx, p)
	var refused *lifecycle.RefusedError
	if errors.As(err, &refused) {
		return errBody(err.Error()), http.StatusBadRequest
	}
	if err != nil {
		return fail(err)
	}
	if staged.Outcome == gardener.StagedDeclined {
		out.Outcome = "declined"
		out.Message = "a person dismissed this same edit of this version before: it is not staged again. " + withheldMessage(out.Withheld)
		return out, http.StatusOK
	}
	out.Outcome, out.Proposal = "staged", &staged.Proposal
	out.Message = fmt.Sprintf("staged as proposal %s for a person to approve in the queue (not yet proven green). %s", staged.Proposal.ID, withheldMessage(out.Withheld))
	a.log().Info("chat edit staged", "test", t.ID, "proposal", staged.Proposal.ID, "withheld", len(out.Withheld), "by", c.caller.ID)
	return out, http.StatusOK
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
