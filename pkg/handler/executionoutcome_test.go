package handler_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
)

// ended stands in for Step Functions with executions that end as the test says: a status and
// the output the repair machine gives in that end.
type ended struct {
	machines
	output map[string]string
}

func (e *ended) Describe(ctx context.Context, id string) (string, string, error) {
	status, _, err := e.machines.Describe(ctx, id)
	return status, e.output[id], err
}

// The outputs of the repair machine (statemachines/repair.asl.json) in each way it ends: Done
// is the whole state, persist's or triage's answer at $.persisted; NotEligible is $.gate.
const (
	triagedOutput = `{"detail":{"runId":"r-alpha","testId":"t-alpha","projectId":"alpha"},"manual":{"by":"ann@alpha.test"},
 "gate":{"eligible":true,"duplicate":false,"runId":"r-alpha","projectId":"alpha","testId":"t-alpha","mode":"propose","by":"ann@alpha.test"},
 "selfHeal":{"green":false,"decision":{"projectId":"alpha","testId":"t-alpha","baseVersion":1,"mode":"propose","outcome":"no-fix","usage":{}}},
 "suggestFix":{"green":false,"decision":{"projectId":"alpha","testId":"t-alpha","baseVersion":1,"mode":"propose","outcome":"no-fix","usage":{}}},
 "diagnose":{"green":false,"classification":"app-bug","decision":{"projectId":"alpha","testId":"t-alpha","baseVersion":1,"mode":"propose","outcome":"triaged","usage":{}}},
 "persisted":{"persisted":{"outcome":"triaged","triage":{"id":"triage-r-alpha","projectId":"alpha","testId":"t-alpha","classification":"app-bug"}},"notification":{"subject":"Triaged: t-alpha"}},
 "notified":{"published":true}}`
	stagedOutput = `{"detail":{"runId":"r-alpha","testId":"t-alpha"},"gate":{"eligible":true,"runId":"r-alpha","testId":"t-alpha","mode":"propose"},
 "winner":{"green":true},"persisted":{"persisted":{"outcome":"staged","staged":{"outcome":"staged","proposal":{"id":"pr-1"}}},"notification":{}},"propagated":{},"notified":{}}`
	notEligibleOutput = `{"eligible":false,"duplicate":false,"reason":"project alpha is on the free plan: repair is a Pro feature","runId":"r-alpha","projectId":"alpha","testId":"t-alpha","mode":"apply","by":"ann@alpha.test"}`
)

// TestExecutionSaysTheRepairsOutcome: an execution whose repair triaged (nothing repaired)
// SUCCEEDED as a state machine; the API's answer says the repair's outcome beside that status,
// from the output once it ended, else from the outcome event its log holds.
func TestExecutionSaysTheRepairsOutcomeFromItsOutputOrLog(t *testing.T) {
	cases := []struct {
		name    string
		status  string
		output  string
		events  []gardener.LadderEvent
		outcome string
	}{
		{"triaged", "SUCCEEDED", triagedOutput, nil, "triaged"},
		{"staged", "SUCCEEDED", stagedOutput, nil, "staged"},
		{"not eligible", "SUCCEEDED", notEligibleOutput, nil, "not-eligible"},
		{"running, decided in the log", "RUNNING", "", []gardener.LadderEvent{
			{Stage: gardener.EventRung, TestID: "t-alpha", Rung: gardener.StrategySelfHeal, Outcome: "no-fix", Message: "self-heal: no fix"},
			{Stage: gardener.EventPropagate, TestID: "t-other", Message: "carried"},
			{Stage: gardener.EventOutcome, TestID: "t-other", Outcome: "repaired", Message: "another test's"},
			{Stage: gardener.EventOutcome, TestID: "t-alpha", Outcome: "refused", Message: "refused: every proposed change was refused"},
		}, "refused"},
		{"running, undecided", "RUNNING", "", []gardener.LadderEvent{{Stage: gardener.EventReproduce, TestID: "t-alpha", Message: "replaying"}}, ""},
		{"failed before deciding", "FAILED", "", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sf, s, h, executionID := startedRepair(t)
			ex := struct{ ExecutionID string }{executionID}
			sf.status[ex.ExecutionID], sf.output[ex.ExecutionID] = c.status, c.output
			x, err := s.Store.Execution(context.Background(), ex.ExecutionID)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range c.events {
				if _, err := s.Store.AppendEvent(context.Background(), x.Name, e); err != nil {
					t.Fatal(err)
				}
			}
			got := viaHTTP(t, h, "GET", "/executions/"+ex.ExecutionID, "", alphaOnly)
			var body struct {
				Status  string  `json:"status"`
				Outcome *string `json:"outcome"`
			}
			if got.status != http.StatusOK || json.Unmarshal([]byte(got.body), &body) != nil {
				t.Fatalf("GET the execution: %+v", got)
			}
			if body.Status != c.status || (body.Outcome == nil) != (c.outcome == "") || (body.Outcome != nil && *body.Outcome != c.outcome) {
				t.Errorf("the execution answers %s, want status %s and outcome %q", got.body, c.status, c.outcome)
			}
		})
	}
}

// TestAPIStartedRepairOnTheLocalStack: on the local stack, a repair the API starts with no run
// (POST /tests/{id}/repair) climbs every rung and is triaged: the execution SUCCEEDED and says
// its outcome is triaged, and the run the API recorded for it holds the failure the first rung
// reproduced, so its page has a failing step to show.
func TestAPIStartedRepairOnTheLocalStack(t *testing.T) {
	ctx := context.Background()
	store, st := brokenStack(t)
	srv := httptest.NewServer(st.Handler())
	defer srv.Close()
	call := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+stack.DevToken("ann@example.com", "acme"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, body := call("POST", "/tests/login/repair", `{"propose":true}`)
	var started struct{ ExecutionID string }
	if status != http.StatusAccepted || json.Unmarshal([]byte(body), &started) != nil {
		t.Fatalf("POST /tests/login/repair: %d %s", status, body)
	}
	st.Wait()
	status, body = call("GET", "/executions/"+url.PathEscape(started.ExecutionID), "")
	var x struct{ Status, Outcome string }
	if status != http.StatusOK || json.Unmarshal([]byte(body), &x) != nil || x.Status != "SUCCEEDED" || x.Outcome != "triaged" {
		t.Errorf("GET the execution: %d %s; want SUCCEEDED with outcome triaged", status, body)
	}
	rec, err := store.Execution(ctx, started.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	status, body = call("GET", "/runs/"+url.PathEscape(rec.RunID), "")
	var run struct {
		Result *struct {
			Passed     bool   `json:"passed"`
			FailedStep string `json:"failedStep"`
			Message    string `json:"message"`
		} `json:"result"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &run) != nil || run.Result == nil || run.Result.Passed || run.Result.FailedStep != "2" || !strings.Contains(run.Result.Message, "no element matches") {
		t.Errorf("GET the run the repair was started with: %d %s; want the reproduced failure at step 2", status, body)
	}
}

// startedRepair is the API over two projects' services with a repair of alpha's red run started
// through it: the machines the test ends as it likes, the services, the API and the execution.
func startedRepair(t *testing.T) (*ended, handler.Services, *handler.API, string) {
	t.Helper()
	sf := &ended{machines: machines{status: map[string]string{}}, output: map[string]string{}}
	s := twoProjectServices(t, sf)
	built, err := handler.ApiFunction.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	h := built.(*handler.API)
	started := viaHTTP(t, h, "POST", "/runs/r-alpha/repair", "", alphaOnly)
	var ex struct{ ExecutionID string }
	if started.status != http.StatusAccepted || json.Unmarshal([]byte(started.body), &ex) != nil {
		t.Fatalf("manual repair: %+v", started)
	}
	return sf, s, h, ex.ExecutionID
}
