package handler

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// CrossProjectError is a stored object that names an object of another project: a run, a
// proposal or a repair whose test is another project's. Such a record is never acted on: the
// project the caller was checked against would not be the project that gets changed. Only a
// malformed or forged event writes one, so the API answers 400.
type CrossProjectError struct {
	Entity, ID, ProjectID string
	TestID, TestProject   string
}

func (e *CrossProjectError) Error() string {
	return fmt.Sprintf("%s %s is of project %s but names test %s of project %s: refused", e.Entity, e.ID, e.ProjectID, e.TestID, e.TestProject)
}

// owner is the object a route's path names and the project it is stored under.
type owner struct {
	entity, id, project string
	// testID is the test the object acts on, when that is not the object itself; it must be of
	// the same project.
	testID string
}

// projectOf finds the project of every object a route reads or changes, from the stored
// objects, and checks the caller may act on it. An object the caller may not touch answers
// exactly as one that does not exist (a *gardener.NotFoundError of the same entity and id), so
// the answer does not tell whether another project's ids exist. A run, proposal or repair
// whose test is another project's is a *CrossProjectError.
func (a *API) projectOf(ctx context.Context, c call) (string, error) {
	o, err := a.ownerOf(ctx, c.r)
	if errors.Is(err, gardener.ErrNotFound) {
		return "", &gardener.NotFoundError{Entity: o.entity, ID: o.id}
	}
	if err != nil {
		return "", err
	}
	if !c.caller.may(o.project) {
		a.log().Warn("api: refused", "caller", c.caller.ID, "entity", o.entity, "id", o.id, "project", o.project)
		return "", &gardener.NotFoundError{Entity: o.entity, ID: o.id}
	}
	if o.testID != "" {
		t, err := a.Store.Test(ctx, o.testID)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", o.entity, o.id, err)
		}
		if t.ProjectID != o.project {
			return "", &CrossProjectError{Entity: o.entity, ID: o.id, ProjectID: o.project, TestID: t.ID, TestProject: t.ProjectID}
		}
	}
	return o.project, nil
}

// ownerOf reads the object a route's path names. Its entity and id are set even when reading
// it fails.
func (a *API) ownerOf(ctx context.Context, r *http.Request) (owner, error) {
	switch {
	case r.PathValue("projectId") != "":
		id := r.PathValue("projectId")
		_, err := a.Store.Project(ctx, id)
		return owner{"project", id, id, ""}, err
	case r.PathValue("proposalId") != "":
		id := r.PathValue("proposalId")
		x, err := a.Store.Proposal(ctx, id)
		return owner{"proposal", id, x.ProjectID, x.TestID}, err
	case r.PathValue("testId") != "":
		id := r.PathValue("testId")
		x, err := a.Store.Test(ctx, id)
		return owner{"test", id, x.ProjectID, ""}, err
	case r.PathValue("repairId") != "":
		id := r.PathValue("repairId")
		x, err := a.Store.Repair(ctx, id)
		return owner{"repair", id, x.ProjectID, x.TestID}, err
	case r.PathValue("runId") != "":
		id := r.PathValue("runId")
		x, err := a.Store.Run(ctx, id)
		return owner{"run", id, x.ProjectID, x.TestID}, err
	case r.PathValue("executionId") != "":
		id := r.PathValue("executionId")
		x, err := a.Store.Execution(ctx, id)
		return owner{"execution", id, x.ProjectID, ""}, err
	}
	return owner{}, fmt.Errorf("route %s %s names no object", r.Method, r.URL.Path)
}
