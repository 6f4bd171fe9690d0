package hostile

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// One browser for the package: every case is a ladder climb in a browser context of its own.
// Each setup has a demo app of its own, so that setups on different regressions climb at once.
var runner *browser.Runner

// climbs bounds the climbs running at once across setups: most of a red proof is waiting, so a
// few at once cost little more than one, but a loaded two-core machine times replays out when
// too many render at once.
var climbs = make(chan struct{}, 6)

func TestMain(m *testing.M) {
	if _, err := browser.ChromePath(); err != nil {
		fmt.Fprintf(os.Stderr, "SKIP tests/hostile: no Chromium (%v); install it with: apt-get install -y chromium\n", err)
		os.Exit(0)
	}
	// Red proofs wait out the failing check's step timeout; a short one keeps the suite lean,
	// and the pages are local.
	runner = browser.New(browser.Options{StepTimeout: 1500 * time.Millisecond})
	code := m.Run()
	preparedMu.Lock()
	for _, su := range prepared {
		su.close()
	}
	preparedMu.Unlock()
	runner.Close()
	os.Exit(code)
}

// setup is one failing test on one regression, on a demo app of its own: its green run on the
// baseline (the record the trust checks compare with) and its failing replay under the
// regression, made once and shared by every case against it.
type setup struct {
	test    gardener.Test
	green   *gardener.RunResult
	failure gardener.Replay
	opts    gardener.ReplayOptions
	close   func()
}

// prepared are the setups made so far, by variant, test and whether the green run is in it: a
// named test and the suite that use the same one replay it once.
var (
	preparedMu sync.Mutex
	prepared   = map[string]setup{}
)

// prepare starts a demo app for t, replays t on the baseline (when green is asked for) and
// under variant, and fails unless the first is green and the second red. The app stays on
// variant for the cases.
func prepare(tb testing.TB, variant string, t gardener.Test, green bool) setup {
	tb.Helper()
	key := fmt.Sprintf("%s/%s/%v", variant, t.ID, green)
	preparedMu.Lock()
	su, ok := prepared[key]
	preparedMu.Unlock()
	if ok {
		return su
	}
	ctx := context.Background()
	app := demoapp.New()
	srv := httptest.NewServer(app.Handler())
	su = setup{test: t, opts: gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: demoapp.Project(srv.URL).AllowedOrigins}, close: srv.Close}
	must := func(err error) {
		if err != nil {
			srv.Close()
			tb.Fatal(err)
		}
	}
	if green {
		must(app.SetVariant(demoapp.BaselineName))
		rep, err := runner.Replay(ctx, t, su.opts)
		must(err)
		if !rep.Result.Passed {
			srv.Close()
			tb.Fatalf("%s is not green on the baseline: step %s: %s", t.ID, rep.Result.FailedStep, rep.Result.Message)
		}
		su.green = &rep.Result
		app.Reset()
	}
	must(app.SetVariant(variant))
	fail, err := runner.Replay(ctx, t, su.opts)
	must(err)
	if fail.Result.Passed {
		srv.Close()
		tb.Fatalf("%s passes under %s: there is no regression to certify", t.ID, variant)
	}
	su.failure = fail
	preparedMu.Lock()
	defer preparedMu.Unlock()
	if other, ok := prepared[key]; ok {
		// Another setup of the same key finished first: keep one.
		srv.Close()
		return other
	}
	prepared[key] = su
	return su
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
