package driftgen

import (
	"context"
	"net/http"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// redRunner answers every replay red at the first step, as a loaded machine can before any
// page loads, and counts the replays.
type redRunner struct{ replays int }

func (r *redRunner) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	r.replays++
	return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, FailedStep: "1", FailedIndex: 0, ErrorKind: gardener.ErrTimeout, Message: "step 1: the page did not answer in time"}}, nil
}

// TestRunReplaysTheMutatedAppAtMostTwice: a case whose replays go red before the mutation is
// applied costs two replays, not four, and is judged flaky (the load decided it), never
// not-applied or a failure to repair.
func TestRunReplaysTheMutatedAppAtMostTwice(t *testing.T) {
	r := &redRunner{}
	env := &Env{Runner: r, NewApp: func() http.Handler { return http.NotFoundHandler() }}
	tt := gardener.Test{ID: "t", Version: 1, Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}
	b := &Baseline{Test: tt, Green: gardener.RunResult{TestID: "t", Passed: true}}
	res, err := env.Run(context.Background(), b, Mutation{Kind: RenameID, Class: Drift, Test: "t", Step: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if r.replays != 2 {
		t.Errorf("%d replays before the ladder, want at most 2", r.replays)
	}
	if res.Verdict != Flaky {
		t.Errorf("verdict %s (%s), want %s", res.Verdict, res.Note, Flaky)
	}
}
