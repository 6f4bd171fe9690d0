package handler_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

// closedOrigin is an http origin on a loopback port nothing listens on: connecting is refused.
func closedOrigin(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	origin := "http://" + ln.Addr().String()
	ln.Close()
	return origin
}

// countedRunner counts the replays it is asked for; it would answer each red.
type countedRunner struct{ n int }

func (c *countedRunner) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	c.n++
	return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, FailedStep: "1", ErrorKind: gardener.ErrNavigation, Message: "net::ERR_CONNECTION_REFUSED"}}, nil
}

// runsPut counts the runs written.
type runsPut struct {
	gardener.Store
	n int
}

func (r *runsPut) PutRun(ctx context.Context, run gardener.Run) error {
	r.n++
	return r.Store.PutRun(ctx, run)
}

// countedStarter counts the repair machines started.
type countedStarter struct{ n int }

func (c *countedStarter) Start(context.Context, string, string, any) (string, error) {
	c.n++
	return "x-1", nil
}

func (c *countedStarter) Describe(context.Context, string) (string, string, error) {
	return "RUNNING", "", nil
}

// TestADownAppAnswers502: with the app under test down (its base URL refuses connections),
// POST /tests/{testId}/runs, POST /tests/{testId}/repair and POST /runs/{runId}/repair answer
// 502 naming the base URL and the network's error, as the CLI's exit 3 does; nothing is
// replayed, no run recorded, no machine started, no triage issue filed.
func TestADownAppAnswers502(t *testing.T) {
	ctx := context.Background()
	ann := map[string]string{"sub": "u-a", "email": "ann@shop.test", "projects": "shop"}
	for _, route := range []string{"/tests/login/runs", "/tests/login/repair", "/runs/red-1/repair"} {
		t.Run(route, func(t *testing.T) {
			down := closedOrigin(t)
			s := fullServices(t)
			runner, starter := &countedRunner{}, &countedStarter{}
			s.Runner, s.Starter, s.Reach = runner, starter, browser.Reach
			if err := s.Store.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{down}}); err != nil {
				t.Fatal(err)
			}
			if err := s.Store.CreateTest(ctx, gardener.Test{ID: "login", ProjectID: "shop", Status: gardener.StatusActive, Version: 1,
				Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}); err != nil {
				t.Fatal(err)
			}
			red := gardener.RunResult{TestID: "login", TestVersion: 1, FailedStep: "1", ErrorKind: gardener.ErrElementNotFound, Message: "no element"}
			if err := s.Store.PutRun(ctx, gardener.Run{ID: "red-1", ProjectID: "shop", TestID: "login", TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &red}); err != nil {
				t.Fatal(err)
			}
			runs := &runsPut{Store: s.Store}
			s.Store = runs
			h, err := handler.ApiFunction.Build(s)
			if err != nil {
				t.Fatal(err)
			}
			got := viaHTTP(t, h.(*handler.API), "POST", route, "", ann)
			var e struct {
				Error string `json:"error"`
			}
			if got.status != http.StatusBadGateway || json.Unmarshal([]byte(got.body), &e) != nil {
				t.Fatalf("status %d %s, want 502 with an error", got.status, got.body)
			}
			for _, want := range []string{"the app at " + down + " could not be reached", "connection refused", "nothing was replayed"} {
				if !strings.Contains(e.Error, want) {
					t.Errorf("the error %q does not say %q", e.Error, want)
				}
			}
			if runner.n != 0 || starter.n != 0 || runs.n != 0 {
				t.Errorf("%d replays, %d machines started, %d runs recorded; want none", runner.n, starter.n, runs.n)
			}
			if xs, err := s.Store.RunExecutions(ctx, "red-1"); err != nil || len(xs) != 0 {
				t.Errorf("executions %+v (%v), want none", xs, err)
			}
			if issues, err := s.Store.TriageIssues(ctx, "shop"); err != nil || len(issues) != 0 {
				t.Errorf("triage issues %+v (%v), want none", issues, err)
			}
			if g, err := s.Store.LastGreenRun(ctx, "login"); err == nil {
				t.Errorf("a green run %s was recorded", g.ID)
			}
		})
	}
}
