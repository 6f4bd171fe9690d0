// Package e2e proves the product end to end on the demo app, in real headless Chromium: every
// drift variant is repaired with the built-in engine and the app's own record shows the healed
// steps hit the intended elements; every regression variant is triaged with nothing written.
package e2e

import (
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/testkit"
)

// runner is one browser for the whole package, as a warm Lambda container keeps one.
var runner *browser.Runner

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Chromium{Package: "tests/e2e", Shared: &runner, Options: browser.Options{StepTimeout: 3 * time.Second}})
}

// demo is the demo shop as the scenarios use it, with its saved tests' green runs on the
// baseline, recorded once for the package.
var demo = &testkit.Subject[demoapp.Event, *demoapp.App]{New: demoapp.New, Project: demoapp.Project, Tests: demoapp.Tests}

// shop is one demo app with its own store, tests and project: the unit a scenario works on.
type shop = testkit.Lab[demoapp.Event, *demoapp.App]

func newShop(t testing.TB, model gardener.Model, autoRepair bool) *shop {
	t.Helper()
	return demo.NewLab(t, model, autoRepair)
}

func builtinModel() gardener.Model { return builtin.Engine{} }

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
			demo.Baseline(t, tt)
		})
	}
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
