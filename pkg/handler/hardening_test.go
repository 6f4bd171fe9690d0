package handler_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/modelspec"
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
			if xs, err := s.Store.RunExecutions(ctx, run.ID); err != nil || len(xs) != 0 {
				t.Fatalf("a refused %s started %+v (%v)", tc.probe, xs, err)
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
	// A revert that cannot happen is refused whether it is asked for its confirmation ({}) or
	// confirmed: one 409 in one wording, never a confirmation of a revert that will be refused.
	asked := viaLambda(t, api.(*handler.API), http.MethodPost, "/repairs/rp-reverted/revert", `{}`, claims)
	again := viaLambda(t, api.(*handler.API), http.MethodPost, "/repairs/rp-reverted/revert", `{"confirm":true}`, claims)
	if asked.status != http.StatusConflict || again.status != http.StatusConflict || asked.body != again.body || !strings.Contains(again.body, "was reverted already by ada@example.com") {
		t.Errorf("a reverted repair's revert: asked %d %s, confirmed %d %s; want the same 409 naming who reverted it", asked.status, asked.body, again.status, again.body)
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
		if after, err := s.Store.Repair(ctx, tc.repair); err != nil || after.ReviewedBy != before.ReviewedBy || after.Badge != before.Badge {
			t.Errorf("%s: the refused mark wrote %+v (%v)", tc.probe, after, err)
		}
	}
}

// TestPlanAndModelAreTheDeployments: the plan is the deployment's, not the project's members':
// a project the API creates is on the deployment's plan, and a PUT naming another plan is 403
// naming the setting, whoever's token names the project; a model setting naming a Bedrock model
// the deployment does not allow is refused when it is saved, 400 naming the setting and the
// model it allows.
func TestPlanAndModelAreTheDeployments(t *testing.T) {
	ctx := context.Background()
	s := fullServices(t)
	s.Plan = gardener.PlanFree
	allowed := modelspec.Options{Allowed: []string{"anthropic.allowed-v1"}, AllowedFrom: "ModelId (BEDROCK_MODEL_ID)"}
	s.Models = func(ctx context.Context, spec string) (gardener.Model, error) {
		return modelspec.Open(ctx, spec, allowed)
	}
	t.Setenv("AWS_REGION", "us-east-1")
	api, err := handler.ApiFunction.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	member := map[string]string{"email": "ada@example.com", "projects": "shop,other"}
	if got := viaLambda(t, api.(*handler.API), http.MethodPut, "/projects/shop", `{"name":"Shop"}`, member); got.status != http.StatusCreated || !strings.Contains(got.body, `"plan":"free"`) {
		t.Fatalf("create: %d %s; want 201 on the deployment's plan, free", got.status, got.body)
	}
	for _, tc := range []struct {
		probe, method, path, body string
		status                    int
		want                      string
	}{
		{"a member makes a free project pro", http.MethodPut, "/projects/shop", `{"plan":"pro"}`, http.StatusForbidden, "Plan parameter"},
		{"a member creates a project on pro", http.MethodPut, "/projects/other", `{"plan":"pro"}`, http.StatusForbidden, "Plan parameter"},
		{"a member names the plan the project is on", http.MethodPut, "/projects/shop", `{"plan":"free","name":"Shop 2"}`, http.StatusOK, `"plan":"free"`},
		{"a project setting names another Bedrock model", http.MethodPut, "/projects/shop", `{"model":"bedrock:anthropic.other-v9"}`, http.StatusBadRequest, `ModelId (BEDROCK_MODEL_ID) setting allows anthropic.allowed-v1 only`},
		{"the settings name another Bedrock model", http.MethodPut, "/projects/shop/settings", `{"model":"bedrock:anthropic.other-v9"}`, http.StatusBadRequest, `ModelId (BEDROCK_MODEL_ID) setting allows anthropic.allowed-v1 only`},
		{"the settings name the allowed model", http.MethodPut, "/projects/shop/settings", `{"model":"bedrock:anthropic.allowed-v1"}`, http.StatusOK, `"model":"bedrock:anthropic.allowed-v1"`},
	} {
		got := viaLambda(t, api.(*handler.API), tc.method, tc.path, tc.body, member)
		if got.status != tc.status || !strings.Contains(got.body, tc.want) {
			t.Errorf("%s: %d %s, want %d naming %q", tc.probe, got.status, got.body, tc.status, tc.want)
		}
	}
	p, err := s.Store.Project(ctx, "shop")
	if err != nil || p.Plan != gardener.PlanFree || p.Model != "bedrock:anthropic.allowed-v1" {
		t.Fatalf("stored project %+v, %v; want free with the allowed model", p, err)
	}
	if _, err := s.Store.Project(ctx, "other"); err == nil {
		t.Fatal("a refused create stored the project")
	}
}
