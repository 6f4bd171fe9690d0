// Package e2e proves the product end to end on the demo app, in real headless Chromium: every
// drift variant is repaired with the built-in engine and the app's own record shows the healed
// steps hit the intended elements; every regression variant is triaged with nothing written.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/driftgardener/gardener/tests/witness"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
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

// runner is one browser for the whole package, as a warm Lambda container keeps one.
var runner *browser.Runner

func TestMain(m *testing.M) {
	if _, err := browser.ChromePath(); err != nil {
		fmt.Fprintf(os.Stderr, "SKIP tests/e2e: no Chromium (%v); install it with: apt-get install -y chromium\n", err)
		os.Exit(0)
	}
	runner = browser.New(browser.Options{StepTimeout: 3 * time.Second})
	code := m.Run()
	runner.Close()
	os.Exit(code)
}

// shop is one demo app with its own store, tests and project: the unit a scenario works on.
type shop struct {
	t      testing.TB
	app    *demoapp.App
	url    string
	store  *embedded.Store
	life   *lifecycle.Service
	tender *tend.Tender
	opts   gardener.ReplayOptions
	runSeq int
	// witness keeps what the app saw the gardener's green replays do.
	witness *witness.Runner[demoapp.Event]
}

func newShop(t testing.TB, model gardener.Model, autoRepair bool) *shop {
	t.Helper()
	app := demoapp.New()
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ctx := context.Background()
	p := demoapp.Project(srv.URL)
	p.Plan, p.AutoRepair, p.Model = gardener.PlanPro, autoRepair, model.Name()
	if err := store.PutProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	tests, err := demoapp.Tests()
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
	opts := gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: p.AllowedOrigins}
	w := &witness.Runner[demoapp.Event]{Runner: runner, App: app}
	lad := &ladder.Ladder{Runner: w, Model: model, Progress: func(e ladder.Event) { t.Logf("[%s %s] %s", e.Stage, e.Rung, e.Message) }}
	return &shop{t: t, app: app, url: srv.URL, store: store, life: life, opts: opts, witness: w,
		tender: &tend.Tender{Store: store, Life: life, Ladder: lad}}
}

func builtinModel() gardener.Model { return builtin.Engine{} }

func (s *shop) test(id string) gardener.Test {
	s.t.Helper()
	tt, err := s.store.Test(context.Background(), id)
	if err != nil {
		s.t.Fatal(err)
	}
	return tt
}

// replay runs a test and returns the result with the app's record of what it hit.
func (s *shop) replay(tt gardener.Test) (gardener.Replay, []demoapp.Event) {
	s.t.Helper()
	s.app.ResetRecord()
	rep, err := runner.Replay(context.Background(), tt, s.opts)
	if err != nil {
		s.t.Fatalf("replay %s: %v", tt.ID, err)
	}
	return rep, s.app.Events()
}

// baselineRun is a saved test's green run on the baseline app, recorded once for the package:
// every scenario that needs it starts from a copy, so a test several variants break is replayed
// on the baseline once, not once per variant.
type baselineRun struct {
	once   sync.Once
	result gardener.RunResult
	url    string          // the app the run went to, which its URLs name
	events []demoapp.Event // what the app saw the run do
	err    error
}

var (
	baselinesMu sync.Mutex
	baselines   = map[string]*baselineRun{}
)

// baselineOf replays the saved test tt on the baseline app once for the package, and fails t
// unless that run is green.
func baselineOf(t testing.TB, tt gardener.Test) *baselineRun {
	t.Helper()
	baselinesMu.Lock()
	b, ok := baselines[tt.ID]
	if !ok {
		b = &baselineRun{}
		baselines[tt.ID] = b
	}
	baselinesMu.Unlock()
	b.once.Do(func() {
		app := demoapp.New()
		srv := httptest.NewServer(app.Handler())
		defer srv.Close()
		rep, err := runner.Replay(context.Background(), tt, gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: demoapp.Project(srv.URL).AllowedOrigins})
		switch {
		case err != nil:
			b.err = fmt.Errorf("replay %s: %w", tt.ID, err)
		case !rep.Result.Passed:
			b.err = fmt.Errorf("%s is not green on the baseline: step %s: %s", tt.ID, rep.Result.FailedStep, rep.Result.Message)
		}
		b.result, b.url, b.events = rep.Result, srv.URL, app.Events()
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b
}

// TestSavedTestsPassOnTheBaseline: every saved demo test is green on the baseline app. Their
// runs here are the green runs every scenario of the package starts from.
func TestSavedTestsPassOnTheBaseline(t *testing.T) {
	t.Parallel()
	saved, err := demoapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range saved {
		t.Run(tt.ID, func(t *testing.T) {
			t.Parallel()
			baselineOf(t, tt)
		})
	}
}

// recordBaseline stores the saved test tt's green run on the baseline in s, as the scheduler
// would have recorded it against s's app, and returns what the app saw the run do.
func (s *shop) recordBaseline(tt gardener.Test) []demoapp.Event {
	s.t.Helper()
	b := baselineOf(s.t, tt)
	s.record(tt, gardener.Replay{Result: rebased(s.t, b.result, b.url, s.url)}, gardener.TriggerSchedule)
	return b.events
}

// rebased is a copy of res as if its run had gone to the app at to rather than the one at from:
// the URLs a run records (pages, requests, navigations) name the app's address.
func rebased(t testing.TB, res gardener.RunResult, from, to string) gardener.RunResult {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out gardener.RunResult
	if err := json.Unmarshal(bytes.ReplaceAll(b, []byte(from), []byte(to)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// record stores a run as the scheduler would, and returns it.
func (s *shop) record(tt gardener.Test, rep gardener.Replay, trigger gardener.TriggerKind) gardener.Run {
	s.t.Helper()
	s.runSeq++
	res := rep.Result
	run := gardener.Run{ID: fmt.Sprintf("run-%s-%d", tt.ID, s.runSeq), ProjectID: tt.ProjectID, TestID: tt.ID, TestVersion: tt.Version, Trigger: trigger, Result: &res, At: time.Now()}
	if err := s.store.PutRun(context.Background(), run); err != nil {
		s.t.Fatal(err)
	}
	return run
}

// interactions is what the app saw a replay do to elements, in order. A field reports its value
// again when it loses focus (a submit click blurs it), depending on timing; a fill that repeats
// the value the field already reported is the same entry, not a second one.
func interactions(events []demoapp.Event) []demoapp.Event {
	var out []demoapp.Event
	last := map[string]string{}
	for _, e := range events {
		switch e.Type {
		case demoapp.EventFill:
			if v, ok := last[e.Key]; ok && v == e.Value {
				continue
			}
			last[e.Key] = e.Value
		case demoapp.EventClick, demoapp.EventCheck:
		default:
			continue
		}
		out = append(out, demoapp.Event{Type: e.Type, Key: e.Key, Value: e.Value})
	}
	return out
}
