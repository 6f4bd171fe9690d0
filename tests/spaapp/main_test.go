package spaapp_test

import (
	"context"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/spaapp"
	"github.com/driftgardener/gardener/tests/testkit"
)

// runner is one browser for the whole package.
var runner *browser.Runner

// stepTimeout is the runner's step limit in this package: above the app's spinners (a quarter of
// a second) with room for a loaded machine, below the slow-reports variant's six seconds.
const stepTimeout = 3 * time.Second

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Chromium{Package: "tests/spaapp", Shared: &runner, Options: browser.Options{StepTimeout: stepTimeout}})
}

// crewdesk is Crewdesk as the package's tests use it, with its saved tests' green runs on the
// baseline, recorded once for the package.
var crewdesk = &testkit.Subject[spaapp.Event, *spaapp.App]{New: spaapp.New, Project: spaapp.Project, Tests: spaapp.Tests}

// serve starts an app of its own for a test.
func serve(t testing.TB) (*spaapp.App, gardener.ReplayOptions) {
	t.Helper()
	return crewdesk.Serve(t)
}

func replay(t testing.TB, tt gardener.Test, opts gardener.ReplayOptions) gardener.Replay {
	t.Helper()
	rep, err := runner.Replay(context.Background(), tt, opts)
	if err != nil {
		t.Fatalf("replay %s: %v", tt.ID, err)
	}
	return rep
}
