package handler

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/jsonlist"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/radar"
)

// route is one route of the review API: a net/http pattern and what serves it. The table is
// the only list of routes: the router is built from it, and a test compares it with the
// template's HttpApi events.
type route struct {
	pattern string
	serve   func(a *API, ctx context.Context, c call) (any, int)
}

// call is one request as a route sees it: who asks, the project the access check passed, and
// the request for its path values, query and body.
type call struct {
	caller  Caller
	project string
	r       *http.Request
	// header is the response's header, for a route that answers with more than a body (an ETag).
	header http.Header
	// created says the object the path names does not exist yet and the route creates it in
	// project (see creates).
	created bool
}

var routes = []route{
	{"GET /projects/{projectId}/queue", (*API).queue},
	{"GET /projects/{projectId}/settings", (*API).settings},
	{"PUT /projects/{projectId}/settings", (*API).putSettings},
	{"GET /projects/{projectId}/repairs", (*API).projectRepairs},
	{"GET /projects/{projectId}/triage", (*API).triageIssues},
	{"POST /proposals/{proposalId}/approve", (*API).approve},
	{"POST /proposals/{proposalId}/dismiss", (*API).dismiss},
	{"GET /tests/{testId}/repairs", (*API).testRepairs},
	{"GET /tests/{testId}/history", (*API).aiHistory},
	{"GET /repairs/{repairId}", (*API).repair},
	{"POST /repairs/{repairId}/revert", (*API).revert},
	{"POST /repairs/{repairId}/reviewed", (*API).reviewed},
	{"GET /runs/{runId}", (*API).run},
	{"POST /runs/{runId}/repair", (*API).manualRepair},
	{"GET /executions/{executionId}", (*API).execution},
	{"GET /executions/{executionId}/events", (*API).executionEvents},
	{"GET /projects/{projectId}", (*API).project},
	{"PUT /projects/{projectId}", (*API).putProject},
	{"GET /projects/{projectId}/tests", (*API).projectTests},
	{"GET /tests/{testId}", (*API).test},
	{"PUT /tests/{testId}", (*API).putTest},
	{"DELETE /tests/{testId}", (*API).archiveTest},
	{"PUT /tests/{testId}/status", (*API).putTestStatus},
	{"POST /tests/{testId}/repair", (*API).testManualRepair},
	{"POST /tests/{testId}/edits", (*API).testEdits},
}

// Routes are the patterns the API serves ("GET /projects/{projectId}/queue"), in the form of
// the HttpApi's route keys: the API's, then the review console's pages.
func Routes() []string {
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = r.pattern
	}
	return append(out, consoleRoutes()...)
}

// APIDeps are the review API's dependencies: the store, the models a project may choose (a
// setting is checked by opening it), the topic a revert is announced on, and the repair machine
// the manual ladder starts.
type APIDeps struct {
	StoreDeps
	Models   ModelFor
	Notifier Notifier
	Starter  Starter
	// RepairMachine is the repair state machine the API starts for the manual ladder.
	RepairMachine string
	// ConsoleAuth signs people in to the review console; without it the console is not served.
	ConsoleAuth *console.Auth
}

// API is the review API: one net/http router over the route table. It serves HTTP directly
// (the local stack) and is a lambda.Handler for API Gateway's payload-v2 events (Lambda).
type API struct {
	APIDeps
	mux     *http.ServeMux
	gateway *httpadapter.HandlerAdapterV2
}

// NewAPI builds the review API.
func NewAPI(d APIDeps) (*API, error) {
	deps := append(d.deps(), dep{"Models", d.Models == nil}, dep{"Notifier", d.Notifier == nil},
		dep{"Starter", d.Starter == nil}, dep{"RepairMachine", d.RepairMachine == ""})
	if err := need("api", deps...); err != nil {
		return nil, err
	}
	a := &API{APIDeps: d, mux: http.NewServeMux()}
	for _, rt := range routes {
		a.mux.Handle(rt.pattern, a.handle(rt))
	}
	if err := a.mountConsole(); err != nil {
		return nil, err
	}
	a.gateway = httpadapter.NewV2(http.HandlerFunc(a.fromGateway))
	return a, nil
}

// Handles says whether a request is for one of the API's routes.
func (a *API) Handles(r *http.Request) bool {
	_, pattern := a.mux.Handler(r)
	return pattern != ""
}

// ServeHTTP routes a request. A path or method the API does not serve is 404, as API Gateway
// answers for a route it does not have.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !a.Handles(r) {
		reply(w, http.StatusNotFound, errBody(fmt.Sprintf("no route %s %s", r.Method, r.URL.Path)))
		return
	}
	a.mux.ServeHTTP(w, r)
}

// Invoke serves one API Gateway payload-v2 event through the adapter, which turns it into the
// request the router serves.
func (a *API) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, &BadEventError{Reason: "not an API Gateway payload-v2 event: " + err.Error()}
	}
	resp, err := a.gateway.ProxyWithContext(ctx, ev)
	if err != nil {
		return nil, err
	}
	return json.Marshal(resp)
}

// Caller is who is calling, from the JWT the HttpApi authorizer verified.
type Caller struct {
	ID       string
	Projects []string // project ids the caller may act on; "*" is every project
}

func (c Caller) may(projectID string) bool {
	for _, p := range c.Projects {
		if p == "*" || p == projectID {
			return true
		}
	}
	return false
}

// claimsKey is where a request carries the claims of its verified caller.
type claimsKey struct{}

// WithClaims returns r carrying the claims of a verified JWT, where the routes read the caller
// from. In Lambda the API puts there the claims API Gateway's authorizer verified; the local
// stack, standing in for the authorizer, puts there those of a development token.
func WithClaims(r *http.Request, claims map[string]string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), claimsKey{}, claims))
}

// fromGateway serves a request the adapter made of an API Gateway event, with the claims of the
// JWT the authorizer verified, which the adapter keeps in the request's context.
func (a *API) fromGateway(w http.ResponseWriter, r *http.Request) {
	if rc, ok := core.GetAPIGatewayV2ContextFromContext(r.Context()); ok && rc.Authorizer != nil && rc.Authorizer.JWT != nil {
		r = WithClaims(r, rc.Authorizer.JWT.Claims)
	}
	a.ServeHTTP(w, r)
}

// callerOf reads the caller from the request's claims: the subject (or email) is who approves,
// and the "projects" claim (space or comma separated) is what they may touch.
func callerOf(r *http.Request) (Caller, bool) {
	claims, _ := r.Context().Value(claimsKey{}).(map[string]string)
	c := Caller{ID: cmp.Or(claims["email"], claims["sub"])}
	c.Projects = strings.FieldsFunc(claims["projects"], func(r rune) bool { return r == ' ' || r == ',' })
	return c, c.ID != ""
}

// handle serves one route: it answers 401 without a verified caller, finds the project of
// every object the route touches and answers 404 when the caller may not act on it (as for an
// id that does not exist), then serves the route and logs the call.
func (a *API) handle(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, ok := callerOf(r)
		if !ok {
			reply(w, http.StatusUnauthorized, errBody("no verified caller"))
			return
		}
		body, status := a.authorized(r.Context(), rt, call{caller: caller, r: r, header: w.Header()})
		a.log().Info("api", "route", rt.pattern, "caller", caller.ID, "status", status)
		reply(w, status, body)
	})
}

func (a *API) authorized(ctx context.Context, rt route, c call) (any, int) {
	project, err := a.projectOf(ctx, c)
	if errors.Is(err, gardener.ErrNotFound) && creates[rt.pattern] {
		project, c.created, err = a.creatorOf(ctx, c)
	}
	if err != nil {
		return fail(err)
	}
	c.project = project
	return rt.serve(a, ctx, c)
}

type apiError struct {
	Error string `json:"error"`
}

func errBody(msg string) apiError { return apiError{Error: msg} }

func fail(err error) (any, int) { return errBody(err.Error()), statusOf(err) }

// answer is a route's result: the value with 200, or the error's status.
func answer[V any](v V, err error) (any, int) {
	if err != nil {
		return fail(err)
	}
	return v, http.StatusOK
}

// reply writes body as JSON; a list in it answers [] when empty, never null.
func reply(w http.ResponseWriter, status int, body any) {
	b, err := json.Marshal(jsonlist.Empty(body))
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"encoding the response failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// CorruptHeader names, on a listing's answer, each stored record the listing skipped because it
// does not decode: one value per record, "<entity> <id>", both path-escaped so that neither
// holds a space or a comma.
const CorruptHeader = "X-Gardener-Corrupt"

// listing answers a listing route: the records that decode, with 200, even when some did not.
// One bad record must not hide the rest; each skipped one is named in CorruptHeader and logged.
// Any other error fails the request.
func (a *API) listing(c call, what string, v any, err error) (any, int) {
	corrupt, failure := gardener.SplitCorrupt(err)
	if failure != nil {
		return fail(failure)
	}
	if corrupt != nil {
		for _, r := range corrupt.Records {
			c.header.Add(CorruptHeader, url.PathEscape(r.Entity)+" "+url.PathEscape(r.ID))
			a.log().Error("corrupt record skipped", "listing", what, "project", c.project, "entity", r.Entity, "id", r.ID, "error", r.Err.Error())
		}
	}
	return v, http.StatusOK
}

// statusOf maps domain errors to HTTP statuses.
func statusOf(err error) int {
	var bad *BadEventError
	var refused *lifecycle.RefusedError
	var body *BodyError
	var cross *CrossProjectError
	var moved *VersionMismatchError
	var forbidden *ForbiddenError
	var unproven *lifecycle.UnprovenError
	switch {
	case errors.As(err, &moved):
		return http.StatusPreconditionFailed
	case errors.As(err, &unproven):
		return http.StatusConflict
	case errors.Is(err, gardener.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, gardener.ErrStale), errors.Is(err, gardener.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, gardener.ErrIneligible), errors.As(err, &forbidden):
		return http.StatusForbidden
	case errors.As(err, &bad), errors.As(err, &refused), errors.As(err, &body), errors.As(err, &cross):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// readBody reads a request's body; API Gateway bounds what it passes on.
func readBody(r *http.Request) (string, error) {
	b, err := io.ReadAll(r.Body)
	return string(b), err
}

// queue renders a project's staged queue, or which of the empty reasons applies.
func (a *API) queue(ctx context.Context, c call) (any, int) {
	r := &radar.Radar{Store: a.Store, Now: a.Now, Log: a.log()}
	q, err := r.Queue(ctx, c.project)
	return a.listing(c, "queue", q, err)
}

func (a *API) settings(ctx context.Context, c call) (any, int) {
	p, err := a.Store.Project(ctx, c.project)
	if err != nil {
		return fail(err)
	}
	c.header.Set("ETag", etag(p.Version))
	return p, http.StatusOK
}

func (a *API) projectRepairs(ctx context.Context, c call) (any, int) {
	since := time.Time{}
	if s := c.r.URL.Query().Get("since"); s != "" {
		var err error
		if since, err = time.Parse(time.RFC3339, s); err != nil {
			return errBody(fmt.Sprintf("since %q is not an RFC 3339 time", s)), http.StatusBadRequest
		}
	}
	rs, err := a.life().RepairsSince(ctx, c.project, since)
	return a.listing(c, "repairs", rs, err)
}

func (a *API) triageIssues(ctx context.Context, c call) (any, int) {
	issues, err := a.Store.TriageIssues(ctx, c.project)
	return a.listing(c, "triage issues", issues, err)
}

// approveRequest: requireProof is a machine client's approval (an MCP client's apply_repair):
// the proposal is applied only when a green re-run of exactly its operations on its version is
// recorded, else 409 with the reason and the row left open. A person approving in the queue
// sends nothing and may approve an UNVERIFIED proposal on purpose.
type approveRequest struct {
	RequireProof bool `json:"requireProof"`
}

func (a *API) approve(ctx context.Context, c call) (any, int) {
	body, err := readBody(c.r)
	if err != nil {
		return errBody("approve: " + err.Error()), http.StatusBadRequest
	}
	var ar approveRequest
	if strings.TrimSpace(body) != "" {
		if err := decodeBody(body, &ar); err != nil {
			return errBody("approve: " + err.Error()), http.StatusBadRequest
		}
	}
	id, life := c.r.PathValue("proposalId"), a.life()
	approve := life.Approve
	if ar.RequireProof {
		approve = life.ApproveProven
	}
	approved, err := approve(ctx, id, c.caller.ID)
	var stale *gardener.StaleError
	if errors.As(err, &stale) {
		return errBody(fmt.Sprintf("stale: proposal %s was computed on version %d of test %s, which is at version %d now; the proposal is marked stale", id, stale.BaseVersion, stale.TestID, stale.Version)), http.StatusConflict
	}
	if err != nil {
		return fail(err)
	}
	if err := life.RecordGreen(ctx, approved); err != nil {
		a.log().Warn("approve", "proposal", id, "error", err.Error())
	}
	return approved, http.StatusOK
}

// run answers one run of a project the caller may act on, without the values its steps
// entered: a run keeps them for the ladder's requirement contract, and nobody reads them back.
func (a *API) run(ctx context.Context, c call) (any, int) {
	r, err := a.Store.Run(ctx, c.r.PathValue("runId"))
	if err != nil {
		return fail(err)
	}
	if r.Result != nil {
		res := *r.Result
		res.Steps = make([]gardener.StepRecord, len(r.Result.Steps))
		for i, st := range r.Result.Steps {
			st.Values = nil
			res.Steps[i] = st
		}
		r.Result = &res
	}
	return r, http.StatusOK
}

func (a *API) dismiss(ctx context.Context, c call) (any, int) {
	return answer(a.life().Dismiss(ctx, c.r.PathValue("proposalId"), c.caller.ID))
}

func (a *API) testRepairs(ctx context.Context, c call) (any, int) {
	rs, err := a.life().RepairHistory(ctx, c.r.PathValue("testId"))
	return a.listing(c, "repair history", rs, err)
}

func (a *API) aiHistory(ctx context.Context, c call) (any, int) {
	h, err := a.life().AIHistory(ctx, c.r.PathValue("testId"))
	return a.listing(c, "AI history", h, err)
}

func (a *API) repair(ctx context.Context, c call) (any, int) {
	return answer(a.Store.Repair(ctx, c.r.PathValue("repairId")))
}

func (a *API) reviewed(ctx context.Context, c call) (any, int) {
	return answer(a.life().MarkReviewed(ctx, c.r.PathValue("repairId"), c.caller.ID))
}

func (a *API) execution(ctx context.Context, c call) (any, int) {
	id := c.r.PathValue("executionId")
	status, output, err := a.Starter.Describe(ctx, id)
	if err != nil {
		return fail(err)
	}
	x := Execution{ID: id, Status: status}
	if output != "" {
		x.Output = json.RawMessage(output)
	}
	if x.Outcome, err = a.executionOutcome(ctx, id, output); err != nil {
		return fail(err)
	}
	return x, http.StatusOK
}

// Settings is what a person may change of a project.
type Settings struct {
	AutoRepair *bool   `json:"autoRepair"`
	Model      *string `json:"model"`
	Radar      *bool   `json:"radar"`
}

func (a *API) putSettings(ctx context.Context, c call) (any, int) {
	body, err := readBody(c.r)
	if err != nil {
		return errBody("settings: " + err.Error()), http.StatusBadRequest
	}
	want, err := ifMatch(c.r)
	if err != nil {
		return errBody("settings: " + err.Error()), http.StatusBadRequest
	}
	var s Settings
	if err := decodeBody(body, &s); err != nil {
		return errBody("settings: " + err.Error()), http.StatusBadRequest
	}
	// The model is checked before the update, which may run more than once.
	if s.Model != nil && *s.Model != "" {
		if _, err := a.Models(ctx, *s.Model); err != nil {
			return errBody("settings: " + err.Error()), http.StatusBadRequest
		}
	}
	// A conditional update: two people changing different settings at once both keep theirs,
	// and an If-Match is compared with the version the write is conditional on.
	p, err := a.Store.UpdateProject(ctx, c.project, func(p *gardener.Project) error {
		if want != nil && !want.matches(p.Version) {
			return &VersionMismatchError{Entity: "project", ID: p.ID, IfMatch: want.raw, Version: p.Version}
		}
		if s.AutoRepair != nil {
			p.AutoRepair = *s.AutoRepair
		}
		if s.Model != nil {
			p.Model = *s.Model
		}
		if s.Radar != nil {
			p.Radar = *s.Radar
		}
		return nil
	})
	var moved *VersionMismatchError
	if errors.As(err, &moved) {
		c.header.Set("ETag", etag(moved.Version))
	}
	if err != nil {
		return errBody(err.Error()), statusOf(err)
	}
	c.header.Set("ETag", etag(p.Version))
	a.log().Info("settings", "project", p.ID, "auto_repair", p.AutoRepair, "model", p.Model, "radar", p.Radar)
	return p, http.StatusOK
}

// revertRequest: without confirm the API answers with the confirmation text, which is honest
// about the consequence; with confirm it reverts.
type revertRequest struct {
	Confirm bool `json:"confirm"`
}

func (a *API) revert(ctx context.Context, c call) (any, int) {
	body, err := readBody(c.r)
	if err != nil {
		return errBody("revert: " + err.Error()), http.StatusBadRequest
	}
	repairID, life := c.r.PathValue("repairId"), a.life()
	var r revertRequest
	if strings.TrimSpace(body) != "" {
		if err := decodeBody(body, &r); err != nil {
			return errBody("revert: " + err.Error()), http.StatusBadRequest
		}
	}
	if !r.Confirm {
		text, err := life.RevertConfirmation(ctx, repairID)
		if err != nil {
			return errBody(err.Error()), statusOf(err)
		}
		return map[string]string{"confirmation": text}, http.StatusOK
	}
	v, err := life.Revert(ctx, repairID, c.caller.ID)
	if err != nil {
		return errBody(err.Error()), statusOf(err)
	}
	n := Notification{Kind: NotifyReverted, ProjectID: v.Repair.ProjectID, TestID: v.Test.ID, RepairID: v.Repair.ID,
		Subject: fmt.Sprintf("Repair reverted: %s (version %d)", v.Test.ID, v.Test.Version), Summary: v.Confirmation}
	if err := a.Notifier.Publish(ctx, n.Subject, n); err != nil {
		a.log().Warn("notify", "repair", v.Repair.ID, "error", err.Error())
	}
	return v, http.StatusOK
}

// manualRequest asks for the ladder on one failed run; empty rungs means the whole ladder.
// Propose stages a proven fix for review whatever the project's mode.
type manualRequest struct {
	Rungs   []gardener.Strategy `json:"rungs"`
	Propose bool                `json:"propose"`
}

// manualRepair starts the repair machine for a person: suggest-fix, diagnose, or the whole
// ladder on a failed run. The run must not be a control run (the gate refuses it), and its test
// must be of the run's project (checked before the route runs). The execution is recorded with
// the run's project, which is what a read of it is authorized on.
func (a *API) manualRepair(ctx context.Context, c call) (any, int) {
	body, err := readBody(c.r)
	if err != nil {
		return errBody("manual repair: " + err.Error()), http.StatusBadRequest
	}
	var m manualRequest
	if strings.TrimSpace(body) != "" {
		if err := decodeBody(body, &m); err != nil {
			return errBody("manual repair: " + err.Error()), http.StatusBadRequest
		}
	}
	if err := checkRungs(m.Rungs); err != nil {
		return fail(err)
	}
	run, err := a.Store.Run(ctx, c.r.PathValue("runId"))
	if err != nil {
		return errBody(err.Error()), statusOf(err)
	}
	return a.manualStart(ctx, c, run, Manual{Rungs: m.Rungs, Propose: m.Propose})
}

// checkRungs refuses a manual request naming something that is not a rung of the ladder.
func checkRungs(rungs []gardener.Strategy) error {
	for _, r := range rungs {
		if r != gardener.StrategySelfHeal && r != gardener.StrategySuggestFix && r != gardener.StrategyDiagnose {
			return &BodyError{Reason: fmt.Sprintf("manual repair: %q is not a rung (self-heal, suggest-fix, diagnose-drift)", r)}
		}
	}
	return nil
}

// manualStart starts the repair machine on run for the caller, once: a second request while
// the caller's earlier one still runs answers with that one.
func (a *API) manualStart(ctx context.Context, c call, run gardener.Run, m Manual) (any, int) {
	if run.Control {
		return errBody(fmt.Sprintf("run %s is a negative control run: it is required to fail, and no repair is made for it", run.ID)), http.StatusForbidden
	}
	m.By = c.caller.ID
	in := RepairInput{Detail: RunFailed{RunID: run.ID, ProjectID: run.ProjectID, TestID: run.TestID, TestVersion: run.TestVersion, Trigger: run.Trigger, Probe: run.Probe}, Manual: &m}
	id, err := a.startManual(ctx, run, c.caller.ID, in)
	if err != nil {
		return fail(err)
	}
	return map[string]string{"executionId": id}, http.StatusAccepted
}

// claimAttempts bounds how often a manual start claims a run again after finding the claim's
// execution ended: each retry means another request superseded it meanwhile.
const claimAttempts = 5

// startManual starts the manual ladder of run for by, or returns the execution of theirs that
// still runs: a double click, or two API instances serving one person's two requests at once,
// start the ladder once and both answer with it. The store's claim on (run, by) decides the
// winner; the losers find its execution by starting the claim's name and input again, which
// returns the same execution.
func (a *API) startManual(ctx context.Context, run gardener.Run, by string, in RepairInput) (string, error) {
	supersede := ""
	for range claimAttempts {
		name, err := executionName(run.ID)
		if err != nil {
			return "", err
		}
		// The input names the execution, so that each of its functions knows the event log to
		// append to; the claim keeps the input, so a loser's restart of it names the same log.
		in.Manual.Execution = name
		input, err := json.Marshal(in)
		if err != nil {
			return "", fmt.Errorf("manual repair of run %s: encode input: %w", run.ID, err)
		}
		claim := gardener.ExecutionClaim{RunID: run.ID, By: by, Name: name, Input: input, At: a.now()}
		held, err := a.Store.ClaimExecution(ctx, claim, supersede)
		var lost *gardener.ConflictError
		if err != nil && !errors.As(err, &lost) {
			return "", fmt.Errorf("manual repair of run %s: %w", run.ID, err)
		}
		id, err := a.startClaimed(ctx, run, held)
		if err != nil || lost == nil {
			return id, err
		}
		status, _, err := a.Starter.Describe(ctx, id)
		if err != nil {
			return "", fmt.Errorf("manual repair of run %s: status of execution %s: %w", run.ID, id, err)
		}
		if status == "RUNNING" {
			return id, nil
		}
		supersede = held.Name
	}
	return "", &gardener.ConflictError{Entity: "run", ID: run.ID, Reason: fmt.Sprintf("%d manual starts in a row were overtaken by other requests; try again", claimAttempts)}
}

// startClaimed starts the claim's execution, or finds it started (a start of the same name and
// input returns the same execution), and records it: the record is what a read of the execution
// is authorized on, so without it nobody could follow the execution, and a failed write is the
// request's failure. Whoever records it first wins; the record names the same execution.
func (a *API) startClaimed(ctx context.Context, run gardener.Run, c gardener.ExecutionClaim) (string, error) {
	id, err := a.Starter.Start(ctx, a.RepairMachine, c.Name, c.Input)
	if err != nil {
		return "", err
	}
	x := gardener.Execution{ID: id, Name: c.Name, ProjectID: run.ProjectID, TestID: run.TestID, RunID: run.ID, By: c.By, At: c.At}
	if err := a.Store.PutExecution(ctx, x); err != nil && !errors.Is(err, gardener.ErrConflict) {
		return "", fmt.Errorf("manual repair of run %s: execution %s started but not recorded: %w", run.ID, id, err)
	}
	return id, nil
}

// maxExecutionName is Step Functions' limit on an execution name.
const maxExecutionName = 80

// executionName names a manual execution: "manual-", 128 random bits, then as much of the run
// id as fits, for a person reading the console. The random part comes before the cut, so two
// names never collide however long the run id, and a name cannot be guessed from the run and
// the asker.
func executionName(runID string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("execution name for run %s: %w", runID, err)
	}
	name := "manual-" + hex.EncodeToString(b[:]) + "-" + sanitize(runID)
	if len(name) > maxExecutionName {
		name = name[:maxExecutionName]
	}
	return name, nil
}

// sanitize keeps what a Step Functions execution name allows.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
