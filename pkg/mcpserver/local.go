package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/tend"
)

// Local is the backend over a store on this machine (the local state directory): it climbs the
// ladder in a browser here through the application layer, which decides everything a door
// could (the gate, propose or apply, who may approve). Everything in the store is visible to
// whoever runs it.
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
	// Reach asks whether the app answers at the base URL before a tool replays against it
	// (gardening.Deps.Reach): an app that is down is the tool's error, and nothing is recorded.
	// Nil asks nothing.
	Reach func(ctx context.Context, base string) error
	Log   *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	once sync.Once
	app  *gardening.Service
	err  error
}

func (l *Local) log() *slog.Logger {
	if l.Log != nil {
		return l.Log
	}
	return slog.New(slog.DiscardHandler)
}

// service is the application layer over the store, built once.
func (l *Local) service() (*gardening.Service, error) {
	l.once.Do(func() {
		l.app, l.err = gardening.New(gardening.Deps{Store: l.Store, Models: l.Models, Reach: l.Reach, Now: l.Now, Log: l.log()})
	})
	return l.app, l.err
}

// Suggest climbs the ladder for the agent and stages a proven fix: an agent's suggestion is
// never written by the climb itself.
func (l *Local) Suggest(ctx context.Context, in SuggestInput, by string, progress func(string)) (Suggestion, error) {
	app, err := l.service()
	if err != nil {
		return Suggestion{}, err
	}
	rungs := make([]gardener.Strategy, len(in.Rungs))
	for i, r := range in.Rungs {
		rungs[i] = gardener.Strategy(r)
	}
	req := gardening.RepairRequest{RunID: in.RunID, TestID: in.TestID, Rungs: rungs, Propose: true}
	here := gardening.Here{Runner: l.Runner, Options: gardener.ReplayOptions{BaseURL: l.BaseURL, StepTimeout: l.StepTimeout},
		Progress: func(e ladder.Event) { progress(e.Line()) }}
	rep, err := app.RepairHere(ctx, gardening.Agent(by), req, here)
	if err != nil {
		return Suggestion{}, suggestError(in, gardening.ClassOf(err), err, "in the state")
	}
	test := rep.Test
	s := suggestionOf(test, rep.Result, rep.Persisted)
	if rep.Run != nil {
		s.RunID = rep.Run.ID
	}
	if rep.Cost != nil {
		s.Cost = rep.Cost.Summary()
	}
	now, err := l.Store.Test(ctx, test.ID)
	if err != nil {
		return Suggestion{}, fmt.Errorf("suggest_fix for test %s: %w", test.ID, err)
	}
	s.Version = now.Version
	finish(&s)
	return s, nil
}

// suggestionOf is suggest_fix's answer for a climb of test and what was recorded of it, before
// the version it left and finish: all the text the answer carries comes from here.
func suggestionOf(test gardener.Test, res ladder.Result, persisted tend.Persisted) Suggestion {
	s := Suggestion{Outcome: string(res.Outcome), Reason: res.Reason, TestID: test.ID, BaseVersion: test.Version, Version: test.Version}
	if f := res.Failure; f != nil {
		s.FailedStep, s.Error = f.Step, f.Message
	}
	if v := res.Verdict; v != nil {
		describeVerdict(&s, test.Steps, *v)
	}
	describeRefusals(&s, res.Refusals)
	describeStaged(&s, persisted)
	if st := persisted.Staged; st != nil && res.Verdict != nil && !slices.EqualFunc(st.Proposal.Verdict.Ops, res.Verdict.Ops, sameOp) {
		// The fix was recorded on the test's open proposal, which holds other ops: that one is
		// what apply_repair applies, so it is what the answer shows.
		s.Notes = append(s.Notes, fmt.Sprintf("the test already had open proposal %s for version %d; the new fix was recorded on it, and its own fix (shown) is what apply_repair applies", st.Proposal.ID, st.Proposal.BaseVersion))
		s.Changes = nil
		describeVerdict(&s, test.Steps, st.Proposal.Verdict)
	}
	return s
}

func sameOp(a, b gardener.Op) bool { return a.String() == b.String() }

// RunNow replays the test in the browser here and records its run, through the application
// layer's RunNow as POST /tests/{testId}/runs does.
func (l *Local) RunNow(ctx context.Context, in RunInput, by string) (Ran, error) {
	app, err := l.service()
	if err != nil {
		return Ran{}, err
	}
	ran, err := app.RunNow(ctx, gardening.Agent(by), in.TestID, gardening.Here{Runner: l.Runner, Options: gardener.ReplayOptions{BaseURL: l.BaseURL, StepTimeout: l.StepTimeout}})
	if err != nil {
		return Ran{}, runError(in, gardening.ClassOf(err), err, "in the state")
	}
	t, err := l.Store.Test(ctx, in.TestID)
	if err != nil {
		return Ran{}, fmt.Errorf("run_test for test %s: %w", in.TestID, err)
	}
	ran.Run = ran.Run.ForPeople(t)
	return ranOf(ran), nil
}

// Apply approves a proposal for the agent by: the application layer applies only a proven fix
// that needs no person, and marks a stale row stale as the queue does; proposalFor has refused
// a control run.
func (l *Local) Apply(ctx context.Context, in ApplyInput, by string) (Applied, error) {
	app, err := l.service()
	if err != nil {
		return Applied{}, err
	}
	p, err := l.proposalFor(ctx, in)
	if err != nil {
		return Applied{}, err
	}
	opt := gardening.ApproveOptions{Propagate: in.Propagate, Here: gardening.Here{Runner: l.Runner, Options: gardener.ReplayOptions{BaseURL: l.BaseURL, StepTimeout: l.StepTimeout}}}
	approved, err := app.Approve(ctx, gardening.Agent(by), p.ID, opt)
	if err != nil {
		return Applied{}, refusal(p.ID, err)
	}
	return Applied{ProposalID: p.ID, TestID: p.TestID, RepairID: approved.Repair.ID, Version: approved.Test.Version, ApprovedBy: approved.Repair.ApprovedBy, Diff: diffLines(approved.Repair.PreSteps, p.Verdict.Ops),
		Others: approved.OthersSaid(), Propagated: approved.PropagatedSaid()}, nil
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
	props, err := l.Store.TestProposals(ctx, run.TestID)
	if err != nil {
		return gardener.Proposal{}, fmt.Errorf("apply_repair for run %s: %w", run.ID, err)
	}
	return openProposalOf(run, props)
}

// refusal turns a refusal of the application layer into the tool's error, in the words every
// door gives it; anything else fails the call as it is.
func refusal(id string, err error) error {
	switch gardening.ClassOf(err) {
	case gardening.ClassRefused, gardening.ClassUnproven, gardening.ClassConflict, gardening.ClassBadInput:
		return &RefusedError{ProposalID: id, Reason: err.Error()}
	}
	return err
}
