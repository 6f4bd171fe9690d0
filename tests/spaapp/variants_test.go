package spaapp_test

import (
	"slices"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"

	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/spaapp"
)

// TestSavedTestsAndVariants: every saved test passes on the baseline and on the neutral variant,
// and each other variant names the tests it breaks. The baseline runs are the package's green
// runs (crewdesk.Baseline), which the matrices start from, so a saved test is replayed on the baseline
// once. That each variant breaks at the step it names is checked where the matrix replays it
// before repairing (matrix_test.go), so the package replays a broken test once, not twice.
func TestSavedTestsAndVariants(t *testing.T) {
	t.Parallel()
	tests, err := spaapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) < 10 {
		t.Errorf("%d saved tests, want at least 10", len(tests))
	}
	kinds := map[demoapp.Kind]int{}
	for _, v := range spaapp.Variants() {
		kinds[v.Kind]++
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			if v.Kind != demoapp.Baseline && v.Kind != demoapp.Neutral {
				if len(v.Breaks) == 0 {
					t.Errorf("%s variant %s breaks no test", v.Kind, v.Name)
				}
				for id := range v.Breaks {
					if !slices.ContainsFunc(tests, func(tt gardener.Test) bool { return tt.ID == id }) {
						t.Errorf("variant %s breaks %q, which is no saved test", v.Name, id)
					}
				}
				return
			}
			for _, tt := range tests {
				if v.Kind == demoapp.Baseline {
					// The package's one green run of tt on the baseline, which the matrices'
					// cases start from.
					crewdesk.Baseline(t, tt)
					continue
				}
				want, breaks := v.Breaks[tt.ID]
				app, opts := serve(t)
				if err := app.SetVariant(v.Name); err != nil {
					t.Fatal(err)
				}
				rep := replay(t, tt, opts)
				switch {
				case !breaks && !rep.Result.Passed:
					t.Errorf("%s fails at step %s: %s", tt.ID, rep.Result.FailedStep, rep.Result.Message)
				case breaks && rep.Result.Passed:
					t.Errorf("%s passes; the variant says it breaks at step %s", tt.ID, want)
				case breaks && rep.Result.FailedStep != want:
					t.Errorf("%s fails at step %s (%s); the variant says %s", tt.ID, rep.Result.FailedStep, rep.Result.Message, want)
				}
			}
		})
	}
	if kinds[demoapp.Drift] < 12 || kinds[demoapp.Regression] < 8 {
		t.Errorf("%d drift and %d regression variants, want at least 12 and 8", kinds[demoapp.Drift], kinds[demoapp.Regression])
	}
}
