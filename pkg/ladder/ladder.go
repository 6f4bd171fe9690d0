// Package ladder climbs the repair ladder (self-heal, suggest-fix, diagnose-drift) for one
// failing test and holds every candidate to the same three gates: the assertion floor, a full
// re-run of an in-memory copy (the green gate), and the trust checks that follow a green proof
// (sensitivity, requirement contract, flow and behaviour notes, change classes). It talks to the
// browser and the model only through the domain ports gardener.Runner and gardener.Model, and
// writes nothing: persisting a verdict is the caller's job, through the store's lifecycle.
package ladder

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Outcome is how a ladder run ended: the domain's outcome, decided by gardener.Conclude.
type Outcome = gardener.Outcome

// Outcomes, named as the ladder's callers have always read them.
const (
	Repaired = gardener.OutcomeRepaired
	Staged   = gardener.OutcomeStaged
	Triaged  = gardener.OutcomeTriaged
	Refused  = gardener.OutcomeRefused
	NoFix    = gardener.OutcomeNoFix
)

// Event is one line of progress, streamed while the ladder climbs: see gardener.LadderEvent.
// The ladder emits, in order, the reproduction (its result and failing step), the snapshot of
// the page it left, each candidate with its operations, each refusal of the floor with its
// reason, each proof step by step and its verdict, the sensitivity and contract checks and the
// verdict of a green proof, and the outcome.
type Event = gardener.LadderEvent

// Ladder climbs the rungs with one runner and one model.
type Ladder struct {
	Runner gardener.Runner
	Model  gardener.Model
	// Progress, when set, receives every event as it happens, numbered from 1 in the order the
	// ladder emitted them and stamped with the ladder's clock.
	Progress func(Event)
	// MaxRefinements bounds how many further steps one candidate may heal after its proof goes
	// red further along the test (several locators drifted at once); zero means 6.
	MaxRefinements int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OneRung says each climb is one rung of a repair whose rungs run apart (each rung function
	// of the repair machine climbs its own ladder): its end is reported as a rung event, and the
	// repair's one outcome event by the step that persists it.
	OneRung bool

	// seq numbers the events this ladder emitted.
	seq atomic.Int64
}

// Request is one failing test to repair.
type Request struct {
	Test gardener.Test
	Mode gardener.Mode
	// ModeFrom says what set Mode: the reason a proof staged in propose mode gives.
	ModeFrom gardener.ModeFrom
	Options  gardener.ReplayOptions
	// LastGreen is the record of the test's last green run of this version: the fingerprints the
	// self-heal looks for, and the requirement contract's source. Without it the contract is
	// empty, and a climb without a green proof concludes that it cannot tell drift from a bug.
	LastGreen *gardener.RunResult
	// Failure is the failing replay when the caller has one; otherwise the ladder reproduces it.
	Failure *gardener.Replay
	// Reported is the failure as the triggering run recorded it, on the test's current
	// version. When self-heal is the only rung asked for and that failure is one no new
	// locator can fix, the ladder says so without reproducing it: each rung of the state
	// machine is its own Lambda, and a reproduction is a whole replay that waits out the
	// failing step.
	Reported *gardener.RunResult
	// Staged is an open proposal for this test; a fix already proven is replayed first at zero
	// model cost ("a heal is paid for once").
	Staged *gardener.Proposal
	// RunID is the run that triggered the repair, for the records.
	RunID string
	// Rungs restricts the ladder (the manual path may ask for one); empty means all three.
	Rungs []gardener.Strategy
	// Actor is who the repair is for: a green proof is written or staged by gardener.Decide
	// from the verdict, the mode and the actor. Empty is the gardeners' schedule.
	Actor gardener.Actor
}

// Attempt is a candidate and what became of it; see gardener.Attempt.
type Attempt = gardener.Attempt

// RungReport is what one rung tried.
type RungReport struct {
	Rung     gardener.Strategy  `json:"rung"`
	Attempts []gardener.Attempt `json:"attempts"`
	Usage    gardener.Usage     `json:"usage"`
}

// FailureSummary is the failure the ladder started from.
type FailureSummary struct {
	Step      string             `json:"step"`
	ErrorKind gardener.ErrorKind `json:"errorKind"`
	Message   string             `json:"message"`
	URL       string             `json:"url"`
}

// Timings are wall times in milliseconds; Replays counts every browser replay the run made.
type Timings struct {
	Reproduce int64 `json:"reproduceMs"`
	Proofs    int64 `json:"proofsMs"`
	Model     int64 `json:"modelMs"`
	Total     int64 `json:"totalMs"`
	Replays   int   `json:"replays"`
}

// Result is everything a ladder run established.
type Result struct {
	Outcome     Outcome `json:"outcome"`
	TestID      string  `json:"testId"`
	BaseVersion int     `json:"baseVersion"`
	Reason      string  `json:"reason,omitempty"`
	// Facts are what Outcome was concluded from; a rung that runs apart hands them on.
	Facts      gardener.ClimbFacts    `json:"facts"`
	Failure    *FailureSummary        `json:"failure,omitempty"`
	Verdict    *gardener.Verdict      `json:"verdict,omitempty"`
	Steps      []gardener.Step        `json:"steps,omitempty"` // the repaired steps
	Diff       []gardener.DiffEntry   `json:"diff,omitempty"`
	Refusals   []gardener.Refusal     `json:"refusals,omitempty"`
	Rungs      []RungReport           `json:"rungs"`
	Triage     *gardener.TriageIssue  `json:"triage,omitempty"`
	Usage      gardener.Usage         `json:"usage"`
	ModelCalls []gardener.ModelCall   `json:"modelCalls,omitempty"`
	Proof      *gardener.RunResult    `json:"proof,omitempty"`
	Diagnosis  *gardener.Diagnosis    `json:"diagnosis,omitempty"`
	Timings    Timings                `json:"timings"`
	FailedRun  *gardener.RunResult    `json:"failedRun,omitempty"`
	Snapshot   *gardener.Snapshot     `json:"-"`
	Attempts   int                    `json:"attempts"`
	Probes     []gardener.ProbeResult `json:"-"`
}

// climb is the state of one ladder run.
type climb struct {
	l     *Ladder
	req   Request
	base  gardener.Test
	fail  gardener.Replay
	res   *Result
	green *proven
	// lookedBack is set once earlierElement has replayed to look at an earlier step's page:
	// its answer is evidence for a person, worth one replay per climb, not one per proof.
	lookedBack bool
	// alts are the model's further locators for a healed base step, tried before asking again.
	alts map[int][]gardener.Locator
	// red are the candidates (by opsKey) whose proof went red: no rung replays one again.
	red map[string]bool
}

// Repair climbs the ladder for one failing test. The error is for what stops the ladder from
// running at all (no browser, a cancelled context); every other outcome is in the Result.
func (l *Ladder) Repair(ctx context.Context, req Request) (Result, error) {
	start := l.now()
	if l.Runner == nil || l.Model == nil {
		return Result{}, errors.New("ladder: a runner and a model are required")
	}
	if req.Mode != gardener.ModeApply && req.Mode != gardener.ModePropose {
		return Result{}, fmt.Errorf("ladder: mode %q is not apply or propose", req.Mode)
	}
	c := &climb{l: l, req: req, base: req.Test.Clone(), res: &Result{TestID: req.Test.ID, BaseVersion: req.Test.Version}, alts: map[int][]gardener.Locator{}, red: map[string]bool{}}
	err := c.run(ctx)
	c.res.Timings.Total = l.now().Sub(start).Milliseconds()
	if err != nil {
		return *c.res, err
	}
	end := Event{Stage: gardener.EventOutcome, Outcome: string(c.res.Outcome), Reason: c.res.Reason, Message: c.describeOutcome()}
	if l.OneRung {
		end.Stage = gardener.EventRung
		if len(req.Rungs) == 1 {
			end.Rung = req.Rungs[0]
		}
	}
	c.emit(end)
	return *c.res, nil
}

func (l *Ladder) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Ladder) emit(e Event) {
	if l.Progress != nil {
		e.Seq, e.At = int(l.seq.Add(1)), l.now()
		l.Progress(e)
	}
}

// emit sends an event about the test being repaired.
func (c *climb) emit(e Event) {
	e.TestID = c.base.ID
	c.l.emit(e)
}

func (c *climb) run(ctx context.Context) error {
	if c.req.Failure == nil && c.nothingToHeal() {
		fr := *c.req.Reported
		c.fail = gardener.Replay{Result: fr}
		c.res.FailedRun = &fr
		c.res.Failure = &FailureSummary{Step: fr.FailedStep, ErrorKind: fr.ErrorKind, Message: fr.Message, URL: fr.FinalURL}
		c.res.Rungs = append(c.res.Rungs, RungReport{Rung: gardener.StrategySelfHeal})
		why := fmt.Sprintf("no candidate: run %s failed at step %s with %s, which a new locator cannot fix; not replayed", c.req.RunID, fr.FailedStep, fr.ErrorKind)
		c.attempt(0, gardener.Attempt{Rung: gardener.StrategySelfHeal, Outcome: why})
		c.emit(Event{Stage: gardener.EventReproduce, Step: fr.FailedStep, Passed: ptr(false), Message: fmt.Sprintf("run %s failed at step %s: %s", c.req.RunID, fr.FailedStep, fr.Message)})
		c.emit(Event{Stage: gardener.EventCandidate, Rung: gardener.StrategySelfHeal, Message: why})
		return c.finish(ctx, nil)
	}
	if c.req.Failure != nil {
		c.fail = *c.req.Failure
	} else {
		c.emit(Event{Stage: gardener.EventReproduce, Message: fmt.Sprintf("replaying %s (version %d) to reproduce the failure", c.base.ID, c.base.Version)})
		t0 := c.l.now()
		opts := c.req.Options
		opts.QuietFail = c.quietFail()
		rep, err := c.replay(ctx, c.base, opts)
		c.res.Timings.Reproduce = c.l.now().Sub(t0).Milliseconds()
		if err != nil {
			return err
		}
		c.fail = rep
	}
	if c.fail.Result.Passed {
		c.res.Facts = gardener.ClimbFacts{Passed: true}
		c.res.Outcome, c.res.Reason = gardener.Conclude(c.res.Facts)
		c.emit(Event{Stage: gardener.EventReproduce, Passed: ptr(true), Message: fmt.Sprintf("passes: all %d steps of %s", len(c.base.Steps), c.base.ID)})
		return nil
	}
	fr := c.fail.Result
	c.res.FailedRun = &fr
	c.res.Snapshot = c.fail.Snapshot
	c.res.Failure = &FailureSummary{Step: fr.FailedStep, ErrorKind: fr.ErrorKind, Message: fr.Message, URL: failureURL(c.fail)}
	c.emit(Event{Stage: gardener.EventReproduce, Step: fr.FailedStep, Passed: ptr(false), Reason: string(fr.ErrorKind), Message: fmt.Sprintf("fails at step %s: %s", fr.FailedStep, fr.Message)})
	if snap := c.fail.Snapshot; snap != nil {
		c.emit(Event{Stage: gardener.EventSnapshot, Snapshot: &gardener.SnapshotSummary{URL: snap.URL, Title: snap.Title, Elements: len(snap.Candidates)},
			Message: fmt.Sprintf("snapshot of %s: %d elements", snap.URL, len(snap.Candidates))})
	}

	if fr.ErrorKind == gardener.ErrRuntime {
		// The gardener's own page runtime failed: the run says nothing about the test or the
		// app, so no rung may read it as drift (nor a model be paid to guess). It is filed
		// as the environment's, naming the runtime, and nothing is repaired.
		c.res.Rungs = append(c.res.Rungs, RungReport{Rung: gardener.StrategyDiagnose})
		d := gardener.Diagnosis{Classification: gardener.Environment, Evidence: []string{"the gardener's page runtime failed on this page, not the test or the app: " + fr.Message}}
		c.res.Diagnosis = &d
		c.attempt(len(c.res.Rungs)-1, gardener.Attempt{Rung: gardener.StrategyDiagnose, Outcome: "the gardener's page runtime failed: nothing is repaired"})
		c.emit(Event{Stage: gardener.EventCandidate, Rung: gardener.StrategyDiagnose, Outcome: string(d.Classification), Message: "diagnosis: " + d.Evidence[0]})
		return c.finish(ctx, nil)
	}

	if c.req.Staged != nil && c.req.Staged.Status == gardener.ProposalProposed && c.req.Staged.BaseVersion == c.base.Version && len(c.req.Staged.Verdict.Ops) > 0 {
		rr := &RungReport{Rung: gardener.StrategyReplay}
		c.res.Rungs = append(c.res.Rungs, *rr)
		if err := c.try(ctx, len(c.res.Rungs)-1, gardener.StrategyReplay, c.req.Staged.Verdict.Ops); err != nil || c.green != nil {
			return c.finish(ctx, err)
		}
	}

	rungs := c.req.Rungs
	if len(rungs) == 0 {
		rungs = []gardener.Strategy{gardener.StrategySelfHeal, gardener.StrategySuggestFix, gardener.StrategyDiagnose}
	}
	for _, rung := range rungs {
		c.res.Rungs = append(c.res.Rungs, RungReport{Rung: rung})
		ri := len(c.res.Rungs) - 1
		var err error
		switch rung {
		case gardener.StrategySelfHeal:
			err = c.selfHeal(ctx, ri)
		case gardener.StrategySuggestFix:
			err = c.suggestFix(ctx, ri)
		case gardener.StrategyDiagnose:
			var stop bool
			stop, err = c.diagnose(ctx, ri)
			if err == nil && stop {
				return c.finish(ctx, nil)
			}
		default:
			return fmt.Errorf("ladder: unknown rung %q", rung)
		}
		if err != nil || c.green != nil {
			return c.finish(ctx, err)
		}
	}
	return c.finish(ctx, nil)
}

// quietFail lets the reproduction stop waiting where waiting cannot help (see QuietFailOf).
func (c *climb) quietFail() map[int]gardener.QuietFail {
	return QuietFailOf(c.base, c.req.Reported)
}

// QuietFailOf is where a replay of t that reproduces a failure may stop waiting: at the step
// the triggering run reported failing (reported: it waited out the whole timeout there
// already), at any step whose own locator matches nothing on a page that has gone quiet,
// inside an intent block by the inner step's own locator, and at a check of the page's URL or
// title once the page is quiet (gardener.Step.PlaceCheck). The element still being there under
// another name the last green run recorded (its label, its role and name) is no reason to wait:
// that is drift, which no wait on a settled page mends, and the snapshot the reproduction is
// for shows it as well now as after the step limit. Proofs give up only by proofQuiet's patient
// rule. A repair that replays the test first to learn whether it fails (the CLI's and MCP's
// repair with no green run recorded) replays it so too.
func QuietFailOf(t gardener.Test, reported *gardener.RunResult) map[int]gardener.QuietFail {
	// With no run of this version reported failing, this replay is what says whether the test
	// fails at all: it waits for a slow answer as a proof does (Patient), or a slow app's test
	// would be called red where a plain run passes. With one, the failure is known and the
	// replay is for its snapshot.
	known := reported != nil && !reported.Passed && reported.TestID == t.ID && reported.TestVersion == t.Version
	out := map[int]gardener.QuietFail{}
	for i, st := range t.Steps {
		switch {
		case st.Kind == gardener.Intent || !st.Target().IsZero():
			// Each step inside a block gives up when its own locator matches nothing on a
			// quiet page: a renamed button inside a login block is as gone as one outside.
			out[i] = gardener.QuietFail{Patient: !known}
		case st.PlaceCheck():
			// No element to look for: it ends on a quiet page, patiently (gardener.QuietFail).
			out[i] = gardener.QuietFail{Patient: !known}
		}
	}
	if r := reported; known && r.FailedIndex >= 0 && r.FailedIndex < len(t.Steps) && !strings.Contains(r.FailedStep, ".") {
		q := out[r.FailedIndex]
		q.Reported = true
		out[r.FailedIndex] = q
	}
	return out
}

// nothingToHeal reports whether the reported failure alone shows that a self-heal-only climb
// has nothing to try: the failing step is outside an intent block and failed for a reason other
// than finding its element, and no staged fix is waiting to be replayed. A stale report (the
// app changed again since the run) costs at most this one pass: the next failing run reports
// afresh, and the later rungs reproduce for themselves.
func (c *climb) nothingToHeal() bool {
	r := c.req.Reported
	if r == nil || r.Passed || r.ErrorKind == "" || r.TestID != c.base.ID || r.TestVersion != c.base.Version {
		return false
	}
	if len(c.req.Rungs) != 1 || c.req.Rungs[0] != gardener.StrategySelfHeal {
		return false
	}
	if s := c.req.Staged; s != nil && s.Status == gardener.ProposalProposed && s.BaseVersion == c.base.Version && len(s.Verdict.Ops) > 0 {
		return false
	}
	fi := r.FailedIndex
	if fi < 0 || fi >= len(c.base.Steps) {
		return false
	}
	step := c.base.Steps[fi]
	return step.Kind != gardener.Intent && (!r.LocatorTrouble() || step.Target().IsZero())
}

// selfHeal asks for a corrected locator for the failing step, or re-derives the intent block
// the failing step sits in.
func (c *climb) selfHeal(ctx context.Context, ri int) error {
	origin := identity(len(c.base.Steps))
	op, err := c.healStep(ctx, ri, c.base, c.fail, origin)
	if err != nil || op == nil {
		return err
	}
	ops := append([]gardener.Op{*op}, c.carried(*op)...)
	more, err := c.samePage(ctx, ri, c.base, c.fail, origin, ops)
	if err != nil {
		return err
	}
	dismiss, err := c.dismissalsBack(ctx, ri, c.base, c.fail, origin)
	if err != nil {
		return err
	}
	return c.try(ctx, ri, c.res.Rungs[ri].Rung, append(append(ops, more...), dismiss...))
}

func (c *climb) suggestFix(ctx context.Context, ri int) error {
	t0 := c.l.now()
	ans, err := c.l.Model.SuggestOps(ctx, gardener.OpsAsk{Failure: c.failure(c.base, c.fail)})
	c.res.Timings.Model += c.l.now().Sub(t0).Milliseconds()
	c.recordCall(ri, "operations", ans.Usage, err, len(ans.Ops))
	if err != nil {
		return c.modelError(ri, err)
	}
	if len(ans.Ops) == 0 {
		c.attempt(ri, gardener.Attempt{Rung: gardener.StrategySuggestFix, Outcome: "no candidate: " + cmp.Or(ans.Reason, "the model proposed no operations")})
		return nil
	}
	return c.try(ctx, ri, gardener.StrategySuggestFix, ans.Ops)
}

// diagnose classifies the failure; only drift is repaired. It reports stop when the diagnosis
// ends the ladder (an app bug or an environment problem).
func (c *climb) diagnose(ctx context.Context, ri int) (bool, error) {
	t0 := c.l.now()
	d, err := c.l.Model.Diagnose(ctx, gardener.DiagnoseAsk{Failure: c.failure(c.base, c.fail)})
	c.res.Timings.Model += c.l.now().Sub(t0).Milliseconds()
	c.recordCall(ri, "diagnosis", d.Usage, err, len(d.Ops))
	if err != nil {
		return false, c.modelError(ri, err)
	}
	c.res.Diagnosis = &d
	c.emit(Event{Stage: gardener.EventCandidate, Rung: gardener.StrategyDiagnose, Outcome: string(d.Classification), Message: fmt.Sprintf("diagnosis: %s (%s)", d.Classification, strings.Join(d.Evidence, "; "))})
	if d.Classification == gardener.AppBug || d.Classification == gardener.Environment {
		c.attempt(ri, gardener.Attempt{Rung: gardener.StrategyDiagnose, Outcome: fmt.Sprintf("diagnosed as %s: nothing is repaired", d.Classification)})
		return true, nil
	}
	if len(d.Ops) == 0 {
		c.attempt(ri, gardener.Attempt{Rung: gardener.StrategyDiagnose, Outcome: fmt.Sprintf("diagnosed as %s with no repair", d.Classification)})
		return false, nil
	}
	return false, c.try(ctx, ri, gardener.StrategyDiagnose, d.Ops)
}

// modelError keeps a model failure in the record and decides whether it stops the ladder. A
// throttled or failing model service is the state machine's to retry, so it is returned; an
// invalid or refused answer is one rung's bad luck and the ladder goes on.
func (c *climb) modelError(ri int, err error) error {
	c.attempt(ri, gardener.Attempt{Rung: c.res.Rungs[ri].Rung, Outcome: "model error: " + err.Error()})
	var retry interface{ Retryable() bool }
	if errors.As(err, &retry) && retry.Retryable() {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

func (c *climb) recordCall(ri int, ask string, u gardener.Usage, err error, n int) {
	c.res.Rungs[ri].Usage = c.res.Rungs[ri].Usage.Add(u)
	c.res.Usage = c.res.Usage.Add(u)
	if u.Calls == 0 {
		return // the built-in engine: no model was called
	}
	outcome := fmt.Sprintf("answered (%d items)", n)
	if err != nil {
		outcome = "error: " + err.Error()
	}
	c.res.ModelCalls = append(c.res.ModelCalls, gardener.ModelCall{TestID: c.base.ID, Ask: ask, Model: u.Model, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, Outcome: outcome, At: c.l.now()})
}

func (c *climb) attempt(ri int, a gardener.Attempt) {
	c.res.Rungs[ri].Attempts = append(c.res.Rungs[ri].Attempts, a)
	c.res.Attempts++
}

// failure builds the evidence every ask carries.
func (c *climb) failure(t gardener.Test, rep gardener.Replay) gardener.Failure {
	f := gardener.Failure{Test: t, Result: rep.Result, LastGreen: c.req.LastGreen, PageURL: failureURL(rep)}
	if rep.Snapshot != nil {
		f.Snapshot = rep.Snapshot.Candidates
		f.PageText = rep.Snapshot.Text
	}
	return f
}

func failureURL(rep gardener.Replay) string {
	if rep.Snapshot != nil && rep.Snapshot.URL != "" {
		return rep.Snapshot.URL
	}
	return rep.Result.FinalURL
}

func (c *climb) replay(ctx context.Context, t gardener.Test, opts gardener.ReplayOptions) (gardener.Replay, error) {
	c.res.Timings.Replays++
	rep, err := c.l.Runner.Replay(ctx, t, opts)
	if err != nil {
		return rep, fmt.Errorf("ladder: replaying %s: %w", t.ID, err)
	}
	return rep, nil
}

// finish turns the climb's state into the result's outcome.
func (c *climb) finish(ctx context.Context, err error) error {
	if err != nil {
		return err
	}
	for _, r := range c.res.Rungs {
		for _, a := range r.Attempts {
			c.res.Refusals = append(c.res.Refusals, a.Refusals...)
		}
	}
	if c.green != nil {
		return c.conclude(ctx)
	}
	// The triage is a draft: the rungs of the repair machine hand it on, and the persist step
	// files it only when the facts ground one (gardener.FilesTriage).
	c.res.Triage = c.triage()
	c.res.Facts = c.facts()
	c.res.Outcome, c.res.Reason = gardener.Conclude(c.res.Facts)
	return nil
}

// facts are what the climb's outcome is decided from; a rung that runs apart hands them on in
// its decision, so the state machine's conclusion decides from the same facts.
func (c *climb) facts() gardener.ClimbFacts {
	f := gardener.ClimbFacts{Refusals: len(c.res.Refusals)}
	if c.req.LastGreen == nil {
		// No green run of this version: a diagnosis had nothing to compare the failure with.
		f.NoBaseline = &gardener.TestAtVersion{TestID: c.base.ID, Version: c.base.Version}
	}
	if c.res.Diagnosis != nil {
		f.Classification = c.res.Diagnosis.Classification
	}
	for _, r := range c.res.Rungs {
		for _, a := range r.Attempts {
			if len(a.Ops) > 0 {
				f.Tried++
			}
		}
	}
	return f
}

func (c *climb) triage() *gardener.TriageIssue {
	t := &gardener.TriageIssue{
		ProjectID: c.base.ProjectID, TestID: c.base.ID, RunID: c.req.RunID,
		Classification: gardener.Unknown, FailedStep: c.fail.Result.FailedStep, Error: c.fail.Result.Message, At: c.l.now(),
	}
	if d := c.res.Diagnosis; d != nil {
		t.Classification = d.Classification
		t.Evidence = append(t.Evidence, d.Evidence...)
		if d.Classification == gardener.TestDrift && c.provedAndFailed(gardener.StrategyDiagnose) {
			// The diagnosis took the failure for drift and named its repair, and that repair
			// did not pass: drift alone does not explain the failure (a renamed field in front
			// of a dead button), so the issue does not say it does.
			t.Classification = gardener.Unknown
			t.Evidence = append(t.Evidence, "the diagnosis took it for test drift, but the repair it proposed did not pass its proof: something besides drift may be wrong, and a person must look")
		}
	}
	for _, r := range c.res.Rungs {
		t.Attempts = append(t.Attempts, r.Attempts...)
	}
	t.ID = gardener.TriageID(c.req.RunID, c.base.ID, t.At)
	return t
}

// provedAndFailed reports whether rung r put a candidate to a proof: in a climb that ends
// without a green one, that proof failed.
func (c *climb) provedAndFailed(r gardener.Strategy) bool {
	for _, rung := range c.res.Rungs {
		for _, a := range rung.Attempts {
			if a.Rung == r && len(a.Ops) > 0 {
				return true
			}
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }

func (c *climb) describeOutcome() string {
	s := string(c.res.Outcome)
	if c.res.Reason != "" {
		s += ": " + c.res.Reason
	}
	return s
}
