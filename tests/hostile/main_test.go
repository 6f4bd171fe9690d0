package hostile

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// One browser and one demo app for the package: every case is a ladder climb against them.
var (
	runner *browser.Runner
	app    *demoapp.App
	opts   gardener.ReplayOptions
)

func TestMain(m *testing.M) {
	if _, err := browser.ChromePath(); err != nil {
		fmt.Fprintf(os.Stderr, "SKIP tests/hostile: no Chromium (%v); install it with: apt-get install -y chromium\n", err)
		os.Exit(0)
	}
	// Red proofs wait out the failing check's step timeout; a short one keeps the suite lean,
	// and the pages are local.
	runner = browser.New(browser.Options{StepTimeout: 1500 * time.Millisecond})
	app = demoapp.New()
	srv := httptest.NewServer(app.Handler())
	opts = gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: demoapp.Project(srv.URL).AllowedOrigins}
	code := m.Run()
	srv.Close()
	runner.Close()
	os.Exit(code)
}

// setup is one failing test on one regression: its green run on the baseline (the record the
// trust checks compare with) and its failing replay under the regression, made once and shared
// by every case against it.
type setup struct {
	test    gardener.Test
	green   *gardener.RunResult
	failure gardener.Replay
}

// prepared are the setups made so far, by variant, test and whether the green run is in it: a
// named test and the suite that use the same one replay it once.
var prepared = map[string]setup{}

// prepare replays t on the baseline (when green is asked for) and under variant, and fails
// unless the first is green and the second red.
func prepare(tb testing.TB, variant string, t gardener.Test, green bool) setup {
	tb.Helper()
	key := fmt.Sprintf("%s/%s/%v", variant, t.ID, green)
	if su, ok := prepared[key]; ok {
		return su
	}
	ctx := context.Background()
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	su := setup{test: t}
	if green {
		must(app.SetVariant(demoapp.BaselineName))
		app.Reset()
		rep, err := runner.Replay(ctx, t, opts)
		must(err)
		if !rep.Result.Passed {
			tb.Fatalf("%s is not green on the baseline: step %s: %s", t.ID, rep.Result.FailedStep, rep.Result.Message)
		}
		su.green = &rep.Result
	}
	must(app.SetVariant(variant))
	app.Reset()
	fail, err := runner.Replay(ctx, t, opts)
	must(err)
	if fail.Result.Passed {
		tb.Fatalf("%s passes under %s: there is no regression to certify", t.ID, variant)
	}
	su.failure = fail
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
