package handler

import (
	"context"
	"fmt"
	"slices"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/tend"
)

// RunFailed is the detail of a "Run Failed" event: see gardening.RunFailed.
type RunFailed = gardening.RunFailed

// RepairInput is the repair state machine's input: see gardening.RepairInput.
type RepairInput = gardening.RepairInput

// Manual is a manual request for the ladder: see gardening.Manual.
type Manual = gardening.Manual

// Gate is the eligibility verdict that every later state reads: see gardening.Admission.
type Gate = gardening.Admission

// NewEligibility builds the first state of the repair machine. It records the run, answers a
// duplicate delivery of the same event without doing anything, and asks the run-selection gate.
// An ineligible run is a clean end, not an error.
func NewEligibility(d StoreDeps) (func(context.Context, RepairInput) (Gate, error), error) {
	app, err := d.application("eligibility")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, in RepairInput) (Gate, error) {
		g, err := app.Admit(ctx, in)
		if err != nil {
			return g, err
		}
		e := ladder.Event{Stage: gardener.EventEligibility, TestID: g.TestID, Passed: &g.Eligible, Reason: g.Reason}
		switch {
		case g.Eligible:
			e.Message = fmt.Sprintf("run %s is eligible: the ladder runs in %s mode", g.RunID, g.Mode)
		default:
			e.Message = fmt.Sprintf("run %s is not repaired: %s", g.RunID, g.Reason)
		}
		record := d.recorder(ctx, g.Execution, g.RunID)
		record(e)
		if !g.Eligible {
			// The repair ends here: this is its one outcome.
			record(ladder.Event{Stage: gardener.EventOutcome, TestID: g.TestID, Outcome: "not-eligible", Reason: g.Reason, Message: "not-eligible: " + g.Reason})
		}
		return g, nil
	}, nil
}

// RungResult is what a rung returns to the state machine: whether it holds a green proof (the
// Choice states route on it), the diagnosis, and the decision for persist.
type RungResult struct {
	Green          bool                    `json:"green"`
	Classification gardener.Classification `json:"classification"`
	Decision       tend.Decision           `json:"decision"`
	// Execution carries the gate's event log name on to persist and propagate.
	Execution string `json:"execution,omitempty"`
}

// NewRung builds the handler of one rung of the ladder. It reproduces the failure itself and
// keeps the page inside the Lambda; only ids, ops and verdicts leave it.
func NewRung(rung gardener.Strategy, d ReplayDeps) (func(context.Context, Gate) (RungResult, error), error) {
	if err := need(string(rung), d.deps()...); err != nil {
		return nil, err
	}
	app, err := d.application(string(rung))
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, g Gate) (RungResult, error) {
		if !g.Eligible {
			return RungResult{}, &BadEventError{Reason: "a rung was asked to run on an ineligible run"}
		}
		if len(g.Rungs) > 0 && !slices.Contains(g.Rungs, rung) {
			return RungResult{Decision: tend.Decision{TestID: g.TestID, RunID: g.RunID, Outcome: ladder.Triaged, Reason: string(rung) + " was not asked for"}}, nil
		}
		p, err := d.Store.Project(ctx, g.ProjectID)
		if err != nil {
			return RungResult{}, err
		}
		run, err := d.Store.Run(ctx, g.RunID)
		if err != nil {
			return RungResult{}, err
		}
		tender, err := d.tender(ctx, p, d.recorder(ctx, g.Execution, g.RunID))
		if err != nil {
			return RungResult{}, err
		}
		// Each rung function climbs its own ladder: the repair's outcome is persist's or
		// triage's to report, once.
		tender.Ladder.OneRung = true
		res, dec, err := tender.Climb(ctx, tend.Job{TestID: g.TestID, Mode: g.Mode, ModeFrom: g.ModeFrom, Run: &run, By: g.By, Actor: g.Actor, Rungs: []gardener.Strategy{rung}, Options: d.replayOptions(p)})
		if err != nil {
			return RungResult{}, err
		}
		return RungResultOf(ctx, app, dec, res.Diagnosis, g.Execution)
	}, nil
}

// RungResultOf is what a rung hands on: whether it is green and the brief of its decision, whose
// whole the store keeps (gardening.HandOff).
func RungResultOf(ctx context.Context, app *gardening.Service, dec tend.Decision, diagnosis *gardener.Diagnosis, execution string) (RungResult, error) {
	out := RungResult{Green: dec.Green(), Execution: execution}
	if diagnosis != nil {
		out.Classification = diagnosis.Classification
	}
	brief, err := app.HandOff(ctx, dec)
	if err != nil {
		return RungResult{}, err
	}
	out.Decision = brief
	return out, nil
}

// PersistResult is what persist wrote, and the notification it asks for: Notify is false when
// the repair is nobody's news (the test passes), and the machine ends without the notify state.
type PersistResult struct {
	Persisted    tend.Persisted `json:"persisted"`
	Notify       bool           `json:"notify"`
	Notification Notification   `json:"notification"`
}

// persistResult is what persist or triage hands on: the brief of what was written (its ids,
// never the test's steps) and the notification made from the whole of it.
func persistResult(dec tend.Decision, out tend.Persisted) PersistResult {
	n, ok := gardening.NotificationOf(dec, out)
	return PersistResult{Persisted: out.Brief(), Notify: ok, Notification: n}
}

// NewPersist builds the handler that writes a green rung's decision. It trusts no payload:
// tend.Persist checks the stored proof of exactly these ops and the lifecycle screens them again.
func NewPersist(d StoreDeps) (func(context.Context, RungResult) (PersistResult, error), error) {
	app, err := d.application("persist")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, r RungResult) (PersistResult, error) {
		if !r.Green {
			return PersistResult{}, &tend.UnprovenError{TestID: r.Decision.TestID, Reason: "persist was reached without a green proof"}
		}
		dec, err := app.Received(ctx, r.Decision)
		if err != nil {
			return PersistResult{}, err
		}
		out, err := app.Persist(ctx, dec)
		if err != nil {
			return PersistResult{}, err
		}
		record := d.recorder(ctx, r.Execution, dec.RunID)
		record(tend.OutcomeEvent(dec, out))
		record(tend.PersistedEvent(dec, out))
		return persistResult(dec, out), nil
	}, nil
}

// TriageInput is the execution state the triage state reads: the gate and the result of every
// rung that ran (the repair machine), or of the whole ladder (the staging machine's item).
type TriageInput struct {
	Gate       Gate        `json:"gate"`
	SelfHeal   *RungResult `json:"selfHeal,omitempty"`
	SuggestFix *RungResult `json:"suggestFix,omitempty"`
	Diagnose   *RungResult `json:"diagnose,omitempty"`
	Ladder     *RungResult `json:"ladder,omitempty"`
	// DryRun carries the gate in the staging machine, where the item's dry-run made it.
	DryRun *DryRunResult `json:"dryRun,omitempty"`
	// Error is set when a Catch routed here after a rung failed for good.
	Error *StateError `json:"error,omitempty"`
}

func (in TriageInput) results() []RungResult {
	var out []RungResult
	for _, r := range []*RungResult{in.SelfHeal, in.SuggestFix, in.Diagnose, in.Ladder} {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// StateError is the error object a Catch puts on the state's input.
type StateError = gardening.Stopped

// NewTriage builds the handler that files one triage issue for a ladder that ended without a
// green proof, with the attempts of every rung, and writes nothing to the test.
func NewTriage(d StoreDeps) (func(context.Context, TriageInput) (PersistResult, error), error) {
	app, err := d.application("triage")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, in TriageInput) (PersistResult, error) {
		if in.Gate.RunID == "" && in.DryRun != nil {
			in.Gate = in.DryRun.Gate
		}
		var rungs []tend.Decision
		for _, r := range in.results() {
			dec, err := app.Received(ctx, r.Decision)
			if err != nil {
				return PersistResult{}, err
			}
			rungs = append(rungs, dec)
		}
		dec, out, err := app.Conclude(ctx, in.Gate, rungs, in.Error)
		if err != nil {
			return PersistResult{}, err
		}
		record := d.recorder(ctx, in.Gate.Execution, in.Gate.RunID)
		record(tend.OutcomeEvent(dec, out))
		if out.Outcome != gardener.OutcomeNoFix {
			record(tend.PersistedEvent(dec, out))
		}
		return persistResult(dec, out), nil
	}, nil
}

// BadEventError is an event the handler cannot act on: see gardening.BadEventError.
type BadEventError = gardening.BadEventError

// PropagateInput is what the propagate state reads: the winning rung's result.
type PropagateInput struct {
	Winner RungResult `json:"winner"`
}

// PropagateResult names every other test the heal reached and what became of it.
type PropagateResult struct {
	Propagated []tend.PropagatedWrite `json:"propagated"`
}

// PropagateResultOf is what propagate hands on for what it wrote: each test's brief.
func PropagateResultOf(props []tend.PropagatedWrite) PropagateResult {
	out := PropagateResult{Propagated: make([]tend.PropagatedWrite, 0, len(props))}
	for _, pw := range props {
		out.Propagated = append(out.Propagated, pw.Brief())
	}
	return out
}

// NewPropagate builds the handler that carries a written locator heal to the project's other
// tests that use the same locator, each proven by its own green re-run, with no model call; one
// that does not go green is left alone and named. It runs after persist, in the Chromium image.
func NewPropagate(d ReplayDeps) (func(context.Context, PropagateInput) (PropagateResult, error), error) {
	return built(d.propagate, need("propagate", d.deps()...))
}

func (d ReplayDeps) propagate(ctx context.Context, in PropagateInput) (PropagateResult, error) {
	out := PropagateResult{Propagated: []tend.PropagatedWrite{}}
	if !in.Winner.Green {
		return out, nil
	}
	app, err := d.application("propagate")
	if err != nil {
		return out, err
	}
	dec, err := app.Received(ctx, in.Winner.Decision)
	if err != nil {
		return out, err
	}
	if dec.Verdict == nil {
		return out, nil
	}
	before, err := d.Store.Test(ctx, dec.TestID)
	if err != nil {
		return out, err
	}
	if before.Version == dec.BaseVersion {
		// The fix was staged, not written: nothing of it reaches other tests before a person
		// accepts it.
		return out, nil
	}
	// The fix was written: the steps it was found on are its repair's pre-repair steps.
	repairs, err := d.Store.Repairs(ctx, dec.TestID)
	if err != nil {
		return out, err
	}
	found := false
	for _, r := range repairs {
		if r.FromVersion == dec.BaseVersion {
			before.Steps, before.Version, found = r.PreSteps, r.FromVersion, true
			break
		}
	}
	if !found {
		return out, nil
	}
	p, err := d.Store.Project(ctx, dec.ProjectID)
	if err != nil {
		return out, err
	}
	tender, err := d.tender(ctx, p, d.recorder(ctx, in.Winner.Execution, dec.RunID))
	if err != nil {
		return out, err
	}
	job := tend.Job{TestID: dec.TestID, Mode: dec.Mode, ModeFrom: dec.ModeFrom, By: dec.By, Actor: dec.Actor, Options: d.replayOptions(p)}
	if dec.RunID != "" {
		run, err := d.Store.Run(ctx, dec.RunID)
		if err != nil {
			return out, err
		}
		job.Run = &run
	}
	props, err := tender.Propagate(ctx, job, before, *dec.Verdict)
	if err != nil {
		return out, err
	}
	for _, pw := range props {
		d.log().Info("propagated", "from", dec.TestID, "test", pw.TestID, "green", pw.Green, "reason", pw.Reason)
	}
	return PropagateResultOf(props), nil
}
