package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/eventstream"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/tend"
)

// Remote is the backend over a deployed review API: suggest_fix starts the manual ladder there
// (POST /runs/{id}/repair or /tests/{id}/repair, asking it to propose) and follows the
// execution; apply_repair is the queue's approve route. The API's token decides what is visible
// and who approves.
type Remote struct {
	// URL is the API's base URL.
	URL string
	// Token is the bearer token every request carries.
	Token  string
	Client *http.Client
	// Poll is how often a running execution is read; zero is 2s.
	Poll time.Duration
}

// APIError is an answer of the API other than success.
type APIError struct {
	Method, Path string
	Status       int
	Message      string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Message)
}

func (r *Remote) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s %s: encoding the body: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(r.URL, "/")+path, rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+r.Token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct{ Error, Message string }
		_ = json.Unmarshal(b, &e)
		return &APIError{Method: method, Path: path, Status: resp.StatusCode, Message: cmp.Or(e.Error, e.Message, strings.TrimSpace(string(b)), resp.Status)}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not what the API answers: %w", method, path, err)
	}
	return nil
}

// Suggest starts the manual ladder in propose mode on the API and follows its execution's
// events. The API asks the manual gate before it starts anything (a control run, a probe, a run
// of a version that is gone are 403 with the gate's reason; what the token cannot see is 404),
// and its answer is translated as the local backend translates the same refusal.
func (r *Remote) Suggest(ctx context.Context, in SuggestInput, _ string, progress func(string)) (Suggestion, error) {
	rungs := in.Rungs
	if rungs == nil {
		rungs = []string{}
	}
	body := map[string]any{"rungs": rungs, "propose": true}
	path := "/tests/" + url.PathEscape(in.TestID) + "/repair"
	if in.RunID != "" {
		path = "/runs/" + url.PathEscape(in.RunID) + "/repair"
	}
	var started struct {
		ExecutionID string `json:"executionId"`
	}
	if err := r.do(ctx, http.MethodPost, path, body, &started); err != nil {
		return Suggestion{}, suggestError(in, classOf(err), err, fmt.Sprintf("visible to this token at %s (no such id, or another project's)", r.URL))
	}
	out, err := r.wait(ctx, started.ExecutionID, progress)
	if err != nil {
		return Suggestion{}, err
	}
	sg, err := r.suggestion(ctx, out)
	if err == nil && sg.RunID != "" {
		sg.Cost = r.costOf(ctx, sg.RunID, started.ExecutionID)
	}
	return sg, err
}

// costOf is what the execution's repair cost, as GET /runs/{runId} answers it with the run;
// empty when the API recorded none for it (a deployment on AWS records none yet) or the run
// cannot be read now: the suggestion stands without it.
func (r *Remote) costOf(ctx context.Context, runID, executionID string) string {
	var run struct {
		Costs []gardener.RepairCost `json:"costs"`
	}
	if err := r.do(ctx, http.MethodGet, "/runs/"+url.PathEscape(runID), nil, &run); err != nil {
		return ""
	}
	for _, c := range run.Costs {
		if c.Execution != "" && strings.HasSuffix(executionID, ":"+c.Execution) {
			return c.Summary()
		}
	}
	return ""
}

// RunNow is POST /tests/{testId}/runs: the API replays the test in its browser and records the
// run; the token's caller is who ran it.
func (r *Remote) RunNow(ctx context.Context, in RunInput, _ string) (Ran, error) {
	var ran gardening.RanNow
	if err := r.do(ctx, http.MethodPost, "/tests/"+url.PathEscape(in.TestID)+"/runs", nil, &ran); err != nil {
		return Ran{}, runError(in, classOf(err), err, fmt.Sprintf("visible to this token at %s (no such id, or another project's)", r.URL))
	}
	return ranOf(ran), nil
}

// classOf reads an answer of the API back as the class of the application layer's error it
// answered: the inverse of gardening.ErrorClass.HTTPStatus for the refusals a tool names.
func classOf(err error) gardening.ErrorClass {
	var api *APIError
	if !errors.As(err, &api) {
		return gardening.ClassInternal
	}
	switch api.Status {
	case http.StatusNotFound:
		return gardening.ClassNotFound
	case http.StatusBadRequest:
		return gardening.ClassBadInput
	case http.StatusForbidden:
		return gardening.ClassRefused
	case http.StatusBadGateway:
		return gardening.ClassUnreachable
	}
	return gardening.ClassInternal
}

// executionOutput is what the repair machine's execution ends with: its whole state, or the gate
// alone when the run was not eligible.
type executionOutput struct {
	Eligible *bool  `json:"eligible"`
	Reason   string `json:"reason"`
	RunID    string `json:"runId"`
	TestID   string `json:"testId"`
	Gate     *struct {
		RunID  string `json:"runId"`
		TestID string `json:"testId"`
	} `json:"gate"`
	Winner *struct {
		Decision tend.Decision `json:"decision"`
	} `json:"winner"`
	// Each rung's own decision (its brief): the failure it reproduced is there when no rung won
	// and no triage issue was filed (a first failure the gardener cannot tell from a bug).
	SelfHeal   *rungOutput `json:"selfHeal"`
	SuggestFix *rungOutput `json:"suggestFix"`
	Diagnose   *rungOutput `json:"diagnose"`
	Persisted  *struct {
		Persisted tend.Persisted `json:"persisted"`
	} `json:"persisted"`
	Error *struct {
		Error string `json:"Error"`
		Cause string `json:"Cause"`
	} `json:"error"`
}

// rungOutput is one rung's result in the execution's output.
type rungOutput struct {
	Decision tend.Decision `json:"decision"`
}

// wait follows the execution's event log (GET /executions/{id}/events?after=N), sending each
// event's line as it is read, until the log says the execution ended with every event read;
// then it reads the execution's output.
func (r *Remote) wait(ctx context.Context, id string, progress func(string)) (executionOutput, error) {
	poll := cmp.Or(r.Poll, 2*time.Second)
	after := 0
	for {
		var page eventstream.Page
		path := fmt.Sprintf("/executions/%s/events?after=%d", url.PathEscape(id), after)
		if err := r.do(ctx, http.MethodGet, path, nil, &page); err != nil {
			return executionOutput{}, err
		}
		for _, e := range page.Events {
			progress(e.Line())
		}
		after = max(after, page.Next)
		if page.Done {
			break
		}
		if len(page.Events) < gardener.MaxEventPage {
			select {
			case <-ctx.Done():
				return executionOutput{}, fmt.Errorf("waiting for execution %s: %w", id, ctx.Err())
			case <-time.After(poll):
			}
		}
	}
	var x struct {
		Status string          `json:"status"`
		Output json.RawMessage `json:"output"`
	}
	if err := r.do(ctx, http.MethodGet, "/executions/"+url.PathEscape(id), nil, &x); err != nil {
		return executionOutput{}, err
	}
	if x.Status != "SUCCEEDED" {
		return executionOutput{}, fmt.Errorf("execution %s ended %s: %s", id, x.Status, string(x.Output))
	}
	var out executionOutput
	if err := json.Unmarshal(x.Output, &out); err != nil {
		return executionOutput{}, fmt.Errorf("execution %s: its output is not the repair machine's: %w", id, err)
	}
	return out, nil
}

func (r *Remote) suggestion(ctx context.Context, out executionOutput) (Suggestion, error) {
	if out.Eligible != nil && !*out.Eligible {
		s := Suggestion{Outcome: "not-eligible", Reason: out.Reason, TestID: out.TestID, RunID: out.RunID}
		finish(&s)
		return s, nil
	}
	s := Suggestion{}
	if out.Gate != nil {
		s.TestID, s.RunID = out.Gate.TestID, out.Gate.RunID
	}
	var test gardener.Test
	if err := r.do(ctx, http.MethodGet, "/tests/"+url.PathEscape(s.TestID), nil, &test); err != nil {
		return Suggestion{}, err
	}
	s.Version, s.BaseVersion = test.Version, test.Version
	if w := out.Winner; w != nil {
		d := w.Decision
		s.Outcome, s.Reason, s.BaseVersion, s.FailedStep, s.Error = string(d.Outcome), d.Reason, d.BaseVersion, d.FailedStep, d.Error
		if d.Verdict != nil {
			base := test.Steps
			if d.BaseVersion != test.Version {
				base = nil
				s.Notes = append(s.Notes, fmt.Sprintf("the test moved to version %d since the fix was proven on version %d: the diff is not shown, and the proposal is stale", test.Version, d.BaseVersion))
			}
			describeVerdict(&s, base, unmasked(*d.Verdict))
		}
		describeRefusals(&s, d.Refusals)
	}
	if p := out.Persisted; p != nil {
		if s.Outcome == "" {
			s.Outcome, s.Reason = string(p.Persisted.Outcome), p.Persisted.Reason
		}
		if tr := p.Persisted.Triage; tr != nil {
			s.FailedStep, s.Error = tr.FailedStep, tr.Error
		}
		describeStaged(&s, p.Persisted)
	}
	// The failure the ladder started from, as the local backend answers it, when neither a
	// winning rung nor a triage issue carries it.
	for _, r := range []*rungOutput{out.SelfHeal, out.SuggestFix, out.Diagnose} {
		if s.FailedStep == "" && s.Error == "" && r != nil {
			s.FailedStep, s.Error = r.Decision.FailedStep, r.Decision.Error
		}
	}
	if s.Outcome == "" {
		s.Outcome = string(ladder.Triaged)
		if out.Error != nil {
			s.Reason = "the ladder stopped on an error: " + out.Error.Error
		}
	}
	finish(&s)
	return s, nil
}

// Apply approves the proposal through the API's approve route, demanding a green proof: the API
// records its token's caller as the approver and refuses, with the reason, a proposal that is
// stale (and marks it stale), no longer open, or not proven green. Given a run, it refuses a
// control run or a probe and applies the open proposal computed on the run's version of its test.
func (r *Remote) Apply(ctx context.Context, in ApplyInput, _ string) (Applied, error) {
	id := in.ProposalID
	if in.RunID != "" {
		var err error
		if id, err = r.proposalOfRun(ctx, in.RunID); err != nil {
			return Applied{}, err
		}
	}
	var a gardening.Approval
	err := r.do(ctx, http.MethodPost, "/proposals/"+url.PathEscape(id)+"/approve", map[string]any{"requireProof": true, "propagate": in.Propagate}, &a)
	if e, ok := err.(*APIError); ok {
		switch e.Status {
		case http.StatusNotFound:
			return Applied{}, &InputError{Field: "proposalId", Reason: fmt.Sprintf("no proposal %q visible to this token at %s (no such id, or another project's)", id, r.URL)}
		case http.StatusConflict, http.StatusForbidden, http.StatusBadRequest:
			return Applied{}, &RefusedError{ProposalID: id, Reason: e.Message}
		}
	}
	if err != nil {
		return Applied{}, err
	}
	return Applied{ProposalID: id, TestID: a.Test.ID, RepairID: a.Repair.ID, Version: a.Test.Version, ApprovedBy: a.Repair.ApprovedBy, Diff: diffLines(a.Repair.PreSteps, a.Repair.Verdict.Ops),
		Others: a.OthersSaid(), Propagated: a.PropagatedSaid()}, nil
}

// proposalOfRun finds the open proposal of the run's test in its project's queue, computed on
// the version the run failed on (openProposalOf, as the local backend).
func (r *Remote) proposalOfRun(ctx context.Context, runID string) (string, error) {
	var run gardener.Run
	if err := r.do(ctx, http.MethodGet, "/runs/"+url.PathEscape(runID), nil, &run); err != nil {
		if classOf(err) == gardening.ClassNotFound {
			return "", &InputError{Field: "runId", Reason: fmt.Sprintf("no run %q visible to this token at %s (no such id, or another project's)", runID, r.URL)}
		}
		return "", err
	}
	var q struct {
		Rows []struct {
			ProposalID  string `json:"proposalId"`
			TestID      string `json:"testId"`
			BaseVersion int    `json:"baseVersion"`
		} `json:"rows"`
	}
	if err := r.do(ctx, http.MethodGet, "/projects/"+url.PathEscape(run.ProjectID)+"/queue", nil, &q); err != nil {
		return "", err
	}
	// The queue holds only open proposals.
	open := make([]gardener.Proposal, len(q.Rows))
	for i, row := range q.Rows {
		open[i] = gardener.Proposal{ID: row.ProposalID, TestID: row.TestID, BaseVersion: row.BaseVersion, Status: gardener.ProposalProposed}
	}
	p, err := openProposalOf(run, open)
	return p.ID, err
}

// unmasked is a verdict read from the execution's output, which the API answers made for people
// (gardener.DataForPeople): each value an op's step enters is a mask there. The diff renders
// values masked, so a mask rendered as a value would read "[value redacted, 26 chars]" on the
// "+" line against the "-" line's real length: a change of what the step types that the fix
// does not make. Each mask becomes a stand-in of the length it names, which the diff masks back
// to the same mask; no value is known here, and none is shown.
func unmasked(v gardener.Verdict) gardener.Verdict {
	v.Ops = slices.Clone(v.Ops)
	for i, op := range v.Ops {
		if op.Step != nil {
			st := standIns(*op.Step)
			v.Ops[i].Step = &st
		}
	}
	return v
}

// standIns is s with each mask of a value it (or a step of its block) enters replaced by as many
// characters as the mask counts.
func standIns(s gardener.Step) gardener.Step {
	if n, ok := gardener.MaskedLength(s.Value); ok && s.Enters() {
		s.Value = strings.Repeat("*", n)
	}
	if len(s.Steps) > 0 {
		inner := make([]gardener.Step, len(s.Steps))
		for i, st := range s.Steps {
			inner[i] = standIns(st)
		}
		s.Steps = inner
	}
	return s
}
