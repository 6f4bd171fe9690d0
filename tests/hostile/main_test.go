package hostile

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/testkit"
)

// One browser for the package: every case is a ladder climb in a browser context of its own.
// Each setup has a demo app of its own, so that setups on different regressions climb at once.
var runner *browser.Runner

// climbs bounds the climbs running at once across setups and tests (and the replays of setups
// and of the subject checks, each taking a place as a climb does): most of a red proof is
// waiting, so a few at once cost little more than one, but a loaded two-core machine times
// replays out when too many render at once.
var climbs = make(chan struct{}, 6)

// all runs every attack of the suite; without it the suite runs its fixed sample (see sample).
var all = flag.Bool("hostile.all", false, "climb every attack of the suite, not only its fixed sample (make bench)")

// testParallel is how many parallel tests run at once when -parallel is not given: every setup
// of the suite and the named cases at once, their climbs bounded together by climbs. Go's
// default, one per core, held the setups to two at a time while the climbs waited on pages.
const testParallel = 12

func TestMain(m *testing.M) {
	// Red proofs wait out the failing check's step timeout; a short one keeps the suite lean,
	// and the pages are local. The setups the tests prepared close before the runner does.
	testkit.Main(m, testkit.Chromium{Package: "tests/hostile", Shared: &runner, Parallel: testParallel,
		Options: browser.Options{StepTimeout: 1500 * time.Millisecond}, AfterTests: closeSetups})
}

// closeSetups closes every setup made, once the tests that share them have ended.
func closeSetups() {
	preparedMu.Lock()
	defer preparedMu.Unlock()
	for _, p := range prepared {
		<-p.done
		if p.err == nil {
			p.su.close()
		}
	}
}

// setup is one failing test on one regression, on a demo app of its own: its green run on the
// baseline (the record the trust checks compare with) and its failing replay under the
// regression, made once and shared by every case against it.
type setup struct {
	// key names the setup among the prepared ones: variant, test and whether the green run is in it.
	key     string
	test    gardener.Test
	green   *gardener.RunResult
	failure gardener.Replay
	opts    gardener.ReplayOptions
	close   func()
}

// prepared are the setups made or being made, by variant, test and whether the green run is in
// it: a named test and the suite that use the same one replay it once, also when they ask at
// the same time.
var (
	preparedMu sync.Mutex
	prepared   = map[string]*preparing{}
)

// preparing is a setup being made; done is closed when su or err is set.
type preparing struct {
	done chan struct{}
	su   setup
	err  error
}

// prepare starts a demo app for t, replays t on the baseline (when green is asked for) and
// under variant, and fails unless the first is green and the second red. The app stays on
// variant for the cases. The replays take a place among the climbs, so that setups made at
// once do not render more pages together than the climbs may.
func prepare(tb testing.TB, variant string, t gardener.Test, green bool) setup {
	tb.Helper()
	key := fmt.Sprintf("%s/%s/%v", variant, t.ID, green)
	preparedMu.Lock()
	p, ok := prepared[key]
	if !ok {
		p = &preparing{done: make(chan struct{})}
		prepared[key] = p
	}
	preparedMu.Unlock()
	if !ok {
		p.su, p.err = makeSetup(variant, t, green)
		p.su.key = key
		if p.err != nil {
			// A setup that failed (a replay on a loaded machine) is made anew for the next
			// test that asks for it.
			preparedMu.Lock()
			delete(prepared, key)
			preparedMu.Unlock()
		}
		close(p.done)
	}
	<-p.done
	if p.err != nil {
		tb.Fatal(p.err)
	}
	return p.su
}

// makeSetup makes the setup prepare names.
func makeSetup(variant string, t gardener.Test, green bool) (setup, error) {
	climbs <- struct{}{}
	defer func() { <-climbs }()
	ctx := context.Background()
	app := demoapp.New()
	srv := httptest.NewServer(app.Handler())
	su := setup{test: t, opts: gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: demoapp.Project(srv.URL).AllowedOrigins}, close: srv.Close}
	fail := func(err error) (setup, error) {
		srv.Close()
		return setup{}, err
	}
	if green {
		if err := app.SetVariant(demoapp.BaselineName); err != nil {
			return fail(err)
		}
		// The green run must pass: its steps get more than the suite's 1.5s, which a step of
		// a setup made beside others can take on a loaded machine.
		greenOpts := su.opts
		greenOpts.StepTimeout = 10 * time.Second
		rep, err := runner.Replay(ctx, t, greenOpts)
		if err != nil {
			return fail(err)
		}
		if !rep.Result.Passed {
			return fail(fmt.Errorf("%s is not green on the baseline: step %s: %s", t.ID, rep.Result.FailedStep, rep.Result.Message))
		}
		su.green = &rep.Result
		app.Reset()
	}
	if err := app.SetVariant(variant); err != nil {
		return fail(err)
	}
	failure, err := runner.Replay(ctx, t, su.opts)
	if err != nil {
		return fail(err)
	}
	if failure.Result.Passed {
		// A regression that replays green is a defect of the replay (it is how a check on a
		// half-loaded page was found): each step's time, pages and requests say where.
		var b strings.Builder
		for _, st := range failure.Result.Steps {
			fmt.Fprintf(&b, "\n  step %s %s %dms %s -> %s requests %d observed %q", st.Path, st.Kind, st.Millis, st.URLBefore, st.URLAfter, len(st.Requests), st.Observed)
			for _, rq := range st.Requests {
				fmt.Fprintf(&b, "\n    %s %s %d", rq.Method, rq.URL, rq.Status)
			}
		}
		return fail(fmt.Errorf("%s passes under %s: there is no regression to certify%s", t.ID, variant, b.String()))
	}
	su.failure = failure
	return su, nil
}

// savedTest is one of the demo app's saved tests.
func savedTest(tb testing.TB, id string) gardener.Test {
	tb.Helper()
	all, err := demoapp.Tests()
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range all {
		if t.ID == id {
			return t
		}
	}
	tb.Fatalf("no saved test %s", id)
	return gardener.Test{}
}

func loc(s string) gardener.Locator { return gardener.MustLocator(s) }
