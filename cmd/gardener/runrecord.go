package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// runRecorder replays for `gardener run --record`: each test file is synced into the local
// state and replayed through the application layer's RunNow, which records the run there. A
// passing run is the green run a later `gardener repair` of that version compares a failure
// with; without one a repair that finds no green proof cannot tell drift from a bug.
type runRecorder struct {
	store  *embedded.Store
	app    *gardening.Service
	ws     *workspace.Service
	writes fileWrites
	who    gardening.Who
	base   string
	// mu keeps the syncs of tests replayed side by side one at a time: a sync reads, then
	// writes, the project and the test.
	mu       sync.Mutex
	progress io.Writer
}

// openRunRecorder records runs in the state; reach is the command's probe of its app, asked
// before each replay as the application layer asks it (see reachOnce).
func openRunRecorder(state, by, base string, progress io.Writer, reach func(context.Context, string) error) (*runRecorder, error) {
	store, err := openState(state)
	if err != nil {
		return nil, err
	}
	app, err := gardening.New(gardening.Deps{Store: store, Reach: reach, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		store.Close()
		return nil, err
	}
	return &runRecorder{store: store, app: app, ws: &workspace.Service{Store: store}, writes: fileWritesIn(state),
		who: gardening.Person(by), base: base, progress: progress}, nil
}

func (rr *runRecorder) Close() error { return rr.store.Close() }

// replay syncs the file's test into the state and replays the state's version of it with r,
// recording the run; runID is the recorded run's.
func (rr *runRecorder) replay(ctx context.Context, r gardener.Runner, file gardener.Test, path string, opts gardener.ReplayOptions) (result gardener.RunResult, runID string, err error) {
	rr.mu.Lock()
	_, err = rr.ws.EnsureProject(ctx, file.ProjectID, workspace.Settings{Origins: []string{originOf(rr.base)}, New: newLocalProject})
	var synced workspace.Synced
	if err == nil {
		synced, err = syncTestFile(ctx, rr.ws, rr.writes, path, file, rr.progress)
	}
	rr.mu.Unlock()
	if err != nil {
		return gardener.RunResult{}, "", err
	}
	ran, err := rr.app.RunNow(ctx, rr.who, synced.Test.ID, gardening.Here{Runner: r, Options: opts})
	if err != nil {
		return gardener.RunResult{}, "", err
	}
	if ran.Green {
		fmt.Fprintf(rr.progress, "[record] %s version %d: green run %s recorded\n", synced.Test.ID, synced.Test.Version, ran.Run.ID)
	} else {
		fmt.Fprintf(rr.progress, "[record] %s version %d: run %s recorded; it failed, so it is no green run\n", synced.Test.ID, synced.Test.Version, ran.Run.ID)
	}
	return *ran.Run.Result, ran.Run.ID, nil
}
