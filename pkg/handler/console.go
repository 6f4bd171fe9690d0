package handler

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// consoleRoutes are the console's patterns, which the router serves beside the API's.
func consoleRoutes() []string {
	var out []string
	for _, rt := range console.Routes() {
		out = append(out, rt.Pattern)
	}
	return out
}

// mountConsole serves the review console's pages on the API's router. A page is authorized
// per project exactly as an API route is (projectOf, from the stored object its path names);
// without a sign-in configured the console is not mounted and its routes answer 404.
func (a *API) mountConsole() error {
	if a.ConsoleAuth == nil {
		for _, p := range consoleRoutes() {
			a.mux.Handle(p, http.NotFoundHandler())
		}
		return nil
	}
	c, err := console.New(console.Deps{Store: a.Store, Actions: consoleActions{a}, Auth: a.ConsoleAuth, Now: a.Now, Log: a.log()})
	if err != nil {
		return err
	}
	authorize := func(r *http.Request, who console.Identity) (string, error) {
		project, err := a.projectOf(r.Context(), call{caller: Caller{ID: who.ID, Projects: who.Projects}, r: r})
		if err != nil {
			// The page answers with the status the API gives the same refusal.
			return "", &console.ActionError{Status: statusOf(err), Message: err.Error()}
		}
		return project, nil
	}
	for _, rt := range console.Routes() {
		a.mux.Handle(rt.Pattern, c.Handler(rt, authorize))
	}
	return nil
}

// consoleActions are the API's own operations as the console asks for them: each builds the
// request the API route would get and serves it in process, so a page and an API call are
// validated, authorized and answered by the same code.
type consoleActions struct{ a *API }

// serve runs route on a request built in process, as the router would after authorizing it.
func (x consoleActions) serve(ctx context.Context, by console.Identity, route func(*API, context.Context, call) (any, int), method, target string, path map[string]string, body any, header http.Header) (any, int) {
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	r := httptest.NewRequestWithContext(ctx, method, target, bytes.NewReader(b))
	for k, v := range path {
		r.SetPathValue(k, v)
	}
	for k, vs := range header {
		r.Header[k] = vs
	}
	c := call{caller: Caller{ID: by.ID, Projects: by.Projects}, r: r, header: http.Header{}}
	project, err := x.a.projectOf(ctx, c)
	if err != nil {
		return fail(err)
	}
	c.project = project
	return route(x.a, ctx, c)
}

// failure turns an API error answer into the console's error.
func failure(v any, status int) error {
	if e, ok := v.(apiError); ok {
		return &console.ActionError{Status: status, Message: e.Error}
	}
	return &console.ActionError{Status: status, Message: http.StatusText(status)}
}

func (x consoleActions) UpdateSettings(ctx context.Context, by console.Identity, projectID string, version int, s console.Settings) (gardener.Project, error) {
	model := s.Model
	body := Settings{AutoRepair: &s.AutoRepair, Radar: &s.Radar, Model: &model}
	v, status := x.serve(ctx, by, (*API).putSettings, http.MethodPut, "/projects/"+projectID+"/settings", map[string]string{"projectId": projectID}, body,
		http.Header{"If-Match": {etag(version)}})
	if p, ok := v.(gardener.Project); ok && status == http.StatusOK {
		return p, nil
	}
	return gardener.Project{}, failure(v, status)
}

func (x consoleActions) StartRepair(ctx context.Context, by console.Identity, runID string, rungs []gardener.Strategy) (string, error) {
	v, status := x.serve(ctx, by, (*API).manualRepair, http.MethodPost, "/runs/"+runID+"/repair", map[string]string{"runId": runID}, manualRequest{Rungs: rungs}, nil)
	if m, ok := v.(map[string]string); ok && status == http.StatusAccepted {
		return m["executionId"], nil
	}
	return "", failure(v, status)
}

func (x consoleActions) ExecutionStatus(ctx context.Context, id string) (string, error) {
	status, _, err := x.a.Starter.Describe(ctx, id)
	return status, err
}

func (x consoleActions) Revert(ctx context.Context, by console.Identity, repairID string) (lifecycle.Reverted, error) {
	v, status := x.serve(ctx, by, (*API).revert, http.MethodPost, "/repairs/"+repairID+"/revert", map[string]string{"repairId": repairID}, revertRequest{Confirm: true}, nil)
	if rv, ok := v.(lifecycle.Reverted); ok && status == http.StatusOK {
		return rv, nil
	}
	return lifecycle.Reverted{}, failure(v, status)
}
