package console_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/tests/canary"
)

// TestPagesCarryNoTypedValue: the console's pages — the queue with a staged fix (diff rows,
// change details, notes, NOT KEPT, the contract), the test page (its steps, its repairs, its
// triage issue) and the page of the failed run — show no value the test types, including a
// requirement recorded before values were masked. Plain HTTP: no browser needed.
func TestPagesCarryNoTypedValue(t *testing.T) {
	f := canary.Climb(t)
	w := seed(t)
	ctx := context.Background()
	tc := f.Test
	if err := w.store.CreateTest(ctx, tc); err != nil {
		t.Fatal(err)
	}
	v := *f.Held.Verdict
	life := lifecycle.New(w.store, nil)
	if _, err := life.Stage(ctx, gardener.Proposal{ID: "p-canary", ProjectID: "shop", TestID: tc.ID, BaseVersion: 1, Verdict: v,
		FailedStep: f.Held.Failure.Step, Error: f.Held.Failure.Message}); err != nil {
		t.Fatal(err)
	}
	legacy := v
	legacy.Contract.Requirements = append([]gardener.Requirement{{Step: "2", What: "enters", Detail: `"` + canary.Typed + `"`}}, v.Contract.Requirements...)
	fixed, err := gardener.ApplySteps(tc.Steps, v.Ops)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.store.WriteRepair(ctx, gardener.WriteRepair{Steps: fixed, Repair: gardener.Repair{ID: "r-canary", ProjectID: "shop", TestID: tc.ID,
		Verdict: legacy, PreSteps: tc.Steps, FromVersion: 1, ToVersion: 2, At: w.now, Auto: true, Badge: true}}); err != nil {
		t.Fatal(err)
	}
	issue := *f.Triaged.Triage
	issue.ProjectID, issue.TestID = "shop", tc.ID
	if err := w.store.PutTriageIssue(ctx, issue); err != nil {
		t.Fatal(err)
	}
	failed := f.Triaged.Failure
	if err := w.store.PutRun(ctx, gardener.Run{ID: "run-canary", ProjectID: "shop", TestID: tc.ID, TestVersion: 1, Trigger: gardener.TriggerSchedule, At: w.now,
		Result: &gardener.RunResult{TestID: tc.ID, TestVersion: 1, FailedStep: failed.Step, FailedIndex: 2, ErrorKind: failed.ErrorKind, Message: failed.Message}}); err != nil {
		t.Fatal(err)
	}

	srv := serve(t, w)
	c := newClient(t, srv.URL)
	c.signIn("ann@example.com", "shop")
	for _, path := range []string{"/console/projects/shop", "/console/tests/" + tc.ID, "/console/runs/run-canary"} {
		status, body, _ := c.do("GET", path, nil, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, status)
		}
		canary.Absent(t, "the page "+path, body)
	}
}
