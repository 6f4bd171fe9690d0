package scale

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/asl"
	"github.com/driftgardener/gardener/pkg/radar"
)

// The template's caps, as the checks expect them; a change to the template or to the selection
// fails the checks until this and docs/scale.md are changed with it.
const (
	dryRunsPerPass   = 10 // radar.MaxDryRuns and the staging machine's Cap state
	dryRunsAtOnce    = 5  // the staging machine's DryRuns Map MaxConcurrency
	suiteReplaysOnce = 4  // the suite machine's Replays Map MaxConcurrency
)

// fanoutSampling is how often the fan-out benchmarks sample memory. Reading the Chromium
// processes' smaps_rollup walks their page tables: at every 100 ms it took a third of a core of
// the two the benchmarks were measured on, slowing the replays it measured.
const fanoutSampling = time.Second

var (
	benchProjects = flag.Int("scale.projects", 100, "projects the fan-out benchmarks seed")
	benchTests    = flag.Int("scale.tests", 12, "tests per project the fan-out benchmarks seed")
	benchSlots    = flag.Int("scale.slots", 6, "replays the runner lets run at once, the stand-in for the account's Lambda concurrency (0: no limit)")
)

func TestCapsMatchTheCode(t *testing.T) {
	if radar.MaxDryRuns != dryRunsPerPass {
		t.Errorf("radar.MaxDryRuns is %d, the scale checks and docs/scale.md say %d", radar.MaxDryRuns, dryRunsPerPass)
	}
	if handler.MaxSuiteItems != 500 {
		t.Errorf("handler.MaxSuiteItems is %d, docs/scale.md computes with 500", handler.MaxSuiteItems)
	}
}

// stagingOutput is the part of a staging execution's output the checks read.
type stagingOutput struct {
	Selection handler.Selection    `json:"selection"`
	Summary   gardener.PassSummary `json:"summary"`
}

// stagingPasses announces a radar sweep of every project at once, as the radar does at the end
// of a scheduled sweep, lets the staging executions it starts run, and repeats until no test is
// at risk. It checks each pass and returns the number of passes.
func (r *rig) stagingPasses(tb testing.TB, projects, tests int) int {
	tb.Helper()
	ctx := context.Background()
	passes := 0
	remaining := map[string]int{}
	for p := range projects {
		remaining[fmt.Sprintf("p%04d", p)] = tests
	}
	for {
		var due []string
		for pid, n := range remaining {
			if n > 0 {
				due = append(due, pid)
			}
		}
		if len(due) == 0 {
			break
		}
		slices.Sort(due)
		passes++
		if passes > tests/dryRunsPerPass+2 {
			tb.Fatalf("pass %d and %d projects still have tests at risk: the queue does not drain", passes, len(due))
		}
		before := len(r.stack.Executions("StagingStateMachine"))
		for _, pid := range due {
			sweep := handler.SweepCompleted{ProjectID: pid, SweepID: fmt.Sprintf("sweep-%d-%s", passes, pid), AtRisk: remaining[pid]}
			if err := r.stack.PutEvent(ctx, "Radar Sweep Completed", sweep); err != nil {
				tb.Fatal(err)
			}
		}
		r.stack.Wait()
		ex := r.stack.Executions("StagingStateMachine")
		if got := len(ex) - before; got != len(due) {
			tb.Fatalf("pass %d: %d staging executions for %d sweeps", passes, got, len(due))
		}
		for _, x := range ex[before:] {
			if x.Status != "SUCCEEDED" {
				tb.Fatalf("pass %d: staging execution %s ended %s: %+v", passes, x.Name, x.Status, x.Failure)
			}
			var out stagingOutput
			if err := json.Unmarshal(x.Output, &out); err != nil {
				tb.Fatal(err)
			}
			s, pid := out.Summary, out.Selection.ProjectID
			want := min(remaining[pid], dryRunsPerPass)
			if len(s.DryRun) != want || len(s.Passing) != want || len(s.Deferred) != remaining[pid]-want || len(s.Failed) != 0 {
				tb.Fatalf("pass %d of %s with %d at risk: dry-run %d, passing %d, deferred %d, failed %+v; want %d dry-run and passing, %d deferred",
					passes, pid, remaining[pid], len(s.DryRun), len(s.Passing), len(s.Deferred), s.Failed, want, remaining[pid]-want)
			}
			remaining[pid] -= want
		}
	}
	for pid := range remaining {
		left, err := r.store.AtRisk(ctx, pid)
		if err != nil || len(left) != 0 {
			tb.Fatalf("%s: %d tests still at risk after every pass (%v)", pid, len(left), err)
		}
	}
	return passes
}

// suiteExecutions fires the suite's schedule until every active test of the projects × tests
// seeded has been replayed: one sweep. Past gardening.MaxSuiteItems active tests every plan
// takes 500 and defers the rest, whatever has been replayed (the plan is a rotation, the 500
// longest since green), so "until an execution defers nothing" never comes there; the sweep
// ends instead when no test is left waiting for its first replay. Each execution must succeed,
// replay at most MaxSuiteItems, every replay green; and it must take first the tests waiting
// for their first replay (the ones the last execution deferred), all of them that fit before
// any test replayed already: the queue holds, and an execution that replays no new test while
// some still wait fails the sweep instead of firing again. It returns the executions, the run
// ids and how many times each test was planned, what the meter's count of replays of each
// must equal (replayedAsPlanned).
func (r *rig) suiteExecutions(tb testing.TB, projects, tests int) (int, []string, map[string]int) {
	tb.Helper()
	ctx := context.Background()
	waiting := map[string]bool{}
	for p := range projects {
		for i := range tests {
			waiting[fmt.Sprintf("p%04d-t%03d", p, i)] = true
		}
	}
	planned := map[string]int{}
	var runs []string
	for n := 1; ; n++ {
		start := time.Now()
		if err := r.stack.Scheduler.FireNow(ctx, "SuiteStateMachine.Suite"); err != nil {
			tb.Fatal(err)
		}
		r.stack.Wait()
		ex := r.stack.Executions("SuiteStateMachine")
		if len(ex) != n {
			tb.Fatalf("%d suite executions after %d schedules", len(ex), n)
		}
		x := ex[n-1]
		if x.Status != "SUCCEEDED" {
			tb.Fatalf("suite execution %d ended %s: %+v", n, x.Status, x.Failure)
		}
		var out struct {
			Plan    handler.SuitePlan        `json:"plan"`
			Results []handler.SuiteRunResult `json:"results"`
		}
		if err := json.Unmarshal(x.Output, &out); err != nil {
			tb.Fatal(err)
		}
		if out.Plan.Count > handler.MaxSuiteItems || len(out.Plan.Items) != out.Plan.Count || len(out.Results) != out.Plan.Count {
			tb.Fatalf("suite execution %d: plan of %d (%d items, at most %d), %d results", n, out.Plan.Count, len(out.Plan.Items), handler.MaxSuiteItems, len(out.Results))
		}
		// The tests waiting for their first replay come first, and none is left waiting while
		// the plan replays one a second time.
		first, repeats := 0, 0
		for i, it := range out.Plan.Items {
			switch {
			case waiting[it.TestID] && repeats > 0:
				tb.Fatalf("suite execution %d: item %d, %s, waits for its first replay and comes after %d replayed already", n, i, it.TestID, repeats)
			case waiting[it.TestID]:
				first++
			default:
				repeats++
			}
			planned[it.TestID]++
		}
		if repeats > 0 && first < len(waiting) {
			tb.Fatalf("suite execution %d: replays %d tests a second time and leaves %d of %d waiting for their first", n, repeats, len(waiting)-first, len(waiting))
		}
		if first == 0 {
			tb.Fatalf("suite execution %d: replays no test of the %d still waiting for their first replay: the queue does not move", n, len(waiting))
		}
		for _, it := range out.Plan.Items {
			delete(waiting, it.TestID)
		}
		for i, res := range out.Results {
			if !res.Passed || res.RunID == "" {
				tb.Fatalf("suite execution %d: %+v", n, res)
			}
			if res.TestID != out.Plan.Items[i].TestID {
				tb.Fatalf("suite execution %d: the result of item %d, %s, is of %s (run %s): a replay's answer was read as another's", n, i, out.Plan.Items[i].TestID, res.TestID, res.RunID)
			}
			runs = append(runs, res.RunID)
		}
		entered := 0
		for _, e := range x.History {
			if e.Type == asl.EventStateEntered {
				entered++
			}
		}
		tb.Logf("suite execution %d: %d replays (%d first, %d again) in %.1f s, %d deferred, %d still waiting, %d history events, %d states entered", n, len(out.Results), first, repeats, time.Since(start).Seconds(), len(out.Plan.Deferred)+out.Plan.DeferredMore, len(waiting), len(x.History), entered)
		if len(waiting) == 0 {
			return n, runs, planned
		}
	}
}

// suitePerProject starts one suite execution per project, all at once, as a deployment that
// fans the suite out by project would (Plan takes detail.projectId), and checks each as
// suiteExecutions does. It returns the run ids.
func (r *rig) suitePerProject(tb testing.TB, projects int) []string {
	tb.Helper()
	ctx := context.Background()
	before := len(r.stack.Executions("SuiteStateMachine"))
	for p := range projects {
		in := map[string]any{"detail-type": "Scheduled Event", "detail": map[string]string{"projectId": fmt.Sprintf("p%04d", p)}}
		if _, err := r.stack.Start(ctx, "SuiteStateMachine", fmt.Sprintf("suite-p%04d", p), in); err != nil {
			tb.Fatal(err)
		}
	}
	r.stack.Wait()
	ex := r.stack.Executions("SuiteStateMachine")[before:]
	if len(ex) != projects {
		tb.Fatalf("%d suite executions for %d projects", len(ex), projects)
	}
	var runs []string
	for _, x := range ex {
		if x.Status != "SUCCEEDED" {
			tb.Fatalf("suite execution %s ended %s: %+v", x.Name, x.Status, x.Failure)
		}
		var out struct {
			Plan    handler.SuitePlan        `json:"plan"`
			Results []handler.SuiteRunResult `json:"results"`
		}
		if err := json.Unmarshal(x.Output, &out); err != nil {
			tb.Fatal(err)
		}
		if len(out.Plan.Deferred) != 0 || len(out.Results) != out.Plan.Count || len(out.Plan.Items) != out.Plan.Count {
			tb.Fatalf("suite execution %s: plan of %d, %d deferred, %d results", x.Name, out.Plan.Count, len(out.Plan.Deferred), len(out.Results))
		}
		for i, res := range out.Results {
			if !res.Passed || res.RunID == "" || res.TestID != out.Plan.Items[i].TestID {
				tb.Fatalf("suite execution %s: the result of item %d, %s: %+v", x.Name, i, out.Plan.Items[i].TestID, res)
			}
			runs = append(runs, res.RunID)
		}
	}
	return runs
}

// exactlyOnce checks that every seeded test was replayed exactly once and nothing else was.
func (r *rig) exactlyOnce(tb testing.TB, projects, tests int) {
	tb.Helper()
	r.replayedAsPlanned(tb, projects, tests, nil)
}

// replayedAsPlanned checks that every seeded test was replayed as many times as planned[id]
// (once each when planned is nil), none skipped and none twice for one plan, and that nothing
// else was replayed.
func (r *rig) replayedAsPlanned(tb testing.TB, projects, tests int, planned map[string]int) {
	tb.Helper()
	m := r.meter
	m.mu.Lock()
	defer m.mu.Unlock()
	var dropped, extra []string
	for p := range projects {
		for i := range tests {
			id := fmt.Sprintf("p%04d-t%03d", p, i)
			want := 1
			if planned != nil {
				want = planned[id]
			}
			switch got := m.calls[id]; {
			case want == 0 || got < want:
				dropped = append(dropped, id)
			case got > want:
				extra = append(extra, id)
			}
		}
	}
	if len(dropped) > 0 || len(extra) > 0 || len(m.calls) != projects*tests || m.errors > 0 {
		tb.Fatalf("of %d tests: %d never replayed or fewer times than planned %v, %d replayed more than planned %v, %d replayed in all, %d replay errors",
			projects*tests, len(dropped), head(dropped), len(extra), head(extra), len(m.calls), m.errors)
	}
}

func head(ids []string) []string { return ids[:min(len(ids), 5)] }

// TestStagingPassCap: sweeps of several projects land at once, each with more tests at risk
// than a pass takes. No project has more than 5 dry-runs in flight at any instant, and 5 is
// reached (the Map's MaxConcurrency is what holds it, not a lack of work); each pass dry-runs
// at most 10 and names the rest; the replays beyond the runner's limit wait; and over the
// passes every test is dry-run exactly once.
func TestStagingPassCap(t *testing.T) {
	const projects, tests, slots = 2, 11, 3
	r := newRig(t, slots)
	r.seed(t, projects, tests)
	passes := r.stagingPasses(t, projects, tests)
	if passes != 2 {
		t.Errorf("%d passes for %d tests at risk a project, want 2", passes, tests)
	}
	r.exactlyOnce(t, projects, tests)
	m := r.meter
	if m.maxPerProject["p0000"] == 0 {
		t.Fatal("the meter saw no replays")
	}
	for pid, n := range m.maxPerProject {
		if n > dryRunsAtOnce {
			t.Errorf("%s: %d dry-runs in flight at once, the Map allows %d", pid, n, dryRunsAtOnce)
		}
	}
	if f := r.figures(0, 0, 0, ""); f.maxPerProject != dryRunsAtOnce {
		t.Errorf("at most %d dry-runs of a project in flight, want exactly the Map's %d: above it the cap broke, below it the cap was not tested", f.maxPerProject, dryRunsAtOnce)
	}
	if m.maxRunning > slots || m.maxWaiting == 0 {
		t.Errorf("%d replays ran at once with %d slots, %d waited at most: the limit did not hold or nothing queued", m.maxRunning, slots, m.maxWaiting)
	}
}

// TestSuiteQueue: the scheduled suite over several projects replays at most 4 at a time, and
// every active test of every project gets exactly one run.
func TestSuiteQueue(t *testing.T) {
	const projects, tests = 2, 3
	r := newRig(t, 0)
	r.seed(t, projects, tests)
	if n, _, _ := r.suiteExecutions(t, projects, tests); n != 1 {
		t.Errorf("%d suite executions for %d tests, want 1", n, projects*tests)
	}
	r.exactlyOnce(t, projects, tests)
	if m := r.meter; m.maxInvoked != suiteReplaysOnce {
		t.Errorf("at most %d replays of the suite at once, want exactly the Map's %d: above it the cap broke, below it the cap was not tested", m.maxInvoked, suiteReplaysOnce)
	}
}

// TestSuitePlanQueue: a deployment with more active tests than one suite execution replays.
// The plan takes 500 and names the rest as deferred, the two sets together being every test
// once; after the 500 are replayed green (their runs written here, as the replays write them),
// the next plan starts with the deferred ones: the queue moves and drops nothing. No browser:
// only the plan runs.
func TestSuitePlanQueue(t *testing.T) {
	const projects, tests = 2, 251 // 502 tests, two past handler.MaxSuiteItems
	r := newStack(t, 0)
	r.seedWith(t, projects, tests, false)
	ctx := context.Background()
	plan := func() handler.SuitePlan {
		t.Helper()
		out, err := r.stack.Invoke(ctx, "SuitePlanFunction", []byte(`{"detail-type":"Scheduled Event","detail":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		var p handler.SuitePlan
		if err := json.Unmarshal(out, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := plan()
	if first.Count != handler.MaxSuiteItems || len(first.Items) != handler.MaxSuiteItems || len(first.Deferred) != projects*tests-handler.MaxSuiteItems {
		t.Fatalf("plan of %d tests: count %d, %d items, %d deferred; want %d and %d", projects*tests, first.Count, len(first.Items), len(first.Deferred), handler.MaxSuiteItems, projects*tests-handler.MaxSuiteItems)
	}
	seen := map[string]int{}
	for _, it := range first.Items {
		seen[it.TestID]++
	}
	for _, id := range first.Deferred {
		seen[id]++
	}
	for p := range projects {
		for i := range tests {
			if id := fmt.Sprintf("p%04d-t%03d", p, i); seen[id] != 1 {
				t.Errorf("%s is in the plan %d times (items and deferred together), want once", id, seen[id])
			}
		}
	}
	at := time.Now().UTC()
	for i, it := range first.Items {
		run := gardener.Run{ID: fmt.Sprintf("run-%04d", i), ProjectID: it.ProjectID, TestID: it.TestID, TestVersion: it.TestVersion, Trigger: gardener.TriggerSchedule,
			Result: &gardener.RunResult{Passed: true}, At: at.Add(time.Duration(i) * time.Millisecond)}
		if err := r.store.PutRun(ctx, run); err != nil {
			t.Fatal(err)
		}
	}
	second := plan()
	if second.Count != handler.MaxSuiteItems {
		t.Fatalf("second plan: count %d", second.Count)
	}
	var head []string
	for _, it := range second.Items[:len(first.Deferred)] {
		head = append(head, it.TestID)
	}
	slices.Sort(head)
	want := slices.Sorted(slices.Values(first.Deferred))
	if !slices.Equal(head, want) {
		t.Errorf("the second plan starts with %v, want the tests the first deferred, %v", head, want)
	}
}

// TestSuiteSweepPastTheCap: the scheduled suite over more active tests than one execution
// replays, run end to end (plan, Map, replays, stored runs), until every test has been
// replayed once. Past the cap every plan defers some tests however many were replayed, so the
// sweep ends when none waits for its first replay, not when a plan defers nothing (which, past
// the cap, never comes: the benchmark fired executions until it gave up). 502 tests take two
// executions: 500, then the 2 deferred first and 498 of the longest since green; each result
// is its own item's (the Map's replays run at once, and the stack once read one replay's answer
// as another's), each test is replayed, and has a stored run, as many times as it was planned,
// and the Map's 4 at a time holds. No browser: the
// replays are green answers (noBrowser), since what is checked is what the stack does with
// them.
func TestSuiteSweepPastTheCap(t *testing.T) {
	const projects, tests = 2, 251
	r := newStackWith(t, 0, noBrowser{})
	r.seedWith(t, projects, tests, false)
	n, runs, planned := r.suiteExecutions(t, projects, tests)
	if n != 2 || len(runs) != 2*handler.MaxSuiteItems {
		t.Fatalf("%d executions, %d runs for %d tests; want 2 executions of %d", n, len(runs), projects*tests, handler.MaxSuiteItems)
	}
	r.replayedAsPlanned(t, projects, tests, planned)
	r.runsAsPlanned(t, runs, planned)
	// Answers without a browser take no time, so the 4 is not always reached here
	// (TestSuiteQueue checks it is); it must hold.
	if m := r.meter; m.maxInvoked > suiteReplaysOnce {
		t.Errorf("%d replays of the suite at once, the Map allows %d", m.maxInvoked, suiteReplaysOnce)
	}
}

// noBrowser answers every replay green without a browser, as a page that passes would: for the
// checks of what the stack does with replays (their order, their count, their stored runs),
// not of the replays themselves.
type noBrowser struct{}

func (noBrowser) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, TestVersion: t.Version, Passed: true, FailedIndex: -1}}, nil
}

// runsAsPlanned checks that every run id the executions returned is a stored run, one a
// replay, and that each test has as many as it was planned.
func (r *rig) runsAsPlanned(tb testing.TB, runs []string, planned map[string]int) {
	tb.Helper()
	stored := map[string]int{}
	seen := map[string]bool{}
	for _, id := range runs {
		if seen[id] {
			tb.Fatalf("run %s returned twice", id)
		}
		seen[id] = true
		run, err := r.store.Run(context.Background(), id)
		if err != nil {
			tb.Fatalf("run %s of the suite: %v", id, err)
		}
		stored[run.TestID]++
	}
	if !maps.Equal(stored, planned) {
		tb.Fatalf("%d tests have stored runs, %d were planned; the counts differ", len(stored), len(planned))
	}
}

// TestSuitePlanOutOfTime: a plan whose function has less time left than it keeps in reserve
// reads nothing and says so (every project counted unread) rather than failing or timing out,
// and records where it stopped, so the next plan, with time, reads every test. No browser.
func TestSuitePlanOutOfTime(t *testing.T) {
	const projects, tests = 2, 3
	r := newStack(t, 0)
	r.seedWith(t, projects, tests, false)
	plan := func(ctx context.Context) handler.SuitePlan {
		t.Helper()
		out, err := r.stack.Invoke(ctx, "SuitePlanFunction", []byte(`{"detail-type":"Scheduled Event","detail":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		var p handler.SuitePlan
		if err := json.Unmarshal(out, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), handler.SuitePlanReserve/2)
	defer cancel()
	late := plan(ctx)
	if late.Count != 0 || late.UnreadProjects != projects || late.Unread != 0 {
		t.Fatalf("a plan out of time: count %d, %d unread tests, %d unread projects; want 0, 0, %d", late.Count, late.Unread, late.UnreadProjects, projects)
	}
	full := plan(context.Background())
	if full.Count != projects*tests || full.Unread != 0 || full.UnreadProjects != 0 {
		t.Fatalf("the next plan: count %d, %d unread tests, %d unread projects; want %d, 0, 0", full.Count, full.Unread, full.UnreadProjects, projects*tests)
	}
}

// TestRadarOutOfTime: a radar run whose function has less time left than it keeps in reserve
// starts no sweep and names every enrolled project deferred, never swept first, rather than
// timing out mid-sweep. No browser: no sweep starts. The order across runs and the budget's
// arithmetic are gardening's TestSweepInTurnReachesEveryProject.
func TestRadarOutOfTime(t *testing.T) {
	const projects = 3
	r := newStack(t, 0)
	r.seedWith(t, projects, 1, false)
	ctx, cancel := context.WithTimeout(context.Background(), handler.RadarReserve/2)
	defer cancel()
	out, err := r.stack.Invoke(ctx, "RadarFunction", []byte(`{"detail-type":"Scheduled Event","detail":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	var rep handler.RadarReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	if want := []string{"p0000", "p0001", "p0002"}; len(rep.Sweeps) != 0 || !slices.Equal(rep.Deferred, want) {
		t.Fatalf("a radar run out of time: %d sweeps, deferred %v; want none and %v", len(rep.Sweeps), rep.Deferred, want)
	}
}

// TestRadarGoesOnPastAFailure: a project whose sweep fails is named in the report's failed and
// the run goes on to the next (with the fair order a failing project is first every run, so
// ending the run there would sweep nothing at all). Both projects here have no origin to sweep,
// so no browser starts.
func TestRadarGoesOnPastAFailure(t *testing.T) {
	r := newStack(t, 0)
	r.seedWith(t, 2, 1, false)
	ctx := context.Background()
	for _, id := range []string{"p0000", "p0001"} {
		p, err := r.store.Project(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		p.AllowedOrigins = nil
		if err := r.store.PutProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	out, err := r.stack.Invoke(ctx, "RadarFunction", []byte(`{"detail-type":"Scheduled Event","detail":{}}`))
	if err != nil {
		t.Fatalf("a radar run whose first project fails: %v", err)
	}
	var rep handler.RadarReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Failed) != 2 || !strings.Contains(rep.Failed["p0001"], "not an http(s) URL") || len(rep.Deferred) != 0 {
		t.Fatalf("failed %v, deferred %v: want both projects failed, the second tried after the first", rep.Failed, rep.Deferred)
	}
}

// BenchmarkReplayAlone is the per-replay figure of docs/scale.md: one suite execution of one
// project's tests with one replay at a time in a warm browser, as one Lambda replays; the peak
// memory is that browser's with one page.
func BenchmarkReplayAlone(b *testing.B) {
	const tests = 20
	for range b.N {
		r := newRig(b, 1)
		r.seed(b, 1, tests)
		load := loadavg()
		smp := sample(20 * time.Millisecond)
		start := time.Now()
		r.suiteExecutions(b, 1, tests)
		wall := time.Since(start)
		pss, heap := smp.end()
		r.exactlyOnce(b, 1, tests)
		f := r.figures(wall, pss, heap, load)
		b.Logf("replay alone: %s", f)
		report(b, f)
	}
}

// BenchmarkColdStart is what a Lambda's first replay adds: launching Chromium, then one replay.
func BenchmarkColdStart(b *testing.B) {
	r := newRig(b, 0)
	r.seed(b, 1, 1)
	ctx := context.Background()
	tc, err := r.store.Test(ctx, "p0000-t000")
	if err != nil {
		b.Fatal(err)
	}
	opts := gardener.ReplayOptions{BaseURL: r.app.URL, AllowedOrigins: []string{r.app.URL}}
	load := loadavg()
	b.ResetTimer()
	for range b.N {
		runner := browser.New(browser.Options{})
		rep, err := runner.Replay(ctx, tc, opts)
		runner.Close()
		if err != nil || !rep.Result.Passed {
			b.Fatalf("cold replay: %v, %+v", err, rep.Result)
		}
	}
	b.StopTimer()
	b.Logf("cold start and one replay: load average %s before, %s after", load, loadavg())
}

// BenchmarkStagingFanout: -scale.projects sweeps land at once, each with -scale.tests tests at
// risk; the passes run until none is. Reports the wall time, the per-replay figures under that
// concurrency and the largest in-flight and waiting counts; fails if a cap breaks or a test is
// dropped or replayed twice.
func BenchmarkStagingFanout(b *testing.B) {
	for range b.N {
		r := newRig(b, *benchSlots)
		r.seed(b, *benchProjects, *benchTests)
		load := loadavg()
		smp := sample(fanoutSampling)
		start := time.Now()
		passes := r.stagingPasses(b, *benchProjects, *benchTests)
		wall := time.Since(start)
		pss, heap := smp.end()
		r.exactlyOnce(b, *benchProjects, *benchTests)
		f := r.figures(wall, pss, heap, load)
		if f.maxPerProject > dryRunsAtOnce || (*benchSlots > 0 && f.maxRunning > *benchSlots) {
			b.Fatalf("a cap broke: %s", f)
		}
		b.Logf("staging fan-out, %d projects x %d tests at risk, %d slots, %d passes: %s", *benchProjects, *benchTests, *benchSlots, passes, f)
		report(b, f)
		b.ReportMetric(float64(passes), "passes")
	}
}

// BenchmarkSuiteFanout: the scheduled suite over -scale.projects × -scale.tests active tests,
// fired until every test has been replayed (suiteExecutions: 500 an execution, the deferred
// first in the next). Fails if an execution replays more than 500 or more than 4 at a time, or
// fewer than 4 at its busiest, or passes over a deferred test for one replayed already, or if
// a planned replay has no stored run or a test is replayed a number of times other than it
// was planned.
func BenchmarkSuiteFanout(b *testing.B) {
	for range b.N {
		r := newRig(b, *benchSlots)
		r.seed(b, *benchProjects, *benchTests)
		load := loadavg()
		smp := sample(fanoutSampling)
		start := time.Now()
		n, runs, planned := r.suiteExecutions(b, *benchProjects, *benchTests)
		wall := time.Since(start)
		pss, heap := smp.end()
		size := r.runBytes(b, runs)
		r.replayedAsPlanned(b, *benchProjects, *benchTests, planned)
		r.runsAsPlanned(b, runs, planned)
		f := r.figures(wall, pss, heap, load)
		if f.maxInvoked != suiteReplaysOnce || (*benchSlots > 0 && f.maxRunning > *benchSlots) {
			b.Fatalf("the suite's Map ran at most %d at once, want its %d; or the runner's %d slots broke: %s", f.maxInvoked, suiteReplaysOnce, *benchSlots, f)
		}
		b.Logf("suite fan-out, %d projects x %d tests, %d slots, %d executions: %s; a stored run is %d bytes of JSON on average", *benchProjects, *benchTests, *benchSlots, n, f, size)
		report(b, f)
		b.ReportMetric(float64(n), "executions")
		b.ReportMetric(float64(size), "bytes/run")
	}
}

// runBytes is the mean size of the stored runs as JSON, what a DynamoDB write of one is sized by.
func (r *rig) runBytes(tb testing.TB, ids []string) int {
	tb.Helper()
	total, n := 0, 0
	for _, id := range ids[:min(len(ids), 50)] {
		run, err := r.store.Run(context.Background(), id)
		if err != nil {
			tb.Fatal(err)
		}
		b, err := json.Marshal(run)
		if err != nil {
			tb.Fatal(err)
		}
		total += len(b)
		n++
	}
	if n == 0 {
		return 0
	}
	return total / n
}

// BenchmarkSuitePerProject: the suite fanned out by project, -scale.projects executions started
// at once, each replaying its project's -scale.tests tests at most 4 at a time, the runner
// letting -scale.slots replay at once: the layout docs/scale.md proposes for a sweep within the
// hour, on the stack as it is.
func BenchmarkSuitePerProject(b *testing.B) {
	for range b.N {
		r := newRig(b, *benchSlots)
		r.seed(b, *benchProjects, *benchTests)
		load := loadavg()
		smp := sample(fanoutSampling)
		start := time.Now()
		runs := r.suitePerProject(b, *benchProjects)
		wall := time.Since(start)
		pss, heap := smp.end()
		size := r.runBytes(b, runs)
		r.exactlyOnce(b, *benchProjects, *benchTests)
		f := r.figures(wall, pss, heap, load)
		if f.maxPerProject > suiteReplaysOnce || (*benchSlots > 0 && f.maxRunning > *benchSlots) {
			b.Fatalf("a cap broke: %s", f)
		}
		b.Logf("suite per project, %d executions at once x %d tests, %d slots: %s; a stored run is %d bytes of JSON on average", *benchProjects, *benchTests, *benchSlots, f, size)
		report(b, f)
		b.ReportMetric(float64(size), "bytes/run")
	}
}

func report(b *testing.B, f figures) {
	b.ReportMetric(float64(f.replays), "replays")
	b.ReportMetric(float64(f.p50.Milliseconds()), "p50-ms/replay")
	b.ReportMetric(float64(f.p95.Milliseconds()), "p95-ms/replay")
	b.ReportMetric(f.wall.Seconds(), "wall-s")
	b.ReportMetric(float64(f.maxPerProject), "max-inflight/project")
	b.ReportMetric(float64(f.maxRunning), "max-replaying")
	b.ReportMetric(float64(f.maxWaiting), "max-waiting")
	b.ReportMetric(f.peakChromiumPSSMB, "peak-chromium-MB")
}
