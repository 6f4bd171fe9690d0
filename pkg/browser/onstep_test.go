package browser

import (
	"context"
	"slices"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestReplayOptionsOnStep: a replay's OnStep is called with each step's record while the replay
// runs (before Replay returns), once for every record of the result, an intent block's own
// record after its inner steps.
func TestReplayOptionsOnStep(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := fixture(t)
	tc := gardener.Test{ID: "onstep", Steps: steps(t, `[{"kind":"goto","url":"/dashboard.html"},
		{"kind":"intent","goal":"save","steps":[{"kind":"click","locator":"#save"}]},
		{"kind":"wait","for":"time","ms":10}]`)}
	returned := false
	var seen []string
	var late []string
	rep, err := r.Replay(context.Background(), tc, gardener.ReplayOptions{BaseURL: srv.URL, OnStep: func(rec gardener.StepRecord) {
		seen = append(seen, rec.Path)
		if returned {
			late = append(late, rec.Path)
		}
	}})
	returned = true
	if err != nil || !rep.Result.Passed {
		t.Fatalf("replay: %v %s", err, rep.Result.Message)
	}
	if want := []string{"1", "2.1", "2", "3"}; !slices.Equal(seen, want) {
		t.Errorf("OnStep saw %v, want %v", seen, want)
	}
	if len(late) > 0 {
		t.Errorf("OnStep was called after Replay returned for %v", late)
	}
	if len(rep.Result.Steps) != len(seen) {
		t.Errorf("%d records in the result, %d reported", len(rep.Result.Steps), len(seen))
	}
}
