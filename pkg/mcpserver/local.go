package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// Local is the backend over a store on this machine (the local state directory): it climbs the
// ladder in a browser here and writes through the lifecycle. Everything in the store is visible
// to whoever runs it.
type Local struct {
	Store  gardener.Store
	Runner gardener.Runner
	// Models opens the model a project's setting names.
	Models func(ctx context.Context, spec string) (gardener.Model, error)
	// BaseURL is the app the tests replay against; empty uses each project's first allowed
	// origin.
	BaseURL string
	// StepTimeout is the default time limit of a replayed step; zero is the runner's.
	StepTimeout time.Duration
	Log         *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

func (l *Local) log() *slog.Logger {
	if l.Log != nil {
		return l.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (l *Local) life() *lifecycle.Service { return lifecycle.New(l.Store, l.Now) }

// Suggest climbs the ladder in propose mode and stages a proven fix.
func (l *Local) Suggest(ctx context.Context, in SuggestInput, by string, progress func(string)) (Suggestion, error) {
	run, test, err := l.runToRepair(ctx, in)
	if err != nil {
		return Suggestion{}, err
	}
	project, err := l.Store.Project(ctx, test.ProjectID)
	if err != nil {
		return Suggestion{}, fmt.Errorf("suggest_fix for test %s: %w", test.ID, err)
	}
	if err := gardener.EligibleManual(project, test, &run); err != nil {
		return Suggestion{}, err
	}
	model, err := l.Models(ctx, project.Model)
	if err != nil {
		return Suggestion{}, fmt.Errorf("suggest_fix: opening project %s's model %q: %w", project.ID, project.Model, err)
	}
	opts := gardener.ReplayOptions{BaseURL: l.BaseURL, AllowedOrigins: project.AllowedOrigins, StepTimeout: l.StepTimeout}
	if opts.BaseURL == "" && len(project.AllowedOrigins) > 0 {
		opts.BaseURL = project.AllowedOrigins[0]
	}
	if opts.BaseURL == "" {
		return Suggestion{}, fmt.Errorf("suggest_fix: project %s has no allowed origin to replay against: give --base-url", project.ID)
	}
	lad := &ladder.Ladder{Runner: l.Runner, Model: model, Now: l.Now, Progress: func(e ladder.Event) {
		progress(e.Line())
	}}
	tender := &tend.Tender{Store: l.Store, Life: l.life(), Ladder: lad, Log: l.log(), Now: l.Now}
	rungs := make([]gardener.Strategy, len(in.Rungs))
	for i, r := range in.Rungs {
		rungs[i] = gardener.Strategy(r)
	}
	// Propose mode whatever the project's setting: the tool proposes, a person or apply_repair
	// applies. Nothing propagates from a fix that is only staged.
	tended, err := tender.Tend(ctx, tend.Job{TestID: test.ID, Mode: gardener.ModePropose, Run: &run, By: by, Options: opts, Rungs: rungs, NoPropagate: true})
	if err != nil {
		return Suggestion{}, fmt.Errorf("suggest_fix for test %s: %w", test.ID, err)
	}
	res := tended.Result
	s := Suggestion{Outcome: string(res.Outcome), Reason: res.Reason, TestID: test.ID, RunID: run.ID, BaseVersion: test.Version, Version: test.Version}
	if f := res.Failure; f != nil {
		s.FailedStep, s.Error = f.Step, f.Message
	}
	if v := res.Verdict; v != nil {
		describeVerdict(&s, test.Steps, *v)
	}
	describeRefusals(&s, res.Refusals)
	describeStaged(&s, tended.Persisted)
	if st := tended.Persisted.Staged; st != nil && res.Verdict != nil && !slices.EqualFunc(st.Proposal.Verdict.Ops, res.Verdict.Ops, sameOp) {
		// The fix was recorded on the test's open proposal, which holds other ops: that one is
		// what apply_repair applies, so it is what the answer shows.
		s.Notes = append(s.Notes, fmt.Sprintf("the test already had open proposal %s for version %d; the new fix was recorded on it, and its own fix (shown) is what apply_repair applies", st.Proposal.ID, st.Proposal.BaseVersion))
		s.Changes = nil
		describeVerdict(&s, test.Steps, st.Proposal.Verdict)
	}
	now, err := l.Store.Test(ctx, test.ID)
	if err != nil {
		return Suggestion{}, fmt.Errorf("suggest_fix for test %s: %w", test.ID, err)
	}
	s.Version = now.Version
	finish(&s)
	return s, nil
}

func sameOp(a, b gardener.Op) bool { return a.String() == b.String() }

// runToRepair finds the failed run, or records a run of the test's current version for the
// ladder to reproduce.
func (l *Local) runToRepair(ctx context.Context, in SuggestInput) (gardener.Run, gardener.Test, error) {
	if in.RunID != "" {
		run, err := l.Store.Run(ctx, in.RunID)
		if errors.Is(err, gardener.ErrNotFound) {
			return gardener.Run{}, gardener.Test{}, &InputError{Field: "runId", Reason: fmt.Sprintf("no run %q in the state", in.RunID)}
		}
		if err != nil {
			return gardener.Run{}, gardener.Test{}, err
		}
		if run.Control {
			return gardener.Run{}, gardener.Test{}, &RefusedError{Reason: fmt.Sprintf("run %s is a negative control run: it is required to fail, and no repair is made for it", run.ID)}
		}
		test, err := l.Store.Test(ctx, run.TestID)
		if err != nil {
			return gardener.Run{}, gardener.Test{}, fmt.Errorf("suggest_fix for run %s: %w", run.ID, err)
		}
		if run.TestVersion != 0 && run.TestVersion != test.Version {
			return gardener.Run{}, gardener.Test{}, &InputError{Field: "runId", Reason: fmt.Sprintf("run %s failed on version %d of test %s, which is at version %d now: give testId to reproduce the current version", run.ID, run.TestVersion, test.ID, test.Version)}
		}
		return run, test, nil
	}
	test, err := l.Store.Test(ctx, in.TestID)
	if errors.Is(err, gardener.ErrNotFound) {
		return gardener.Run{}, gardener.Test{}, &InputError{Field: "testId", Reason: fmt.Sprintf("no test %q in the state", in.TestID)}
	}
	if err != nil {
		return gardener.Run{}, gardener.Test{}, err
	}
	if test.Status == gardener.StatusArchived {
		return gardener.Run{}, gardener.Test{}, &RefusedError{Reason: fmt.Sprintf("test %s is archived: nothing repairs it until its status is set back", test.ID)}
	}
	run, err := (&workspace.Service{Store: l.Store}).RecordRun(ctx, test, gardener.TriggerManual, nil)
	if err != nil {
		return gardener.Run{}, gardener.Test{}, err
	}
	return run, test, nil
}

// Apply approves a proposal for by through the lifecycle's approval for machine clients, which
// also demands a green proof of exactly its operations on its version; proposalFor has refused
// a control run. Staleness is the lifecycle's judgement, so a stale row becomes stale as from
// the queue.
func (l *Local) Apply(ctx context.Context, in ApplyInput, by string) (Applied, error) {
	p, err := l.proposalFor(ctx, in)
	if err != nil {
		return Applied{}, err
	}
	life := l.life()
	approved, err := life.ApproveProven(ctx, p.ID, by)
	if err != nil {
		return Applied{}, refusal(p.ID, err)
	}
	if err := life.RecordGreen(ctx, approved); err != nil {
		l.log().Warn("apply_repair", "proposal", p.ID, "error", err.Error())
	}
	return Applied{ProposalID: p.ID, TestID: p.TestID, RepairID: approved.Repair.ID, Version: approved.Test.Version, ApprovedBy: approved.Repair.ApprovedBy, Diff: diffLines(approved.Repair.PreSteps, p.Verdict.Ops)}, nil
}

// proposalFor finds the proposal the input names: by id, or the open proposal computed for the
// run's version of its test. A control run or a probe has none.
func (l *Local) proposalFor(ctx context.Context, in ApplyInput) (gardener.Proposal, error) {
	if in.ProposalID != "" {
		p, err := l.Store.Proposal(ctx, in.ProposalID)
		if errors.Is(err, gardener.ErrNotFound) {
			return gardener.Proposal{}, &InputError{Field: "proposalId", Reason: fmt.Sprintf("no proposal %q in the state", in.ProposalID)}
		}
		return p, err
	}
	run, err := l.Store.Run(ctx, in.RunID)
	if errors.Is(err, gardener.ErrNotFound) {
		return gardener.Proposal{}, &InputError{Field: "runId", Reason: fmt.Sprintf("no run %q in the state", in.RunID)}
	}
	if err != nil {
		return gardener.Proposal{}, err
	}
	if run.Control {
		return gardener.Proposal{}, &RefusedError{Reason: fmt.Sprintf("run %s is a negative control run: it is required to fail, and no repair is applied for it", run.ID)}
	}
	if run.Probe {
		return gardener.Proposal{}, &RefusedError{Reason: fmt.Sprintf("run %s is a probe or a proof, not a failed run: no repair is applied for it", run.ID)}
	}
	props, err := l.Store.TestProposals(ctx, run.TestID)
	if err != nil {
		return gardener.Proposal{}, fmt.Errorf("apply_repair for run %s: %w", run.ID, err)
	}
	for _, p := range props {
		if p.Status != gardener.ProposalProposed {
			continue
		}
		if run.TestVersion != 0 && p.BaseVersion != run.TestVersion {
			return gardener.Proposal{}, &RefusedError{ProposalID: p.ID, Reason: fmt.Sprintf("the open proposal of test %s was computed on version %d, not on version %d that run %s failed on", run.TestID, p.BaseVersion, run.TestVersion, run.ID)}
		}
		return p, nil
	}
	return gardener.Proposal{}, &RefusedError{Reason: fmt.Sprintf("test %s has no open proposal for run %s: ask suggest_fix first", run.TestID, run.ID)}
}

// refusal turns the lifecycle's refusals into the reasons a client reads.
func refusal(id string, err error) error {
	var stale *gardener.StaleError
	var floor *lifecycle.RefusedError
	var conflict *gardener.ConflictError
	var unproven *lifecycle.UnprovenError
	switch {
	case errors.As(err, &unproven):
		return &RefusedError{ProposalID: id, Reason: fmt.Sprintf("not proven: %s; ask suggest_fix for a proven fix (a person may still approve it in the queue)", unproven.Reason)}
	case errors.As(err, &stale):
		return &RefusedError{ProposalID: id, Reason: fmt.Sprintf("stale: it was proven on version %d of test %s, which is at version %d now; the proposal is marked stale — ask suggest_fix again", stale.BaseVersion, stale.TestID, stale.Version)}
	case errors.As(err, &floor):
		return &RefusedError{ProposalID: id, Reason: floor.Error()}
	case errors.As(err, &conflict):
		return &RefusedError{ProposalID: id, Reason: conflict.Error()}
	}
	return err
}
