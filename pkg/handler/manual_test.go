package handler_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

// TestManualPathWhateverTheMode: a person's ladder runs in either mode of the project (proposing
// when auto-repair is off, applying when on), serves a pending test the automatic path leaves
// alone, and records the gate's verdict in the execution's event log; the API refuses a control
// run before anything starts.
func TestManualPathWhateverTheMode(t *testing.T) {
	ctx := context.Background()
	s := fullServices(t)
	gate, err := handler.NewEligibility(handler.StoreDeps{Store: s.Store, Base: handler.Base{Now: func() time.Time { return time.Unix(1e9, 0) }}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/"}}
	for _, p := range []gardener.Project{
		{ID: "auto", Plan: gardener.PlanPro, Model: "builtin", AutoRepair: true},
		{ID: "review", Plan: gardener.PlanPro, Model: "builtin"},
	} {
		if err := s.Store.PutProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		for _, st := range []gardener.TestStatus{gardener.StatusActive, gardener.StatusPending} {
			id := p.ID + "-" + string(st)
			if err := s.Store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: p.ID, Status: st, Version: 1, Steps: steps}); err != nil {
				t.Fatal(err)
			}
			for _, manual := range []bool{true, false} {
				in := handler.RepairInput{Detail: handler.RunFailed{RunID: id + "-run", ProjectID: p.ID, TestID: id, TestVersion: 1, Trigger: gardener.TriggerSchedule}}
				if manual {
					in.Detail.Trigger = gardener.TriggerManual
					in.Detail.RunID += "-manual"
					in.Manual = &handler.Manual{By: "ada@example.com", Execution: "manual-" + id}
				}
				g, err := gate(ctx, in)
				if err != nil {
					t.Fatalf("%s (manual %v): %v", id, manual, err)
				}
				wantMode := gardener.ModeApply
				if manual && !p.AutoRepair {
					wantMode = gardener.ModePropose
				}
				switch {
				case manual && (!g.Eligible || g.Mode != wantMode || g.Execution != in.Manual.Execution):
					t.Errorf("%s by hand: eligible %v mode %s execution %q (%s); want eligible in %s mode", id, g.Eligible, g.Mode, g.Execution, g.Reason, wantMode)
				case !manual && st == gardener.StatusPending && g.Eligible:
					t.Errorf("%s unattended: a pending test was let through the automatic gate", id)
				}
				if manual {
					evs, err := s.Store.Events(ctx, in.Manual.Execution, 0, 0)
					if err != nil || len(evs) != 1 || evs[0].Stage != gardener.EventEligibility || evs[0].Passed == nil || !*evs[0].Passed {
						t.Errorf("%s: the execution's log holds %+v, %v; want the gate's verdict", id, evs, err)
					}
				}
			}
		}
	}

	// A request that asks to propose in a project that repairs itself runs in propose mode, and
	// the gate says the request set it: the staged row must not say auto-repair is off.
	asked := handler.RepairInput{Detail: handler.RunFailed{RunID: "auto-active-propose", ProjectID: "auto", TestID: "auto-active", TestVersion: 1, Trigger: gardener.TriggerManual},
		Manual: &handler.Manual{By: "ada@example.com", Propose: true, Execution: "manual-propose"}}
	if g, err := gate(ctx, asked); err != nil || !g.Eligible || g.Mode != gardener.ModePropose || g.ModeFrom != gardener.FromRequest {
		t.Errorf("asked to propose in an auto-repair project: %+v %v; want eligible in propose mode from the request", g, err)
	}

	api, err := handler.ApiFunction.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	control := gardener.Run{ID: "control-1", ProjectID: "review", TestID: "review-active", TestVersion: 1, Trigger: gardener.TriggerSchedule, Control: true, At: time.Unix(1e9, 0)}
	if err := s.Store.PutRun(ctx, control); err != nil {
		t.Fatal(err)
	}
	got := viaLambda(t, api.(*handler.API), http.MethodPost, "/runs/control-1/repair", `{}`, map[string]string{"email": "ada@example.com", "projects": "review"})
	if got.status != http.StatusForbidden {
		t.Fatalf("manual repair of a control run: %d %s, want 403", got.status, got.body)
	}
	if xs, err := s.Store.RunExecutions(ctx, "control-1"); err != nil || len(xs) != 0 {
		t.Fatalf("a refused control run started %+v (%v)", xs, err)
	}
}
