package radar

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// The package's browser tests share one Chromium, one demo app and one baselined state: the
// baseline is recorded once, by the first scenario that needs it (every saved test green, then RecordBaseline) and each scenario
// works on its own copy of that state file. Scenarios set the app's variant, so they run one
// after another.
var (
	runner     *browser.Runner
	app        *demoapp.App
	appURL     string
	seedState  string // the baselined state file scenarios copy
	seedOnce   sync.Once
	seedErr    error
	chromeSkip string
)

func TestMain(m *testing.M) {
	if _, err := browser.ChromePath(); err != nil {
		chromeSkip = fmt.Sprintf("no Chromium (%v); install it with: apt-get install -y chromium", err)
		fmt.Fprintln(os.Stderr, "SKIPPING the radar's browser tests: "+chromeSkip)
		os.Exit(m.Run())
	}
	// A failing step waits out the whole limit, and the scenarios fail steps on purpose (dry-runs
	// of drifted tests, reproductions, red proofs): short, yet long enough for a passing step on
	// a loaded machine.
	runner = browser.New(browser.Options{StepTimeout: 4 * time.Second})
	app = demoapp.New()
	srv := httptest.NewServer(app.Handler())
	appURL = srv.URL
	dir, err := os.MkdirTemp("", "radar-seed-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	seedState = filepath.Join(dir, "seed.db")
	code := m.Run()
	runner.Close()
	srv.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// seed records a green run of every demo test and the project's baseline.
func seed(path string) error {
	ctx := context.Background()
	store, err := embedded.Open(path)
	if err != nil {
		return err
	}
	defer store.Close()
	p := demoapp.Project(appURL)
	p.Model = builtin.Name
	if err := store.PutProject(ctx, p); err != nil {
		return err
	}
	tests, err := demoapp.Tests()
	if err != nil {
		return err
	}
	for _, t := range tests {
		if err := store.CreateTest(ctx, t); err != nil {
			return err
		}
	}
	capTests, err := capProject(ctx, store)
	if err != nil {
		return err
	}
	start := time.Now()
	runs := &countingRunner{Runner: runner}
	// The cap tests are one test twelve times over: one replay records the green run of each.
	if err := recordGreen(ctx, runs, store, append(tests, capTests[0])); err != nil {
		return err
	}
	if err := copyGreen(ctx, store, capTests[0], capTests[1:]); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "radar seed: %d green runs in %s\n", len(tests)+1, time.Since(start).Round(time.Millisecond))
	// The green runs created products and placed orders; the scenarios start from the seed
	// catalogue (newScene resets the app), so the baseline does too.
	app.Reset()
	start = time.Now()
	r := &Radar{Runner: runs, Store: store, Log: discard()}
	rep, err := r.RecordBaseline(ctx, p.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "radar seed: baseline of %d pages (%d unreached) in %s\n", len(rep.Pages), len(rep.Unreached), time.Since(start).Round(time.Millisecond))
	if _, err = r.RecordBaseline(ctx, capID); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "radar seed: browser work: %d replays, %d page views\n", runs.replays.Load(), runs.views.Load())
	return nil
}

// capID is a second project of twelve small tests, each using the products page's main
// element: the cookie banner covers it (the tests are at risk) but it stays visible (their
// dry-runs pass), which is what the cap of ten dry-runs a pass is tested with.
const capID = "cap"

func capProject(ctx context.Context, store gardener.Store) ([]gardener.Test, error) {
	p := gardener.Project{ID: capID, Plan: gardener.PlanPro, Model: builtin.Name, Radar: true, AllowedOrigins: []string{appURL}}
	if err := store.PutProject(ctx, p); err != nil {
		return nil, err
	}
	steps, err := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/products"},{"kind":"assertVisible","locator":"css=main"}]`))
	if err != nil {
		return nil, err
	}
	var tests []gardener.Test
	for i := 1; i <= 12; i++ {
		t := gardener.Test{ID: fmt.Sprintf("cap-%02d", i), ProjectID: capID, Name: "products page is there", Status: gardener.StatusActive, Version: 1, Steps: gardener.CloneSteps(steps)}
		if err := store.CreateTest(ctx, t); err != nil {
			return nil, err
		}
		tests = append(tests, t)
	}
	return tests, nil
}

// recordGreen replays tests on the current variant and stores each as a scheduled green run.
func recordGreen(ctx context.Context, runner gardener.Runner, store gardener.Store, tests []gardener.Test) error {
	opts := gardener.ReplayOptions{BaseURL: appURL, AllowedOrigins: []string{appURL}}
	return parallel(ctx, len(tests), 2, func(ctx context.Context, i int) error {
		t := tests[i]
		var rep gardener.Replay
		// A loaded machine can starve a page past its step time: one retry tells that from a
		// test that really fails.
		for try := 0; try < 2 && !rep.Result.Passed; try++ {
			var err error
			if rep, err = runner.Replay(ctx, t, opts); err != nil {
				return err
			}
		}
		if !rep.Result.Passed {
			return fmt.Errorf("demo test %s fails on the baseline: %s", t.ID, rep.Result.Message)
		}
		res := rep.Result
		return store.PutRun(ctx, gardener.Run{ID: "green-" + t.ID, ProjectID: t.ProjectID, TestID: t.ID, TestVersion: t.Version, Trigger: gardener.TriggerSchedule, Result: &res, At: time.Now()})
	})
}

// copyGreen stores the green run of from as the green run of each of tests, built with the
// same steps (see capProject).
func copyGreen(ctx context.Context, store gardener.Store, from gardener.Test, tests []gardener.Test) error {
	run, err := store.Run(ctx, "green-"+from.ID)
	if err != nil {
		return err
	}
	for _, t := range tests {
		res := *run.Result
		res.TestID, res.TestVersion = t.ID, t.Version
		if err := store.PutRun(ctx, gardener.Run{ID: "green-" + t.ID, ProjectID: t.ProjectID, TestID: t.ID, TestVersion: t.Version, Trigger: run.Trigger, Result: &res, At: time.Now()}); err != nil {
			return err
		}
	}
	return nil
}

// countingRunner is the browser runner with a count of the replays asked of it and the page
// views they took: the browser work of a test, which unlike its wall time does not depend on
// how loaded the machine is.
type countingRunner struct {
	gardener.Runner
	replays, views atomic.Int64
}

func (c *countingRunner) Replay(ctx context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	c.replays.Add(1)
	c.views.Add(int64(len(o.Views)))
	return c.Runner.Replay(ctx, t, o)
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// counting is the built-in engine with a count of the questions asked of it.
type counting struct {
	builtin.Engine
	calls atomic.Int64
}

func (c *counting) FixLocator(ctx context.Context, a gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	c.calls.Add(1)
	return c.Engine.FixLocator(ctx, a)
}

func (c *counting) SuggestOps(ctx context.Context, a gardener.OpsAsk) (gardener.OpsAnswer, error) {
	c.calls.Add(1)
	return c.Engine.SuggestOps(ctx, a)
}

func (c *counting) Diagnose(ctx context.Context, a gardener.DiagnoseAsk) (gardener.Diagnosis, error) {
	c.calls.Add(1)
	return c.Engine.Diagnose(ctx, a)
}

func (c *counting) DeriveIntent(ctx context.Context, a gardener.IntentAsk) (gardener.IntentAnswer, error) {
	c.calls.Add(1)
	return c.Engine.DeriveIntent(ctx, a)
}

// scene is one scenario: a copy of the seed state, a radar over it, the model's call count and
// the captured log.
type scene struct {
	t     testing.TB
	path  string
	store *embedded.Store
	radar *Radar
	model *counting
	runs  *countingRunner
	logMu sync.Mutex
	log   bytes.Buffer
}

// newScene copies the seed state and sets the app to variant until the test ends.
func newScene(t testing.TB, variant string) *scene {
	t.Helper()
	if chromeSkip != "" {
		t.Skip(chromeSkip)
	}
	seedOnce.Do(func() { seedErr = seed(seedState) })
	if seedErr != nil {
		t.Fatalf("recording the radar's seed state: %v", seedErr)
	}
	return openScene(t, seedState, variant)
}

// sweptSeeds holds, per variant, the seed state after one sweep of the demo project.
var (
	sweptMu    sync.Mutex
	sweptSeeds = map[string]string{}
)

// newSweptScene is newScene after a sweep of the demo project under variant. Scenarios that
// differ only in what they do after the sweep share one: a sweep visits every baseline page,
// which is most of a scenario's time.
func newSweptScene(t testing.TB, variant string) *scene {
	t.Helper()
	sweptMu.Lock()
	defer sweptMu.Unlock()
	path, ok := sweptSeeds[variant]
	if !ok {
		s := newScene(t, variant)
		s.sweep()
		if err := s.store.Close(); err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(filepath.Dir(seedState), "swept-"+variant+".db")
		if err := copyFile(s.path, path); err != nil {
			t.Fatal(err)
		}
		sweptSeeds[variant] = path
	}
	return openScene(t, path, variant)
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}

// openScene opens a copy of the state file at from and sets the app to variant.
func openScene(t testing.TB, from, variant string) *scene {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := embedded.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	app.Reset()
	if err := app.SetVariant(variant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		app.Reset()
		if err := app.SetVariant(demoapp.BaselineName); err != nil {
			t.Error(err)
		}
	})
	s := &scene{t: t, path: path, store: store, model: &counting{}, runs: &countingRunner{Runner: runner}}
	t.Cleanup(func() {
		t.Logf("browser work: %d replays, %d page views", s.runs.replays.Load(), s.runs.views.Load())
	})
	log := slog.New(slog.NewJSONHandler(syncWriter{s}, nil))
	life := lifecycle.New(store, nil)
	lad := &ladder.Ladder{Runner: s.runs, Model: s.model}
	s.radar = &Radar{Runner: s.runs, Store: store, Log: log, Tender: &tend.Tender{Store: store, Life: life, Ladder: lad, Log: discard()}}
	return s
}

type syncWriter struct{ s *scene }

func (w syncWriter) Write(b []byte) (int, error) {
	w.s.logMu.Lock()
	defer w.s.logMu.Unlock()
	return w.s.log.Write(b)
}

func (s *scene) project(edit func(*gardener.Project)) {
	s.t.Helper()
	ctx := context.Background()
	p, err := s.store.Project(ctx, "demo")
	if err != nil {
		s.t.Fatal(err)
	}
	edit(&p)
	if err := s.store.PutProject(ctx, p); err != nil {
		s.t.Fatal(err)
	}
}

func (s *scene) sweep() SweepResult {
	s.t.Helper()
	res, err := s.radar.Sweep(context.Background(), "demo")
	if err != nil {
		s.t.Fatalf("sweep: %v", err)
	}
	return res
}

func (s *scene) pass() PassResult {
	s.t.Helper()
	res, err := s.radar.Pass(context.Background(), "demo")
	if err != nil {
		s.t.Fatalf("staging pass: %v", err)
	}
	return res
}

func (s *scene) queue() Queue {
	s.t.Helper()
	q, err := s.radar.Queue(context.Background(), "demo")
	if err != nil {
		s.t.Fatalf("queue: %v", err)
	}
	return q
}
