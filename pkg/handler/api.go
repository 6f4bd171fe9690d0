package handler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// Routes are the HttpApi routes the API function serves; template.yaml declares the same list
// and a test keeps the two equal.
var Routes = []string{
	"GET /projects/{projectId}/queue",
	"GET /projects/{projectId}/settings",
	"PUT /projects/{projectId}/settings",
	"GET /projects/{projectId}/repairs",
	"GET /projects/{projectId}/triage",
	"POST /proposals/{proposalId}/approve",
	"POST /proposals/{proposalId}/dismiss",
	"GET /tests/{testId}/repairs",
	"GET /tests/{testId}/history",
	"GET /repairs/{repairId}",
	"POST /repairs/{repairId}/revert",
	"POST /repairs/{repairId}/reviewed",
	"POST /runs/{runId}/repair",
	"GET /executions/{executionId}",
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

// callerOf reads the caller from the authorizer's claims: the subject (or email) is who approves,
// and the "projects" claim (space or comma separated) is what they may touch.
func callerOf(req events.APIGatewayV2HTTPRequest) (Caller, bool) {
	if req.RequestContext.Authorizer == nil || req.RequestContext.Authorizer.JWT == nil {
		return Caller{}, false
	}
	claims := req.RequestContext.Authorizer.JWT.Claims
	c := Caller{ID: claims["email"]}
	if c.ID == "" {
		c.ID = claims["sub"]
	}
	c.Projects = strings.FieldsFunc(claims["projects"], func(r rune) bool { return r == ' ' || r == ',' })
	return c, c.ID != ""
}

// API serves the HttpApi.
func (d Deps) API() func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		caller, ok := callerOf(req)
		if !ok {
			return reply(http.StatusUnauthorized, errBody("no verified caller")), nil
		}
		body, status := d.route(ctx, caller, req)
		d.log().Info("api", "route", req.RouteKey, "caller", caller.ID, "status", status)
		return reply(status, body), nil
	}
}

type apiError struct {
	Error string `json:"error"`
}

func errBody(msg string) apiError { return apiError{Error: msg} }

func reply(status int, body any) events.APIGatewayV2HTTPResponse {
	b, err := json.Marshal(body)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"encoding the response failed"}`)
	}
	return events.APIGatewayV2HTTPResponse{StatusCode: status, Headers: map[string]string{"Content-Type": "application/json"}, Body: string(b)}
}

// statusOf maps domain errors to HTTP statuses.
func statusOf(err error) int {
	var bad *BadEventError
	var refused *lifecycle.RefusedError
	switch {
	case errors.Is(err, gardener.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, gardener.ErrStale), errors.Is(err, gardener.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, gardener.ErrIneligible):
		return http.StatusForbidden
	case errors.As(err, &bad), errors.As(err, &refused):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

func (d Deps) route(ctx context.Context, c Caller, req events.APIGatewayV2HTTPRequest) (any, int) {
	p := req.PathParameters
	life := d.life()
	forbid := func(project string) (any, int, bool) {
		if !c.may(project) {
			return errBody(fmt.Sprintf("%s may not act on project %s", c.ID, project)), http.StatusForbidden, true
		}
		return nil, 0, false
	}
	fail := func(err error) (any, int) { return errBody(err.Error()), statusOf(err) }
	// projectOf finds the project a route's resource belongs to, for the access check.
	projectOf := func() (string, error) {
		switch {
		case p["projectId"] != "":
			return p["projectId"], nil
		case p["proposalId"] != "":
			x, err := d.Store.Proposal(ctx, p["proposalId"])
			return x.ProjectID, err
		case p["testId"] != "":
			x, err := d.Store.Test(ctx, p["testId"])
			return x.ProjectID, err
		case p["repairId"] != "":
			x, err := d.Store.Repair(ctx, p["repairId"])
			return x.ProjectID, err
		case p["runId"] != "":
			x, err := d.Store.Run(ctx, p["runId"])
			return x.ProjectID, err
		}
		return "", nil
	}
	project, err := projectOf()
	if err != nil {
		return fail(err)
	}
	if project != "" {
		if b, s, no := forbid(project); no {
			return b, s
		}
	}
	switch req.RouteKey {
	case "GET /projects/{projectId}/queue":
		v, err := d.queue(ctx, project)
		if err != nil {
			return fail(err)
		}
		return v, http.StatusOK
	case "GET /projects/{projectId}/settings":
		v, err := d.Store.Project(ctx, project)
		if err != nil {
			return fail(err)
		}
		return v, http.StatusOK
	case "PUT /projects/{projectId}/settings":
		return d.putSettings(ctx, project, req.Body)
	case "GET /projects/{projectId}/repairs":
		since := time.Time{}
		if s := req.QueryStringParameters["since"]; s != "" {
			if since, err = time.Parse(time.RFC3339, s); err != nil {
				return errBody(fmt.Sprintf("since %q is not an RFC 3339 time", s)), http.StatusBadRequest
			}
		}
		v, err := life.RepairsSince(ctx, project, since)
		if err != nil {
			return fail(err)
		}
		return v, http.StatusOK
	case "GET /projects/{projectId}/triage":
		v, err := d.Store.TriageIssues(ctx, project)
		if err != nil {
			return fail(err)
		}
		return v, http.StatusOK
	case "POST /proposals/{proposalId}/approve":
		v, err := life.Approve(ctx, p["proposalId"], c.ID)
		if err != nil {
			return fail(err)
		}
		return v, http.StatusOK
	case "POST /proposals/{proposalId}/dismiss":
		v, err := life.Dismiss(ctx, p["proposalId"], c.ID)
		if err != nil {
			return fail(err)
		}
		return v, http.StatusOK
	case "GET /tests/{testId}/repairs":
		v, err := life.RepairHistory(ctx, p["testId"])
		if err != nil {
			return fail(err)
		}
		return v, http.StatusOK
	case "GET /tests/{testId}/history":
		v, err := life.AIHistory(ctx, p["testId"])
		if err != nil {
			return fail(err)
		}
		return v, http.StatusOK
	case "GET /repairs/{repairId}":
		v, err := d.Store.Repair(ctx, p["repairId"])
		if err != nil {
			return fail(err)
		}
		return v, http.StatusOK
	case "POST /repairs/{repairId}/revert":
		return d.revert(ctx, life, c, p["repairId"], req.Body)
	case "POST /repairs/{repairId}/reviewed":
		v, err := life.MarkReviewed(ctx, p["repairId"], c.ID)
		if err != nil {
			return fail(err)
		}
		return v, http.StatusOK
	case "POST /runs/{runId}/repair":
		return d.manualRepair(ctx, c, p["runId"], req.Body)
	case "GET /executions/{executionId}":
		status, output, err := d.Starter.Describe(ctx, p["executionId"])
		if err != nil {
			return fail(err)
		}
		x := Execution{ID: p["executionId"], Status: status}
		if output != "" {
			x.Output = json.RawMessage(output)
		}
		return x, http.StatusOK
	}
	return errBody("no route " + req.RouteKey), http.StatusNotFound
}

// Settings is what a person may change of a project.
type Settings struct {
	AutoRepair *bool   `json:"autoRepair"`
	Model      *string `json:"model"`
	Radar      *bool   `json:"radar"`
}

func (d Deps) putSettings(ctx context.Context, project, body string) (any, int) {
	var s Settings
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return errBody("settings: " + err.Error()), http.StatusBadRequest
	}
	p, err := d.Store.Project(ctx, project)
	if err != nil {
		return errBody(err.Error()), statusOf(err)
	}
	if s.AutoRepair != nil {
		p.AutoRepair = *s.AutoRepair
	}
	if s.Model != nil {
		if *s.Model != "" {
			if _, err := d.Models(ctx, *s.Model); err != nil {
				return errBody("settings: " + err.Error()), http.StatusBadRequest
			}
		}
		p.Model = *s.Model
	}
	if s.Radar != nil {
		p.Radar = *s.Radar
	}
	if err := d.Store.PutProject(ctx, p); err != nil {
		return errBody(err.Error()), statusOf(err)
	}
	d.log().Info("settings", "project", p.ID, "auto_repair", p.AutoRepair, "model", p.Model, "radar", p.Radar)
	return p, http.StatusOK
}

// revertRequest: without confirm the API answers with the confirmation text, which is honest
// about the consequence; with confirm it reverts.
type revertRequest struct {
	Confirm bool `json:"confirm"`
}

func (d Deps) revert(ctx context.Context, life *lifecycle.Service, c Caller, repairID, body string) (any, int) {
	var r revertRequest
	if strings.TrimSpace(body) != "" {
		if err := json.Unmarshal([]byte(body), &r); err != nil {
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
	v, err := life.Revert(ctx, repairID, c.ID)
	if err != nil {
		return errBody(err.Error()), statusOf(err)
	}
	if d.Notifier != nil {
		n := Notification{Kind: NotifyReverted, ProjectID: v.Repair.ProjectID, TestID: v.Test.ID, RepairID: v.Repair.ID,
			Subject: fmt.Sprintf("Repair reverted: %s (version %d)", v.Test.ID, v.Test.Version), Summary: v.Confirmation}
		if err := d.Notifier.Publish(ctx, n.Subject, n); err != nil {
			d.log().Warn("notify", "repair", v.Repair.ID, "error", err.Error())
		}
	}
	return v, http.StatusOK
}

// manualRequest asks for the ladder on one failed run; empty rungs means the whole ladder.
type manualRequest struct {
	Rungs []gardener.Strategy `json:"rungs"`
}

// manualRepair starts the repair machine for a person: suggest-fix, diagnose, or the whole
// ladder on a failed run. The run must not be a control run (the gate refuses it); the execution
// is named after the run and the asker, so a double click starts it once.
func (d Deps) manualRepair(ctx context.Context, c Caller, runID, body string) (any, int) {
	var m manualRequest
	if strings.TrimSpace(body) != "" {
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			return errBody("manual repair: " + err.Error()), http.StatusBadRequest
		}
	}
	for _, r := range m.Rungs {
		if r != gardener.StrategySelfHeal && r != gardener.StrategySuggestFix && r != gardener.StrategyDiagnose {
			return errBody(fmt.Sprintf("manual repair: %q is not a rung (self-heal, suggest-fix, diagnose-drift)", r)), http.StatusBadRequest
		}
	}
	run, err := d.Store.Run(ctx, runID)
	if err != nil {
		return errBody(err.Error()), statusOf(err)
	}
	if run.Control {
		return errBody(fmt.Sprintf("run %s is a negative control run: it is required to fail, and no repair is made for it", run.ID)), http.StatusForbidden
	}
	in := RepairInput{Detail: RunFailed{RunID: run.ID, ProjectID: run.ProjectID, TestID: run.TestID, TestVersion: run.TestVersion, Trigger: run.Trigger, Probe: run.Probe}, Manual: &Manual{By: c.ID, Rungs: m.Rungs}}
	// Named after the run, the asker, the rungs and the ten-second window: a double click starts
	// it once, and asking again later runs the ladder again.
	name := fmt.Sprintf("manual-%s-%s-%s-%d", sanitize(run.ID), sanitize(c.ID), sanitize(fmt.Sprint(m.Rungs)), d.now().Unix()/10)
	if len(name) > 80 {
		name = name[:80]
	}
	id, err := d.Starter.Start(ctx, d.RepairMachine, name, in)
	if err != nil {
		return errBody(err.Error()), statusOf(err)
	}
	return map[string]string{"executionId": id}, http.StatusAccepted
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
