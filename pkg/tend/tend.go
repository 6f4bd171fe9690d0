// Package tend ties the ladder to the store: it gathers what a repair needs (the test, its last
// green run, an open proposal to replay), climbs the ladder, and persists the outcome through
// the lifecycle — a fix written, a proposal staged, or a triage issue filed — then propagates a
// proven locator heal to the project's other tests. The CLI, the local stack and the Lambdas all
// tend through it, so a repair means the same thing wherever it runs.
//
// The two halves are separate because in AWS they run in separate Lambdas: Climb runs in a rung
// (with a browser) and returns a small Decision; Persist runs in the persist function and trusts
// nothing in that Decision it cannot check again — the ops pass the floor again, and a fix is
// written only if the store holds a green proof of exactly those ops on exactly that version.
package tend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// Store is the part of a gardener.Store a Tender reads and records through; what it writes to
// tests and the queue goes through the lifecycle.
type Store interface {
	gardener.RunStore
	Project(ctx context.Context, id string) (gardener.Project, error)
	Test(ctx context.Context, id string) (gardener.Test, error)
	Tests(ctx context.Context, projectID string) ([]gardener.Test, error)
	TestProposals(ctx context.Context, testID string) ([]gardener.Proposal, error)
	PutTriageIssue(ctx context.Context, t gardener.TriageIssue) error
}

// Tender tends failing tests of one store.
type Tender struct {
	Store  Store
	Life   *lifecycle.Service
	Ladder *ladder.Ladder
	Log    *slog.Logger
	Now    func() time.Time
}

// Job is one failing test to tend.
type Job struct {
	TestID string
	Mode   gardener.Mode
	// ModeFrom says what set Mode (the project's setting or the request): the reason a proof
	// staged in propose mode gives.
	ModeFrom gardener.ModeFrom
	// Run is the failed run that triggered the job (apply mode and the manual path); nil for a
	// staging pass, which starts from a radar sweep.
	Run *gardener.Run
	// Failure is the failing replay when the caller has one (a staging pass dry-run).
	Failure *gardener.Replay
	// Triggers are the app changes that implicated the test (propose mode).
	Triggers []gardener.AppChange
	// By is who asks on the manual path (a person, or an agent with Actor set); empty for the
	// gardeners.
	By string
	// Actor is who the repair is for; empty is a person when By is set, else the schedule.
	Actor   gardener.Actor
	Options gardener.ReplayOptions
	Rungs   []gardener.Strategy
	// NoPropagate skips propagation (a propagated fix is not propagated again).
	NoPropagate bool
	// Reviewed: a person approved the fix a propagation comes from, reading its notes, and
	// asked for it to be carried; its copies are not held for the notes of the original, only
	// for their own.
	Reviewed bool
}

// Decision is what travels from a rung to persist: ids, ops and verdicts, never page data.
type Decision struct {
	ProjectID   string                `json:"projectId"`
	TestID      string                `json:"testId"`
	BaseVersion int                   `json:"baseVersion"`
	Mode        gardener.Mode         `json:"mode"`
	ModeFrom    gardener.ModeFrom     `json:"modeFrom,omitempty"`
	RunID       string                `json:"runId,omitempty"`
	By          string                `json:"by,omitempty"`
	Actor       gardener.Actor        `json:"actor,omitempty"`
	Outcome     ladder.Outcome        `json:"outcome"`
	Reason      string                `json:"reason,omitempty"`
	Facts       gardener.ClimbFacts   `json:"facts"`
	Verdict     *gardener.Verdict     `json:"verdict,omitempty"`
	ProofID     string                `json:"proofId,omitempty"`
	FailedStep  string                `json:"failedStep,omitempty"`
	Error       string                `json:"error,omitempty"`
	Triggers    []gardener.AppChange  `json:"triggers,omitempty"`
	Triage      *gardener.TriageIssue `json:"triage,omitempty"`
	Refusals    []gardener.Refusal    `json:"refusals,omitempty"`
	Usage       gardener.Usage        `json:"usage"`
	// Handoff, on a brief (see Brief), names the stored decision it stands for.
	Handoff string `json:"handoff,omitempty"`
}

// Brief is the decision as a state machine passes it between states: its ids and outcome, and
// the name of the handoff that keeps the whole of it (the verdict, the attempts, the refusals,
// which grow with the test). Step Functions passes at most 256 KiB from one state to the next.
func (d Decision) Brief(handoff string) Decision {
	d.Verdict, d.Triggers, d.Triage, d.Refusals = nil, nil, nil, nil
	d.Handoff = handoff
	return d
}

// actor is who the decision is for; a decision made before actors were named is a person's
// when it names one, else the schedule's.
func (d Decision) actor() gardener.Actor {
	return actorOf(d.Actor, d.By)
}

func actorOf(a gardener.Actor, by string) gardener.Actor {
	switch {
	case a != "":
		return a
	case by != "":
		return gardener.ActorPerson
	}
	return gardener.ActorSchedule
}

// Green reports whether the decision carries a green proof.
func (d Decision) Green() bool {
	return (d.Outcome == ladder.Repaired || d.Outcome == ladder.Staged) && d.Verdict != nil && d.ProofID != ""
}

// Persisted is what Persist wrote.
type Persisted struct {
	Outcome ladder.Outcome        `json:"outcome"`
	Applied *lifecycle.Applied    `json:"applied,omitempty"`
	Staged  *gardener.Staged      `json:"staged,omitempty"`
	Triage  *gardener.TriageIssue `json:"triage,omitempty"`
	// Reason says why a repaired decision was staged after all (the write-time gate asked for a
	// person), or why nothing was written.
	Reason string `json:"reason,omitempty"`
}

// PersistedBrief is Persisted as Brief encodes it, for a reader of a machine's output: kept
// beside Brief so the two change together. The brief's test is its ids and version without its
// steps, which a gardener.Test refuses to decode (a test has steps), so it is read as those.
type PersistedBrief struct {
	Outcome ladder.Outcome `json:"outcome"`
	Applied *struct {
		Test struct {
			ID        string              `json:"id"`
			ProjectID string              `json:"project"`
			Name      string              `json:"name"`
			Status    gardener.TestStatus `json:"status"`
			Version   int                 `json:"version"`
		} `json:"test"`
		Repair    gardener.Repair `json:"repair"`
		Duplicate bool            `json:"duplicate"`
	} `json:"applied,omitempty"`
	Staged *gardener.Staged      `json:"staged,omitempty"`
	Triage *gardener.TriageIssue `json:"triage,omitempty"`
	Reason string                `json:"reason,omitempty"`
}

// Persisted is the brief as a Persisted whose records hold what the brief kept.
func (b PersistedBrief) Persisted() Persisted {
	p := Persisted{Outcome: b.Outcome, Staged: b.Staged, Triage: b.Triage, Reason: b.Reason}
	if a := b.Applied; a != nil {
		t := a.Test
		p.Applied = &lifecycle.Applied{Test: gardener.Test{ID: t.ID, ProjectID: t.ProjectID, Name: t.Name, Status: t.Status, Version: t.Version}, Repair: a.Repair, Duplicate: a.Duplicate}
	}
	return p
}

// Brief is what was written as a state machine passes it on: the ids of the test version, the
// repair, the proposal and the triage issue, never the test's steps, a repair's pre-repair
// steps or a verdict, which the store keeps under those ids.
func (p Persisted) Brief() Persisted {
	if a := p.Applied; a != nil {
		p.Applied = &lifecycle.Applied{Duplicate: a.Duplicate,
			Test: gardener.Test{ID: a.Test.ID, ProjectID: a.Test.ProjectID, Name: a.Test.Name, Status: a.Test.Status, Version: a.Test.Version},
			Repair: gardener.Repair{ID: a.Repair.ID, ProjectID: a.Repair.ProjectID, TestID: a.Repair.TestID, RunID: a.Repair.RunID, ProposalID: a.Repair.ProposalID,
				Verdict: gardener.Verdict{Strategy: a.Repair.Verdict.Strategy}, FromVersion: a.Repair.FromVersion, ToVersion: a.Repair.ToVersion, At: a.Repair.At, Auto: a.Repair.Auto, ApprovedBy: a.Repair.ApprovedBy, Badge: a.Repair.Badge}}
	}
	if st := p.Staged; st != nil {
		q := st.Proposal
		p.Staged = &gardener.Staged{Outcome: st.Outcome, Superseded: st.Superseded, Proposal: gardener.Proposal{ID: q.ID, ProjectID: q.ProjectID, TestID: q.TestID,
			BaseVersion: q.BaseVersion, Status: q.Status, Verdict: gardener.Verdict{Strategy: q.Verdict.Strategy}, RunID: q.RunID, Reason: q.Reason, Restated: q.Restated, StagedAt: q.StagedAt, UpdatedAt: q.UpdatedAt}}
	}
	if tr := p.Triage; tr != nil {
		p.Triage = &gardener.TriageIssue{ID: tr.ID, ProjectID: tr.ProjectID, TestID: tr.TestID, RunID: tr.RunID, Classification: tr.Classification, FailedStep: tr.FailedStep, Error: tr.Error, At: tr.At}
	}
	return p
}

// Brief is a propagated write as a state machine passes it on: the test, whether it went
// green, why not, and the brief of what was written.
func (w PropagatedWrite) Brief() PropagatedWrite {
	w.Ops, w.Proof = nil, nil
	if w.Verdict != nil {
		w.Verdict = &gardener.Verdict{Strategy: w.Verdict.Strategy}
	}
	if w.Persisted != nil {
		b := w.Persisted.Brief()
		w.Persisted = &b
	}
	return w
}

// Tended is the whole of one Tend.
type Tended struct {
	Result     ladder.Result     `json:"result"`
	Decision   Decision          `json:"decision"`
	Persisted  Persisted         `json:"persisted"`
	Propagated []PropagatedWrite `json:"propagated,omitempty"`
}

// PropagatedWrite is a propagated heal and what was written for it.
type PropagatedWrite struct {
	ladder.Propagated
	Persisted *Persisted `json:"persisted,omitempty"`
}

func (t *Tender) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *Tender) log() *slog.Logger {
	if t.Log != nil {
		return t.Log
	}
	return slog.Default()
}

// Tend climbs and persists one job, then propagates a proven locator heal.
func (t *Tender) Tend(ctx context.Context, job Job) (Tended, error) {
	before, err := t.Store.Test(ctx, job.TestID)
	if err != nil {
		return Tended{}, fmt.Errorf("tend: %w", err)
	}
	res, dec, err := t.Climb(ctx, job)
	if err != nil {
		return Tended{Result: res, Decision: dec}, err
	}
	out := Tended{Result: res, Decision: dec}
	if res.Outcome == ladder.NoFix {
		out.Persisted = Persisted{Outcome: ladder.NoFix, Reason: res.Reason}
		return out, nil
	}
	p, err := t.Persist(ctx, dec)
	if err != nil {
		return out, err
	}
	out.Persisted = p
	if !job.NoPropagate && dec.Green() && res.Verdict != nil && p.Outcome == ladder.Repaired {
		if out.Propagated, err = t.Propagate(ctx, job, before, *res.Verdict); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Climb gathers the job's context, climbs the ladder, and records what a rung may record: the
// proof run (so persist can check it) and the model calls (the test's AI history).
func (t *Tender) Climb(ctx context.Context, job Job) (ladder.Result, Decision, error) {
	test, err := t.Store.Test(ctx, job.TestID)
	if err != nil {
		return ladder.Result{}, Decision{}, fmt.Errorf("tend: %w", err)
	}
	project, err := t.Store.Project(ctx, test.ProjectID)
	if err != nil {
		return ladder.Result{}, Decision{}, fmt.Errorf("tend %s: %w", test.ID, err)
	}
	actor := actorOf(job.Actor, job.By)
	if err := gardener.Gate(actor, job.Mode, project, test, job.Run); err != nil {
		return ladder.Result{}, Decision{}, err
	}
	req := ladder.Request{Test: test, Mode: job.Mode, ModeFrom: job.ModeFrom, Options: job.Options, Failure: job.Failure, Rungs: job.Rungs, Actor: actor}
	req.Options = project.ReplayOptions(req.Options)
	if job.Run != nil {
		req.RunID = job.Run.ID
		if job.Run.Result != nil && job.Run.TestVersion == test.Version {
			req.Reported = job.Run.Result
		}
	}
	if green, err := t.Store.LastGreenRun(ctx, test.ID); err == nil && green.Result != nil && green.TestVersion == test.Version {
		req.LastGreen = green.Result
	} else if err != nil && !errors.Is(err, gardener.ErrNotFound) {
		return ladder.Result{}, Decision{}, fmt.Errorf("tend %s: %w", test.ID, err)
	}
	if open, err := t.Store.TestProposals(ctx, test.ID); err == nil {
		for _, p := range open {
			if p.Status == gardener.ProposalProposed {
				req.Staged = &p
				break
			}
		}
	} else {
		return ladder.Result{}, Decision{}, fmt.Errorf("tend %s: %w", test.ID, err)
	}
	res, err := t.Ladder.Repair(ctx, req)
	if err != nil {
		return res, Decision{}, err
	}
	for _, c := range res.ModelCalls {
		if err := t.Life.RecordModelCall(ctx, c); err != nil {
			return res, Decision{}, fmt.Errorf("tend %s: recording a model call: %w", test.ID, err)
		}
	}
	dec := Decision{
		ProjectID: test.ProjectID, TestID: test.ID, BaseVersion: test.Version, Mode: job.Mode, ModeFrom: job.ModeFrom, By: job.By, Actor: actor,
		Outcome: res.Outcome, Reason: res.Reason, Facts: res.Facts, Verdict: res.Verdict, Triggers: job.Triggers,
		Triage: res.Triage, Refusals: res.Refusals, Usage: res.Usage,
	}
	if job.Run != nil {
		dec.RunID = job.Run.ID
	}
	if res.Failure != nil {
		dec.FailedStep, dec.Error = res.Failure.Step, res.Failure.Message
	}
	if err := t.recordReproduced(ctx, job.Run, test, res.FailedRun); err != nil {
		return res, dec, err
	}
	if res.Proof != nil && res.Verdict != nil {
		dec.ProofID = gardener.ProofID(test.ID, test.Version, res.Verdict.Ops)
		proof := *res.Proof
		proof.TestVersion = test.Version
		run := gardener.Run{ID: dec.ProofID, ProjectID: test.ProjectID, TestID: test.ID, TestVersion: test.Version, Trigger: gardener.TriggerProof, Probe: true, Result: &proof, At: t.now()}
		if err := t.Store.PutRun(ctx, run); err != nil {
			return res, dec, fmt.Errorf("tend %s: recording the proof: %w", test.ID, err)
		}
	}
	t.log().Info("climbed", "test", test.ID, "version", test.Version, "outcome", res.Outcome, "reason", res.Reason, "model_calls", len(res.ModelCalls), "replays", res.Timings.Replays, "ms", res.Timings.Total)
	return res, dec, nil
}

// recordReproduced stores the failure the ladder reproduced on the run it repairs when that run
// was recorded without a result (a repair the API started with no run): otherwise the run's page
// says no result was recorded while the ladder's events show the failing step. The write is
// conditional, so a result a platform delivered is never overwritten; and only a reproduction
// of the run's own test version is stored, since another version's failure is not this run's.
func (t *Tender) recordReproduced(ctx context.Context, run *gardener.Run, test gardener.Test, failed *gardener.RunResult) error {
	if run == nil || run.Result != nil || failed == nil || failed.Passed || run.TestVersion != test.Version {
		return nil
	}
	// The values the replay typed are the test's own; the run keeps none (spec: no text for
	// people carries a typed value, and a run is shown to people).
	res := failed.WithoutValues()
	res.TestID, res.TestVersion = test.ID, test.Version
	if _, err := t.Store.RecordRunResult(ctx, run.ID, res); err != nil && !errors.Is(err, gardener.ErrConflict) {
		return fmt.Errorf("tend %s: recording the reproduced failure on run %s: %w", test.ID, run.ID, err)
	}
	return nil
}

// ErrUnproven is returned when persist is asked to write ops no green proof stands behind.
var ErrUnproven = errors.New("no green proof of these operations on this version")

// UnprovenError is a write refused because its proof is missing or not green.
type UnprovenError struct {
	TestID string
	Reason string
}

func (e *UnprovenError) Error() string {
	return fmt.Sprintf("test %s: refusing to write: %s", e.TestID, e.Reason)
}

// Is lets errors.Is(err, ErrUnproven) match.
func (e *UnprovenError) Is(target error) bool { return target == ErrUnproven }

// Persist writes a decision: a green one as a fix (apply mode, nothing that needs a person) or a
// proposal; any other as a triage issue, when gardener.FilesTriage says its facts ground one.
// It checks the proof again and the lifecycle screens the ops again before anything is written.
func (t *Tender) Persist(ctx context.Context, d Decision) (Persisted, error) {
	switch d.Outcome {
	case ladder.Repaired, ladder.Staged:
	case ladder.NoFix:
		return Persisted{Outcome: ladder.NoFix, Reason: d.Reason}, nil
	default:
		return t.fileTriage(ctx, d)
	}
	if d.Verdict == nil {
		return Persisted{}, &UnprovenError{TestID: d.TestID, Reason: "the decision carries no verdict"}
	}
	want := gardener.ProofID(d.TestID, d.BaseVersion, d.Verdict.Ops)
	proof, err := t.Store.Run(ctx, want)
	switch {
	case errors.Is(err, gardener.ErrNotFound):
		return Persisted{}, &UnprovenError{TestID: d.TestID, Reason: fmt.Sprintf("no proof %s of these operations on version %d", want, d.BaseVersion)}
	case err != nil:
		return Persisted{}, fmt.Errorf("persist %s: %w", d.TestID, err)
	case !gardener.Proven(proof, d.TestID, d.BaseVersion):
		return Persisted{}, &UnprovenError{TestID: d.TestID, Reason: fmt.Sprintf("proof %s did not pass on version %d", want, d.BaseVersion)}
	}
	if d.Outcome == ladder.Repaired {
		// The decision is made again from what the store can check, not taken from the payload.
		if disp := gardener.Decide(*d.Verdict, d.Mode, d.ModeFrom, d.actor()); !disp.Apply {
			return t.stage(ctx, d, disp.Reason)
		}
		if d.RunID == "" {
			return t.stage(ctx, d, "no run to attach the repair to")
		}
		applied, err := t.Life.ApplyFix(ctx, lifecycle.Fix{RunID: d.RunID, TestID: d.TestID, BaseVersion: d.BaseVersion, Verdict: *d.Verdict, By: d.By, Proof: proof.Result})
		var inel *gardener.IneligibleError
		var noGreen *lifecycle.GreenRunError
		switch {
		case errors.As(err, &inel):
			return t.stage(ctx, d, inel.Reason)
		case errors.As(err, &noGreen):
			t.log().Warn("repaired", "test", d.TestID, "run", d.RunID, "error", err.Error())
		case err != nil:
			return Persisted{}, fmt.Errorf("persist %s: %w", d.TestID, err)
		}
		t.log().Info("repaired", "test", d.TestID, "run", d.RunID, "version", applied.Test.Version, "strategy", d.Verdict.Strategy, "duplicate", applied.Duplicate)
		return Persisted{Outcome: ladder.Repaired, Applied: &applied}, nil
	}
	return t.stage(ctx, d, d.Reason)
}

func (t *Tender) stage(ctx context.Context, d Decision, reason string) (Persisted, error) {
	p := gardener.Proposal{
		ID: gardener.ProposalIDOf(d.TestID, d.BaseVersion, d.Verdict.Ops), ProjectID: d.ProjectID, TestID: d.TestID,
		BaseVersion: d.BaseVersion, Verdict: *d.Verdict, Triggers: d.Triggers, FailedStep: d.FailedStep, Error: d.Error, Reason: reason, RunID: d.RunID,
	}
	staged, err := t.Life.Stage(ctx, p)
	if err != nil {
		return Persisted{}, fmt.Errorf("persist %s: staging: %w", d.TestID, err)
	}
	t.log().Info("staged", "test", d.TestID, "proposal", staged.Proposal.ID, "outcome", staged.Outcome, "restated", staged.Proposal.Restated, "reason", reason)
	return Persisted{Outcome: ladder.Staged, Staged: &staged, Reason: reason}, nil
}

func (t *Tender) fileTriage(ctx context.Context, d Decision) (Persisted, error) {
	pass := d.Mode == gardener.ModePropose && len(d.Triggers) > 0
	grounded := gardener.FilesTriage(d.Facts)
	if !grounded && !pass {
		// No green run to compare with and nothing else to go on: an issue (and its alert)
		// would claim a bug the gardener cannot tell from drift.
		t.log().Info("not triaged", "test", d.TestID, "run", d.RunID, "reason", d.Reason)
		return Persisted{Outcome: d.Outcome, Reason: d.Reason}, nil
	}
	tr := d.Triage
	if tr == nil {
		tr = &gardener.TriageIssue{ID: gardener.TriageID(d.RunID, d.TestID, t.now()), ProjectID: d.ProjectID, TestID: d.TestID, RunID: d.RunID, Classification: gardener.Unknown, FailedStep: d.FailedStep, Error: d.Error, At: t.now()}
	}
	if !grounded {
		// A staging pass must remember a climb that found nothing, or every later pass over the
		// same changes climbs (and pays the model) again; the staging pass alerts nobody, and
		// the memory claims no bug: its class is unknown and it says why.
		cp := *tr
		cp.Classification, cp.Evidence = gardener.Unknown, append([]string{d.Reason}, tr.Evidence...)
		tr = &cp
	}
	if pass {
		// Remembered so that the next staging pass over the same changes does not climb again.
		k := gardener.DismissalOf(gardener.Proposal{TestID: d.TestID, BaseVersion: d.BaseVersion, Triggers: d.Triggers})
		tr.Unchanged = &k
	}
	if err := t.Store.PutTriageIssue(ctx, *tr); err != nil {
		return Persisted{}, fmt.Errorf("persist %s: filing triage: %w", d.TestID, err)
	}
	t.log().Info("triaged", "test", d.TestID, "run", d.RunID, "classification", tr.Classification, "reason", d.Reason)
	return Persisted{Outcome: d.Outcome, Triage: tr, Reason: d.Reason}, nil
}

// Propagate gives the project's other active tests that use a locator the verdict healed (on
// before, the healed test as the fix found it) the same change, each proven by its own re-run
// with no model call and judged against its own last green run, and writes each green one the
// way the original was written: applied only in apply mode when neither its own verdict nor the
// original's asks for a person. Call it only for a fix that was applied: a fix staged for a
// person has not been accepted, and nothing of it may reach other tests first.
func (t *Tender) Propagate(ctx context.Context, job Job, before gardener.Test, v gardener.Verdict) ([]PropagatedWrite, error) {
	projectID := before.ProjectID
	changes := ladder.HealedLocators(before.Steps, v)
	if len(changes) == 0 {
		return nil, nil
	}
	all, err := t.Store.Tests(ctx, projectID)
	corrupt, err := gardener.SplitCorrupt(err)
	if err != nil {
		return nil, fmt.Errorf("propagate: %w", err)
	}
	if corrupt != nil {
		t.log().Warn("propagate: tests skipped", "project", projectID, "error", corrupt.Error())
	}
	var others []ladder.Target
	for _, o := range all {
		if o.ID == job.TestID || o.Status != gardener.StatusActive {
			continue
		}
		tg := ladder.Target{Test: o}
		green, err := t.Store.LastGreenRun(ctx, o.ID)
		switch {
		case err == nil && green.Result != nil && green.TestVersion == o.Version:
			tg.LastGreen = green.Result
		case err != nil && !errors.Is(err, gardener.ErrNotFound):
			return nil, fmt.Errorf("propagate to %s: %w", o.ID, err)
		}
		others = append(others, tg)
	}
	props, err := t.Ladder.Propagate(ctx, changes, others, job.Options)
	if err != nil {
		return nil, err
	}
	var out []PropagatedWrite
	for _, p := range props {
		w := PropagatedWrite{Propagated: p}
		if p.Green {
			pw, err := t.persistPropagated(ctx, job, projectID, p, v)
			if err != nil {
				return out, err
			}
			w.Persisted = pw
		}
		out = append(out, w)
	}
	return out, nil
}

func (t *Tender) persistPropagated(ctx context.Context, job Job, projectID string, p ladder.Propagated, origin gardener.Verdict) (*Persisted, error) {
	proofID := gardener.ProofID(p.TestID, p.BaseVersion, p.Verdict.Ops)
	proof := *p.Proof
	proof.TestVersion = p.BaseVersion
	if err := t.Store.PutRun(ctx, gardener.Run{ID: proofID, ProjectID: projectID, TestID: p.TestID, TestVersion: p.BaseVersion, Trigger: gardener.TriggerProof, Probe: true, Result: &proof, At: t.now()}); err != nil {
		return nil, fmt.Errorf("propagate to %s: %w", p.TestID, err)
	}
	d := Decision{ProjectID: projectID, TestID: p.TestID, BaseVersion: p.BaseVersion, Mode: job.Mode, ModeFrom: job.ModeFrom, By: job.By, Actor: actorOf(job.Actor, job.By), Outcome: ladder.Staged, Verdict: p.Verdict, ProofID: proofID, Triggers: job.Triggers, Reason: "propagated from " + job.TestID}
	disp := gardener.Decide(*p.Verdict, job.Mode, job.ModeFrom, d.Actor)
	if inherited, owhy := origin.NeedsPerson(); inherited && disp.Apply && !job.Reviewed {
		// The original was written by a person over a note that asks for one: its copies were not.
		disp = gardener.Disposition{Reason: fmt.Sprintf("a person must look: the fix of %s it comes from needed a person: %s", job.TestID, owhy)}
	}
	if !disp.Apply {
		d.Reason += "; " + disp.Reason
	}
	if disp.Apply && job.Run != nil {
		// The propagated fix answers the same failure event; its repair is keyed by a run of its
		// own so that a duplicate delivery of the event writes it once too. The run's id, and the
		// repair's made from it, is one URL path segment: the API reads and reverts a repair by
		// /repairs/{id}, where a "/" inside the id would name another route.
		run := *job.Run
		run.ID, run.TestID, run.TestVersion = gardener.PropagatedRunID(job.Run.ID, p.TestID), p.TestID, p.BaseVersion
		if err := t.Store.PutRun(ctx, run); err != nil {
			return nil, fmt.Errorf("propagate to %s: %w", p.TestID, err)
		}
		d.Outcome, d.RunID = ladder.Repaired, run.ID
	}
	pw, err := t.Persist(ctx, d)
	if err != nil {
		return nil, err
	}
	return &pw, nil
}
