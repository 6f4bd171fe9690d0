package radar

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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

// The package's browser tests share one Chromium and one baselined state: the baseline is
// recorded once, on the seed app, by the first scenario that needs it (every saved test green,
// then RecordBaseline), and each scenario works on its own copy of that state file, moved to a
// demo app of its own (rebase). Scenarios set their app's variant and write to its data, so an
// app each is what lets them run in parallel.
var (
	runner     *browser.Runner
	app        *demoapp.App // the seed app
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
	// catalogue (each on a new app), so the baseline does too.
	app.Reset()
	start = time.Now()
	r := &Radar{Runner: runs, Store: store, Log: discard()}
	// Every scene waits for the seed: the two projects' baselines are recorded side by side.
	reps := make([]BaselineReport, 2)
	if err := parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		reps[i], err = r.RecordBaseline(ctx, []string{p.ID, capID}[i])
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "radar seed: baseline of %d pages (%d unreached) in %s\n", len(reps[0].Pages), len(reps[0].Unreached), time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(os.Stderr, "radar seed: browser work: %s\n", runs)
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

// countingRunner is the browser runner with a count of the replays asked of it (and of those
// the page visits of baselines and sweeps), the page views they took, and the ladder climbs of
// the scene: the browser work of a test, which unlike its wall time does not depend on how
// loaded the machine is.
type countingRunner struct {
	gardener.Runner
	replays, visits, views, climbs atomic.Int64
}

func (c *countingRunner) Replay(ctx context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	c.replays.Add(1)
	if strings.HasPrefix(t.ID, "radar:") {
		c.visits.Add(1)
	}
	c.views.Add(int64(len(o.Views)))
	return c.Runner.Replay(ctx, t, o)
}

func (c *countingRunner) String() string {
	return fmt.Sprintf("%d replays (%d of them page visits), %d page views, %d ladder climbs", c.replays.Load(), c.visits.Load(), c.views.Load(), c.climbs.Load())
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
	url   string // the origin of the scene's app
	store *embedded.Store
	radar *Radar
	model *counting
	runs  *countingRunner
	logMu sync.Mutex
	log   bytes.Buffer
}

// newScene copies the seed state onto a demo app of its own, set to variant.
func newScene(t testing.TB, variant string) *scene {
	t.Helper()
	if chromeSkip != "" {
		t.Skip(chromeSkip)
	}
	seedOnce.Do(func() { seedErr = seed(seedState) })
	if seedErr != nil {
		t.Fatalf("recording the radar's seed state: %v", seedErr)
	}
	return openScene(t, state{path: seedState, origin: appURL}, variant)
}

// state is a state file to copy and the origin of the app it was recorded on.
type state struct {
	path, origin string
}

// shared holds the states scenarios start from after work they would otherwise each repeat:
// a sweep of the demo project under a variant (newSweptScene), a staging pass and a second
// sweep after it (newStagedScene). Each is made once, by the first scenario that needs it,
// and kept with what its work returned; every scenario works on a copy on an app of its own.
var (
	sharedMu sync.Mutex
	shared   = map[string]*sharedState{}
)

type sharedState struct {
	once  sync.Once
	state state
	made  any // what making it returned, for the scenarios to check
	err   error
}

// sharedScene opens a copy of the state named key, made once: build is run on the scene from
// gives, and the state is what the scene's store holds after it.
func sharedScene(t testing.TB, key, variant string, from func(testing.TB) *scene, build func(*scene) (any, error)) (*scene, any) {
	t.Helper()
	sharedMu.Lock()
	st, ok := shared[key]
	if !ok {
		st = &sharedState{}
		shared[key] = st
	}
	sharedMu.Unlock()
	st.once.Do(func() {
		st.err = fmt.Errorf("the scene that makes it (in %s) stopped", t.Name())
		s := from(t)
		if st.made, st.err = build(s); st.err != nil {
			return
		}
		if st.err = s.store.Close(); st.err != nil {
			return
		}
		path := filepath.Join(filepath.Dir(seedState), key+".db")
		st.err = copyFile(s.path, path)
		st.state = state{path: path, origin: s.url}
	})
	if st.err != nil {
		t.Fatalf("making the shared state %s: %v", key, st.err)
	}
	return openScene(t, st.state, variant), st.made
}

// newSweptScene is newScene after a sweep of the demo project under variant, and that sweep.
// Scenarios that differ only in what they do after the sweep share one: a sweep visits every
// baseline page.
func newSweptScene(t testing.TB, variant string) (*scene, SweepResult) {
	t.Helper()
	s, made := sharedScene(t, "swept-"+variant, variant, func(t testing.TB) *scene { return newScene(t, variant) }, func(s *scene) (any, error) {
		return s.radar.Sweep(context.Background(), "demo")
	})
	return s, made.(SweepResult)
}

// stagedState is what newStagedScene did: the staging pass after the first sweep, the app changes
// stored by then, and a second sweep of the same app after the pass.
type stagedState struct {
	first  PassResult
	before []gardener.AppChange
	again  SweepResult
}

// newStagedScene is newSweptScene under button-wrapper after a staging pass (which stages
// create-product's fix: a dry-run and a ladder climb) and a second sweep of the same app. The
// scenarios about what a later pass does with a staged, dismissed or restated fix share it.
func newStagedScene(t testing.TB) (*scene, stagedState) {
	t.Helper()
	const variant = "button-wrapper"
	s, made := sharedScene(t, "staged-"+variant, variant, func(t testing.TB) *scene { s, _ := newSweptScene(t, variant); return s }, func(s *scene) (any, error) {
		ctx := context.Background()
		var st stagedState
		var err error
		if st.first, err = s.radar.Pass(ctx, "demo"); err != nil {
			return nil, err
		}
		if st.before, err = s.store.AppChanges(ctx, "demo", time.Time{}); err != nil {
			return nil, err
		}
		st.again, err = s.radar.Sweep(ctx, "demo")
		return st, err
	})
	return s, made.(stagedState)
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}

// openScene opens a copy of the state file from on a new demo app set to variant.
func openScene(t testing.TB, from state, variant string) *scene {
	t.Helper()
	data, err := os.ReadFile(from.path)
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
	app := demoapp.New()
	if err := app.SetVariant(variant); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	if err := rebase(context.Background(), store, from.origin, srv.URL); err != nil {
		t.Fatalf("moving the state of %s to %s: %v", from.origin, srv.URL, err)
	}
	s := &scene{t: t, path: path, url: srv.URL, store: store, model: &counting{}, runs: &countingRunner{Runner: runner}}
	t.Cleanup(func() { t.Logf("browser work: %s", s.runs) })
	log := slog.New(slog.NewJSONHandler(syncWriter{s}, nil))
	life := lifecycle.New(store, nil)
	lad := &ladder.Ladder{Runner: s.runs, Model: s.model, Progress: func(e ladder.Event) {
		if e.Stage == gardener.EventOutcome {
			s.runs.climbs.Add(1)
		}
	}}
	s.radar = &Radar{Runner: s.runs, Store: store, Log: log, Tender: &tend.Tender{Store: store, Life: life, Ladder: lad, Log: discard()}}
	return s
}

// rebase moves a copied state from the app at origin from to the app at origin to, as if it had
// been recorded there: the projects' allowed origins, and the URLs of the green runs and the
// baselines the radar reads its pages from (a test that ran on another origin visited other
// pages). The seed and swept states hold nothing else with an origin in it.
func rebase(ctx context.Context, store *embedded.Store, from, to string) error {
	if from == to {
		return nil
	}
	for _, id := range []string{"demo", capID} {
		p, err := store.Project(ctx, id)
		if err != nil {
			return err
		}
		if err := moved(&p, from, to); err != nil {
			return err
		}
		if err := store.PutProject(ctx, p); err != nil {
			return err
		}
		b, err := store.Baseline(ctx, id)
		if err != nil {
			return err
		}
		if err := moved(&b, from, to); err != nil {
			return err
		}
		if err := store.PutBaseline(ctx, b); err != nil {
			return err
		}
		tests, err := store.Tests(ctx, id)
		if err != nil {
			return err
		}
		for _, t := range tests {
			run, err := store.LastGreenRun(ctx, t.ID)
			if errors.Is(err, gardener.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := moved(&run, from, to); err != nil {
				return err
			}
			if err := store.PutRun(ctx, run); err != nil {
				return err
			}
		}
	}
	return nil
}

// moved replaces origin from by to everywhere in v, through v's JSON: as the store keeps it.
func moved[T any](v *T, from, to string) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var out T
	if err := json.Unmarshal(bytes.ReplaceAll(b, []byte(from), []byte(to)), &out); err != nil {
		return err
	}
	*v = out
	return nil
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
