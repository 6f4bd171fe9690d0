package handler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestApproveRequiringProof: an agent's approval ({"requireProof":true}) applies only a proven
// fix that needs no person. A staged chat edit is UNVERIFIED, which needs a person: the agent is
// refused with 403 and the reason whether its re-run is missing, red or green, and the row stays
// open. A fix that needs no person is refused with 409 until a green proof of exactly its
// operations is recorded, then applied, and the proof becomes the test's last green run. A
// person's approval (no body) of an UNVERIFIED proposal is still applied: they may approve it on
// purpose.
func TestApproveRequiringProof(t *testing.T) {
	api, s, ann := editsAPI(t)
	ctx := context.Background()
	wait := `{"source":"chat","version":%d,"ops":[{"op":"replace","index":3,"step":{"kind":"wait","for":"time","ms":%d}}]}`
	code, body, _ := as(t, api, ann, "POST", "/tests/search/edits", fmt.Sprintf(wait, 1, 900), nil)
	e := decodeEdited(t, body)
	if code != http.StatusOK || e.Outcome != "staged" || e.Proposal == nil {
		t.Fatalf("chat edit: %d %s", code, body)
	}
	open := func(id string) {
		t.Helper()
		if p, err := s.Store.Proposal(ctx, id); err != nil || p.Status != gardener.ProposalProposed {
			t.Fatalf("after a refused approval the row is %+v (%v), want still proposed", p.Status, err)
		}
		if tt, _ := s.Store.Test(ctx, "search"); tt.Version != 1 {
			t.Fatalf("a refused approval wrote the test: version %d", tt.Version)
		}
	}
	refused := func(id string, status int, why ...string) {
		t.Helper()
		code, body, _ := as(t, api, ann, "POST", "/proposals/"+id+"/approve", `{"requireProof":true}`, nil)
		if code != status {
			t.Fatalf("an agent's approval of %s: %d %s, want %d", id, code, body, status)
		}
		for _, w := range why {
			if !strings.Contains(body, w) {
				t.Fatalf("an agent's approval of %s: %d %s, want it to name %q", id, code, body, w)
			}
		}
		open(id)
	}
	chat := e.Proposal.ID
	p, err := s.Store.Proposal(ctx, chat)
	if err != nil {
		t.Fatal(err)
	}
	proof := gardener.Run{ID: gardener.ProofID("search", 1, p.Verdict.Ops), ProjectID: "acme", TestID: "search", TestVersion: 1, Trigger: gardener.TriggerProof, Probe: true,
		Result: &gardener.RunResult{TestID: "search", TestVersion: 1, Passed: false, FailedStep: "4"}, At: time.Now()}
	refused(chat, http.StatusForbidden, "held for a person", "UNVERIFIED")
	if err := s.Store.PutRun(ctx, proof); err != nil {
		t.Fatal(err)
	}
	refused(chat, http.StatusForbidden, "held for a person", "UNVERIFIED")
	proof.Result = &gardener.RunResult{TestID: "search", TestVersion: 1, Passed: true, FailedIndex: -1}
	if err := s.Store.PutRun(ctx, proof); err != nil {
		t.Fatal(err)
	}
	refused(chat, http.StatusForbidden, "held for a person", "UNVERIFIED")
	if _, err := s.Store.CloseProposal(ctx, gardener.CloseProposal{ProposalID: chat, Status: gardener.ProposalDismissed, By: "ann", At: time.Now()}); err != nil {
		t.Fatal(err)
	}

	// A fix that needs no person: the agent may apply it once it is proven.
	clean := gardener.Verdict{Strategy: gardener.StrategySelfHeal, IntentConfirmed: true,
		Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 3, Step: &gardener.Step{Kind: gardener.Wait, For: gardener.WaitTime, Ms: 800}}}}
	staged, err := s.Store.StageProposal(ctx, gardener.Proposal{ID: "prop-clean", ProjectID: "acme", TestID: "search", BaseVersion: 1, Verdict: clean, Status: gardener.ProposalProposed, StagedAt: time.Now(), UpdatedAt: time.Now()})
	if err != nil || staged.Proposal.ID != "prop-clean" {
		t.Fatalf("staging a clean fix: %+v (%v)", staged, err)
	}
	refused("prop-clean", http.StatusConflict, "not proven green")
	proof = gardener.Run{ID: gardener.ProofID("search", 1, clean.Ops), ProjectID: "acme", TestID: "search", TestVersion: 1, Trigger: gardener.TriggerProof, Probe: true,
		Result: &gardener.RunResult{TestID: "search", TestVersion: 1, Passed: false, FailedStep: "4"}, At: time.Now()}
	if err := s.Store.PutRun(ctx, proof); err != nil {
		t.Fatal(err)
	}
	refused("prop-clean", http.StatusConflict, "did not pass")
	proof.Result = &gardener.RunResult{TestID: "search", TestVersion: 1, Passed: true, FailedIndex: -1}
	if err := s.Store.PutRun(ctx, proof); err != nil {
		t.Fatal(err)
	}
	approve := "/proposals/prop-clean/approve"
	if code, body, _ := as(t, api, ann, "POST", approve, `{"requireProof":"yes"}`, nil); code != http.StatusBadRequest || !strings.Contains(body, "approve") {
		t.Errorf("a malformed approve body: %d %s", code, body)
	}
	code, body, _ = as(t, api, ann, "POST", approve, `{"requireProof":true}`, nil)
	var a struct {
		Test   gardener.Test   `json:"test"`
		Repair gardener.Repair `json:"repair"`
	}
	if err := json.Unmarshal([]byte(body), &a); code != http.StatusOK || err != nil || a.Test.Version != 2 || a.Repair.ApprovedBy != "ann" {
		t.Fatalf("approve of the proven proposal: %d %s", code, body)
	}
	if green, err := s.Store.LastGreenRun(ctx, "search"); err != nil || green.TestVersion != 2 || green.ID != gardener.GreenRunID(a.Repair.ID) {
		t.Errorf("the proof did not become the last green run: %+v (%v)", green, err)
	}

	// A person approves an UNVERIFIED chat edit on purpose.
	code, body, _ = as(t, api, ann, "POST", "/tests/search/edits", fmt.Sprintf(wait, 2, 700), nil)
	if e = decodeEdited(t, body); code != http.StatusOK || e.Proposal == nil {
		t.Fatalf("second chat edit: %d %s", code, body)
	}
	code, body, _ = as(t, api, ann, "POST", "/proposals/"+e.Proposal.ID+"/approve", "", nil)
	if code != http.StatusOK || !strings.Contains(body, `"version":3`) {
		t.Errorf("a person's approval of an UNVERIFIED proposal: %d %s", code, body)
	}
	// docs/api.md: an approval that carried nothing says nothing of carrying.
	var keys map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"propagated", "propagateError"} {
		if _, ok := keys[k]; ok {
			t.Errorf("an approval without propagate answers %q: %s", k, body)
		}
	}
}

// TestRunIsReadInItsProject: a run is read by its project's people without the values its
// steps entered; another project's run answers as one that does not exist.
func TestRunIsReadInItsProject(t *testing.T) {
	api, store, _ := twoProjects(t)
	ctx := context.Background()
	secret := "hunter2-typed"
	r := gardener.Run{ID: "r-typed", ProjectID: "alpha", TestID: "t-alpha", TestVersion: 1, Trigger: gardener.TriggerSchedule, Control: true, At: time.Now(),
		Result: &gardener.RunResult{TestID: "t-alpha", TestVersion: 1, FailedStep: "2", FailedIndex: 1, Steps: []gardener.StepRecord{{Path: "1", Kind: gardener.Fill, Values: []string{secret}, Passed: true}}}}
	if err := store.PutRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	got := viaHTTP(t, api, "GET", "/runs/r-typed", "", alphaOnly)
	var run gardener.Run
	if err := json.Unmarshal([]byte(got.body), &run); got.status != http.StatusOK || err != nil || !run.Control || run.TestID != "t-alpha" || run.Result == nil || len(run.Result.Steps) != 1 {
		t.Fatalf("GET /runs/r-typed as alpha: %+v", got)
	}
	if strings.Contains(got.body, secret) {
		t.Errorf("the run's answer carries a typed value: %s", got.body)
	}
	if stored, _ := store.Run(ctx, "r-typed"); len(stored.Result.Steps[0].Values) != 1 {
		t.Error("reading the run changed the stored record")
	}
	if other := viaHTTP(t, api, "GET", "/runs/r-typed", "", betaOnly); other.status != http.StatusNotFound {
		t.Errorf("GET /runs/r-typed as beta: %+v, want 404", other)
	}
}
