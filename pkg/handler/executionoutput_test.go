package handler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/tend"
)

// nulls are the paths in a decoded JSON document whose value is null.
func nulls(v any, path string) []string {
	var out []string
	switch v := v.(type) {
	case nil:
		return []string{path}
	case map[string]any:
		for k, e := range v {
			out = append(out, nulls(e, path+"."+k)...)
		}
	case []any:
		for i, e := range v {
			out = append(out, nulls(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	sort.Strings(out)
	return out
}

// at is the value at a path of map keys in a decoded JSON document, nil when it is not there.
func at(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// TestExecutionAnswersWhatWasWrittenWhole: the repair machine passes briefs of what it wrote (ids;
// no steps, operations or verdict), and GET /executions/{id} answers the records whole, read
// back from the store: the repair's verdict says what the winner says (checks proven sensitive
// in 2 of 2, intent confirmed, its operations and changes), its pre-repair steps and the test's
// steps are there — rebuilt from the repair once the test has moved on — and so is a propagated
// copy's proposal. No list answers null. A record the store does not hold has the fields the
// brief emptied left out, not shown as empty lists and zero counts.
func TestExecutionAnswersWhatWasWrittenWhole(t *testing.T) {
	ctx := context.Background()
	sf, s, h, executionID := startedRepair(t)

	when := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	pre := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, {Kind: gardener.Click, Locator: gardener.MustLocator("#go")}}
	click := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator("#go2")}
	fixed := []gardener.Step{pre[0], click}
	v := gardener.Verdict{Strategy: gardener.StrategySelfHeal, Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &click}},
		Changes:         []gardener.Change{{Class: gardener.ClassRepair, Before: &pre[1], After: &click, Path: "2", Detail: "locator #go → #go2"}},
		Contract:        gardener.Contract{Requirements: []gardener.Requirement{{Step: "1", What: "checks", Detail: "the page /login", Kept: true}}},
		Sensitivity:     gardener.Sensitivity{Sensitive: 2, Total: 2},
		IntentConfirmed: true}
	repair := gardener.Repair{ID: "rp-alpha", ProjectID: "alpha", TestID: "t-alpha", RunID: "r-alpha", Verdict: v, PreSteps: pre, FromVersion: 1, ToVersion: 2, At: when, Auto: true, Badge: true}
	wrote, err := s.Store.WriteRepair(ctx, gardener.WriteRepair{Steps: fixed, Repair: repair})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store.CreateTest(ctx, gardener.Test{ID: "u-alpha", ProjectID: "alpha", Name: "sign up", Status: gardener.StatusActive, Version: 1, Steps: pre}); err != nil {
		t.Fatal(err)
	}
	staged, err := s.Store.StageProposal(ctx, gardener.Proposal{ID: "p-u-alpha", ProjectID: "alpha", TestID: "u-alpha", BaseVersion: 1, Status: gardener.ProposalProposed, Verdict: v,
		Triggers: []gardener.AppChange{}, Reason: "propagated from t-alpha", StagedAt: when, UpdatedAt: when})
	if err != nil {
		t.Fatal(err)
	}
	winner := tend.Decision{ProjectID: "alpha", TestID: "t-alpha", BaseVersion: 1, Mode: gardener.ModeApply, RunID: "r-alpha", Outcome: ladder.Repaired, Verdict: &v, ProofID: "proof-1"}
	outputOf := func(p tend.Persisted, props ...tend.PropagatedWrite) string {
		briefs := []tend.PropagatedWrite{}
		for _, pw := range props {
			briefs = append(briefs, pw.Brief())
		}
		b, err := json.Marshal(map[string]any{
			"gate":       map[string]any{"eligible": true, "runId": "r-alpha", "projectId": "alpha", "testId": "t-alpha", "mode": "apply"},
			"winner":     map[string]any{"green": true, "decision": winner},
			"persisted":  handler.PersistResult{Persisted: p.Brief(), Notify: true},
			"propagated": handler.PropagateResult{Propagated: briefs},
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	read := func(outcome string) any {
		t.Helper()
		got := viaHTTP(t, h, "GET", "/executions/"+executionID, "", alphaOnly)
		var body struct {
			Outcome string `json:"outcome"`
			Output  any    `json:"output"`
		}
		if got.status != http.StatusOK || json.Unmarshal([]byte(got.body), &body) != nil || body.Outcome != outcome {
			t.Fatalf("GET the execution: %+v", got)
		}
		if n := nulls(body.Output, "output"); len(n) > 0 {
			t.Errorf("the answer has null at %v", n)
		}
		return body.Output
	}
	sf.status[executionID] = "SUCCEEDED"
	copied := tend.PropagatedWrite{Propagated: ladder.Propagated{TestID: "u-alpha", BaseVersion: 1, Green: true, Ops: v.Ops, Verdict: &v},
		Persisted: &tend.Persisted{Outcome: ladder.Staged, Staged: &staged}}
	sf.output[executionID] = outputOf(tend.Persisted{Outcome: ladder.Repaired, Applied: &lifecycle.Applied{Test: wrote, Repair: repair}}, copied)

	for _, moved := range []bool{false, true} {
		if moved {
			// A person's edit moves the test on: the steps the repair wrote are rebuilt from it.
			edited := wrote
			edited.Name = "sign in, edited"
			if _, err := s.Store.SaveTest(ctx, edited); err != nil {
				t.Fatal(err)
			}
		}
		out := read("repaired")
		applied := at(out, "persisted", "persisted", "applied")
		wantVerdict := at(out, "winner", "decision", "verdict")
		for _, k := range []string{"sensitivity", "intentConfirmed", "ops", "changes", "contract", "strategy"} {
			if got, want := at(applied, "repair", "verdict", k), at(wantVerdict, k); want == nil || !reflect.DeepEqual(got, want) {
				t.Errorf("moved %v: the repair's verdict says %s %v, the winner %v", moved, k, got, want)
			}
			if got, want := at(out, "propagated", "propagated", 0, "verdict", k), at(wantVerdict, k); !reflect.DeepEqual(got, want) {
				t.Errorf("moved %v: the propagated copy's verdict says %s %v, the winner %v", moved, k, got, want)
			}
		}
		if steps, _ := at(applied, "repair", "preSteps").([]any); len(steps) != 2 {
			t.Errorf("moved %v: the repair's pre-repair steps %v", moved, at(applied, "repair", "preSteps"))
		}
		if steps, _ := at(applied, "test", "steps").([]any); len(steps) != 2 || at(steps, 1, "locator") != "css=#go2" {
			t.Errorf("moved %v: the test as the repair wrote it has steps %v", moved, at(applied, "test", "steps"))
		}
		if v := at(applied, "test", "version"); v != float64(2) {
			t.Errorf("moved %v: the test the repair wrote is version %v, want 2", moved, v)
		}
		if r := at(out, "propagated", "propagated", 0, "persisted", "staged", "proposal", "reason"); r != "propagated from t-alpha" {
			t.Errorf("moved %v: the propagated copy's proposal %v", moved, at(out, "propagated", "propagated", 0, "persisted"))
		}
	}

	// Records the store does not hold: what the brief emptied is left out, nothing reads null.
	gone := repair
	gone.ID = "rp-gone"
	sf.output[executionID] = outputOf(tend.Persisted{Outcome: ladder.Repaired, Applied: &lifecycle.Applied{Test: gardener.Test{ID: "t-gone", ProjectID: "alpha", Status: gardener.StatusActive, Version: 2}, Repair: gone}})
	out := read("repaired")
	verdict, _ := at(out, "persisted", "persisted", "applied", "repair", "verdict").(map[string]any)
	if len(verdict) != 1 || verdict["strategy"] != "self-heal" {
		t.Errorf("a repair the store does not hold answers its verdict as %v, want only its strategy", verdict)
	}
	if test, _ := at(out, "persisted", "persisted", "applied", "test").(map[string]any); test == nil || test["steps"] != nil {
		t.Errorf("a test the store does not hold answers %v, want no steps", test)
	}

	// A triage issue is answered whole, its evidence and attempts with it.
	issue := gardener.TriageIssue{ID: "triage-r-alpha", ProjectID: "alpha", TestID: "t-alpha", RunID: "r-alpha", Classification: gardener.AppBug, FailedStep: "2",
		Error: "no element matches css=#go", Evidence: []string{"500 from /api/login"}, Attempts: []gardener.Attempt{{Rung: gardener.StrategySelfHeal, Outcome: "red at step 2"}}, At: when}
	if err := s.Store.PutTriageIssue(ctx, issue); err != nil {
		t.Fatal(err)
	}
	sf.output[executionID] = outputOf(tend.Persisted{Outcome: ladder.Triaged, Triage: &issue})
	out = read("triaged")
	if ev := at(out, "persisted", "persisted", "triage", "evidence", 0); ev != "500 from /api/login" {
		t.Errorf("the triage issue's evidence answers %v", at(out, "persisted", "persisted", "triage"))
	}
	if r := at(out, "persisted", "persisted", "triage", "attempts", 0, "rung"); r != "self-heal" {
		t.Errorf("the triage issue's attempts answer %v", at(out, "persisted", "persisted", "triage"))
	}
}
