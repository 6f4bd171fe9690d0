package gardening

import (
	"context"
	"fmt"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// RanNow is a test replayed now and the run recorded for it.
type RanNow struct {
	Run gardener.Run `json:"run"`
	// Green: the run passed, and is the green run a later repair of this version compares a
	// failure with (invariant 13: without one there is no verdict).
	Green bool `json:"green"`
}

// RunNow replays the current version of a test in this process's browser and records the run,
// green or red, as a run of that version: the way a person records the baseline a later repair
// compares with before any run failed. It writes nothing to the test. A process without a
// browser answers ErrUnavailable. Only h.Runner, h.Options and h.OnRecord are read.
func (s *Service) RunNow(ctx context.Context, who Who, testID string, h Here) (RanNow, error) {
	if h.Runner == nil {
		return RanNow{}, fmt.Errorf("run now: no browser to replay the test in (the API in Lambda runs without Chromium; gardener serve and gardener run --record replay): %w", ErrUnavailable)
	}
	t, err := s.d.Store.Test(ctx, testID)
	if err != nil {
		return RanNow{}, err
	}
	p, err := s.d.Store.Project(ctx, t.ProjectID)
	if err != nil {
		return RanNow{}, err
	}
	opts, err := replayOptions(p, h.Options)
	if err != nil {
		return RanNow{}, err
	}
	if err := s.CheckReach(ctx, opts.BaseURL); err != nil {
		return RanNow{}, err
	}
	if h.OnRecord != nil {
		h.OnRecord(t)
	}
	rep, err := h.Runner.Replay(ctx, t, opts)
	if err != nil {
		return RanNow{}, fmt.Errorf("replaying %s version %d: %w", t.ID, t.Version, err)
	}
	result := rep.Result
	result.TestID, result.TestVersion = t.ID, t.Version
	// Recorded with the typed values the replay saw: the requirement contract of a later repair
	// reads them from the green run; the doors strip them from what they show.
	run, err := (&workspace.Service{Store: s.d.Store}).RecordRun(ctx, t, gardener.TriggerManual, &result)
	if err != nil {
		return RanNow{}, err
	}
	s.d.Log.Info("ran now", "test", t.ID, "version", t.Version, "run", run.ID, "passed", result.Passed, "by", who.ID)
	return RanNow{Run: run, Green: result.Passed}, nil
}

// replayOptions are the options a replay of p's test runs with: the caller's, completed by the
// domain's rule (gardener.Project.ReplayOptions: the project's origins and the base URL's own).
func replayOptions(p gardener.Project, opts gardener.ReplayOptions) (gardener.ReplayOptions, error) {
	opts = p.ReplayOptions(opts)
	if opts.BaseURL == "" {
		return opts, &BadRequestError{Reason: fmt.Sprintf("project %s has no allowed origin to replay against: give a base URL", p.ID)}
	}
	return opts, nil
}
