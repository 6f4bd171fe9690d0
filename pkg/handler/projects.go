package handler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
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

// ProjectRequest creates or changes a project. A field left out keeps what is stored (on a
// create: the default — the project id as name, the pro plan, modes off, no model).
type ProjectRequest struct {
	Name *string        `json:"name"`
	Plan *gardener.Plan `json:"plan"`
	// AllowedOrigins replaces the origins a replay may navigate to.
	AllowedOrigins *[]string `json:"allowedOrigins"`
	Model          *string   `json:"model"`
	// AutoRepair is the mode: on, failed unattended runs are repaired and written; off, radar
	// sweeps stage proposals for a person.
	AutoRepair  *bool   `json:"autoRepair"`
	Radar       *bool   `json:"radar"`
	SetupTestID *string `json:"setupTestId"`
}

// putProject creates a project (201) or changes one (200). If-Match makes a change conditional
// on the version read; "If-None-Match: *" makes the request a create only (412 when the project
// exists).
func (a *API) putProject(ctx context.Context, c call) (any, int) {
	id := c.project
	body, err := readBody(c.r)
	if err != nil {
		return errBody("project: " + err.Error()), http.StatusBadRequest
	}
	want, err := ifMatch(c.r)
	if err != nil {
		return errBody("project: " + err.Error()), http.StatusBadRequest
	}
	var req ProjectRequest
	if err := decodeBody(body, &req); err != nil {
		return errBody("project: " + err.Error()), http.StatusBadRequest
	}
	if err := a.checkProject(ctx, id, req); err != nil {
		return errBody(fmt.Sprintf("project %s: %s", id, err)), http.StatusBadRequest
	}
	_, err = a.Store.Project(ctx, id)
	if errors.Is(err, gardener.ErrNotFound) {
		if want != nil && !want.any {
			return errBody(fmt.Sprintf("project %s does not exist, so If-Match %s cannot match", id, want.raw)), http.StatusPreconditionFailed
		}
		p := gardener.Project{ID: id, Name: id, Plan: gardener.PlanPro, AllowedOrigins: []string{}}
		req.apply(&p)
		if err := a.Store.PutProject(ctx, p); err != nil {
			return fail(err)
		}
		// PutProject replaces; reading back makes sure a create that raced another is answered
		// with what is stored.
		stored, err := a.Store.Project(ctx, id)
		if err != nil {
			return fail(err)
		}
		c.header.Set("ETag", etag(stored.Version))
		a.log().Info("project created", "project", id, "by", c.caller.ID)
		return stored, http.StatusCreated
	}
	if err != nil {
		return fail(err)
	}
	if strings.TrimSpace(c.r.Header.Get("If-None-Match")) == "*" {
		return errBody(fmt.Sprintf("project %s exists already (If-None-Match: *)", id)), http.StatusPreconditionFailed
	}
	p, err := a.Store.UpdateProject(ctx, id, func(p *gardener.Project) error {
		if want != nil && !want.matches(p.Version) {
			return &VersionMismatchError{Entity: "project", ID: p.ID, IfMatch: want.raw, Version: p.Version}
		}
		req.apply(p)
		return nil
	})
	var moved *VersionMismatchError
	if errors.As(err, &moved) {
		c.header.Set("ETag", etag(moved.Version))
	}
	if err != nil {
		return fail(err)
	}
	c.header.Set("ETag", etag(p.Version))
	a.log().Info("project changed", "project", id, "by", c.caller.ID, "version", p.Version)
	return p, http.StatusOK
}

func (req ProjectRequest) apply(p *gardener.Project) {
	if req.Name != nil {
		p.Name = *req.Name
	}
	if req.Plan != nil {
		p.Plan = *req.Plan
	}
	if req.AllowedOrigins != nil {
		p.AllowedOrigins = origins(*req.AllowedOrigins)
	}
	if req.Model != nil {
		p.Model = *req.Model
	}
	if req.AutoRepair != nil {
		p.AutoRepair = *req.AutoRepair
	}
	if req.Radar != nil {
		p.Radar = *req.Radar
	}
	if req.SetupTestID != nil {
		p.SetupTestID = *req.SetupTestID
	}
}

// checkProject refuses what a project may not hold: an unknown plan, an origin that is not
// scheme://host[:port], a model that does not open, a setup test that is not the project's.
func (a *API) checkProject(ctx context.Context, id string, req ProjectRequest) error {
	if req.Name != nil && strings.TrimSpace(*req.Name) == "" {
		return errors.New(`"name" must not be empty`)
	}
	if req.Plan != nil && *req.Plan != gardener.PlanFree && *req.Plan != gardener.PlanPro {
		return fmt.Errorf(`"plan": %q is not free or pro`, *req.Plan)
	}
	if req.AllowedOrigins != nil {
		for i, o := range *req.AllowedOrigins {
			if err := checkOrigin(o); err != nil {
				return fmt.Errorf(`"allowedOrigins"[%d]: %w`, i, err)
			}
		}
	}
	if req.Model != nil && *req.Model != "" {
		if _, err := a.Models(ctx, *req.Model); err != nil {
			return fmt.Errorf(`"model": %w`, err)
		}
	}
	if req.SetupTestID != nil && *req.SetupTestID != "" {
		t, err := a.Store.Test(ctx, *req.SetupTestID)
		if errors.Is(err, gardener.ErrNotFound) || err == nil && t.ProjectID != id {
			return fmt.Errorf(`"setupTestId": %s is not a test of project %s (push the test first)`, *req.SetupTestID, id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkOrigin accepts an origin as a browser writes one: http or https, a host, an optional
// port, nothing after it.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", o, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil ||
		strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q is not an origin (scheme://host[:port], http or https, nothing after)", o)
	}
	return nil
}

// origins are the origins given, each as scheme://host[:port] in lower case, once each.
func origins(in []string) []string {
	out := []string{}
	for _, o := range in {
		u, _ := url.Parse(o)
		norm := strings.ToLower(u.Scheme + "://" + u.Host)
		if !slices.Contains(out, norm) {
			out = append(out, norm)
		}
	}
	return out
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

// putTest creates a test (201) or replaces it (200). A replace is a person's edit: its steps,
// name and status are written at the next version, so a proposal computed against the old
// version is refused when approved and its row goes stale. The version the edit was made
// against comes from If-Match or the body's "version" (both: they must agree); when given, a
// test that moved since is not overwritten (412 with the current ETag). A replace with the
// stored steps and status writes nothing (outcome unchanged).
func (a *API) putTest(ctx context.Context, c call) (any, int) {
	id := c.r.PathValue("testId")
	body, err := readBody(c.r)
	if err != nil {
		return errBody("test: " + err.Error()), http.StatusBadRequest
	}
	want, err := ifMatch(c.r)
	if err != nil {
		return errBody("test: " + err.Error()), http.StatusBadRequest
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
	base := t.Version
	if want != nil && !want.any {
		if len(want.versions) != 1 || base != 0 && base != want.versions[0] {
			return errBody(fmt.Sprintf("test %s: If-Match %s and the body's version %d must name the one version the edit was made on", id, want.raw, base)), http.StatusBadRequest
		}
		base = want.versions[0]
	}
	if c.created {
		if want != nil && !want.any {
			return errBody(fmt.Sprintf("test %s does not exist, so If-Match %s cannot match", id, want.raw)), http.StatusPreconditionFailed
		}
		t.ProjectID = c.project
		synced, err := (&workspace.Service{Store: a.Store}).SyncTest(ctx, t, nil)
		if err != nil {
			return fail(err)
		}
		c.header.Set("ETag", etag(synced.Test.Version))
		a.log().Info("test created", "test", id, "project", c.project, "by", c.caller.ID)
		return PutTest{Outcome: synced.Outcome, Test: synced.Test}, http.StatusCreated
	}
	if t.ProjectID != "" && t.ProjectID != c.project {
		return errBody(fmt.Sprintf("test %s is of project %s: a test does not move to project %s", id, c.project, t.ProjectID)), http.StatusBadRequest
	}
	t.ProjectID = c.project
	saved, err := (&workspace.Service{Store: a.Store}).ReplaceTest(ctx, t, base)
	return a.written(c, saved, err, "test replaced")
}

// written answers a test write: its ETag and outcome, or the error with the current ETag when
// the test moved.
func (a *API) written(c call, w workspace.Synced, err error, what string) (any, int) {
	var moved *workspace.MovedError
	if errors.As(err, &moved) {
		c.header.Set("ETag", etag(moved.Version))
		return errBody(err.Error()), http.StatusPreconditionFailed
	}
	if err != nil {
		return fail(err)
	}
	c.header.Set("ETag", etag(w.Test.Version))
	a.log().Info(what, "test", w.Test.ID, "project", w.Test.ProjectID, "outcome", w.Outcome, "version", w.Test.Version, "by", c.caller.ID)
	return PutTest{Outcome: w.Outcome, Test: w.Test}, http.StatusOK
}

// statusRequest moves a test through its review life.
type statusRequest struct {
	Status gardener.TestStatus `json:"status"`
}

func (a *API) putTestStatus(ctx context.Context, c call) (any, int) {
	body, err := readBody(c.r)
	if err != nil {
		return errBody("test status: " + err.Error()), http.StatusBadRequest
	}
	var s statusRequest
	if err := decodeBody(body, &s); err != nil {
		return errBody("test status: " + err.Error()), http.StatusBadRequest
	}
	if !slices.Contains([]gardener.TestStatus{gardener.StatusDraft, gardener.StatusPending, gardener.StatusActive, gardener.StatusRejected, gardener.StatusArchived}, s.Status) {
		return errBody(fmt.Sprintf("test status: %q is not one of draft, pending, active, rejected, archived", s.Status)), http.StatusBadRequest
	}
	return a.setStatus(ctx, c, s.Status, "test status changed")
}

// archiveTest is DELETE of a test: it is archived, not erased, because its runs, repairs and
// AI history refer to it and stay readable. An archived test is never run or tended; a PUT of
// its status brings it back.
func (a *API) archiveTest(ctx context.Context, c call) (any, int) {
	return a.setStatus(ctx, c, gardener.StatusArchived, "test archived")
}

func (a *API) setStatus(ctx context.Context, c call, status gardener.TestStatus, what string) (any, int) {
	want, err := ifMatch(c.r)
	if err != nil {
		return errBody("test: " + err.Error()), http.StatusBadRequest
	}
	base := 0
	if want != nil && !want.any {
		if len(want.versions) != 1 {
			return errBody(fmt.Sprintf("test: If-Match %s must name one version", want.raw)), http.StatusBadRequest
		}
		base = want.versions[0]
	}
	t, err := a.Store.Test(ctx, c.r.PathValue("testId"))
	if err != nil {
		return fail(err)
	}
	t.Status = status
	saved, err := (&workspace.Service{Store: a.Store}).ReplaceTest(ctx, t, base)
	return a.written(c, saved, err, what)
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
	if err := optionalBody(c.r, &m); err != nil {
		return errBody("manual repair: " + err.Error()), http.StatusBadRequest
	}
	return a.startRepair(ctx, c, gardening.RepairRequest{RunID: m.RunID, TestID: c.r.PathValue("testId"), Rungs: m.Rungs, Propose: m.Propose})
}
