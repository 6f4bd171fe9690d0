package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/tend"
)

// App is a laboratory app (the demo shop, Crewdesk) as the matrices drive it: served in-process,
// switched between variants on a live server, and recording what its pages and API saw, E
// being its event type.
type App[E any] interface {
	Recording[E]
	Handler() http.Handler
	SetVariant(name string) error
}

// Subject is one laboratory app the matrices of a package run on: how to make one, the project
// its saved tests belong to, and the saved tests. It keeps each saved test's green run on the
// baseline, replayed once for the package in the shared runner: a scenario that needs it starts
// from a copy, so a test several variants break is replayed on the baseline once, not once per
// variant.
type Subject[E any, A App[E]] struct {
	New     func() A
	Project func(baseURL string) gardener.Project
	Tests   func() ([]gardener.Test, error)

	mu        sync.Mutex
	baselines map[string]*Baseline[E]
}

// Baseline is a saved test's green run on a baseline app of its own.
type Baseline[E any] struct {
	once   sync.Once
	Result gardener.RunResult
	URL    string // the app the run went to, which its URLs name
	Events []E    // what the app saw the run do
	err    error
}

// Baseline replays the saved test tt on a baseline app once for the package, and fails t unless
// that run is green.
func (s *Subject[E, A]) Baseline(t testing.TB, tt gardener.Test) *Baseline[E] {
	t.Helper()
	s.mu.Lock()
	if s.baselines == nil {
		s.baselines = map[string]*Baseline[E]{}
	}
	b, ok := s.baselines[tt.ID]
	if !ok {
		b = &Baseline[E]{}
		s.baselines[tt.ID] = b
	}
	s.mu.Unlock()
	b.once.Do(func() {
		app := s.New()
		srv := httptest.NewServer(app.Handler())
		defer srv.Close()
		rep, err := shared.Replay(context.Background(), tt, gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: s.Project(srv.URL).AllowedOrigins})
		switch {
		case err != nil:
			b.err = fmt.Errorf("replay %s: %w", tt.ID, err)
		case !rep.Result.Passed:
			b.err = fmt.Errorf("%s is not green on the baseline: step %s: %s", tt.ID, rep.Result.FailedStep, rep.Result.Message)
		}
		b.Result, b.URL, b.Events = rep.Result, srv.URL, app.Events()
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b
}

// Serve starts an app of the subject's for t, stopped when t ends, and returns it with the
// options that replay against it.
func (s *Subject[E, A]) Serve(t testing.TB) (A, gardener.ReplayOptions) {
	t.Helper()
	app := s.New()
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	return app, gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: s.Project(srv.URL).AllowedOrigins}
}

// Lab is one app of a subject with a store of its own holding the project and its saved tests,
// and a tender that repairs through the package's shared runner: the unit a scenario of a
// matrix works on. Scenarios on labs of their own run in parallel.
type Lab[E any, A App[E]] struct {
	T      testing.TB
	App    A
	URL    string
	Store  *embedded.Store
	Life   *lifecycle.Service
	Tender *tend.Tender
	Opts   gardener.ReplayOptions
	// Witness keeps what the app saw the gardener's green replays do.
	Witness *Witness[E]

	subject *Subject[E, A]
	runSeq  int
}

// NewLab starts an app for t with a store of its own: the subject's project, set to repair
// automatically or not with model, and its saved tests in it. The ladder logs its events to t.
func (s *Subject[E, A]) NewLab(t testing.TB, model gardener.Model, autoRepair bool) *Lab[E, A] {
	t.Helper()
	app := s.New()
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ctx := context.Background()
	p := s.Project(srv.URL)
	p.Plan, p.AutoRepair, p.Model = gardener.PlanPro, autoRepair, model.Name()
	if err := store.PutProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	tests, err := s.Tests()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		tt.ProjectID = p.ID
		if err := store.CreateTest(ctx, tt); err != nil {
			t.Fatal(err)
		}
	}
	life := lifecycle.New(store, nil)
	w := &Witness[E]{Runner: shared, App: app}
	lad := &ladder.Ladder{Runner: w, Model: model, Progress: func(e ladder.Event) { t.Logf("[%s %s] %s", e.Stage, e.Rung, e.Message) }}
	return &Lab[E, A]{T: t, App: app, URL: srv.URL, Store: store, Life: life, Witness: w, subject: s,
		Opts:   gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: p.AllowedOrigins},
		Tender: &tend.Tender{Store: store, Life: life, Ladder: lad}}
}

// Test is the stored test id, as repairs have left it.
func (l *Lab[E, A]) Test(id string) gardener.Test {
	l.T.Helper()
	tt, err := l.Store.Test(context.Background(), id)
	if err != nil {
		l.T.Fatal(err)
	}
	return tt
}

// Replay runs a test on the lab's app in the shared runner and returns the result with the
// app's record of what it did; an error of the runner (not a red run) fails the test.
func (l *Lab[E, A]) Replay(tt gardener.Test) (gardener.Replay, []E) {
	l.T.Helper()
	l.App.ResetRecord()
	rep, err := shared.Replay(context.Background(), tt, l.Opts)
	if err != nil {
		l.T.Fatalf("replay %s: %v", tt.ID, err)
	}
	return rep, l.App.Events()
}

// Record stores a run of tt as the scheduler would, and returns it.
func (l *Lab[E, A]) Record(tt gardener.Test, res gardener.RunResult, trigger gardener.TriggerKind) gardener.Run {
	l.T.Helper()
	l.runSeq++
	run := gardener.Run{ID: fmt.Sprintf("run-%s-%d", tt.ID, l.runSeq), ProjectID: tt.ProjectID, TestID: tt.ID, TestVersion: tt.Version, Trigger: trigger, Result: &res, At: time.Now()}
	if err := l.Store.PutRun(context.Background(), run); err != nil {
		l.T.Fatal(err)
	}
	return run
}

// TendFailure records rep, a red replay of tt, as a scheduled run and tends it in apply mode
// with the failing replay handed over, as a scheduled run's repair is tended; propagate lets a
// repair reach the other tests it applies to. An error of the tender fails the test.
func (l *Lab[E, A]) TendFailure(tt gardener.Test, rep gardener.Replay, propagate bool) tend.Tended {
	l.T.Helper()
	run := l.Record(tt, rep.Result, gardener.TriggerSchedule)
	got, err := l.Tender.Tend(context.Background(), tend.Job{TestID: tt.ID, Mode: gardener.ModeApply, Run: &run, Failure: &rep, Options: l.Opts, NoPropagate: !propagate})
	if err != nil {
		l.T.Fatalf("tend %s: %v", tt.ID, err)
	}
	return got
}

// TimeRepaired replays tt with a repair's steps on the lab's app and returns how long that one
// replay took, failing the test unless it is green: what the repair benchmarks measure a
// repair's time against.
func (l *Lab[E, A]) TimeRepaired(tt gardener.Test, steps []gardener.Step) time.Duration {
	l.T.Helper()
	fixed := tt
	fixed.Steps = steps
	t0 := time.Now()
	green, _ := l.Replay(fixed)
	one := time.Since(t0)
	if !green.Result.Passed {
		l.T.Fatalf("the repaired %s is not green", tt.ID)
	}
	return one
}

// RecordBaseline stores the saved test tt's green run on the baseline (the package's one, see
// Subject.Baseline) as the scheduler would have recorded it against the lab's app, and returns
// what the app saw the run do.
func (l *Lab[E, A]) RecordBaseline(tt gardener.Test) []E {
	l.T.Helper()
	b := l.subject.Baseline(l.T, tt)
	l.Record(tt, Rebased(l.T, b.Result, b.URL, l.URL), gardener.TriggerSchedule)
	return b.Events
}

// Rebased is a copy of res as if its run had gone to the app at to rather than the one at from:
// the URLs a run records (pages, requests, navigations) name the app's address.
func Rebased(t testing.TB, res gardener.RunResult, from, to string) gardener.RunResult {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out gardener.RunResult
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(b), from, to)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// SavedTest is the saved test id of an app's tests, loaded by load; app names the app in the
// failure when there is none.
func SavedTest(t testing.TB, load func() ([]gardener.Test, error), app, id string) gardener.Test {
	t.Helper()
	tests, err := load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if tt.ID == id {
			return tt
		}
	}
	t.Fatalf("no %s test %q", app, id)
	return gardener.Test{}
}
