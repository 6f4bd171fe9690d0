package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/tend"
)

// TestRemoteDiffMasksEachValueOnce: over the API, suggest_fix reads the fix from the execution's
// output, which the API answers made for people (every value a step enters already masked). The
// diff of a fix that only moves a fill's locator must show the same mask on its "-" and "+"
// lines, as the local backend's does, never the mask of the mask ("[value redacted, 26 chars]"),
// which reads as a change of what the step types.
func TestRemoteDiffMasksEachValueOnce(t *testing.T) {
	const typed = "hunter2-secret!" // 15 characters
	test := gardener.Test{ID: "t1", ProjectID: "p", Name: "sign in", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/signin"},
		{Kind: gardener.Fill, Locator: gardener.MustLocator("#password"), Value: typed},
		{Kind: gardener.Intent, Goal: "sign in", Steps: []gardener.Step{{Kind: gardener.Fill, Locator: gardener.MustLocator("#email"), Value: "ada@example.com"}}},
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/tests/t1" {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(test)
	}))
	defer srv.Close()
	moved := test.Steps[1]
	moved.Locator = gardener.MustLocator(`role=textbox[name="Password"]`)
	block := test.Steps[2].Clone()
	block.Steps[0].Locator = gardener.MustLocator(`label=Email`)
	decision := tend.Decision{ProjectID: "p", TestID: "t1", BaseVersion: 1, Outcome: ladder.Staged, Verdict: &gardener.Verdict{
		Strategy: gardener.StrategySelfHeal,
		Ops:      []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &moved}, {Kind: gardener.OpReplace, Index: 2, Step: &block}},
	}}
	doc, err := json.Marshal(map[string]any{"gate": map[string]string{"runId": "r1", "testId": "t1"}, "winner": map[string]any{"decision": decision}})
	if err != nil {
		t.Fatal(err)
	}
	// What GET /executions/{id} answers, and so what the remote backend reads.
	var out executionOutput
	if err := json.Unmarshal(gardener.DataForPeople(doc), &out); err != nil {
		t.Fatal(err)
	}
	s, err := (&Remote{URL: srv.URL, Token: "dev:a@example.com:p"}).suggestion(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	// What the local backend answers for the same fix, from the stored (unmasked) verdict.
	want := diffLines(test.Steps, decision.Verdict.Ops)
	if strings.Join(s.Diff, "\n") != strings.Join(want, "\n") {
		t.Errorf("diff over the API:\n%s\nwant, as the local backend renders it:\n%s", strings.Join(s.Diff, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range s.Diff {
		if strings.Contains(l, "26 chars") || strings.Contains(l, typed) {
			t.Errorf("diff line %q masks a mask or shows the value", l)
		}
	}
}

// TestRemoteTriagedNamesTheFailure: over the API, a repair no rung won and no triage issue
// recorded (a first failure with no green run: "cannot tell drift from a bug") answers the step
// it failed at and the error, read from the rungs' decisions, as the local backend answers it.
func TestRemoteTriagedNamesTheFailure(t *testing.T) {
	test := gardener.Test{ID: "t1", ProjectID: "p", Name: "delete", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { json.NewEncoder(w).Encode(test) }))
	defer srv.Close()
	const why = "no green run of version 1 of test t1 is recorded: the gardener cannot tell drift from a bug"
	failure := tend.Decision{TestID: "t1", BaseVersion: 1, Outcome: ladder.Triaged, FailedStep: "5", Error: "step 5 (click text=Delete): no element matches text=Delete"}
	doc, err := json.Marshal(map[string]any{
		"gate":       map[string]string{"runId": "r1", "testId": "t1"},
		"selfHeal":   map[string]any{"decision": failure},
		"suggestFix": map[string]any{"decision": failure},
		"persisted":  map[string]any{"persisted": map[string]any{"outcome": "triaged", "reason": why}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out executionOutput
	if err := json.Unmarshal(gardener.DataForPeople(doc), &out); err != nil {
		t.Fatal(err)
	}
	s, err := (&Remote{URL: srv.URL}).suggestion(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Outcome != "triaged" || s.Reason != why || s.FailedStep != "5" || s.Error != failure.Error {
		t.Errorf("suggestion: outcome %q reason %q, failed step %q error %q; want triaged at step 5 with the rung's error", s.Outcome, s.Reason, s.FailedStep, s.Error)
	}
}

// TestRemoteUnknownIDsSayWhy: an id the API answers 404 for is named with why it may not be
// found, the same words for a proposal as for a run.
func TestRemoteUnknownIDsSayWhy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/queue") {
			json.NewEncoder(w).Encode(map[string]any{"rows": []any{}})
			return
		}
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"error": "not found"})
	}))
	defer srv.Close()
	r := &Remote{URL: srv.URL, Client: srv.Client()}
	const why = "visible to this token at %s (no such id, or another project's)"
	for field, in := range map[string]ApplyInput{"proposalId": {ProposalID: "x"}, "runId": {RunID: "x"}} {
		_, err := r.Apply(context.Background(), in, "")
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != field || !strings.HasSuffix(ie.Reason, fmt.Sprintf(why, srv.URL)) {
			t.Errorf("apply_repair of an unknown %s: %v; want an input error ending %q", field, err, fmt.Sprintf(why, srv.URL))
		}
	}
}
