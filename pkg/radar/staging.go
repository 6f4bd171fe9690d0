package radar

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/tend"
)

// Selection is what a staging pass will handle: at most MaxDryRuns eligible at-risk tests,
// longest at risk first. Deferred tests stay on the ledger for the next pass.
type Selection struct {
	ProjectID string `json:"projectId"`
	// Skipped says why the whole pass does nothing: gardener.StagingGate's sentence.
	Skipped    string   `json:"skipped,omitempty"`
	Selected   []string `json:"selected"`
	Deferred   []string `json:"deferred"`
	Ineligible []Skip   `json:"ineligible,omitempty"`
}

// Select chooses the tests of one staging pass and writes the pass summary, the one server log
// line that names what waits for the next pass. A project gardener.StagingGate stops is skipped
// whole (auto-repair on: one gardener per project; not Pro, no model, radar off), its at-risk
// list left as it is.
func (r *Radar) Select(ctx context.Context, projectID string) (Selection, error) {
	sel := Selection{ProjectID: projectID, Selected: []string{}, Deferred: []string{}}
	p, err := r.Store.Project(ctx, projectID)
	if err != nil {
		return sel, fmt.Errorf("staging pass: %w", err)
	}
	risky, err := r.Store.AtRisk(ctx, projectID)
	if err != nil {
		return sel, fmt.Errorf("staging pass: at-risk tests of %s: %w", projectID, err)
	}
	if _, why := gardener.StagingGate(p); why != "" {
		sel.Skipped = why
	} else {
		take, left, err := r.pending(ctx, p, risky)
		if err != nil {
			return sel, fmt.Errorf("staging pass: %w", err)
		}
		sel.Ineligible = left
		for _, id := range take {
			if len(sel.Selected) < MaxDryRuns {
				sel.Selected = append(sel.Selected, id)
			} else {
				sel.Deferred = append(sel.Deferred, id)
			}
		}
	}
	attrs := []any{"project", projectID, "at_risk", len(risky), "selected", sel.Selected, "deferred", sel.Deferred}
	if sel.Skipped != "" {
		attrs = append(attrs, "skipped", sel.Skipped)
	}
	if len(sel.Ineligible) > 0 {
		ids := make([]string, 0, len(sel.Ineligible))
		for _, s := range sel.Ineligible {
			ids = append(ids, s.ID)
		}
		attrs = append(attrs, "ineligible", ids)
	}
	r.log().InfoContext(ctx, "staging pass", attrs...)
	return sel, nil
}

// pending splits the at-risk tests, longest at risk first, into those a staging pass of p takes
// (now or, beyond the cap, in a later pass) and those it leaves, with why. The queue asks the
// same function before it says tests wait for the next pass, so that promise holds.
func (r *Radar) pending(ctx context.Context, p gardener.Project, risky []gardener.AtRisk) ([]string, []Skip, error) {
	var take []string
	var left []Skip
	for _, a := range risky {
		t, err := r.Store.Test(ctx, a.TestID)
		if errors.Is(err, gardener.ErrNotFound) {
			left = append(left, Skip{a.TestID, "the test no longer exists"})
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if err := gardener.Eligible(gardener.ModePropose, p, t, nil); err != nil {
			left = append(left, Skip{a.TestID, err.Error()})
			continue
		}
		take = append(take, a.TestID)
	}
	return take, left, nil
}

// DryRunResult is one dry-run: no model, one replay.
type DryRunResult struct {
	TestID string `json:"testId"`
	// Skipped says why the test was not replayed (the project turned auto-repair on since the
	// pass began, the test left service).
	Skipped    string `json:"skipped,omitempty"`
	Passed     bool   `json:"passed"`
	RunID      string `json:"runId,omitempty"`
	FailedStep string `json:"failedStep,omitempty"`
	Error      string `json:"error,omitempty"`
	Millis     int64  `json:"ms"`
	// Failure is the failing replay, handed to Propose in-process so the ladder need not
	// reproduce it; it stays out of state-machine payloads (snapshots are large).
	Failure *gardener.Replay `json:"-"`
}

// DryRun replays one at-risk test with no model. The project's auto-repair flag is read again
// first, per test, so a project that switched to the applying gardener mid-pass is left to it.
// A test that still passes is taken off the ledger and costs nothing more.
func (r *Radar) DryRun(ctx context.Context, projectID, testID string) (DryRunResult, error) {
	out := DryRunResult{TestID: testID}
	p, t, skip, err := r.recheck(ctx, projectID, testID)
	if err != nil || skip != "" {
		out.Skipped = skip
		return out, err
	}
	opts := p.ReplayOptions(gardener.ReplayOptions{StepTimeout: r.StepTimeout, BaseURL: r.BaseURL})
	at := r.now()
	rep, err := r.Runner.Replay(ctx, t, opts)
	if err != nil {
		return out, fmt.Errorf("dry-run of %s: %w", testID, err)
	}
	res := rep.Result
	out.RunID = gardener.NewRunID(gardener.TriggerRadar, testID, at)
	run := gardener.Run{ID: out.RunID, ProjectID: projectID, TestID: testID, TestVersion: t.Version, Trigger: gardener.TriggerRadar, Result: &res, At: at}
	if err := r.Store.PutRun(ctx, run); err != nil {
		return out, fmt.Errorf("dry-run of %s: recording the run: %w", testID, err)
	}
	out.Passed, out.Millis = res.Passed, res.Millis
	if res.Passed {
		if err := r.Store.ClearAtRisk(ctx, projectID, testID); err != nil {
			return out, fmt.Errorf("dry-run of %s: %w", testID, err)
		}
		return out, nil
	}
	out.FailedStep, out.Error, out.Failure = res.FailedStep, res.Message, &rep
	return out, nil
}

// recheck reads the project and the test again and says why the pass must leave the test.
func (r *Radar) recheck(ctx context.Context, projectID, testID string) (gardener.Project, gardener.Test, string, error) {
	p, err := r.Store.Project(ctx, projectID)
	if err != nil {
		return p, gardener.Test{}, "", fmt.Errorf("staging %s: %w", testID, err)
	}
	if _, why := gardener.StagingGate(p); why != "" {
		return p, gardener.Test{}, why, nil
	}
	t, err := r.Store.Test(ctx, testID)
	if err != nil {
		return p, t, "", fmt.Errorf("staging %s: %w", testID, err)
	}
	if err := gardener.Eligible(gardener.ModePropose, p, t, nil); err != nil {
		return p, t, err.Error(), nil
	}
	return p, t, "", nil
}

// Proposed is what Propose did for one test.
type Proposed struct {
	TestID  string         `json:"testId"`
	Skipped string         `json:"skipped,omitempty"`
	Outcome ladder.Outcome `json:"outcome,omitempty"`
	// Staged is the outcome of staging: staged, restated, superseded, duplicate or declined.
	Staged     gardener.StageOutcome `json:"staged,omitempty"`
	ProposalID string                `json:"proposalId,omitempty"`
	Restated   int                   `json:"restated,omitempty"`
	Triggers   []string              `json:"triggers,omitempty"` // app change ids
	Reason     string                `json:"reason,omitempty"`
	ModelCalls int                   `json:"modelCalls"`
}

// Propose climbs the ladder in propose mode for a test whose dry-run failed and stages the
// proof through the lifecycle, with the app changes on the pages whose elements the test uses
// as its triggers and the failing step and error of the fresh run. failure is that run's
// replay when the caller has it (nil: the ladder reproduces the failure). A later sweep over
// the same change restates the open row (restated +1) rather than stacking another. The test
// leaves the ledger once the ladder has decided.
func (r *Radar) Propose(ctx context.Context, projectID, testID string, failure *gardener.Replay) (Proposed, error) {
	out := Proposed{TestID: testID}
	if r.Tender == nil {
		return out, errors.New("staging " + testID + ": the radar has no tender to climb the ladder with")
	}
	p, t, skip, err := r.recheck(ctx, projectID, testID)
	if err != nil || skip != "" {
		out.Skipped = skip
		return out, err
	}
	triggers, since, err := r.triggers(ctx, p, t)
	if err != nil {
		return out, err
	}
	for _, c := range triggers {
		out.Triggers = append(out.Triggers, c.ID)
	}
	if why, err := r.decidedBefore(ctx, p.ID, t, triggers); err != nil || why != "" {
		if err == nil {
			out.Skipped = why
			err = r.Store.ClearAtRisk(ctx, projectID, testID)
		}
		return out, err
	}
	opts := p.ReplayOptions(gardener.ReplayOptions{StepTimeout: r.StepTimeout, BaseURL: r.BaseURL})
	// No propagation: every test the change touched is on the ledger and gets its own dry-run
	// and proof, within the pass's cap.
	tended, err := r.Tender.Tend(ctx, tend.Job{TestID: testID, Mode: gardener.ModePropose, Failure: failure, Triggers: triggers, Options: opts, NoPropagate: true})
	var inel *gardener.IneligibleError
	if errors.As(err, &inel) {
		out.Skipped = inel.Error()
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("staging %s: %w", testID, err)
	}
	out.Outcome, out.Reason, out.ModelCalls = tended.Persisted.Outcome, tended.Persisted.Reason, len(tended.Result.ModelCalls)
	if st := tended.Persisted.Staged; st != nil {
		staged := *st
		if staged.Outcome == gardener.StagedDuplicate && staged.Proposal.Status == gardener.ProposalProposed && len(triggers) > 0 {
			// The ladder proved the very fix the open row holds (it replays a staged fix first),
			// so the lifecycle saw the same proposal id again. This is a later sweep, not a
			// repeated delivery: record it on the open row under an id of this sweep.
			again := staged.Proposal
			again.ID = staged.Proposal.ID + "@" + strconv.FormatInt(since.UnixNano(), 36)
			again.Triggers, again.FailedStep, again.Error = triggers, tended.Decision.FailedStep, tended.Decision.Error
			if staged, err = r.Tender.Life.Stage(ctx, again); err != nil {
				return out, fmt.Errorf("staging %s: restating %s: %w", testID, again.ID, err)
			}
		}
		out.Staged, out.ProposalID, out.Restated = staged.Outcome, staged.Proposal.ID, staged.Proposal.Restated
	}
	if err := r.Store.ClearAtRisk(ctx, projectID, testID); err != nil {
		return out, fmt.Errorf("staging %s: %w", testID, err)
	}
	return out, nil
}

// decidedBefore says why the ladder need not climb for t again: a person dismissed a fix for
// this test version over the same page changes, or a climb over them found none (its triage
// issue remembers them). Nothing has changed that a new climb could see, and each costs a
// replay per candidate and model calls. A test or a page that changed is climbed afresh.
func (r *Radar) decidedBefore(ctx context.Context, projectID string, t gardener.Test, triggers []gardener.AppChange) (string, error) {
	if len(triggers) == 0 {
		return "", nil
	}
	key := gardener.DismissalOf(gardener.Proposal{TestID: t.ID, BaseVersion: t.Version, Triggers: triggers})
	dismissed, err := r.Store.Dismissed(ctx, key)
	if err != nil {
		return "", fmt.Errorf("staging %s: %w", t.ID, err)
	}
	if dismissed {
		return fmt.Sprintf("a fix for version %d was dismissed over the same page changes: not climbed again until the test or a page changes", t.Version), nil
	}
	issues, err := r.Store.TriageIssues(ctx, projectID)
	if err != nil {
		return "", fmt.Errorf("staging %s: %w", t.ID, err)
	}
	for _, is := range issues {
		if k := is.Unchanged; is.TestID == t.ID && k != nil && k.TestVersion == key.TestVersion && slices.Equal(k.Changes, key.Changes) {
			return fmt.Sprintf("no fix was found for version %d over the same page changes (triage issue %s): not climbed again until the test or a page changes", t.Version, is.ID), nil
		}
	}
	return "", nil
}

// triggers are the app changes of the sweep that put the test on the ledger, on the pages
// where the test uses elements; since is that sweep's time.
func (r *Radar) triggers(ctx context.Context, p gardener.Project, t gardener.Test) ([]gardener.AppChange, time.Time, error) {
	b, err := r.Store.Baseline(ctx, p.ID)
	if errors.Is(err, gardener.ErrNotFound) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("staging %s: %w", t.ID, err)
	}
	since := b.At
	risky, err := r.Store.AtRisk(ctx, p.ID)
	if err != nil {
		return nil, since, fmt.Errorf("staging %s: %w", t.ID, err)
	}
	if i := slices.IndexFunc(risky, func(a gardener.AtRisk) bool { return a.TestID == t.ID }); i >= 0 {
		since = risky[i].LastSeen
	}
	green, err := r.lastGreen(ctx, t.ID)
	if err != nil || green == nil {
		return nil, since, err
	}
	env, err := r.load(ctx, p.ID)
	if err != nil {
		return nil, since, err
	}
	uses, _ := env.usesOf(t, *green)
	pages := map[string]bool{}
	for _, u := range uses {
		pages[u.Page] = true
	}
	all, err := r.Store.AppChanges(ctx, p.ID, since)
	if err != nil {
		return nil, since, fmt.Errorf("staging %s: app changes: %w", t.ID, err)
	}
	var out []gardener.AppChange
	for _, c := range all {
		if pages[c.URL] && !slices.ContainsFunc(out, func(o gardener.AppChange) bool { return o.ID == c.ID }) {
			out = append(out, c)
		}
	}
	return out, since, nil
}

// PassResult is one staging pass run locally.
type PassResult struct {
	Selection Selection      `json:"selection"`
	DryRuns   []DryRunResult `json:"dryRuns"`
	Proposed  []Proposed     `json:"proposed"`
	Millis    int64          `json:"ms"`
}

// Pass runs a whole staging pass in this process: Select, then for each selected test its
// dry-run and, when it fails, Propose — the tests in parallel, bounded by Concurrency, in the
// one browser of the runner (a browser context each), as the state machine's Map state does.
// The pass's summary is stored for the App radar page, also when a test's error ends the pass.
func (r *Radar) Pass(ctx context.Context, projectID string) (PassResult, error) {
	start, at := time.Now(), r.now()
	sel, err := r.Select(ctx, projectID)
	out := PassResult{Selection: sel, DryRuns: []DryRunResult{}, Proposed: []Proposed{}}
	if err != nil {
		return out, err
	}
	if sel.Skipped != "" {
		sum := gardener.NewPassSummary(projectID, at, sel.Deferred)
		sum.Skipped = sel.Skipped
		return out, r.RecordPass(ctx, sum)
	}
	dry := make([]DryRunResult, len(sel.Selected))
	prop := make([]*Proposed, len(sel.Selected))
	errs := make([]error, len(sel.Selected))
	err = parallel(ctx, len(sel.Selected), r.concurrency(), func(ctx context.Context, i int) error {
		d, err := r.DryRun(ctx, projectID, sel.Selected[i])
		dry[i] = d
		if err == nil && d.Skipped == "" && !d.Passed {
			var pr Proposed
			pr, err = r.Propose(ctx, projectID, d.TestID, d.Failure)
			prop[i] = &pr
		}
		errs[i] = err
		return err
	})
	out.DryRuns = dry
	sum := gardener.NewPassSummary(projectID, at, sel.Deferred)
	for i, id := range sel.Selected {
		if p := prop[i]; p != nil {
			out.Proposed = append(out.Proposed, *p)
		}
		switch d := dry[i]; {
		case errs[i] != nil:
			sum.Add(id, gardener.PassFailed, errs[i].Error())
		case d.TestID == "":
			// parallel stopped before this test, at another's error; it stays at risk.
			sum.Add(id, gardener.PassFailed, "not dry-run: the pass stopped at an error of another test")
		default:
			sum.Add(id, passOutcome(d, prop[i]), "")
		}
	}
	out.Millis = time.Since(start).Milliseconds()
	if serr := r.RecordPass(ctx, sum); err == nil {
		err = serr
	}
	return out, err
}

// passOutcome is what became of one test the pass finished.
func passOutcome(d DryRunResult, p *Proposed) gardener.PassOutcome {
	switch {
	case d.Skipped != "":
		return gardener.PassSkippedTest
	case d.Passed:
		return gardener.PassPassing
	case p != nil && p.Outcome == ladder.Staged:
		return gardener.PassStaged
	}
	return gardener.PassNotStaged
}

// RecordPass logs a staging pass's summary and stores it, the one the App radar page shows.
func (r *Radar) RecordPass(ctx context.Context, s gardener.PassSummary) error {
	r.log().InfoContext(ctx, "staging pass summary", "project", s.ProjectID, "dry_run", s.DryRun, "passing", s.Passing,
		"staged", s.Staged, "not_staged", s.NotStaged, "failed", len(s.Failed), "deferred", s.Deferred, "skipped", s.Skipped)
	if err := r.Store.PutPassSummary(ctx, s); err != nil {
		return fmt.Errorf("staging pass of %s: storing its summary: %w", s.ProjectID, err)
	}
	return nil
}
