package handler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// creates are the routes that may name an object that does not exist yet: a PUT there creates
// it. The access check cannot read the project of an object that is not stored, so for these
// it takes the project from what the request creates (creatorOf).
var creates = map[string]bool{
	"PUT /projects/{projectId}": true,
	"PUT /tests/{testId}":       true,
}

// ForbiddenError is a request the caller's token does not allow, judged from the token alone
// (so the answer tells nothing about stored objects): 403.
type ForbiddenError struct {
	Reason string
}

func (e *ForbiddenError) Error() string { return e.Reason }

// creatorOf is the project of a request that creates the object its path names, after
// projectOf found no object the caller may act on. A project may be created by a caller whose
// token names it (or "*"): who may create which project is decided where the tokens are issued,
// by the "projects" claim, as for every other route. A test may be created in a project the
// caller may act on; its body names the project. An id that exists but is another project's
// stays a 404, as on every route, so a create never tells whether another project's ids exist.
func (a *API) creatorOf(ctx context.Context, c call) (string, bool, error) {
	switch {
	case c.r.PathValue("projectId") != "":
		id := c.r.PathValue("projectId")
		if !c.caller.may(id) {
			return "", false, &ForbiddenError{Reason: fmt.Sprintf("project %s: the token's projects claim does not name it, so the caller may neither create nor change it", id)}
		}
		return id, true, nil
	case c.r.PathValue("testId") != "":
		id := c.r.PathValue("testId")
		if _, err := a.Store.Test(ctx, id); err == nil {
			return "", false, &gardener.NotFoundError{Entity: "test", ID: id}
		} else if !errors.Is(err, gardener.ErrNotFound) {
			return "", false, err
		}
		body, err := readBody(c.r)
		if err != nil {
			return "", false, &BodyError{Reason: err.Error()}
		}
		c.r.Body = io.NopCloser(strings.NewReader(body))
		t, err := gardener.DecodeTest([]byte(body))
		if err != nil {
			return "", false, &BodyError{Reason: err.Error()}
		}
		if t.ProjectID == "" {
			return "", false, &BodyError{Reason: fmt.Sprintf("test %s does not exist yet: its \"project\" is required to create it", id)}
		}
		if !c.caller.may(t.ProjectID) {
			return "", false, &gardener.NotFoundError{Entity: "project", ID: t.ProjectID}
		}
		if _, err := a.Store.Project(ctx, t.ProjectID); err != nil {
			return "", false, err
		}
		return t.ProjectID, true, nil
	}
	return "", false, fmt.Errorf("route %s %s creates nothing", c.r.Method, c.r.URL.Path)
}

func (a *API) project(ctx context.Context, c call) (any, int) {
	p, err := a.Store.Project(ctx, c.project)
	if err != nil {
		return fail(err)
	}
	c.header.Set("ETag", etag(p.Version))
	return p, http.StatusOK
}

// putProject creates a project (201) or changes one (200). If-Match makes a change conditional
// on the version read; "If-None-Match: *" makes the request a create only (412 when the project
// exists).
func (a *API) putProject(ctx context.Context, c call) (any, int) {
	id := c.project
	want, err := preconditionOf(c, "project")
	if err != nil {
		return fail(err)
	}
	var req gardening.ProjectChange
	if err := decodeRequest(c, "project", &req); err != nil {
		return fail(err)
	}
	createOnly := strings.TrimSpace(c.r.Header.Get("If-None-Match")) == "*"
	p, created, err := a.app.PutProject(ctx, gardening.Person(c.caller.ID), id, req, func(stored *gardener.Project) error {
		switch {
		case stored == nil && want != nil && !want.any:
			return &PreconditionError{Reason: fmt.Sprintf("project %s does not exist, so If-Match %s cannot match", id, want.raw)}
		case stored != nil && createOnly:
			return &PreconditionError{Reason: fmt.Sprintf("project %s exists already (If-None-Match: *)", id)}
		case stored != nil && want != nil && !want.matches(stored.Version):
			return &VersionMismatchError{Entity: "project", ID: id, IfMatch: want.raw, Version: stored.Version}
		}
		return nil
	})
	if err != nil {
		return a.refused(c, err)
	}
	c.header.Set("ETag", etag(p.Version))
	if created {
		return p, http.StatusCreated
	}
	return p, http.StatusOK
}

func (a *API) projectTests(ctx context.Context, c call) (any, int) {
	return answer(a.Store.Tests(ctx, c.project))
}

func (a *API) test(ctx context.Context, c call) (any, int) {
	t, err := a.Store.Test(ctx, c.r.PathValue("testId"))
	if err != nil {
		return fail(err)
	}
	c.header.Set("ETag", etag(t.Version))
	return t, http.StatusOK
}

// PutTest is what a PUT of a test did: created, saved (a new version) or unchanged.
type PutTest struct {
	Outcome workspace.SyncOutcome `json:"outcome"`
	Test    gardener.Test         `json:"test"`
}

// putTest creates a test (201) or replaces it (200): see gardening.SaveTest. The version the
// edit was made against comes from If-Match or the body's "version" (both: they must agree);
// with neither it is version 1, as for every test file that names none (gardening.SaveTest
// decides, for every door alike). If-Match: * with no version in the body is the one way to
// write over whatever version is stored.
func (a *API) putTest(ctx context.Context, c call) (any, int) {
	id := c.r.PathValue("testId")
	body, err := readBody(c.r)
	if err != nil {
		return errBody("test: " + err.Error()), http.StatusBadRequest
	}
	want, err := preconditionOf(c, "test")
	if err != nil {
		return fail(err)
	}
	if err := duplicateKey(body); err != nil {
		return fail(err)
	}
	t, err := gardener.DecodeTest([]byte(body))
	if err != nil {
		return fail(&BodyError{Reason: err.Error()})
	}
	if t.ID != id {
		return errBody(fmt.Sprintf("test: the body's id %q is not the path's %q", t.ID, id)), http.StatusBadRequest
	}
	base := 0 // gardening.SaveTest reads the body's version
	switch {
	case want != nil && want.any && t.Version == 0:
		base = gardening.AnyVersion
	case want != nil && !want.any:
		if len(want.versions) != 1 || t.Version != 0 && t.Version != want.versions[0] {
			return errBody(fmt.Sprintf("test %s: If-Match %s and the body's version %d must name the one version the edit was made on", id, want.raw, t.Version)), http.StatusBadRequest
		}
		if c.created {
			return fail(&PreconditionError{Reason: fmt.Sprintf("test %s does not exist, so If-Match %s cannot match", id, want.raw)})
		}
		base = want.versions[0]
	}
	t.ProjectID = cmp.Or(t.ProjectID, c.project)
	w, err := a.app.SaveTest(ctx, gardening.Person(c.caller.ID), t, base)
	return a.written(c, w, err)
}

// written answers a test write: its ETag and outcome (201 when it created the test), or the
// error with the current ETag when the test moved.
func (a *API) written(c call, w workspace.Synced, err error) (any, int) {
	if err != nil {
		return a.refused(c, err)
	}
	c.header.Set("ETag", etag(w.Test.Version))
	if w.Outcome == workspace.SyncCreated {
		return PutTest{Outcome: w.Outcome, Test: w.Test}, http.StatusCreated
	}
	return PutTest{Outcome: w.Outcome, Test: w.Test}, http.StatusOK
}

// statusRequest moves a test through its review life.
type statusRequest struct {
	Status gardener.TestStatus `json:"status"`
}

func (a *API) putTestStatus(ctx context.Context, c call) (any, int) {
	var s statusRequest
	if err := decodeRequest(c, "test status", &s); err != nil {
		return fail(err)
	}
	return a.setStatus(ctx, c, s.Status)
}

// archiveTest is DELETE of a test: it is archived, not erased (see gardening.SetTestStatus).
func (a *API) archiveTest(ctx context.Context, c call) (any, int) {
	return a.setStatus(ctx, c, gardener.StatusArchived)
}

func (a *API) setStatus(ctx context.Context, c call, status gardener.TestStatus) (any, int) {
	want, err := preconditionOf(c, "test")
	if err != nil {
		return fail(err)
	}
	base := 0
	if want != nil && !want.any {
		if len(want.versions) != 1 {
			return errBody(fmt.Sprintf("test: If-Match %s must name one version", want.raw)), http.StatusBadRequest
		}
		base = want.versions[0]
	}
	w, err := a.app.SetTestStatus(ctx, gardening.Person(c.caller.ID), c.r.PathValue("testId"), status, base)
	return a.written(c, w, err)
}

// testRepairRequest asks for the ladder on a test: on one of its runs, or (no run) on a fresh
// reproduction of its current version.
type testRepairRequest struct {
	RunID   string              `json:"runId"`
	Rungs   []gardener.Strategy `json:"rungs"`
	Propose bool                `json:"propose"`
}

// testManualRepair starts the repair machine on a run of the test a person can see. Without a
// run id it records a run of the test's current version that holds no result, and the ladder
// reproduces the failure itself: a reviewer can ask for a fix of a pending test that no
// platform run delivered.
func (a *API) testManualRepair(ctx context.Context, c call) (any, int) {
	var m testRepairRequest
	if err := decodeOptional(c, "manual repair", &m); err != nil {
		return fail(err)
	}
	return a.startRepair(ctx, c, gardening.RepairRequest{RunID: m.RunID, TestID: c.r.PathValue("testId"), Rungs: m.Rungs, Propose: m.Propose})
}
