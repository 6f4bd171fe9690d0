package console

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/eventstream"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/radar"
)

// opView is one diff entry as a page shows it: what the op does, the step before and after in
// their one-line form, and the change class the proof computed for it.
type opView struct {
	Op     gardener.OpKind
	Label  string
	Before string
	After  string
	Class  gardener.ChangeClass
	Detail string
	Inner  []opView
}

// ops renders diff entries with the change classes the proof computed.
func ops(entries []gardener.DiffEntry, v gardener.Verdict) []opView {
	out := make([]opView, 0, len(entries))
	for _, e := range entries {
		o := opView{Op: e.Op}
		switch e.Op {
		case gardener.OpInsert:
			o.Label = "Insert before step " + e.Path
		case gardener.OpReplace:
			o.Label = "Replace step " + e.Path
		case gardener.OpDelete:
			o.Label = "Delete step " + e.Path
		}
		if e.Before != nil {
			o.Before = e.Before.Redacted()
		}
		if e.After != nil {
			o.After = e.After.Redacted()
		}
		if ch, ok := changeOf(v.Changes, e); ok {
			o.Class, o.Detail = ch.Class, ch.Detail
		}
		for _, in := range e.Inner {
			iv := opView{Label: "Step " + in.Path, Class: in.Class, Detail: in.Detail}
			if in.Before != nil {
				iv.Before = in.Before.Redacted()
			}
			if in.After != nil {
				iv.After = in.After.Redacted()
			}
			o.Inner = append(o.Inner, iv)
		}
		out = append(out, o)
	}
	return out
}

// changeOf finds the classified change the proof recorded for a diff entry: the one of the same
// step number whose before (or, for an insert, after) step is the entry's.
func changeOf(changes []gardener.Change, e gardener.DiffEntry) (gardener.Change, bool) {
	for _, c := range changes {
		switch {
		case e.Before != nil && c.Before != nil && c.Before.Equal(*e.Before):
			return c, true
		case e.Before == nil && c.Before == nil && e.After != nil && c.After != nil && c.After.Equal(*e.After):
			return c, true
		}
	}
	return gardener.Change{}, false
}

// noteView is one finding a reviewer must see, with the words that name it.
type noteView struct {
	Label string
	Step  string
	Text  string
	// Hold marks a finding that keeps a fix from being applied without a person.
	Hold bool
}

// notes lists a proof's findings, each once (gardener.Verdict.Findings), its kind named by the
// label only.
func notes(v gardener.Verdict) []noteView {
	var out []noteView
	for _, n := range v.Findings() {
		out = append(out, noteView{Label: n.Kind.Label(), Step: n.Step, Text: n.Body(), Hold: n.NeedsPerson()})
	}
	return out
}

// classSummary is "2 repair, 1 review" in rising order of concern.
func classSummary(changes []gardener.Change) string {
	counts := gardener.Summarize(changes)
	var parts []string
	for _, c := range []gardener.ChangeClass{gardener.ClassRepair, gardener.ClassReview, gardener.ClassProtected} {
		if counts[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[c], c))
		}
	}
	if len(parts) == 0 {
		return "none recorded"
	}
	return strings.Join(parts, ", ")
}

// proofView is what every proven fix shows beyond its diff. Required and Checks are zero when
// there was nothing to count (no green run to take a contract from, a test with no checks, a
// chat edit never re-run); the page then says nothing of them rather than "0 of 0".
type proofView struct {
	Ops       []opView
	Notes     []noteView
	Classes   string
	Kept      int
	Required  int
	Sensitive int
	Checks    int
	Strategy  gardener.Strategy
	// Requirements are the contract's requirements, each with the repaired action that keeps
	// it (spec 002's review page), as people may read them: a value entered masked.
	Requirements []gardener.Requirement
	// Open shows every diff entry opened, as where a person reviews one fix (the review dialog,
	// the confirmation).
	Open bool
}

func proof(diff []gardener.DiffEntry, v gardener.Verdict) proofView {
	k, n := v.Contract.Kept()
	return proofView{Ops: ops(diff, v), Notes: notes(v), Classes: classSummary(v.Changes), Kept: k, Required: n,
		Sensitive: v.Sensitivity.Sensitive, Checks: v.Sensitivity.Total, Strategy: v.Strategy,
		Requirements: v.Contract.Redacted().Requirements}
}

// Opened is the proof with its diff shown open.
func (p proofView) Opened() proofView {
	p.Open = true
	return p
}

// rowView is one row of the staged queue.
type rowView struct {
	radar.QueueRow
	Proof proofView
	// Others are the other tests that use a locator the fix heals: the approve form offers to
	// carry the fix to them (spec 002's accept --propagate).
	Others []gardening.OtherUse
}

// atRiskView is one at-risk test with the app changes on the pages it visits.
type atRiskView struct {
	TestID    string
	TestName  string
	FirstSeen time.Time
	LastSeen  time.Time
	Changes   []gardener.AppChange
}

// passView is the last sweep and staging pass as the store keeps them (nil before the first),
// and the at-risk tests still waiting (those beyond the pass's cap, or not yet dry-run).
type passView struct {
	Sweep   *gardener.SweepSummary
	Last    *gardener.PassSummary
	Waiting []string
}

type radarView struct {
	Project gardener.Project
	Queue   radar.Queue
	Rows    []rowView
	AtRisk  []atRiskView
	Pass    passView
	Flash   string
}

func (c *Console) radarView(ctx context.Context, projectID string) (radarView, error) {
	p, err := c.Store.Project(ctx, projectID)
	if err != nil {
		return radarView{}, err
	}
	q, err := c.App.Queue(ctx, projectID)
	if err != nil {
		return radarView{}, err
	}
	v := radarView{Project: p, Queue: q, Pass: passView{Sweep: q.LastSweep, Last: q.LastPass}}
	// The queue's rows summarize each proof; the diff's change classes are in the proposals.
	open, err := c.Store.OpenProposals(ctx, projectID)
	if err != nil {
		return v, fmt.Errorf("queue of %s: %w", projectID, err)
	}
	verdicts := map[string]gardener.Verdict{}
	for _, pr := range open {
		verdicts[pr.ID] = pr.Verdict
	}
	others, err := c.App.OthersUsing(ctx, projectID)
	if err != nil {
		// The rows still show; only the offer to carry a fix is missing.
		c.log().Warn("radar: other tests using a healed locator", "project", projectID, "error", err.Error())
	}
	for _, row := range q.Rows {
		rv := rowView{QueueRow: row, Proof: proof(row.Diff, verdicts[row.ProposalID])}
		if row.Stale == "" {
			rv.Others = others[row.ProposalID]
		}
		v.Rows = append(v.Rows, rv)
	}
	if len(q.AtRisk) > 0 {
		var pages map[string][]string
		var changes []gardener.AppChange
		if b, err := c.Store.Baseline(ctx, projectID); err == nil {
			pages = b.Tests
			since := q.AtRisk[0].FirstSeen
			for _, a := range q.AtRisk {
				if a.FirstSeen.Before(since) {
					since = a.FirstSeen
				}
			}
			// A change is recorded by the sweep that finds it, a moment before the tests it
			// implicates are marked.
			if changes, err = c.Store.AppChanges(ctx, projectID, since.Add(-time.Hour)); err != nil {
				return v, fmt.Errorf("app changes of %s: %w", projectID, err)
			}
		}
		for _, a := range q.AtRisk {
			av := atRiskView{TestID: a.TestID, FirstSeen: a.FirstSeen, LastSeen: a.LastSeen}
			if t, err := c.Store.Test(ctx, a.TestID); err == nil {
				av.TestName = t.Name
			} else if !errors.Is(err, gardener.ErrNotFound) {
				return v, fmt.Errorf("at-risk test %s: %w", a.TestID, err)
			}
			for _, ch := range changes {
				if slices.Contains(pages[a.TestID], ch.URL) && !ch.At.After(a.LastSeen) {
					av.Changes = append(av.Changes, ch)
				}
			}
			v.AtRisk = append(v.AtRisk, av)
			v.Pass.Waiting = append(v.Pass.Waiting, a.TestID)
		}
	}
	return v, nil
}

// testRow is one test of the tests list.
type testRow struct {
	Test             gardener.Test
	Badge            bool
	RepairedThisWeek bool
	NeedsReview      bool
	AtRisk           bool
	Proposal         string
	// Triage is the newest triage issue of the test that nothing answered yet (no green run, no
	// repair since it was filed); nil when there is none.
	Triage *gardener.TriageIssue
}

// testFilter is the tests list's filters, from its query.
type testFilter struct {
	Repaired bool
	Review   bool
	Risk     bool
	Status   string
}

func (f testFilter) keep(r testRow) bool {
	return (!f.Repaired || r.RepairedThisWeek) && (!f.Review || r.NeedsReview) && (!f.Risk || r.AtRisk) &&
		(f.Status == "" || string(r.Test.Status) == f.Status)
}

type testsView struct {
	Project  gardener.Project
	Filter   testFilter
	Statuses []gardener.TestStatus
	Rows     []testRow
	Total    int
}

// testStatuses are the statuses the tests list filters by.
var testStatuses = []gardener.TestStatus{gardener.StatusActive, gardener.StatusPending, gardener.StatusDraft, gardener.StatusRejected, gardener.StatusArchived}

// week is what "repaired this week" looks back over.
const week = 7 * 24 * time.Hour

func (c *Console) testsView(ctx context.Context, projectID string, f testFilter) (testsView, error) {
	p, err := c.Store.Project(ctx, projectID)
	if err != nil {
		return testsView{}, err
	}
	v := testsView{Project: p, Filter: f, Statuses: testStatuses}
	tests, err := c.Store.Tests(ctx, projectID)
	if err != nil {
		return v, fmt.Errorf("tests of %s: %w", projectID, err)
	}
	repairs, err := c.App.RepairsSince(ctx, projectID, time.Time{})
	if err != nil {
		return v, err
	}
	open, err := c.Store.OpenProposals(ctx, projectID)
	if err != nil {
		return v, fmt.Errorf("queue of %s: %w", projectID, err)
	}
	atRisk, err := c.Store.AtRisk(ctx, projectID)
	if err != nil {
		return v, fmt.Errorf("at-risk tests of %s: %w", projectID, err)
	}
	weekAgo := c.now().Add(-week)
	rows := map[string]*testRow{}
	for _, t := range tests {
		rows[t.ID] = &testRow{Test: t}
	}
	for _, r := range repairs {
		row := rows[r.TestID]
		if row == nil {
			continue
		}
		if r.Badge && r.RevertedAt.IsZero() {
			row.Badge, row.NeedsReview = true, true
		}
		if !r.At.Before(weekAgo) {
			row.RepairedThisWeek = true
		}
	}
	for _, pr := range open {
		if row := rows[pr.TestID]; row != nil {
			row.Proposal, row.NeedsReview = pr.ID, true
		}
	}
	for _, a := range atRisk {
		if row := rows[a.TestID]; row != nil {
			row.AtRisk = true
		}
	}
	issues, err := c.App.TriageIssues(ctx, projectID)
	if err != nil {
		return v, fmt.Errorf("triage issues of %s: %w", projectID, err)
	}
	for _, t := range tests {
		if !slices.ContainsFunc(issues, func(is gardener.TriageIssue) bool { return is.TestID == t.ID }) {
			continue
		}
		answered, err := c.answered(ctx, t.ID, repairs)
		if err != nil {
			return v, err
		}
		if open := gardener.OpenTriage(issues, t.ID, answered); len(open) > 0 {
			rows[t.ID].Triage = &open[0]
		}
	}
	v.Total = len(tests)
	for _, t := range tests {
		if row := rows[t.ID]; f.keep(*row) {
			v.Rows = append(v.Rows, *row)
		}
	}
	return v, nil
}

// answered is when a test's failures were last answered: its last green run or the last repair
// written to it, whichever is later (zero for neither). A triage issue filed before it is
// answered (gardener.OpenTriage).
func (c *Console) answered(ctx context.Context, testID string, repairs []gardener.Repair) (time.Time, error) {
	var at time.Time
	green, err := c.Store.LastGreenRun(ctx, testID)
	switch {
	case err == nil:
		at = green.At
	case !errors.Is(err, gardener.ErrNotFound):
		return at, fmt.Errorf("last green run of %s: %w", testID, err)
	}
	for _, r := range repairs {
		if r.TestID == testID && r.At.After(at) {
			at = r.At
		}
	}
	return at, nil
}

// stepView is one step of a test as its page lists it.
type stepView struct {
	Path  string
	Text  string
	Check bool
	Depth int
}

func stepViews(steps []gardener.Step, prefix string, depth int) []stepView {
	var out []stepView
	for i, s := range steps {
		path := fmt.Sprintf("%s%d", prefix, i+1)
		out = append(out, stepView{Path: path, Text: s.Redacted(), Check: s.IsCheck(), Depth: depth})
		if len(s.Steps) > 0 {
			out = append(out, stepViews(s.Steps, path+".", depth+1)...)
		}
	}
	return out
}

// repairView is one repair of a test's history.
type repairView struct {
	gardener.Repair
	Proof proofView
	// Who is who approved or applied it, or "auto".
	Who string
	// Confirmation is the revert's confirmation text when the repair can be reverted; else
	// NotRevertable says why not.
	Confirmation  string
	NotRevertable string
}

type testView struct {
	Test     gardener.Test
	Steps    []stepView
	Badged   *repairView
	Repairs  []repairView
	Proposal *gardener.Proposal
	Triage   []triageView
	Calls    []gardener.ModelCall
	// Runs is a page of the test's runs, newest first; RunsAfter the run it starts after
	// ("" for the newest page).
	Runs      gardening.RunsPage
	RunsAfter string
	Flash     string
}

// triageView is one triage issue of a test, and whether something answered it since.
type triageView struct {
	gardener.TriageIssue
	Open bool
}

func (c *Console) testView(ctx context.Context, testID, runsAfter string) (testView, error) {
	t, err := c.Store.Test(ctx, testID)
	if err != nil {
		return testView{}, err
	}
	v := testView{Test: t, Steps: stepViews(t.Steps, "", 0), RunsAfter: runsAfter}
	if v.Runs, err = c.App.Runs(ctx, testID, runsAfter, 0); err != nil {
		return v, err
	}
	hist, err := c.App.History(ctx, testID)
	if err != nil {
		return v, err
	}
	v.Calls = hist.ModelCalls
	for _, r := range hist.Repairs {
		rv := repairView{Repair: r, Proof: proof(gardener.Diff(r.PreSteps, r.Verdict.Ops), r.Verdict), Who: r.ApprovedBy}
		if r.Auto {
			rv.Who = "auto"
		}
		if rv.NotRevertable = r.RevertRefusal(t.Version); rv.NotRevertable == "" {
			rv.Confirmation, err = c.App.RevertConfirmation(ctx, r.ID)
			switch {
			case errors.Is(err, gardener.ErrConflict) || errors.Is(err, gardener.ErrStale):
				// Reverted, or the test moved past it, since the test was read: not
				// revertable, for the reason a revert would be refused with.
				rv.NotRevertable = err.Error()
			case err != nil:
				return v, err
			}
		}
		v.Repairs = append(v.Repairs, rv)
	}
	for i := range v.Repairs {
		if v.Repairs[i].Badge && v.Repairs[i].RevertedAt.IsZero() {
			v.Badged = &v.Repairs[i]
			break
		}
	}
	props, err := c.Store.TestProposals(ctx, testID)
	if err != nil {
		return v, fmt.Errorf("proposals of test %s: %w", testID, err)
	}
	for i := range props {
		if props[i].Status == gardener.ProposalProposed {
			v.Proposal = &props[i]
		}
	}
	issues, err := c.Store.TriageIssues(ctx, t.ProjectID)
	if err != nil {
		return v, fmt.Errorf("triage issues of %s: %w", t.ProjectID, err)
	}
	answered, err := c.answered(ctx, testID, hist.Repairs)
	if err != nil {
		return v, err
	}
	open := gardener.OpenTriage(issues, testID, answered)
	for _, is := range issues {
		if is.TestID == testID {
			v.Triage = append(v.Triage, triageView{TriageIssue: is, Open: slices.ContainsFunc(open, func(o gardener.TriageIssue) bool { return o.ID == is.ID })})
		}
	}
	return v, nil
}

// executionView is one manual execution of a run.
type executionView struct {
	gardener.Execution
	Status string
	// Outcome is the repair's outcome (repaired, staged, triaged, …): a machine that repaired
	// nothing still SUCCEEDED, so the status alone misleads.
	Outcome string
	// Why is the outcome's reason, when its event gives one.
	Why string
	// Events are the execution's events so far; Next is the cursor the page's script follows
	// a running execution from.
	Events []gardener.LadderEvent
	Next   int
}

// eventPages bounds how many pages of an execution's events the run page lists; the script
// reads on from where the page stops.
const eventPages = 10

type runView struct {
	Run        gardener.Run
	Test       gardener.Test
	Repair     *gardener.Repair
	Executions []executionView
	// Costs are what each repair of the run used, at list prices, newest first.
	Costs []gardener.RepairCost
	// Refused says why no repair may be asked for (a control run, a probe, a passed run).
	Refused string
	Flash   string
}

func (c *Console) runView(ctx context.Context, runID string) (runView, error) {
	run, err := c.Store.Run(ctx, runID)
	if err != nil {
		return runView{}, err
	}
	v := runView{Run: run}
	if v.Test, err = c.Store.Test(ctx, run.TestID); err != nil {
		return v, fmt.Errorf("run %s: %w", runID, err)
	}
	v.Run = run.ForPeople(v.Test)
	repairs, err := c.Store.Repairs(ctx, run.TestID)
	if err != nil {
		return v, fmt.Errorf("repairs of test %s: %w", run.TestID, err)
	}
	for i := range repairs {
		if repairs[i].RunID == run.ID {
			v.Repair = &repairs[i]
		}
	}
	xs, err := c.Store.RunExecutions(ctx, runID)
	if err != nil {
		return v, fmt.Errorf("executions of run %s: %w", runID, err)
	}
	for _, x := range xs {
		xv := executionView{Execution: x}
		for range eventPages {
			page, err := eventstream.Read(ctx, c.Store, c.executionStatus, x.ID, xv.Next, 0)
			if _, failure := gardener.SplitCorrupt(err); failure != nil {
				xv.Status = "unknown (" + failure.Error() + ")"
				break
			}
			xv.Status, xv.Next = page.Status, page.Next
			xv.Events = append(xv.Events, page.Events...)
			if len(page.Events) < gardener.MaxEventPage {
				break
			}
		}
		xv.Outcome, xv.Why = gardener.RepairEnd(x.TestID, xv.Events)
		v.Executions = append(v.Executions, xv)
	}
	if v.Costs, err = c.App.RepairCosts(ctx, runID); err != nil {
		return v, err
	}
	// The page offers the manual repair only when the gate the request would meet lets it in,
	// and says why not in the gate's own words.
	_, err = c.App.ResolveTarget(ctx, gardening.Person(""), gardening.RepairRequest{RunID: runID})
	var inel *gardener.IneligibleError
	if errors.As(err, &inel) {
		v.Refused = inel.Reason
	}
	return v, nil
}
