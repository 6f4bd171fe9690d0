package handler_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

// TestRunsNeverRepairedAreRefusedAtTheDoor: a manual repair of a run the gate never serves — a
// negative control run, a scenario probe — is answered 403 by the API with the gate's reason,
// and nothing starts.
func TestRunsNeverRepairedAreRefusedAtTheDoor(t *testing.T) {
	ctx := context.Background()
	s := fullServices(t)
	if err := s.Store.PutProject(ctx, gardener.Project{ID: "review", Plan: gardener.PlanPro, Model: "builtin"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.CreateTest(ctx, gardener.Test{ID: "review-active", ProjectID: "review", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}); err != nil {
		t.Fatal(err)
	}
	api, err := handler.ApiFunction.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		probe string
		run   gardener.Run
		want  string
	}{
		{"control run", gardener.Run{ID: "control-1", Control: true, Trigger: gardener.TriggerSchedule}, "negative control run"},
		{"scenario probe", gardener.Run{ID: "probe-1", Probe: true, Trigger: gardener.TriggerManual}, "scenario probe"},
	} {
		t.Run(tc.probe, func(t *testing.T) {
			run := tc.run
			run.ProjectID, run.TestID, run.TestVersion, run.At = "review", "review-active", 1, time.Unix(1e9, 0)
			if err := s.Store.PutRun(ctx, run); err != nil {
				t.Fatal(err)
			}
			got := viaLambda(t, api.(*handler.API), http.MethodPost, "/runs/"+run.ID+"/repair", `{}`, map[string]string{"email": "ada@example.com", "projects": "review"})
			if got.status != http.StatusForbidden || !strings.Contains(got.body, tc.want) {
				t.Fatalf("POST /runs/%s/repair: %d %s, want 403 naming %q", run.ID, got.status, got.body, tc.want)
			}
			if xs, _ := s.Store.RunExecutions(ctx, run.ID); len(xs) != 0 {
				t.Fatalf("a refused %s started %+v", tc.probe, xs)
			}
		})
	}
}

// TestMarkReviewedAnswersAsDocumented: mark-reviewed acts only on a repair still badged
// Auto-repaired; a second mark, a reverted repair and a repair a person approved are 409 with
// the reason, and nothing is written.
func TestMarkReviewedAnswersAsDocumented(t *testing.T) {
	ctx := context.Background()
	s := fullServices(t)
	if err := s.Store.PutProject(ctx, gardener.Project{ID: "review", Plan: gardener.PlanPro, Model: "builtin"}); err != nil {
		t.Fatal(err)
	}
	pre := []gardener.Step{{Kind: gardener.Goto, URL: "/"}}
	fixed := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}}
	at := time.Unix(1e9, 0)
	for i, r := range []gardener.Repair{
		{ID: "rp-twice", Auto: true, Badge: true},
		{ID: "rp-reverted", Auto: true, Badge: true},
		{ID: "rp-approved"},
	} {
		id := "t-" + r.ID
		if err := s.Store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "review", Status: gardener.StatusActive, Version: 1, Steps: pre}); err != nil {
			t.Fatal(err)
		}
		r.ProjectID, r.TestID, r.PreSteps, r.FromVersion, r.ToVersion, r.At = "review", id, pre, 1, 2, at.Add(time.Duration(i)*time.Second)
		if _, err := s.Store.WriteRepair(ctx, gardener.WriteRepair{Steps: fixed, Repair: r}); err != nil {
			t.Fatal(err)
		}
	}
	api, err := handler.ApiFunction.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]string{"email": "ada@example.com", "projects": "review"}
	if got := viaLambda(t, api.(*handler.API), http.MethodPost, "/repairs/rp-twice/reviewed", `{}`, claims); got.status != http.StatusOK {
		t.Fatalf("first mark reviewed: %d %s", got.status, got.body)
	}
	if got := viaLambda(t, api.(*handler.API), http.MethodPost, "/repairs/rp-reverted/revert", `{"confirm":true}`, claims); got.status != http.StatusOK {
		t.Fatalf("revert: %d %s", got.status, got.body)
	}
	for _, tc := range []struct{ probe, repair, want string }{
		{"mark reviewed twice", "rp-twice", "was reviewed already by ada@example.com"},
		{"mark a reverted repair reviewed", "rp-reverted", "was reverted by ada@example.com"},
		{"mark a repair a person approved reviewed", "rp-approved", "carries no Auto-repaired badge"},
	} {
		before, err := s.Store.Repair(ctx, tc.repair)
		if err != nil {
			t.Fatal(err)
		}
		got := viaLambda(t, api.(*handler.API), http.MethodPost, "/repairs/"+tc.repair+"/reviewed", `{}`, map[string]string{"email": "grace@example.com", "projects": "review"})
		if got.status != http.StatusConflict || !strings.Contains(got.body, tc.want) {
			t.Errorf("%s: %d %s, want 409 naming %q", tc.probe, got.status, got.body, tc.want)
		}
		if after, _ := s.Store.Repair(ctx, tc.repair); after.ReviewedBy != before.ReviewedBy || after.Badge != before.Badge {
			t.Errorf("%s: the refused mark wrote %+v", tc.probe, after)
		}
	}
}
