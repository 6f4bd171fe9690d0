package handler_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

func newAPI(t *testing.T) (*handler.API, handler.Services) {
	t.Helper()
	s := fullServices(t)
	if err := s.Store.PutProject(context.Background(), gardener.Project{ID: "shop", Plan: gardener.PlanPro}); err != nil {
		t.Fatal(err)
	}
	h, err := handler.ApiFunction.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return h.(*handler.API), s
}

// answer is what a caller gets back.
type answer struct {
	status int
	body   string
}

// viaLambda sends a request as API Gateway's payload-v2 event, with claims as its JWT
// authorizer passes them (none: no authorizer context).
func viaLambda(t *testing.T, api *handler.API, method, path, body string, claims map[string]string) answer {
	t.Helper()
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: path, Body: body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path}}}
	if claims != nil {
		ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: claims}}
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	out, err := api.Invoke(context.Background(), payload)
	if err != nil {
		t.Fatal(err)
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatal(err)
	}
	if ct := resp.Headers["Content-Type"]; ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	return answer{resp.StatusCode, resp.Body}
}

// viaHTTP serves the same request on the router directly, with the claims a local stack gives.
func viaHTTP(t *testing.T, api *handler.API, method, path, body string, claims map[string]string) answer {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if claims != nil {
		r = handler.WithClaims(r, claims)
	}
	w := httptest.NewRecorder()
	api.ServeHTTP(w, r)
	return answer{w.Code, w.Body.String()}
}

// TestLambdaAndHTTPAnswerAlike: a request answers the same through API Gateway's adapter as
// served directly — the caller read from the claims, the access check, the status and the body.
func TestLambdaAndHTTPAnswerAlike(t *testing.T) {
	// Each path has a store of its own, so a write through one (a settings version) does not
	// show in the other's answer.
	viaGateway, _ := newAPI(t)
	served, _ := newAPI(t)
	ann := map[string]string{"sub": "u-1", "email": "ann@example.com", "projects": "shop"}
	eve := map[string]string{"sub": "u-2", "email": "eve@example.com", "projects": "other"}
	subOnly := map[string]string{"sub": "u-3", "projects": "other, shop"}
	cases := []struct {
		method, path, body string
		claims             map[string]string
		status             int
		contains           string
	}{
		{"GET", "/projects/shop/settings", "", nil, http.StatusUnauthorized, "no verified caller"},
		{"GET", "/projects/shop/settings", "", ann, http.StatusOK, `"id":"shop"`},
		{"GET", "/projects/shop/settings", "", subOnly, http.StatusOK, `"id":"shop"`},
		{"GET", "/projects/shop/settings", "", eve, http.StatusNotFound, `project \"shop\" not found`},
		{"PUT", "/projects/shop/settings", `{"radar":true}`, ann, http.StatusOK, `"radar":true`},
		{"PUT", "/projects/shop/settings", `{"color":"red"}`, ann, http.StatusBadRequest, "settings:"},
		{"GET", "/projects/shop/repairs?since=yesterday", "", ann, http.StatusBadRequest, `since \"yesterday\" is not an RFC 3339 time`},
		{"POST", "/proposals/none/approve", "", ann, http.StatusNotFound, "none"},
		{"GET", "/executions/x-1", "", ann, http.StatusNotFound, "x-1"},
		{"GET", "/projects/shop/nothing", "", ann, http.StatusNotFound, "no route GET /projects/shop/nothing"},
		{"GET", "/proposals/none/approve", "", ann, http.StatusNotFound, "no route GET /proposals/none/approve"},
	}
	for _, c := range cases {
		lambda := viaLambda(t, viaGateway, c.method, c.path, c.body, c.claims)
		direct := viaHTTP(t, served, c.method, c.path, c.body, c.claims)
		if lambda != direct {
			t.Errorf("%s %s: Lambda answers %+v, the router directly %+v", c.method, c.path, lambda, direct)
		}
		if direct.status != c.status || !strings.Contains(direct.body, c.contains) {
			t.Errorf("%s %s as %v: %d %s, want %d with %q", c.method, c.path, c.claims, direct.status, direct.body, c.status, c.contains)
		}
	}
}

// TestRoutesAreServed: every pattern the API reports is a route its router serves.
func TestRoutesAreServed(t *testing.T) {
	api, _ := newAPI(t)
	if len(handler.Routes()) == 0 {
		t.Fatal("no routes")
	}
	for _, p := range handler.Routes() {
		method, path, _ := strings.Cut(p, " ")
		for _, name := range []string{"{projectId}", "{proposalId}", "{testId}", "{repairId}", "{runId}", "{executionId}"} {
			path = strings.ReplaceAll(path, name, "x")
		}
		if !api.Handles(httptest.NewRequest(method, path, nil)) {
			t.Errorf("%s is reported but not served", p)
		}
	}
}

// TestRevertNeedsARepair: a confirmed revert of a repair that does not exist is 404 and announces
// nothing.
func TestRevertNeedsARepair(t *testing.T) {
	api, s := newAPI(t)
	got := viaHTTP(t, api, "POST", "/repairs/none/revert", `{"confirm":true}`, map[string]string{"sub": "ann", "projects": "*"})
	if got.status != http.StatusNotFound {
		t.Errorf("revert of no repair: %+v", got)
	}
	if n := s.Notifier.(*notes); len(n.subjects) != 0 {
		t.Errorf("a revert that did not happen was announced: %v", n.subjects)
	}
}
