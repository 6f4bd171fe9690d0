package gardening_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// TestSweepInTurnReachesEveryProject: the radar's runs each have a budget that fits k sweeps of
// N projects; ceil(N/k) runs sweep every project exactly once before any is swept twice, the
// projects a run did not reach are named as deferred and come first in the next run, and a
// project whose sweep failed is first again the run after. No browser: each sweep records its
// summary (as the radar's Sweep does) and takes a fixed time on a fake clock.
func TestSweepInTurnReachesEveryProject(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	app := newApp(t, gardening.Deps{Store: store, Now: func() time.Time { return now }})
	const n, k, each = 11, 3, 10 * time.Second
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("p%02d", i))
	}
	// Swept before, in reverse id order: a fixed order by id would reach p00.. first every run.
	for i, id := range ids[n-4:] {
		if err := store.PutSweepSummary(ctx, gardener.SweepSummary{ProjectID: id, At: now.Add(-time.Hour + time.Duration(i)*time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	var swept []string
	sweep := func(ctx context.Context, id string) error {
		now = now.Add(each)
		swept = append(swept, id)
		return store.PutSweepSummary(ctx, gardener.SweepSummary{ProjectID: id, At: now})
	}
	runs := (n + k - 1) / k
	for run := range runs {
		start := now
		turns, err := app.SweepInTurn(ctx, ids, start.Add(k*each+each/2), sweep)
		if err != nil {
			t.Fatal(err)
		}
		done := len(turns.Order) - len(turns.Deferred)
		if done != k {
			t.Errorf("run %d swept %d projects, want %d (a budget of %d sweeps)", run+1, done, k, k)
		}
		if !slices.Equal(turns.Deferred, turns.Order[done:]) {
			t.Errorf("run %d deferred %v, want the projects it did not reach, %v", run+1, turns.Deferred, turns.Order[done:])
		}
		now = start.Add(time.Hour)
	}
	// Every project once before any twice: the first n sweeps are n distinct projects.
	first := slices.Clone(swept[:n])
	slices.Sort(first)
	if !slices.Equal(first, ids) {
		t.Fatalf("the first %d sweeps over %d runs were %v: want every project once", n, runs, swept[:n])
	}
	// Never swept first, then oldest: the 7 never swept, then p07..p10 by their old sweeps.
	if want := []string{"p00", "p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08", "p09", "p10"}; !slices.Equal(swept[:n], want) {
		t.Errorf("sweep order %v, want %v", swept[:n], want)
	}

	// A project whose sweep fails keeps its last sweep and comes first in the next run.
	failing := swept[n] // the next run's first project, swept longest ago
	turns, err := app.SweepInTurn(ctx, ids, time.Time{}, func(ctx context.Context, id string) error {
		if id == failing {
			now = now.Add(each)
			return nil // noted by the caller, nothing recorded
		}
		return sweep(ctx, id)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(turns.Deferred) != 0 || len(turns.Order) != n {
		t.Errorf("with no budget every project is swept: order %v deferred %v", turns.Order, turns.Deferred)
	}
	next, err := app.SweepInTurn(ctx, ids, now.Add(each/2), sweep)
	if err != nil {
		t.Fatal(err)
	}
	if next.Order[0] != failing {
		t.Errorf("the next run starts with %s, want %s whose sweep failed", next.Order[0], failing)
	}
}
