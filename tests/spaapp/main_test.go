package spaapp_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/spaapp"
)

// runner is one browser for the whole package.
var runner *browser.Runner

// stepTimeout is the runner's step limit in this package: above the app's spinners (a quarter of
// a second) with room for a loaded machine, below the slow-reports variant's six seconds.
const stepTimeout = 3 * time.Second

func TestMain(m *testing.M) {
	if _, err := browser.ChromePath(); err != nil {
		fmt.Fprintf(os.Stderr, "SKIP tests/spaapp: no Chromium (%v); install it with: apt-get install -y chromium\n", err)
		os.Exit(0)
	}
	runner = browser.New(browser.Options{StepTimeout: stepTimeout})
	code := m.Run()
	runner.Close()
	os.Exit(code)
}

// serve starts an app of its own for a test.
func serve(t testing.TB) (*spaapp.App, gardener.ReplayOptions) {
	t.Helper()
	app := spaapp.New()
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	return app, gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: spaapp.Project(srv.URL).AllowedOrigins}
}

func replay(t testing.TB, tt gardener.Test, opts gardener.ReplayOptions) gardener.Replay {
	t.Helper()
	rep, err := runner.Replay(context.Background(), tt, opts)
	if err != nil {
		t.Fatalf("replay %s: %v", tt.ID, err)
	}
	return rep
}
