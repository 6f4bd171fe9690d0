package handler

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// StrategyChat names a staged chat edit in the queue and the repair record.
const StrategyChat = gardening.StrategyChat

// Edited is what POST /tests/{testId}/edits answers: the application layer's account of the
// edit, as it is.
type Edited = gardening.Edited

// editRequest is a body of POST /tests/{testId}/edits: operations on the steps of the version
// the edit was made on (If-Match, or the body's version).
type editRequest struct {
	Source  string        `json:"source"`
	Ops     []gardener.Op `json:"ops"`
	Version int           `json:"version"`
}

// testEdits applies a builder edit, or screens and stages a chat edit (gardening.Edit). A test
// that moved from the version the edit was made on is 412 with the current ETag.
func (a *API) testEdits(ctx context.Context, c call) (any, int) {
	var e editRequest
	if err := decodeRequest(c, "edit", &e); err != nil {
		return fail(err)
	}
	base, err := editBase(c.r, e.Version)
	if err != nil {
		return errBody("edit: " + err.Error()), http.StatusBadRequest
	}
	edited, err := a.app.Edit(ctx, gardening.Person(c.caller.ID), c.r.PathValue("testId"), gardening.EditRequest{Source: e.Source, Version: base, Ops: e.Ops})
	if err != nil {
		return a.refused(c, err)
	}
	if edited.Test != nil {
		c.header.Set("ETag", etag(edited.Test.Version))
	}
	return edited, http.StatusOK
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
