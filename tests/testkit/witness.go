package testkit

import (
	"context"
	"slices"
	"sync"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Recording is an app that records the events its pages report, E being its event type.
type Recording[E any] interface {
	ResetRecord()
	Events() []E
}

// Witness wraps a runner so that a test can read what its app saw each green replay do: a
// scenario then checks the elements a repair's green proof hit from that proof, instead of
// replaying the same steps on the same app once more. It replays through the runner it embeds
// and keeps, for every green replay, the steps replayed and what App recorded while they ran.
// Replays on one app are not told apart, so it suits a runner whose replays of that app run one
// at a time.
type Witness[E any] struct {
	gardener.Runner
	App Recording[E]

	mu    sync.Mutex
	green []seen[E]
}

type seen[E any] struct {
	steps  []gardener.Step
	events []E
}

// Replay implements gardener.Runner.
func (w *Witness[E]) Replay(ctx context.Context, t gardener.Test, opts gardener.ReplayOptions) (gardener.Replay, error) {
	w.App.ResetRecord()
	rep, err := w.Runner.Replay(ctx, t, opts)
	if err == nil && rep.Result.Passed {
		w.mu.Lock()
		w.green = append(w.green, seen[E]{steps: gardener.CloneSteps(t.Steps), events: w.App.Events()})
		w.mu.Unlock()
	}
	return rep, err
}

// GreenRun is what the app saw the latest green replay of exactly these steps do.
func (w *Witness[E]) GreenRun(steps []gardener.Step) ([]E, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.green) - 1; i >= 0; i-- {
		if slices.EqualFunc(w.green[i].steps, steps, gardener.Step.Equal) {
			return w.green[i].events, true
		}
	}
	return nil, false
}

// GreenRunOr is what the app saw a green replay of t's steps do: the latest one the runner
// kept, or else one more replay by replay, whose result is returned when it is red. A
// scenario checking a repaired test calls it, so that the repair's green proof is read and the
// steps are replayed only when no green replay ran them (a person's approval changed them).
func (w *Witness[E]) GreenRunOr(t gardener.Test, replay func(gardener.Test) (gardener.Replay, []E)) ([]E, *gardener.RunResult) {
	if events, ok := w.GreenRun(t.Steps); ok {
		return events, nil
	}
	rep, events := replay(t)
	if !rep.Result.Passed {
		return nil, &rep.Result
	}
	return events, nil
}
