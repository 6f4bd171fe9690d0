package browser

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// demoStepTimeout is what a failing demo test waits at its failing step: short, because the
// matrix fails about thirty times, yet long enough for a passing step on a loaded machine.
const demoStepTimeout = 4 * time.Second

// TestDemoAppVariants replays the saved demo tests against the demo app: on the baseline and the
// neutral variant every test passes. That each drift and regression variant makes the tests its
// Breaks names fail at the step it names is checked by tests/e2e, which replays exactly those
// tests before repairing them; here it runs with GARDENER_FULL_MATRIX=1, together with the other
// tests of each variant (about 150 more replays).
func TestDemoAppVariants(t *testing.T) {
	r := needBrowser(t)
	fullMatrix := os.Getenv("GARDENER_FULL_MATRIX") == "1"
	saved, err := demoapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range demoapp.Variants() {
		if !fullMatrix && v.Kind != demoapp.Baseline && v.Kind != demoapp.Neutral {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			app := demoapp.New()
			if err := app.SetVariant(v.Name); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(app.Handler())
			defer srv.Close()
			for _, test := range saved {
				if _, breaks := v.Breaks[test.ID]; !breaks && !fullMatrix && v.Kind != demoapp.Baseline && v.Kind != demoapp.Neutral {
					continue
				}
				app.Reset()
				rep, err := r.Replay(context.Background(), test, gardener.ReplayOptions{BaseURL: srv.URL, StepTimeout: demoStepTimeout})
				if err != nil {
					t.Fatalf("%s: %v", test.ID, err)
				}
				res := rep.Result
				t.Logf("%s: passed=%v step=%s kind=%s %dms", test.ID, res.Passed, res.FailedStep, res.ErrorKind, res.Millis)
				want, breaks := v.Breaks[test.ID]
				switch {
				case !breaks && !res.Passed:
					t.Errorf("%s failed at step %s (%s), want a pass: %s", test.ID, res.FailedStep, res.ErrorKind, res.Message)
				case breaks && res.Passed:
					t.Errorf("%s passed, want a failure at step %s", test.ID, want)
				case breaks && res.FailedStep != want:
					t.Errorf("%s failed at step %s, want step %s: %s", test.ID, res.FailedStep, want, res.Message)
				case breaks && res.ErrorKind == gardener.ErrBrowserCrash:
					t.Errorf("%s failed with a browser crash: %s", test.ID, res.Message)
				}
			}
		})
	}
}
