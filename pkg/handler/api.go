package handler

import (
	"cmp"
	"context"
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
	"github.com/driftgardener/gardener/pkg/eventstream"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/jsonlist"
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
	{"GET /tests/{testId}/runs", (*API).testRuns},
	{"POST /tests/{testId}/runs", (*API).runNow},
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
	// EventPoll is how often a stream of an execution's events reads its log again while the
	// execution runs; zero means a second. Tests shorten it.
	EventPoll time.Duration
	// Runner replays a test for POST /tests/{testId}/runs; optional: an API without a browser
	// (the Lambda, which runs as a zip) answers that route 501, naming why.
	Runner gardener.Runner
	// BaseURLs and StepTimeout are what the Runner's replays run with (see Services).
	BaseURLs    map[string]string
	StepTimeout time.Duration
	// Plan is the deployment's plan (see Services.Plan).
	Plan gardener.Plan
	// Reach asks whether a project's app answers before a replay or a manual repair (see
	// Services.Reach).
	Reach func(ctx context.Context, base string) error
}

// API is the review API: one net/http router over the route table. It serves HTTP directly
// (the local stack) and is a lambda.Handler for API Gateway's payload-v2 events (Lambda).
type API struct {
	APIDeps
	// app is the application layer every route calls; built once with the API.
	app     *gardening.Service
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
	app, err := gardening.New(gardening.Deps{Store: d.Store, Notifier: d.Notifier, Models: d.Models, Starter: d.Starter,
		RepairMachine: d.RepairMachine, Plan: d.Plan, Reach: d.Reach, BaseURLs: d.BaseURLs, Now: d.Now, Log: d.log()})
	if err != nil {
		return nil, err
	}
	a := &API{APIDeps: d, app: app, mux: http.NewServeMux()}
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

// handle serves one route: it answers 401 without a verified caller, serves a stream route
// asked for Server-Sent Events as a stream (see streams), finds the project of
// every object the route touches and answers 404 when the caller may not act on it (as for an
// id that does not exist), then serves the route and logs the call.
func (a *API) handle(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, ok := callerOf(r)
		if !ok {
			reply(w, http.StatusUnauthorized, errBody("no verified caller"))
			return
		}
		if err := gardening.CheckPathIDs(rt.pattern, r.PathValue); err != nil {
			a.log().Info("api", "route", rt.pattern, "caller", caller.ID, "status", http.StatusBadRequest)
			reply(w, http.StatusBadRequest, errBody(err.Error()))
			return
		}
		c := call{caller: caller, r: r, header: w.Header()}
		if read, ok := streams[rt.pattern]; ok && acceptsEventStream(r) {
			a.log().Info("api", "route", rt.pattern, "caller", caller.ID, "stream", true)
			eventstream.Serve(w, r, read(a, c), eventstream.Options{Poll: cmp.Or(a.EventPoll, time.Second)})
			return
		}
		body, status := a.authorized(r.Context(), rt, c)
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

// statusOf maps errors to HTTP statuses: the API's own (a body, a precondition, access) first,
// then the application layer's classes, which every door maps alike.
func statusOf(err error) int {
	var bad *BadEventError
	var body *BodyError
	var request *requestError
	var cross *CrossProjectError
	var moved *VersionMismatchError
	var forbidden *ForbiddenError
	var precondition *PreconditionError
	switch {
	case errors.As(err, &moved), errors.As(err, &precondition):
		return http.StatusPreconditionFailed
	case errors.As(err, &forbidden):
		return http.StatusForbidden
	case errors.As(err, &bad), errors.As(err, &body), errors.As(err, &cross), errors.As(err, &request):
		return http.StatusBadRequest
	}
	return gardening.ClassOf(err).HTTPStatus()
}

// refused answers an error of a write; one refused because the record moved from the version
// the caller named carries the current version's ETag, so the caller can read it again.
func (a *API) refused(c call, err error) (any, int) {
	var moved *VersionMismatchError
	if errors.As(err, &moved) {
		c.header.Set("ETag", etag(moved.Version))
	} else if v, ok := gardening.MovedVersion(err); ok {
		c.header.Set("ETag", etag(v))
	}
	return fail(err)
}

// readBody reads a request's body; API Gateway bounds what it passes on.
func readBody(r *http.Request) (string, error) {
	b, err := io.ReadAll(r.Body)
	return string(b), err
}

// queue renders a project's staged queue, or which of the empty reasons applies.
func (a *API) queue(ctx context.Context, c call) (any, int) {
	q, err := a.app.Queue(ctx, c.project)
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
	rs, err := a.app.RepairsSince(ctx, c.project, since)
	return a.listing(c, "repairs", rs, err)
}

func (a *API) triageIssues(ctx context.Context, c call) (any, int) {
	issues, err := a.app.TriageIssues(ctx, c.project)
	return a.listing(c, "triage issues", issues, err)
}

// approveRequest: requireProof is an agent's approval (an MCP client's apply_repair through
// the API): the proposal is applied only when it needs no person and a green re-run of exactly
// its operations on its version is recorded, else 409 or 403 with the reason and the row left
// open. A person approving in the queue sends nothing and may approve an UNVERIFIED proposal
// on purpose.
type approveRequest struct {
	RequireProof bool `json:"requireProof"`
	// Propagate carries the fix's healed locator to the project's other tests that use it, each
	// proven by its own green re-run in the API's browser (501 where it has none, before
	// anything is written). Without it the answer names those tests in "others".
	Propagate bool `json:"propagate"`
}

func (a *API) approve(ctx context.Context, c call) (any, int) {
	var ar approveRequest
	if err := decodeOptional(c, "approve", &ar); err != nil {
		return fail(err)
	}
	who := gardening.Person(c.caller.ID)
	if ar.RequireProof {
		who = gardening.Agent(c.caller.ID)
	}
	return answer(a.app.Approve(ctx, who, c.r.PathValue("proposalId"), gardening.ApproveOptions{Propagate: ar.Propagate, Here: a.here(c.project)}))
}

// requestError is a request a route cannot take as it was sent (its body, its If-Match), named
// by what the route does: 400.
type requestError struct {
	what string
	err  error
}

func (e *requestError) Error() string { return e.what + ": " + e.err.Error() }
func (e *requestError) Unwrap() error { return e.err }

// decodeRequest reads c's body into v, strictly (decodeBody); its error is the route's 400.
func decodeRequest(c call, what string, v any) error {
	body, err := readBody(c.r)
	if err == nil {
		err = decodeBody(body, v)
	}
	if err != nil {
		return &requestError{what, err}
	}
	return nil
}

// decodeOptional is decodeRequest for a body that may be empty: then v is left as it is. A
// body of null is refused as in decodeRequest: it is not an object either.
func decodeOptional(c call, what string, v any) error {
	body, err := readBody(c.r)
	if err == nil && strings.TrimSpace(body) != "" {
		err = decodeBody(body, v)
	}
	if err != nil {
		return &requestError{what, err}
	}
	return nil
}

// preconditionOf is c's If-Match (ifMatch); its error is the route's 400.
func preconditionOf(c call, what string) (*precondition, error) {
	want, err := ifMatch(c.r)
	if err != nil {
		return nil, &requestError{what, err}
	}
	return want, nil
}

// run answers one run of a project the caller may act on as people read it (see
// gardener.Run.ForPeople): a run keeps the values its steps entered for the ladder's requirement
// contract, and nobody reads them back.
func (a *API) run(ctx context.Context, c call) (any, int) {
	r, err := a.Store.Run(ctx, c.r.PathValue("runId"))
	if err != nil {
		return fail(err)
	}
	costs, err := a.app.RepairCosts(ctx, r.ID)
	if err != nil {
		return fail(err)
	}
	return runAnswer{Run: a.shown(ctx, r), Costs: costs}, http.StatusOK
}

// runAnswer is a run as GET /runs/{runId} answers it: the run's fields, and what each repair of
// it cost.
type runAnswer struct {
	gardener.Run
	Costs []gardener.RepairCost `json:"costs"`
}

// shown is a run as people read it, judged against its test as stored; a test that cannot be
// read shows every check's reading masked.
func (a *API) shown(ctx context.Context, r gardener.Run) gardener.Run {
	t, _ := a.Store.Test(ctx, r.TestID)
	return r.ForPeople(t)
}

// runNow replays the test now and records its run: green, it is the baseline a later repair
// compares a failure with. It answers 201 with the run (its values stripped) and whether it
// was green; 501 where the API has no browser.
func (a *API) runNow(ctx context.Context, c call) (any, int) {
	ran, err := a.app.RunNow(ctx, gardening.Person(c.caller.ID), c.r.PathValue("testId"), a.here(c.project))
	if err != nil {
		return fail(err)
	}
	ran.Run = a.shown(ctx, ran.Run)
	return ran, http.StatusCreated
}

// here is what a use case that replays in this process runs with for a project's tests: the
// API's browser (none in Lambda) and the project's base URL.
func (a *API) here(projectID string) gardening.Here {
	return gardening.Here{Runner: a.Runner, Options: gardener.ReplayOptions{BaseURL: a.BaseURLs[projectID], StepTimeout: a.StepTimeout}}
}

func (a *API) dismiss(ctx context.Context, c call) (any, int) {
	return answer(a.app.Dismiss(ctx, gardening.Person(c.caller.ID), c.r.PathValue("proposalId")))
}

func (a *API) testRepairs(ctx context.Context, c call) (any, int) {
	rs, err := a.app.RepairHistory(ctx, c.r.PathValue("testId"))
	return a.listing(c, "repair history", rs, err)
}

// testRuns answers GET /tests/{testId}/runs?after=RUN&limit=N: a page of the test's runs, newest
// first (gardening.Service.Runs).
func (a *API) testRuns(ctx context.Context, c call) (any, int) {
	q := c.r.URL.Query()
	limit, err := queryInt(q.Get("limit"), 0, "limit")
	if err != nil {
		return errBody(err.Error()), http.StatusBadRequest
	}
	page, err := a.app.Runs(ctx, c.r.PathValue("testId"), q.Get("after"), limit)
	return a.listing(c, "runs", page, err)
}

func (a *API) aiHistory(ctx context.Context, c call) (any, int) {
	h, err := a.app.History(ctx, c.r.PathValue("testId"))
	return a.listing(c, "AI history", h, err)
}

func (a *API) repair(ctx context.Context, c call) (any, int) {
	return answer(a.app.Repair(ctx, c.r.PathValue("repairId")))
}

func (a *API) reviewed(ctx context.Context, c call) (any, int) {
	return answer(a.app.MarkReviewed(ctx, gardening.Person(c.caller.ID), c.r.PathValue("repairId")))
}

func (a *API) execution(ctx context.Context, c call) (any, int) {
	id := c.r.PathValue("executionId")
	status, output, err := a.app.ExecutionStatus(ctx, id)
	if err != nil {
		return fail(err)
	}
	x := Execution{ID: id, Status: status}
	if output != "" {
		// The output is the machine's state: the test, the fix's operations, the repair
		// record. It is answered as people may read it.
		x.Output = json.RawMessage(gardener.DataForPeople([]byte(output)))
	}
	if x.Outcome, err = a.executionOutcome(ctx, id, output); err != nil {
		return fail(err)
	}
	return x, http.StatusOK
}

// Settings is what a person may change of a project: see gardening.Settings.
type Settings = gardening.Settings

func (a *API) putSettings(ctx context.Context, c call) (any, int) {
	want, err := preconditionOf(c, "settings")
	if err != nil {
		return fail(err)
	}
	var s Settings
	if err := decodeRequest(c, "settings", &s); err != nil {
		return fail(err)
	}
	var check func(gardener.Project) error
	if want != nil {
		check = gardening.SettingsReadAt(want.matches)
	}
	p, err := a.app.UpdateSettings(ctx, c.project, s, check)
	if err != nil {
		return a.refused(c, err)
	}
	c.header.Set("ETag", etag(p.Version))
	return p, http.StatusOK
}

// revertRequest: without confirm the API answers with the confirmation text, which is honest
// about the consequence; with confirm it reverts.
type revertRequest struct {
	Confirm bool `json:"confirm"`
}

func (a *API) revert(ctx context.Context, c call) (any, int) {
	var r revertRequest
	if err := decodeOptional(c, "revert", &r); err != nil {
		return fail(err)
	}
	repairID := c.r.PathValue("repairId")
	if !r.Confirm {
		text, err := a.app.RevertConfirmation(ctx, repairID)
		if err != nil {
			return fail(err)
		}
		return map[string]string{"confirmation": text}, http.StatusOK
	}
	return answer(a.app.Revert(ctx, gardening.Person(c.caller.ID), repairID))
}

// manualRequest asks for the ladder on one failed run; empty rungs means the whole ladder.
// Propose stages a proven fix for review whatever the project's mode.
type manualRequest struct {
	Rungs   []gardener.Strategy `json:"rungs"`
	Propose bool                `json:"propose"`
}

// manualRepair starts the repair machine for a person: suggest-fix, diagnose, or the whole
// ladder on a failed run. The manual gate is asked here, at the door (a control run, a probe, an
// archived test, a run of a version that is gone are 403 before anything starts), and again by
// the machine's eligibility state. The execution is recorded with the run's project, which is
// what a read of it is authorized on.
func (a *API) manualRepair(ctx context.Context, c call) (any, int) {
	var m manualRequest
	if err := decodeOptional(c, "manual repair", &m); err != nil {
		return fail(err)
	}
	return a.startRepair(ctx, c, gardening.RepairRequest{RunID: c.r.PathValue("runId"), Rungs: m.Rungs, Propose: m.Propose})
}

func (a *API) startRepair(ctx context.Context, c call, req gardening.RepairRequest) (any, int) {
	id, err := a.app.StartRepair(ctx, gardening.Person(c.caller.ID), req)
	if err != nil {
		return fail(err)
	}
	return map[string]string{"executionId": id}, http.StatusAccepted
}
