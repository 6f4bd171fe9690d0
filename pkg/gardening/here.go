package gardening

import (
	"context"
	"fmt"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// Here is what a repair made in this process climbs with (the CLI, MCP on this machine): a
// browser and a model of its own, instead of the state machine's rungs.
type Here struct {
	Runner  gardener.Runner
	Model   gardener.Model
	Options gardener.ReplayOptions
	// Progress is told each event of the climb and, last, what persisting wrote.
	Progress    func(ladder.Event)
	NoPropagate bool
	// OnRecord is told before the test is replayed to record its first green run.
	OnRecord func(gardener.Test)
	// BeforeWrite runs after the climb is ready to persist and before anything can be written,
	// so a caller that keeps a copy of the test (a file) can mark it first.
	BeforeWrite func() error
}

// Repaired is the whole of a repair made here.
type Repaired struct {
	tend.Tended
	// Test is the test as the repair found it.
	Test gardener.Test
	// Run is the run the repair answers: the one asked about, or the one recorded for it.
	Run *gardener.Run
	// Recorded: no green run of the test's version was known, the test was replayed to record
	// one, and it passed — there was nothing to repair. RecordMillis is that replay's time,
	// also spent when it failed and became the failure the ladder starts from.
	Recorded     bool
	RecordMillis int64
	// Cost is what the repair used, at list prices, as recorded with its run; nil when no
	// run was recorded.
	Cost *gardener.RepairCost
}

// RepairHere runs the manual repair of what req names in this process, for who: the same
// gate, the same ladder, the same write-or-stage decision and records as the state machine.
// When no green run of the test's version is known the test is replayed first: green, it is
// recorded and the answer is that there is nothing to repair; red, it is the failure the ladder
// starts from.
func (s *Service) RepairHere(ctx context.Context, who Who, req RepairRequest, h Here) (Repaired, error) {
	// What the repair uses is measured from here on (the store's units, the model's tokens)
	// and recorded with its run, whatever the outcome.
	meter := &gardener.Meter{}
	out, err := s.repairHere(gardener.WithMeter(ctx, meter), who, req, h)
	if out.Run == nil {
		return out, err
	}
	c, cerr := s.RecordCost(ctx, *out.Run, "", meter.Usage())
	if cerr != nil {
		s.d.Log.Error("recording a repair's cost", "run", out.Run.ID, "error", cerr.Error())
		return out, err
	}
	out.Cost = &c
	return out, err
}

func (s *Service) repairHere(ctx context.Context, who Who, req RepairRequest, h Here) (Repaired, error) {
	if h.Runner == nil {
		return Repaired{}, fmt.Errorf("repair here: a browser: %w", ErrUnavailable)
	}
	tg, err := s.ResolveTarget(ctx, who, req)
	if err != nil {
		return Repaired{}, err
	}
	model := h.Model
	if model == nil {
		if s.d.Models == nil {
			return Repaired{}, fmt.Errorf("repair here: a model: %w", ErrUnavailable)
		}
		if model, err = s.d.Models(ctx, tg.Project.Model); err != nil {
			return Repaired{}, fmt.Errorf("opening project %s's model %q: %w", tg.Project.ID, tg.Project.Model, err)
		}
	}
	opts, err := replayOptions(tg.Project, h.Options)
	if err != nil {
		return Repaired{}, err
	}
	// Before anything is replayed or recorded: a test replayed against no app would be judged
	// on the network's failure, and the ladder would file it as an environment problem.
	if err := s.CheckReach(ctx, opts.BaseURL); err != nil {
		return Repaired{}, err
	}
	out := Repaired{Test: tg.Test}
	start := s.now()
	ws := &workspace.Service{Store: s.d.Store, OnReplay: h.OnRecord}
	// With no green run known the test is replayed first: green, it is recorded as the baseline;
	// red, its failure is what the ladder starts from, so it is replayed as the ladder's own
	// reproduction would be, giving up on a quiet page instead of waiting out the step limit.
	first := opts
	first.QuietFail = ladder.QuietFailOf(tg.Test, nil)
	rec, err := ws.RecordGreen(ctx, h.Runner, tg.Test, first)
	if err != nil {
		return out, err
	}
	if rec.Replayed {
		out.RecordMillis = s.now().Sub(start).Milliseconds()
		if rec.Replay.Result.Passed {
			out.Recorded, out.Run = true, &rec.Run
			out.Result = ladder.Result{TestID: tg.Test.ID, BaseVersion: tg.Test.Version, Facts: gardener.ClimbFacts{Passed: true}}
			out.Result.Outcome, out.Result.Reason = gardener.Conclude(out.Result.Facts)
			out.Persisted = tend.Persisted{Outcome: out.Result.Outcome, Reason: out.Result.Reason}
			return out, nil
		}
		if tg.Run == nil {
			tg.Run = &rec.Run
		}
	}
	if err := s.RecordRun(ctx, &tg); err != nil {
		return out, err
	}
	out.Run = tg.Run
	lad := &ladder.Ladder{Runner: h.Runner, Model: model, Now: s.d.Now}
	last := 0
	lad.Progress = func(e ladder.Event) {
		last = e.Seq
		if h.Progress != nil {
			h.Progress(e)
		}
	}
	tender := &tend.Tender{Store: s.d.Store, Life: s.life, Ladder: lad, Log: s.d.Log, Now: s.d.Now}
	mode, from := ModeOf(tg.Project, who, req.Propose)
	job := tend.Job{TestID: tg.Test.ID, Mode: mode, ModeFrom: from, Run: tg.Run, By: who.ID, Actor: who.Actor,
		Options: opts, Rungs: req.Rungs, NoPropagate: h.NoPropagate || who.Actor == gardener.ActorAgent}
	if rec.Replayed {
		// The recording replay failed: it is the failure the ladder starts from.
		job.Failure = &rec.Replay
	}
	if h.BeforeWrite != nil {
		if err := h.BeforeWrite(); err != nil {
			return out, err
		}
	}
	tended, err := tender.Tend(ctx, job)
	out.Tended = tended
	if err != nil {
		return out, err
	}
	if tended.Persisted.Outcome != gardener.OutcomeNoFix && h.Progress != nil {
		e := tend.PersistedEvent(tended.Decision, tended.Persisted)
		e.Seq = last + 1
		h.Progress(e)
	}
	s.Announce(ctx, tended.Decision, tended.Persisted)
	return out, nil
}
