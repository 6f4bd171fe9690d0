package handler_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

// as serves a request with claims and headers and returns status, body and ETag.
func as(t *testing.T, api *handler.API, claims map[string]string, method, path, body string, header map[string]string) (int, string, string) {
	t.Helper()
	r := handler.WithClaims(newRequest(method, path, body), claims)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := recorder()
	api.ServeHTTP(w, r)
	return w.Code, w.Body.String(), w.Header().Get("ETag")
}

const homeTest = `{"id":"home","project":"acme","name":"home page","steps":[
  {"kind":"goto","url":"/"},
  {"kind":"click","locator":"#go"},
  {"kind":"assert","assert":"url","condition":"contains","expected":"/done"}]}`

// TestCreateProjectByClaim: a caller whose token names a project (or "*") creates it with its
// origins, model, plan and modes, and changes it with optimistic concurrency; a caller whose
// token does not name it is refused from the token alone, whether it exists or not.
func TestCreateProjectByClaim(t *testing.T) {
	api, _ := newAPI(t)
	ann := map[string]string{"sub": "ann", "projects": "acme"}
	code, body, tag := as(t, api, ann, "PUT", "/projects/acme", `{"name":"Acme","allowedOrigins":["https://Shop.Acme.test","https://shop.acme.test/"],"model":"builtin","autoRepair":false,"radar":true,"plan":"pro"}`, nil)
	if code != http.StatusCreated || tag != `"0"` {
		t.Fatalf("create: %d %s ETag %s", code, body, tag)
	}
	var p gardener.Project
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	if p.Name != "Acme" || !p.Radar || p.AutoRepair || p.Model != "builtin" || len(p.AllowedOrigins) != 1 || p.AllowedOrigins[0] != "https://shop.acme.test" {
		t.Errorf("created %+v", p)
	}
	if code, body, _ := as(t, api, ann, "PUT", "/projects/acme", `{}`, map[string]string{"If-None-Match": "*"}); code != http.StatusPreconditionFailed {
		t.Errorf("create-only of an existing project: %d %s", code, body)
	}
	code, body, tag = as(t, api, ann, "PUT", "/projects/acme", `{"autoRepair":true}`, map[string]string{"If-Match": `"0"`})
	if code != http.StatusOK || tag != `"1"` || !strings.Contains(body, `"autoRepair":true`) || !strings.Contains(body, `"radar":true`) {
		t.Errorf("update: %d %s ETag %s", code, body, tag)
	}
	if code, body, tag := as(t, api, ann, "PUT", "/projects/acme", `{"radar":false}`, map[string]string{"If-Match": `"0"`}); code != http.StatusPreconditionFailed || tag != `"1"` {
		t.Errorf("update on a moved version: %d %s ETag %s", code, body, tag)
	}
	if code, body, tag := as(t, api, ann, "GET", "/projects/acme", "", nil); code != http.StatusOK || tag != `"1"` || !strings.Contains(body, `"radar":true`) {
		t.Errorf("GET: %d %s ETag %s", code, body, tag)
	}
	eve := map[string]string{"sub": "eve", "projects": "other"}
	for _, id := range []string{"acme", "brand-new"} {
		code, body, _ := as(t, api, eve, "PUT", "/projects/"+id, `{"radar":true}`, nil)
		if code != http.StatusForbidden || !strings.Contains(body, "projects claim does not name it") {
			t.Errorf("PUT /projects/%s by a caller whose token does not name it: %d %s", id, code, body)
		}
	}
	bad := map[string]string{
		`{"plan":"gold"}`:                      `\"plan\": \"gold\" is not free or pro`,
		`{"allowedOrigins":["ftp://x"]}`:       `\"allowedOrigins\"[0]`,
		`{"allowedOrigins":["https://x/app"]}`: "is not an origin",
		`{"model":"nonsense:x"}`:               `\"model\": model`,
		`{"setupTestId":"nope"}`:               "is not a test of project acme",
		`{"name":""}`:                          `\"name\" must not be empty`,
		`{"colour":"red"}`:                     "unknown field",
	}
	for req, want := range bad {
		if code, body, _ := as(t, api, ann, "PUT", "/projects/acme", req, nil); code != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Errorf("PUT %s: %d %s, want 400 with %q", req, code, body, want)
		}
	}
}

// TestPutTestIsAPersonsEdit: a PUT creates a test in a project the caller may act on; a replace
// writes the next version and an open proposal computed against the old one is refused when
// approved and goes stale; a replace against a version that moved writes nothing (412 with the
// current ETag); the same steps again write nothing.
func TestPutTestIsAPersonsEdit(t *testing.T) {
	api, s := newAPI(t)
	ctx := context.Background()
	if err := s.Store.PutProject(ctx, gardener.Project{ID: "acme", Plan: gardener.PlanPro, Model: "builtin"}); err != nil {
		t.Fatal(err)
	}
	ann := map[string]string{"sub": "ann", "projects": "acme"}
	code, body, tag := as(t, api, ann, "PUT", "/tests/home", homeTest, nil)
	if code != http.StatusCreated || tag != `"1"` || !strings.Contains(body, `"outcome":"created"`) {
		t.Fatalf("create: %d %s ETag %s", code, body, tag)
	}
	if code, body, _ := as(t, api, ann, "PUT", "/tests/home", homeTest, nil); code != http.StatusOK || !strings.Contains(body, `"outcome":"unchanged"`) {
		t.Errorf("the same test again: %d %s", code, body)
	}
	at := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	fix := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator("#go-now")}
	if _, err := s.Store.StageProposal(ctx, gardener.Proposal{ID: "p-home", ProjectID: "acme", TestID: "home", BaseVersion: 1, Status: gardener.ProposalProposed, StagedAt: at, UpdatedAt: at,
		Verdict: gardener.Verdict{Strategy: gardener.StrategySuggestFix, Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &fix}}}}); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(homeTest, `"#go"`, `"#start"`, 1)
	code, body, tag = as(t, api, ann, "PUT", "/tests/home", edited, map[string]string{"If-Match": `"1"`})
	if code != http.StatusOK || tag != `"2"` || !strings.Contains(body, `"outcome":"saved"`) || !strings.Contains(body, `#start`) {
		t.Fatalf("replace: %d %s ETag %s", code, body, tag)
	}
	if code, body, _ := as(t, api, ann, "POST", "/proposals/p-home/approve", "", nil); code != http.StatusConflict {
		t.Errorf("approving a proposal of the replaced version: %d %s", code, body)
	}
	if p, err := s.Store.Proposal(ctx, "p-home"); err != nil || p.Status != gardener.ProposalStale {
		t.Errorf("the proposal after the edit and the refused approval: %+v %v", p.Status, err)
	}
	again := strings.Replace(homeTest, `"#go"`, `"#begin"`, 1)
	code, body, tag = as(t, api, ann, "PUT", "/tests/home", again, map[string]string{"If-Match": `"1"`})
	if code != http.StatusPreconditionFailed || tag != `"2"` || !strings.Contains(body, "is at version 2, not version 1") {
		t.Errorf("replace on a moved version: %d %s ETag %s", code, body, tag)
	}
	withVersion := strings.Replace(again, `"id":"home",`, `"id":"home","version":1,`, 1)
	if code, body, _ := as(t, api, ann, "PUT", "/tests/home", withVersion, nil); code != http.StatusPreconditionFailed {
		t.Errorf("replace with the body's version moved: %d %s", code, body)
	}
	if got, _ := s.Store.Test(ctx, "home"); got.Version != 2 || got.Steps[1].Locator.String() != "css=#start" {
		t.Errorf("a refused replace wrote: %+v", got)
	}
	moved := strings.Replace(again, `"project":"acme"`, `"project":"shop"`, 1)
	if code, body, _ := as(t, api, admin, "PUT", "/tests/home", moved, nil); code != http.StatusBadRequest || !strings.Contains(body, "does not move") {
		t.Errorf("moving a test to another project: %d %s", code, body)
	}
	checks := map[string]string{
		strings.Replace(homeTest, `"id":"home"`, `"id":"other"`, 1):                           "is not the path's",
		`{"id":"home","steps":[{"kind":"fly"}]}`:                                              "fly",
		`{"id":"home","project":"acme","steps":[{"kind":"goto","url":"/"}],"extra":1}`:        "unknown field",
		`{"id":"home","project":"acme","project":"acme","steps":[{"kind":"goto","url":"/"}]}`: "duplicate key",
	}
	for req, want := range checks {
		if code, body, _ := as(t, api, ann, "PUT", "/tests/home", req, nil); code != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Errorf("PUT %s: %d %s, want 400 with %q", req, code, body, want)
		}
	}
}

// TestCreateTestNeedsTheProject: a new test names a project that exists and the caller may act
// on; a test id of a project the caller may not touch answers as unknown, and nothing is written.
func TestCreateTestNeedsTheProject(t *testing.T) {
	api, store, _ := twoProjects(t)
	cases := []struct {
		path, body string
		status     int
		want       string
	}{
		{"/tests/new", `{"id":"new","steps":[{"kind":"goto","url":"/"}]}`, http.StatusBadRequest, `its \"project\" is required`},
		{"/tests/new", `{"id":"new","project":"beta","steps":[{"kind":"goto","url":"/"}]}`, http.StatusNotFound, `project \"beta\" not found`},
		{"/tests/new", `{"id":"new","project":"gamma","steps":[{"kind":"goto","url":"/"}]}`, http.StatusNotFound, `project \"gamma\" not found`},
		{"/tests/t-beta", `{"id":"t-beta","project":"alpha","steps":[{"kind":"goto","url":"/"}]}`, http.StatusNotFound, `test \"t-beta\" not found`},
	}
	for _, c := range cases {
		code, body, _ := as(t, api, alphaOnly, "PUT", c.path, c.body, nil)
		if code != c.status || !strings.Contains(body, c.want) {
			t.Errorf("PUT %s %s: %d %s, want %d with %q", c.path, c.body, code, body, c.status, c.want)
		}
	}
	if _, err := store.Test(context.Background(), "new"); err == nil {
		t.Error("a refused create wrote the test")
	}
	if got, _ := store.Test(context.Background(), "t-beta"); got.ProjectID != "beta" || got.Version != 2 {
		t.Errorf("beta's test after alpha's PUT: %+v", got)
	}
}

// TestTestStatusAndArchive: a status change is a write at the next version; DELETE archives
// (the history stays); an unknown status is refused naming the valid ones; the project's test
// listing shows the result.
func TestTestStatusAndArchive(t *testing.T) {
	api, store, _ := twoProjects(t)
	code, body, tag := as(t, api, alphaOnly, "PUT", "/tests/t-alpha/status", `{"status":"pending"}`, map[string]string{"If-Match": `"1"`})
	if code != http.StatusOK || tag != `"2"` || !strings.Contains(body, `"status":"pending"`) {
		t.Fatalf("status: %d %s ETag %s", code, body, tag)
	}
	if code, body, _ := as(t, api, alphaOnly, "PUT", "/tests/t-alpha/status", `{"status":"paused"}`, nil); code != http.StatusBadRequest || !strings.Contains(body, "draft, pending, active, rejected, archived") {
		t.Errorf("unknown status: %d %s", code, body)
	}
	if code, body, tag := as(t, api, alphaOnly, "DELETE", "/tests/t-alpha", "", map[string]string{"If-Match": `"1"`}); code != http.StatusPreconditionFailed || tag != `"2"` {
		t.Errorf("archive on a moved version: %d %s %s", code, body, tag)
	}
	if code, body, _ := as(t, api, alphaOnly, "DELETE", "/tests/t-alpha", "", nil); code != http.StatusOK || !strings.Contains(body, `"status":"archived"`) {
		t.Errorf("archive: %d %s", code, body)
	}
	if code, body, _ := as(t, api, alphaOnly, "GET", "/projects/alpha/tests", "", nil); code != http.StatusOK || !strings.Contains(body, `"status":"archived"`) || strings.Contains(body, "t-beta") {
		t.Errorf("listing: %d %s", code, body)
	}
	if code, _, _ := as(t, api, alphaOnly, "DELETE", "/tests/t-beta", "", nil); code != http.StatusNotFound {
		t.Errorf("archiving another project's test: %d", code)
	}
	if got, _ := store.Test(context.Background(), "t-beta"); got.Status != gardener.StatusActive {
		t.Errorf("beta's test: %+v", got.Status)
	}
}

// TestRepairATestWithoutARun: POST /tests/{id}/repair with no run records a run of the test's
// current version holding no result and starts the ladder on it (the ladder reproduces the
// failure); with a run id it must be a run of that test.
func TestRepairATestWithoutARun(t *testing.T) {
	api, store, m := twoProjects(t)
	code, body, _ := as(t, api, alphaOnly, "POST", "/tests/t-alpha/repair", `{"rungs":["suggest-fix"]}`, nil)
	if code != http.StatusAccepted || !strings.Contains(body, "executionId") {
		t.Fatalf("repair of a test: %d %s", code, body)
	}
	if started := m.started(); len(started) != 1 {
		t.Fatalf("started %v", started)
	}
	var out struct{ ExecutionID string }
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	x, err := store.Execution(context.Background(), out.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Run(context.Background(), x.RunID)
	if err != nil || run.TestID != "t-alpha" || run.TestVersion != 1 || run.Result != nil || run.Trigger != gardener.TriggerManual {
		t.Errorf("the run recorded for the repair: %+v %v", run, err)
	}
	if code, body, _ := as(t, api, alphaOnly, "POST", "/tests/t-alpha/repair", `{"runId":"r-forged"}`, nil); code != http.StatusNotFound {
		t.Errorf("a run of another test: %d %s", code, body)
	}
	if code, body, _ := as(t, api, alphaOnly, "POST", "/tests/t-alpha/repair", `{"runId":"r-alpha","rungs":["pray"]}`, nil); code != http.StatusBadRequest || !strings.Contains(body, "is not a rung") {
		t.Errorf("an unknown rung: %d %s", code, body)
	}
	if code, body, _ := as(t, api, alphaOnly, "POST", "/tests/t-alpha/repair", `{"runId":"r-alpha"}`, nil); code != http.StatusAccepted {
		t.Errorf("repair of the test's run: %d %s", code, body)
	}
	if code, _, _ := as(t, api, alphaOnly, "POST", "/tests/t-beta/repair", ``, nil); code != http.StatusNotFound {
		t.Errorf("repair of another project's test: %d", code)
	}
}

func newRequest(method, path, body string) *http.Request {
	return httptest.NewRequest(method, path, strings.NewReader(body))
}

func recorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// TestCreatedTestStartsAtVersionOne: a test is created at version 1 whatever version its body
// names, as `gardener push` creates one in the local state (both through gardening.SaveTest).
func TestCreatedTestStartsAtVersionOne(t *testing.T) {
	api, _ := newAPI(t)
	ann := map[string]string{"sub": "ann", "projects": "acme"}
	if code, body, _ := as(t, api, ann, "PUT", "/projects/acme", `{}`, nil); code != http.StatusCreated {
		t.Fatalf("project: %d %s", code, body)
	}
	withVersion := strings.Replace(homeTest, `"id":"home",`, `"id":"home","version":5,`, 1)
	code, body, tag := as(t, api, ann, "PUT", "/tests/home", withVersion, nil)
	if code != http.StatusCreated || tag != `"1"` || !strings.Contains(body, `"outcome":"created"`) {
		t.Errorf("create naming version 5: %d %s ETag %s, want 201 at version 1", code, body, tag)
	}
}

// TestPutTestWithoutAVersionIsVersionOne: a body that names no version, without If-Match, is a
// copy of version 1 (a test file written by hand): put onto a test a repair moved to version 2
// with other steps it writes nothing (412 with the current ETag and a reason that says the body
// named no version); the repaired steps again are unchanged, not refused; If-Match: * is the
// one way to write over whatever is stored. (It used to be saved over the repair.)
func TestPutTestWithoutAVersionIsVersionOne(t *testing.T) {
	api, s := newAPI(t)
	ctx := context.Background()
	if err := s.Store.PutProject(ctx, gardener.Project{ID: "acme", Plan: gardener.PlanPro, Model: "builtin"}); err != nil {
		t.Fatal(err)
	}
	ann := map[string]string{"sub": "ann", "projects": "acme"}
	if code, body, _ := as(t, api, ann, "PUT", "/tests/home", homeTest, nil); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	cur, err := s.Store.Test(ctx, "home")
	if err != nil {
		t.Fatal(err)
	}
	steps := gardener.CloneSteps(cur.Steps)
	steps[1].Locator = gardener.MustLocator("#go-now")
	if _, err := s.Store.WriteRepair(ctx, gardener.WriteRepair{Steps: steps, Repair: gardener.Repair{ID: "rp-home", ProjectID: "acme", TestID: "home", PreSteps: cur.Steps, FromVersion: 1, ToVersion: 2, Auto: true}}); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(homeTest, `"#go"`, `"#start"`, 1)
	code, body, tag := as(t, api, ann, "PUT", "/tests/home", edited, nil)
	if code != http.StatusPreconditionFailed || tag != `"2"` || !strings.Contains(body, "is at version 2; the edit names no version, so it was made on version 1") {
		t.Errorf("a body without a version over a repair: %d %s ETag %s, want 412", code, body, tag)
	}
	if got, _ := s.Store.Test(ctx, "home"); got.Version != 2 || got.Steps[1].Locator.String() != "css=#go-now" {
		t.Errorf("a refused PUT wrote over the repair: %+v", got)
	}
	repairedBody := strings.Replace(homeTest, `"#go"`, `"#go-now"`, 1)
	if code, body, tag := as(t, api, ann, "PUT", "/tests/home", repairedBody, nil); code != http.StatusOK || tag != `"2"` || !strings.Contains(body, `"outcome":"unchanged"`) {
		t.Errorf("the repaired steps without a version: %d %s ETag %s, want 200 unchanged", code, body, tag)
	}
	code, body, tag = as(t, api, ann, "PUT", "/tests/home", edited, map[string]string{"If-Match": "*"})
	if code != http.StatusOK || tag != `"3"` || !strings.Contains(body, `"outcome":"saved"`) {
		t.Errorf("If-Match: * over the repair: %d %s ETag %s, want 200 saved at version 3", code, body, tag)
	}
}
