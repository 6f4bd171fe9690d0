package handler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// MaxSuiteItems bounds the tests one suite execution replays (gardening.MaxSuiteItems); the
// plan also keeps the machine's state inside its budget (gardening.SuiteStateBudget).
const MaxSuiteItems = gardening.MaxSuiteItems

// maxSuiteError bounds the failure message a replay passes on; the stored run keeps all of it.
const maxSuiteError = gardening.MaxSuiteError

// SuiteEvent starts a suite execution. Three shapes reach it: the schedule's "Scheduled Event"
// (an empty detail: every project's active tests); a request for one project (detail.projectId);
// and an external platform's "Run Passed" (detail.testId, with the test version it ran), which
// has the gardener replay that one test and record the green run by its own replay, since the
// platform's run carries no recording a repair could compare with.
type SuiteEvent struct {
	DetailType string `json:"detail-type"`
	Detail     struct {
		RunID       string               `json:"runId"`
		ProjectID   string               `json:"projectId"`
		TestID      string               `json:"testId"`
		TestVersion int                  `json:"testVersion"`
		Trigger     gardener.TriggerKind `json:"trigger"`
	} `json:"detail"`
}

// SuiteItem is one test a suite execution replays (gardening.SuiteItem).
type SuiteItem = gardening.SuiteItem

// SuitePlan is what the suite machine maps over. Count is always present for the Choice.
type SuitePlan struct {
	Count int         `json:"count"`
	Items []SuiteItem `json:"items"`
	// Skipped names the projects and tests not replayed and why.
	Skipped map[string]string `json:"skipped"`
	// Deferred names the tests past MaxSuiteItems or the state's budget, for the next execution: at
	// most gardener.MaxNamed of them, and DeferredMore counts the rest. Skipped names at most as
	// many projects and tests, and SkippedMore counts the rest.
	Deferred     []string `json:"deferred"`
	DeferredMore int      `json:"deferredMore"`
	SkippedMore  int      `json:"skippedMore"`
	// Unread counts the active tests, and UnreadProjects the projects, the plan did not read
	// before its deadline (the function's timeout less SuitePlanReserve): it planned what it had
	// read, and the next scheduled plan reads these first.
	Unread         int `json:"unread"`
	UnreadProjects int `json:"unreadProjects"`
}

// SuitePlanReserve is the time the suite plan keeps at the end of its function's timeout: it
// stops reading then and plans what it has read, instead of timing out with nothing planned.
const SuitePlanReserve = 15 * time.Second

// SuitePlanReadWidth is how many last green runs the suite plan reads at once: at DynamoDB's few
// milliseconds a read, 8 at a time read 50,000 tests in about 30 s of the plan's 45, at about
// 1,600 reads a second, far under a new on-demand table's 12,000.
const SuitePlanReadWidth = 8

// NewSuitePlan builds the first state of the suite machine: it lists what the execution
// replays and replays nothing itself.
func NewSuitePlan(d ReplayDeps) (func(context.Context, SuiteEvent) (SuitePlan, error), error) {
	return built(d.suitePlan, need("suite plan", d.StoreDeps.deps()...))
}

func (d ReplayDeps) suitePlan(ctx context.Context, ev SuiteEvent) (SuitePlan, error) {
	out := SuitePlan{Items: []SuiteItem{}, Skipped: map[string]string{}, Deferred: []string{}}
	if err := gardening.CheckEventIDs("testId", ev.Detail.TestID, "projectId", ev.Detail.ProjectID, "runId", ev.Detail.RunID); err != nil {
		return out, err
	}
	if ev.Detail.TestID != "" {
		return d.passedPlan(ctx, ev, out)
	}
	var projects []gardener.Project
	if id := ev.Detail.ProjectID; id != "" {
		p, err := d.Store.Project(ctx, id)
		if err != nil {
			return out, fmt.Errorf("suite plan of project %s: %w", id, err)
		}
		projects = []gardener.Project{p}
	} else {
		ps, err := d.Store.Projects(ctx)
		if err != nil {
			return out, fmt.Errorf("suite plan: listing the projects: %w", err)
		}
		projects = ps
	}
	var ids []string
	for _, p := range projects {
		if d.replayOptions(p).BaseURL == "" {
			out.Skipped[p.ID] = "the project has no allowed origin to replay its tests against"
			continue
		}
		ids = append(ids, p.ID)
	}
	app, err := d.application("suite plan")
	if err != nil {
		return out, err
	}
	planning := gardening.SuitePlanning{Projects: ids, Max: MaxSuiteItems, Resume: ev.Detail.ProjectID == "", Width: SuitePlanReadWidth}
	if dl, ok := ctx.Deadline(); ok {
		planning.StopBy = dl.Add(-SuitePlanReserve)
	}
	planned, err := app.PlanSuite(ctx, planning)
	if err != nil {
		return out, err
	}
	for _, id := range planned.NoActive {
		out.Skipped[id] = "the project has no active tests"
	}
	for _, it := range planned.Due {
		out.Items = append(out.Items, SuiteItem{ProjectID: it.ProjectID, TestID: it.TestID, TestVersion: it.TestVersion, Trigger: gardener.TriggerSchedule})
	}
	deferred := planned.Deferred
	out.Unread, out.UnreadProjects = planned.Unread, planned.UnreadProjects
	out.Count = len(out.Items)
	d.log().InfoContext(ctx, "suite plan", "projects", len(projects), "tests", out.Count, "deferred", len(deferred), "unread", out.Unread, "unread_projects", out.UnreadProjects, "skipped", len(out.Skipped))
	out.Deferred, out.DeferredMore = gardener.Named(deferred)
	if out.Deferred == nil {
		out.Deferred = []string{}
	}
	out.SkippedMore = nameSkipped(out.Skipped)
	return out, nil
}

// nameSkipped keeps the first gardener.MaxNamed entries of skipped, by id, and counts the rest.
func nameSkipped(skipped map[string]string) int {
	if len(skipped) <= gardener.MaxNamed {
		return 0
	}
	ids := slices.Sorted(maps.Keys(skipped))
	for _, id := range ids[gardener.MaxNamed:] {
		delete(skipped, id)
	}
	return len(ids) - gardener.MaxNamed
}

// passedPlan plans the replay of the test an external "Run Passed" names.
func (d ReplayDeps) passedPlan(ctx context.Context, ev SuiteEvent, out SuitePlan) (SuitePlan, error) {
	e := ev.Detail
	t, err := d.Store.Test(ctx, e.TestID)
	if err != nil {
		return out, fmt.Errorf("suite plan of the run %s that passed: %w", e.RunID, err)
	}
	switch {
	case e.ProjectID != "" && e.ProjectID != t.ProjectID:
		return out, &BadEventError{Reason: fmt.Sprintf("run %s names project %s, but test %s belongs to project %s", e.RunID, e.ProjectID, t.ID, t.ProjectID)}
	case e.TestVersion == 0:
		return out, &BadEventError{Reason: fmt.Sprintf("run %s of test %s names no testVersion: a green run is recorded only for the version that passed", e.RunID, t.ID)}
	case e.TestVersion != t.Version:
		out.Skipped[t.ID] = fmt.Sprintf("run %s passed on version %d, and the test is at version %d now", e.RunID, e.TestVersion, t.Version)
		return out, nil
	}
	trigger := e.Trigger
	if trigger == "" {
		trigger = gardener.TriggerWorker
	}
	out.Items = append(out.Items, SuiteItem{ProjectID: t.ProjectID, TestID: t.ID, TestVersion: t.Version, Trigger: trigger, ReportedRun: e.RunID})
	out.Count = 1
	return out, nil
}

// SuiteRunResult is what one replay of the suite did (gardening.SuiteRunResult).
type SuiteRunResult = gardening.SuiteRunResult

// NewSuiteRun builds the handler that replays one test of the suite and stores the run through
// the workspace: green, it is what the radar's baseline, a repair's contract and self-heal
// compare with; red, it is the failure a repair starts from.
func NewSuiteRun(d ReplayDeps) (func(context.Context, SuiteItem) (SuiteRunResult, error), error) {
	// A replay of the suite calls no model.
	if err := need("suite run", append(d.StoreDeps.deps(), dep{"Runner", d.Runner == nil})...); err != nil {
		return nil, err
	}
	return d.suiteRun, nil
}

func (d ReplayDeps) suiteRun(ctx context.Context, it SuiteItem) (SuiteRunResult, error) {
	out := SuiteRunResult{ProjectID: it.ProjectID, TestID: it.TestID, TestVersion: it.TestVersion, Trigger: it.Trigger}
	if it.TestID == "" || it.Trigger == "" {
		return out, &BadEventError{Reason: "a suite item needs a testId and a trigger"}
	}
	t, err := d.Store.Test(ctx, it.TestID)
	if err != nil {
		return out, fmt.Errorf("suite run of %s: %w", it.TestID, err)
	}
	switch {
	case it.ReportedRun == "" && t.Status != gardener.StatusActive:
		out.Skipped = fmt.Sprintf("the test is %s now, out of service", t.Status)
	case it.ReportedRun != "" && t.Version != it.TestVersion:
		out.Skipped = fmt.Sprintf("run %s passed on version %d, and the test is at version %d now", it.ReportedRun, it.TestVersion, t.Version)
	}
	if out.Skipped != "" {
		return out, nil
	}
	p, err := d.Store.Project(ctx, t.ProjectID)
	if err != nil {
		return out, fmt.Errorf("suite run of %s: %w", t.ID, err)
	}
	rep, err := d.Runner.Replay(ctx, t, d.replayOptions(p))
	if err != nil {
		return out, fmt.Errorf("suite run of %s version %d: %w", t.ID, t.Version, err)
	}
	result := rep.Result
	ws := &workspace.Service{Store: d.Store}
	run, err := ws.RecordRun(ctx, t, it.Trigger, &result)
	if err != nil {
		return out, err
	}
	out.RunID, out.TestVersion, out.Passed = run.ID, t.Version, result.Passed
	if !result.Passed {
		out.FailedStep, out.Error, out.Report = result.FailedStep, gardener.Clip(result.Message, maxSuiteError), it.ReportedRun == ""
	}
	d.log().InfoContext(ctx, "suite run", "project", t.ProjectID, "test", t.ID, "version", t.Version, "run", run.ID, "passed", result.Passed, "failed_step", out.FailedStep, "platform_run", it.ReportedRun)
	return out, nil
}

// SuiteResults is the suite's last state's input: what the Map's replays did.
type SuiteResults struct {
	Results []SuiteRunResult `json:"results"`
}

// SuiteReport is what the suite's last state did: the failed runs it put on the bus.
type SuiteReport struct {
	Reported []string `json:"reported"`
	Passed   int      `json:"passed"`
	Failed   int      `json:"failed"`
	NotRun   int      `json:"notRun"`
}

// SuiteReportDeps are the suite report's dependencies: the bus its failures go on.
type SuiteReportDeps struct {
	Base
	Events Publisher
}

// NewSuiteReport builds the suite's last state: it puts each failed scheduled run on the bus as
// "Run Failed" (trigger schedule), where the repair machine's rule picks it up as it does a
// platform's. It runs once the replays have ended, so the repairs do not compete with the
// suite's own replays for a browser.
func NewSuiteReport(d SuiteReportDeps) (func(context.Context, SuiteResults) (SuiteReport, error), error) {
	return built(d.suiteReport, need("suite report", dep{"Events", d.Events == nil}))
}

func (d SuiteReportDeps) suiteReport(ctx context.Context, in SuiteResults) (SuiteReport, error) {
	out := SuiteReport{Reported: []string{}}
	for _, r := range in.Results {
		switch {
		case r.RunID == "":
			out.NotRun++
		case r.Passed:
			out.Passed++
		default:
			out.Failed++
		}
		if r.RunID == "" || r.Passed || !r.Report {
			continue
		}
		ev := RunFailed{RunID: r.RunID, ProjectID: r.ProjectID, TestID: r.TestID, TestVersion: r.TestVersion, Trigger: r.Trigger}
		if err := d.Events.PutEvent(ctx, "Run Failed", ev); err != nil {
			return out, fmt.Errorf("suite report: putting Run Failed for %s: %w", r.RunID, err)
		}
		out.Reported = append(out.Reported, r.RunID)
	}
	d.log().InfoContext(ctx, "suite report", "passed", out.Passed, "failed", out.Failed, "not_run", out.NotRun, "reported", len(out.Reported))
	return out, nil
}
