package radar

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Why the queue is empty, in the order the spec gives them precedence. The first four are the
// staging pass's own gate (gardener.StagingGate): the queue says the pass skips the project
// exactly when it does.
const (
	EmptyRepairsItself = "This project repairs itself"
	EmptyNotPro        = "Staged repairs are a Pro feature"
	EmptyNeedsKey      = "Staged repairs need an AI key"
	EmptyRadarOff      = "The radar is off"
	EmptyNotSwept      = "Nothing has been swept yet"
	EmptyNoTests       = "No tests to watch"
	EmptyUnreached     = "Pages could not be reached"
	EmptyWaiting       = "At-risk tests wait for a dry-run"
	EmptyNotTended     = "At-risk tests the gardener leaves alone"
	EmptyNoFix         = "At-risk tests fail with no fix waiting"
	EmptyDismissed     = "A dismissed fix is not proposed again"
	EmptyNothingBroken = "No repairs waiting"
)

// Queue is the "Staged repairs" view of a project's App radar page.
type Queue struct {
	ProjectID string     `json:"projectId"`
	Rows      []QueueRow `json:"rows"`
	// Empty says which empty queue this is, when there are no rows.
	Empty string `json:"empty,omitempty"`
	// Explain is the sentence the page shows under Empty.
	Explain string `json:"explain,omitempty"`
	// AtRisk is the radar's at-risk list, which works with or without an AI key.
	AtRisk []gardener.AtRisk `json:"atRisk"`
	// SweptAt is when the baseline was recorded; zero when nothing was swept yet.
	SweptAt time.Time `json:"sweptAt,omitzero"`
	// LastSweep is what the last sweep saw and could not reach; nil before the first sweep.
	LastSweep *gardener.SweepSummary `json:"lastSweep,omitempty"`
	// LastPass is the last staging pass's summary: dry-run, staged, deferred to the next sweep;
	// nil before the first pass.
	LastPass *gardener.PassSummary `json:"lastPass,omitempty"`
}

// QueueRow is one open proposal as a reviewer sees it.
type QueueRow struct {
	ProposalID  string               `json:"proposalId"`
	TestID      string               `json:"testId"`
	TestName    string               `json:"testName"`
	BaseVersion int                  `json:"baseVersion"`
	Strategy    gardener.Strategy    `json:"strategy"`
	Diff        []gardener.DiffEntry `json:"diff"`
	// Stale says the test was edited since the proposal was computed: approving will be
	// refused, and Diff is empty because the steps it indexes are gone.
	Stale      string                       `json:"stale,omitempty"`
	Triggers   []gardener.AppChange         `json:"triggers"`
	FailedStep string                       `json:"failedStep"`
	Error      string                       `json:"error"`
	StagedAt   time.Time                    `json:"stagedAt"`
	StagedFor  string                       `json:"stagedFor"` // how long it has been staged
	Restated   int                          `json:"restated"`
	Notes      []gardener.Note              `json:"notes"`
	Contract   gardener.Contract            `json:"contract"`
	Classes    map[gardener.ChangeClass]int `json:"classes"`
	Highest    gardener.ChangeClass         `json:"highest,omitempty"`
	Reason     string                       `json:"reason,omitempty"`
	// Origin says what put the row here when no app change did (Triggers empty): a chat edit a
	// person asked for, or a failed run.
	Origin string `json:"origin,omitempty"`
	// Withheld are the changes the row's source asked for that the assertion floor refused (a
	// chat edit's changes to checks); a person makes them in the step editor if at all.
	Withheld []gardener.Refusal `json:"withheld"`
	// Confirm are what a person confirms before approving the row (gardener.ApprovalCautions):
	// an UNVERIFIED fix, a step deleted. Empty: one click approves it.
	Confirm []string `json:"confirm"`
}

// Queue returns the project's staged repairs, oldest first, or says why there are none.
func (r *Radar) Queue(ctx context.Context, projectID string) (Queue, error) {
	q := Queue{ProjectID: projectID, Rows: []QueueRow{}}
	p, err := r.Store.Project(ctx, projectID)
	if err != nil {
		return q, fmt.Errorf("queue: %w", err)
	}
	// A record that does not decode is left out and named in corrupt, returned beside the rest.
	var corrupt gardener.CorruptError
	skip := func(err error) error {
		bad, failure := gardener.SplitCorrupt(err)
		if bad != nil {
			corrupt.Records = append(corrupt.Records, bad.Records...)
		}
		return failure
	}
	if q.AtRisk, err = r.Store.AtRisk(ctx, projectID); skip(err) != nil {
		return q, fmt.Errorf("queue: at-risk tests of %s: %w", projectID, err)
	}
	if q.AtRisk == nil {
		q.AtRisk = []gardener.AtRisk{}
	}
	b, err := r.Store.Baseline(ctx, projectID)
	var base *gardener.Baseline
	switch {
	case err == nil:
		q.SweptAt, base = b.At, &b
	case !errors.Is(err, gardener.ErrNotFound):
		return q, fmt.Errorf("queue: %w", err)
	}
	if sw, err := r.Store.SweepSummary(ctx, projectID); err == nil {
		q.LastSweep = &sw
	} else if skip(err) != nil && !errors.Is(err, gardener.ErrNotFound) {
		return q, fmt.Errorf("queue: %w", err)
	}
	if ps, err := r.Store.PassSummary(ctx, projectID); err == nil {
		q.LastPass = &ps
	} else if skip(err) != nil && !errors.Is(err, gardener.ErrNotFound) {
		return q, fmt.Errorf("queue: %w", err)
	}
	open, err := r.Store.OpenProposals(ctx, projectID)
	if skip(err) != nil {
		return q, fmt.Errorf("queue: %w", err)
	}
	now := r.now()
	for _, pr := range open {
		row, err := r.row(ctx, pr, now)
		if err != nil {
			// A row whose test does not decode is left out, its test named.
			if skip(err) != nil {
				return q, err
			}
			continue
		}
		q.Rows = append(q.Rows, row)
	}
	if len(q.Rows) == 0 && len(corrupt.Records) == 0 {
		if q.Empty, q.Explain, err = r.emptyReason(ctx, p, base, q.LastSweep, q.LastPass, q.AtRisk); skip(err) != nil {
			return q, fmt.Errorf("queue: %w", err)
		}
	}
	return q, corrupt.Err()
}

// emptyReason picks, in the spec's precedence, which empty queue a project has. It asks the
// staging pass's gate and its selection (pending) rather than restating them, so the queue never
// promises a pass that will skip the project or its tests. "No repairs waiting" is said only when
// it is known: the baseline watches tests, the baseline and the last sweep reached every page
// they visit, no at-risk test waits for its dry-run, no test the last pass dry-ran failed
// without a fix, and no dismissed fix's test still fails.
func (r *Radar) emptyReason(ctx context.Context, p gardener.Project, b *gardener.Baseline, sweep *gardener.SweepSummary, pass *gardener.PassSummary, risky []gardener.AtRisk) (string, string, error) {
	switch skip, why := gardener.StagingGate(p); skip {
	case "":
	case gardener.SkipRepairsItself:
		return EmptyRepairsItself, "Auto-repair is on: fixes are applied without passing through here.", nil
	case gardener.SkipNotPro:
		return EmptyNotPro, fmt.Sprintf("The project is on the %s plan: the radar and its at-risk list work on it, staging a repair needs Pro.", p.Plan), nil
	case gardener.SkipNoKey:
		return EmptyNeedsKey, "The radar and its at-risk list work without AI; writing a repair is the only part that needs a key.", nil
	case gardener.SkipRadarOff:
		return EmptyRadarOff, "The proposing gardener works from what the radar notices: with the radar off no sweep puts a test at risk and no staging pass runs.", nil
	default:
		// A reason added to the gate before this page learned to word it still says the pass skips.
		return "The staging pass skips this project", why, nil
	}
	switch {
	case b == nil:
		return EmptyNotSwept, "No baseline yet, so nobody has looked.", nil
	case len(b.Tests) == 0:
		return EmptyNoTests, "The baseline holds no tests: the radar watches the pages a test visited on its last green run, and no test has one yet.", nil
	}
	if unreached := unreachedPages(b, sweep); len(unreached) > 0 {
		return EmptyUnreached, fmt.Sprintf("The radar could not reach %s the tests visit (%s): what changed there is unknown.", gardener.Plural(len(unreached), "page", "pages"), strings.Join(unreached, ", ")), nil
	}
	take, left, err := r.pending(ctx, p, risky)
	if err != nil {
		return "", "", err
	}
	if len(take) > 0 {
		if len(take) == 1 {
			return EmptyWaiting, "1 test a sweep put at risk has not been dry-run yet; the next staging pass takes it.", nil
		}
		return EmptyWaiting, fmt.Sprintf("%d tests a sweep put at risk have not been dry-run yet; the next staging pass takes them.", len(take)), nil
	}
	if len(left) > 0 {
		var named []string
		for _, s := range left {
			named = append(named, s.ID+": "+s.Reason)
		}
		if len(left) == 1 {
			return EmptyNotTended, fmt.Sprintf("1 test a sweep put at risk is not tended by the staging pass (%s); it stays on the at-risk list.", named[0]), nil
		}
		return EmptyNotTended, fmt.Sprintf("%d tests a sweep put at risk are not tended by the staging pass (%s); they stay on the at-risk list.", len(left), strings.Join(named, "; ")), nil
	}
	dismissed, err := r.dismissedFailing(ctx, p.ID)
	if err != nil {
		return "", "", err
	}
	var noFix []string
	if pass != nil {
		for _, id := range pass.NotStaged {
			if !slices.Contains(dismissed, id) {
				noFix = append(noFix, id)
			}
		}
	}
	if len(noFix) > 0 {
		return EmptyNoFix, fmt.Sprintf("The last staging pass found %s failing (%s) and found no fix: see the triage issues. The radar tries again when the test or a page changes.", gardener.Plural(len(noFix), "at-risk test", "at-risk tests"), strings.Join(noFix, ", ")), nil
	}
	if len(dismissed) > 0 {
		fail := "that still fail"
		if len(dismissed) == 1 {
			fail = "that still fails"
		}
		return EmptyDismissed, fmt.Sprintf("A person dismissed the fix for %s %s (%s): a dismissed fix is not proposed again until the test or the app changes.", gardener.Plural(len(dismissed), "test", "tests"), fail, strings.Join(dismissed, ", ")), nil
	}
	return EmptyNothingBroken, "Every at-risk test still passes.", nil
}

// dismissedFailing are the project's tests whose newest proposal a person dismissed, whose
// version is still the one it was computed against, and which have not passed since: they fail,
// and the staging pass declines the same fix until the test or the app changes, so no row will
// come for them on its own.
func (r *Radar) dismissedFailing(ctx context.Context, projectID string) ([]string, error) {
	tests, err := r.Store.Tests(ctx, projectID)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range tests {
		if t.Status != gardener.StatusActive {
			continue
		}
		rows, err := r.Store.TestProposals(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 || rows[0].Status != gardener.ProposalDismissed || rows[0].BaseVersion != t.Version {
			continue
		}
		failedAt := rows[0].StagedAt
		if rows[0].UpdatedAt.After(failedAt) {
			failedAt = rows[0].UpdatedAt // a later sweep saw it fail again
		}
		green, err := r.Store.LastGreenRun(ctx, t.ID)
		switch {
		case errors.Is(err, gardener.ErrNotFound):
		case err != nil:
			return nil, err
		case green.TestVersion == t.Version && green.At.After(failedAt):
			continue // it passed since: nothing is broken
		}
		out = append(out, t.ID)
	}
	return out, nil
}

// unreachedPages are the pages tests visit that the radar could not reach: those the baseline
// could not record, and those the last sweep could not visit, unless a baseline recorded since
// reached them.
func unreachedPages(b *gardener.Baseline, sweep *gardener.SweepSummary) []string {
	var out []string
	add := func(u string) {
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	for _, pages := range b.Tests {
		for _, u := range pages {
			if _, ok := b.Pages[u]; !ok {
				add(u)
			}
		}
	}
	if sweep != nil && !sweep.At.Before(b.At) {
		for _, u := range sweep.Unreached {
			add(u.URL)
		}
	}
	slices.Sort(out)
	return out
}

func (r *Radar) row(ctx context.Context, p gardener.Proposal, now time.Time) (QueueRow, error) {
	row := QueueRow{ProposalID: p.ID, TestID: p.TestID, BaseVersion: p.BaseVersion, Strategy: p.Verdict.Strategy,
		Diff: []gardener.DiffEntry{}, Triggers: p.Triggers, FailedStep: p.FailedStep, Error: p.Error,
		StagedAt: p.StagedAt, StagedFor: now.Sub(p.StagedAt).Round(time.Second).String(), Restated: p.Restated,
		Notes: p.Verdict.Notes, Contract: p.Verdict.Contract, Classes: gardener.Summarize(p.Verdict.Changes),
		Highest: gardener.Highest(p.Verdict.Changes), Reason: p.Reason, Origin: p.Origin(),
		Withheld: p.Withheld, Confirm: []string{}}
	if row.Triggers == nil {
		row.Triggers = []gardener.AppChange{}
	}
	if row.Withheld == nil {
		row.Withheld = []gardener.Refusal{}
	}
	t, err := r.Store.Test(ctx, p.TestID)
	if err != nil {
		return row, fmt.Errorf("queue: proposal %s: %w", p.ID, err)
	}
	row.TestName = t.Name
	if t.Version != p.BaseVersion {
		row.Confirm = append(row.Confirm, gardener.ApprovalCautions(p, nil)...)
		again := "sweep again for a fresh proposal"
		if p.Verdict.Strategy == gardener.StrategyChat {
			again = "ask for the chat edit again on the current version"
		}
		row.Stale = fmt.Sprintf("the test was edited since (version %d, proposal computed against %d): approving will be refused; %s", t.Version, p.BaseVersion, again)
		return row, nil
	}
	if d := gardener.Diff(t.Steps, p.Verdict.Ops); d != nil {
		row.Diff = d
	}
	row.Confirm = append(row.Confirm, gardener.ApprovalCautions(p, t.Steps)...)
	return row, nil
}
