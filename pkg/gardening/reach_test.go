package gardening_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// writesSeen is a store that counts what a use case writes about a run: a run, a run's result,
// a triage issue, an execution or its claim.
type writesSeen struct {
	gardener.Store
	mu     sync.Mutex
	writes []string
}

func (s *writesSeen) saw(w string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, w)
}

func (s *writesSeen) PutRun(ctx context.Context, r gardener.Run) error {
	s.saw("run " + r.ID)
	return s.Store.PutRun(ctx, r)
}

func (s *writesSeen) RecordRunResult(ctx context.Context, id string, r gardener.RunResult) (gardener.Run, error) {
	s.saw("run result " + id)
	return s.Store.RecordRunResult(ctx, id, r)
}

func (s *writesSeen) PutTriageIssue(ctx context.Context, t gardener.TriageIssue) error {
	s.saw("triage " + t.ID)
	return s.Store.PutTriageIssue(ctx, t)
}

func (s *writesSeen) PutExecution(ctx context.Context, x gardener.Execution) error {
	s.saw("execution " + x.ID)
	return s.Store.PutExecution(ctx, x)
}

func (s *writesSeen) ClaimExecution(ctx context.Context, c gardener.ExecutionClaim, supersede string) (gardener.ExecutionClaim, error) {
	s.saw("claim " + c.Name)
	return s.Store.ClaimExecution(ctx, c, supersede)
}

// replays counts the replays it was asked for, and fails each at its first goto as a browser
// does against an app that is down.
type replays struct{ n int }

func (r *replays) Replay(_ context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	r.n++
	return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, FailedStep: "1", FailedIndex: 0, ErrorKind: gardener.ErrNavigation,
		Message: "loading " + o.BaseURL + "/ failed: net::ERR_CONNECTION_REFUSED"}}, nil
}

// starts counts the repair machines started.
type starts struct{ n int }

func (s *starts) Start(context.Context, string, string, any) (string, error) {
	s.n++
	return "x-1", nil
}

func (s *starts) Describe(context.Context, string) (string, string, error) {
	return "RUNNING", "", nil
}

// TestADownAppIsNotJudged: RunNow, RepairHere and StartRepair — every use case a door calls to
// replay a test or start the machine that will — ask whether the app answers at the base URL
// first. One that does not is a *gardener.UnreachableError of class ClassUnreachable (the API's
// 502), naming the base URL the operator gave and the network's error, and nothing is replayed,
// recorded, started or triaged.
func TestADownAppIsNotJudged(t *testing.T) {
	ctx := context.Background()
	const down = "http://127.0.0.1:9"
	for _, c := range []struct {
		name string
		call func(app *gardening.Service, r gardener.Runner) error
	}{
		{"run now", func(app *gardening.Service, r gardener.Runner) error {
			_, err := app.RunNow(ctx, gardening.Agent("mcp:test"), "login", gardening.Here{Runner: r, Options: gardener.ReplayOptions{BaseURL: down}})
			return err
		}},
		{"repair here", func(app *gardening.Service, r gardener.Runner) error {
			_, err := app.RepairHere(ctx, gardening.Person("ann"), gardening.RepairRequest{TestID: "login"}, gardening.Here{Runner: r, Model: builtin.Engine{}, Options: gardener.ReplayOptions{BaseURL: down}})
			return err
		}},
		{"repair here of a run", func(app *gardening.Service, r gardener.Runner) error {
			_, err := app.RepairHere(ctx, gardening.Person("ann"), gardening.RepairRequest{RunID: "red-1"}, gardening.Here{Runner: r, Model: builtin.Engine{}, Options: gardener.ReplayOptions{BaseURL: down}})
			return err
		}},
		{"start repair", func(app *gardening.Service, _ gardener.Runner) error {
			_, err := app.StartRepair(ctx, gardening.Person("ann"), gardening.RepairRequest{TestID: "login"})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := &writesSeen{Store: openStore(t)}
			if err := store.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{"http://127.0.0.1:8090"}}); err != nil {
				t.Fatal(err)
			}
			if err := store.CreateTest(ctx, gardener.Test{ID: "login", ProjectID: "shop", Status: gardener.StatusActive, Version: 1,
				Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}); err != nil {
				t.Fatal(err)
			}
			if err := store.Store.PutRun(ctx, gardener.Run{ID: "red-1", ProjectID: "shop", TestID: "login", TestVersion: 1, Trigger: gardener.TriggerSchedule}); err != nil {
				t.Fatal(err)
			}
			asked := []string{}
			reach := func(_ context.Context, base string) error {
				asked = append(asked, base)
				return &gardener.UnreachableError{URL: base, Err: syscall.ECONNREFUSED}
			}
			starter := &starts{}
			app := newApp(t, gardening.Deps{Store: store, Reach: reach, Starter: starter, RepairMachine: "repair",
				BaseURLs: map[string]string{"shop": down},
				Models:   func(context.Context, string) (gardener.Model, error) { return builtin.Engine{}, nil }})
			runner := &replays{}
			err := c.call(app, runner)
			var unreached *gardener.UnreachableError
			if !errors.As(err, &unreached) || gardening.ClassOf(err) != gardening.ClassUnreachable || gardening.ClassOf(err).HTTPStatus() != http.StatusBadGateway {
				t.Fatalf("answered %v (class %v), want the app unreachable (502)", err, gardening.ClassOf(err))
			}
			for _, want := range []string{"the app at " + down + " could not be reached", "connection refused", "nothing was replayed"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error %q does not say %q", err, want)
				}
			}
			if len(asked) != 1 || asked[0] != down {
				t.Errorf("asked whether %q answers, want the operator's base URL %s once", asked, down)
			}
			if runner.n != 0 || starter.n != 0 || len(store.writes) != 0 {
				t.Errorf("%d replays, %d machines started, writes %q; want nothing done", runner.n, starter.n, store.writes)
			}
			if issues, err := store.TriageIssues(ctx, "shop"); err != nil || len(issues) != 0 {
				t.Errorf("triage issues %+v (%v), want none", issues, err)
			}
		})
	}
}

// TestAnAppThatAnswersIsReplayed: the question costs a use case nothing when the app answers:
// RunNow replays and records as before.
func TestAnAppThatAnswersIsReplayed(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	if err := store.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro, AllowedOrigins: []string{"http://127.0.0.1:8090"}}); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTest(ctx, gardener.Test{ID: "login", ProjectID: "shop", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}); err != nil {
		t.Fatal(err)
	}
	var asked []string
	app := newApp(t, gardening.Deps{Store: store, Reach: func(_ context.Context, base string) error { asked = append(asked, base); return nil }})
	runner := &replays{}
	ran, err := app.RunNow(ctx, gardening.Person("ann"), "login", gardening.Here{Runner: runner})
	if err != nil || runner.n != 1 || ran.Run.ID == "" {
		t.Fatalf("ran %+v (%v) in %d replays, want one recorded run", ran, err, runner.n)
	}
	if len(asked) != 1 || asked[0] != "http://127.0.0.1:8090" {
		t.Errorf("asked %q, want the project's first allowed origin", asked)
	}
}
