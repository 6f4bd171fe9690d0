package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/asl"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/radar"
	"github.com/driftgardener/gardener/tests/demoapp"
)

func init() {
	register("demo", command{
		summary: "the main job on the local stack: drift, repairs, triage, radar, the queue",
		about: `Runs the whole story on the stack of template.yaml, on this machine, against the demo shop:
a green baseline, drift repaired automatically, a regression refused and triaged, a radar sweep
staging proposals, a review (approve, dismiss, stale) and a revert. Each phase checks what it
must; with --json the story goes to stderr and stdout gets one JSON summary. Exit status: 0
every check passed; 1 a check failed; 2 bad input; 3 the demo could not run.`,
		run: runDemo,
	})
}

// The demo's drift accumulates as a real app's does: each phase adds to what came before.
const (
	demoDrift      = "id-renamed+label-renamed+moved-button"
	demoRegression = demoDrift + "+wrong-total"
	demoDrift2     = demoDrift + "+button-text+classes-renamed"
	reviewer       = "reviewer@example.com"
)

// demo is one run of the demo: the app, the stack, and what it has seen.
type demo struct {
	ctx    context.Context
	out    io.Writer
	marks  marks
	app    *demoapp.App
	appURL string
	l      *local
	api    *loopback
	token  string
	start  time.Time
	runs   int
	fails  []string
	counts map[string]int
	// verbose prints each failing run's message as the suite reports it.
	verbose bool
	// serve keeps the console up after the story.
	serve bool
	// held are the drifted tests whose fix was staged for a person rather than applied.
	held []string
	// repairsSeen is how many repair executions had ended before the last suite started.
	repairsSeen int
}

// demoSummary is the one object --json prints.
type demoSummary struct {
	Passed  bool           `json:"passed"`
	Failed  []string       `json:"failedChecks"`
	Runs    int            `json:"scheduledRuns"`
	Counts  map[string]int `json:"counts"`
	Seconds float64        `json:"seconds"`
}

func runDemo(ctx context.Context, c *cli, args []string) (status int) {
	fs := c.flags("demo")
	var o localOptions
	fs.StringVar(&o.template, "template", "", templateUsage)
	fs.StringVar(&o.state, "state", "", "`DIR` of the embedded store (default: a fresh temporary directory)")
	fs.StringVar(&o.dynamodbEndpoint, "dynamodb-endpoint", "", "use DynamoDB at this endpoint `URL` instead of the embedded store")
	fs.StringVar(&o.region, "region", "", regionFlag)
	// The demo shop answers from this process in milliseconds, and the demo is about failures:
	// every failing step waits out the whole limit (in the suite, each rung's reproduction and
	// each red proof), so a serve-sized limit would make most of the demo's time waiting. An
	// element is waited for only once its page has loaded, and a load has its own, longer limit.
	stepTimeoutVar(fs, &o.stepTimeout, 2*time.Second, "default time limit (a `duration`) of a replayed step")
	logFile := fs.String("log", "", "write the stack's JSON log lines to this `FILE`")
	verbose := fs.Bool("v", false, "print why each failing run failed")
	asJSON := fs.Bool("json", false, "tell the story on stderr and print one JSON summary on stdout")
	serve := fs.Bool("serve", false, "keep serving the review console (and the API) after the story, until interrupted")
	listen := fs.String("listen", "127.0.0.1:0", "where the stack's API and the review console listen (loopback only; port 0 picks a free port)")
	appListen := fs.String("app-listen", "127.0.0.1:0", "where the demo shop listens (loopback only; port 0 picks a free port)")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.badUsage(fs, "unexpected argument %q", pos[0])
	}
	apiLn, err := listenLoopback("--listen", *listen)
	if err != nil {
		return c.badUsage(fs, "%v", err)
	}
	defer apiLn.Close()
	appLn, err := listenLoopback("--app-listen", *appListen)
	if err != nil {
		return c.badUsage(fs, "%v", err)
	}
	defer appLn.Close()
	if o.region, err = awsRegion(ctx, o.region); err != nil {
		return c.fail("demo", exitBadInput, err)
	}
	if o.template, err = findTemplate(o.template); err != nil {
		return c.fail("demo", exitBadInput, err)
	}
	if *logFile != "" {
		f, err := os.Create(*logFile)
		if err != nil {
			return c.fail("demo", exitBadInput, err)
		}
		// The stack writes the log through the whole run, and a failed close can mean its last
		// lines never reached the file: that is the command failing, whatever the story said.
		defer func() {
			if err := f.Close(); err != nil {
				status = c.fail("demo", exitFailure, fmt.Errorf("closing the log: %w", err))
			}
		}()
		o.log = f
	}
	if o.state == "" {
		dir, err := os.MkdirTemp("", "gardener-demo-")
		if err != nil {
			return c.fail("demo", exitFailure, err)
		}
		defer os.RemoveAll(dir)
		o.state = dir
	}
	o.runner = c.runner
	d := &demo{ctx: ctx, out: c.stdout, marks: marksFor(c.term), start: time.Now(), counts: map[string]int{}, token: "Bearer " + stack.DevToken(reviewer, "demo"), verbose: *verbose, serve: *serve}
	if *asJSON {
		d.out, d.marks = c.stderr, marksFor(false)
	}
	if err := d.run(o, apiLn, appLn); err != nil {
		return c.fail("demo", exitFailure, err)
	}
	if *asJSON {
		sum := demoSummary{Passed: len(d.fails) == 0, Failed: append([]string{}, d.fails...), Runs: d.runs, Counts: d.counts, Seconds: time.Since(d.start).Seconds()}
		if err := writeJSON(c.stdout, sum); err != nil {
			return c.fail("demo", exitFailure, err)
		}
	}
	if len(d.fails) > 0 {
		fmt.Fprintf(d.out, "\nDEMO CHECKS FAILED (%d):\n", len(d.fails))
		for _, f := range d.fails {
			fmt.Fprintln(d.out, "  - "+f)
		}
		return exitNegative
	}
	return exitOK
}

func (d *demo) say(format string, args ...any) { fmt.Fprintf(d.out, format+"\n", args...) }

func (d *demo) phase(n int, title string) {
	d.say("\n== %d. %s  [%.0fs]", n, title, time.Since(d.start).Seconds())
}

// check records a failed expectation; the demo goes on and reports all of them at the end.
func (d *demo) check(ok bool, format string, args ...any) {
	if !ok {
		msg := fmt.Sprintf(format, args...)
		d.fails = append(d.fails, msg)
		d.say("   %s %s", d.marks.fail, msg)
	}
}

// listed reads a listing's error: records that do not decode are a failed expectation naming
// them, the rest of the listing is used; any other error is returned.
func (d *demo) listed(err error) error {
	corrupt, failure := gardener.SplitCorrupt(err)
	if corrupt != nil {
		d.check(false, "a listing skipped records that do not decode: %v", corrupt)
	}
	return failure
}

func (d *demo) run(o localOptions, apiLn, appLn net.Listener) error {
	d.app = demoapp.New()
	appSrv := serveLoopback(appLn, d.app.Handler())
	defer appSrv.Close()
	d.appURL = appSrv.URL
	o.baseURLs = map[string]string{"demo": d.appURL}
	o.onNotify = func(m stack.Message) { d.counts["sns"]++; d.say("   %s SNS %s", d.marks.mail, m.Subject) }
	l, err := startLocal(d.ctx, o)
	if err != nil {
		return err
	}
	d.l = l
	defer l.close()
	d.api = serveLoopback(apiLn, l.Handler())
	defer d.api.Close()
	tpl := l.Template()
	d.say("Drift Gardener demo — the stack of template.yaml on one machine: %d functions, %d state machines, %d API routes; the demo shop at %s",
		len(tpl.Functions), len(tpl.StateMachines), len(tpl.Routes), d.appURL)
	if err := d.seed(); err != nil {
		return err
	}

	d.phase(1, "Baseline: the scheduled suite runs green and records what every test does")
	failed, err := d.suite()
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("the suite is not green on the baseline: %v", failed)
	}

	d.phase(2, "The app drifts ("+demoDrift+"): the suite fails and auto-repair runs the repair state machine")
	if err := d.app.SetVariant(demoDrift); err != nil {
		return err
	}
	if failed, err = d.suite(); err != nil {
		return err
	}
	d.check(len(failed) >= 2, "the drift should break several tests, it broke %v", failed)
	if err := d.repairFailures(failed); err != nil {
		return err
	}
	if err := d.showRepairs(failed); err != nil {
		return err
	}

	// The next scheduled suite is the repairs' check too: every test but the one the
	// regression breaks must pass, the repaired ones included.
	d.phase(3, "The next scheduled run: the repaired tests pass, but the app shipped a regression (wrong total); the ladder refuses to repair it and files a triage issue")
	if err := d.app.SetVariant(demoRegression); err != nil {
		return err
	}
	before, err := d.versions()
	if err != nil {
		return err
	}
	regressed, err := d.suite()
	if err != nil {
		return err
	}
	// Besides the regression, only the tests held for a person may still fail.
	var unexpected []string
	sawRegression := false
	for _, id := range regressed {
		switch {
		case strings.HasPrefix(id, string(gardener.TriggerSchedule)+"-cart-total-"):
			sawRegression = true
		case !slices.ContainsFunc(d.held, func(t string) bool { return strings.HasPrefix(id, string(gardener.TriggerSchedule)+"-"+t+"-") }):
			unexpected = append(unexpected, id)
		}
	}
	d.check(sawRegression && len(unexpected) == 0, "after auto-repair only the regression (cart-total) and the tests staged for a person %v should fail, failing: %v", d.held, regressed)
	if err := d.repairFailures(regressed); err != nil {
		return err
	}
	after, err := d.versions()
	if err != nil {
		return err
	}
	d.check(maps.Equal(before, after), "the regression must write nothing to any test")
	issues, err := d.l.store.TriageIssues(d.ctx, "demo")
	if err = d.listed(err); err != nil {
		return err
	}
	for _, is := range issues {
		d.say("   triage %s: %s at step %s — %s", is.TestID, is.Classification, is.FailedStep, strings.Join(is.Evidence, "; "))
	}
	d.check(len(issues) >= 1 && issues[0].Classification == gardener.AppBug, "the regression should be triaged as an app bug")
	if err := d.app.SetVariant(demoDrift); err != nil { // the team fixes the bug
		return err
	}

	d.phase(4, "The project switches to proposing (auto-repair off); the radar records a baseline")
	var proj gardener.Project
	if err := d.call("PUT", "/projects/demo/settings", map[string]any{"autoRepair": false}, http.StatusOK, &proj); err != nil {
		return err
	}
	d.check(!proj.AutoRepair, "the settings route should turn auto-repair off")
	var q radar.Queue
	if err := d.call("GET", "/projects/demo/queue", nil, http.StatusOK, &q); err != nil {
		return err
	}
	// Before the first sweep the queue holds only what auto-repair staged for a person; empty,
	// it says nothing has been swept yet.
	d.queueHoldsOnlyHeld(q, radar.EmptyNotSwept)
	if err := d.fireRadar(); err != nil {
		return err
	}
	if err := d.call("GET", "/projects/demo/queue", nil, http.StatusOK, &q); err != nil {
		return err
	}
	d.queueHoldsOnlyHeld(q, "")

	d.phase(5, "The app drifts again ("+strings.TrimPrefix(demoDrift2, demoDrift+"+")+"): a radar sweep, a staging pass through the capped Map, the queue")
	if err := d.app.SetVariant(demoDrift2); err != nil {
		return err
	}
	if before, err = d.versions(); err != nil {
		return err
	}
	if err := d.fireRadar(); err != nil {
		return err
	}
	if after, err = d.versions(); err != nil {
		return err
	}
	d.check(maps.Equal(before, after), "the proposing gardener must write nothing to a test")
	if err := d.call("GET", "/projects/demo/queue", nil, http.StatusOK, &q); err != nil {
		return err
	}
	for _, r := range q.Rows {
		d.say("   staged %s for %s (failed at step %s; %s, restated %s)", r.ProposalID, r.TestID, r.FailedStep, plural(len(r.Triggers), "trigger", "triggers"), plural(r.Restated, "time", "times"))
		for _, line := range strings.Split(strings.TrimRight(gardener.RenderDiff(r.Diff), "\n"), "\n") {
			d.say("       %s", line)
		}
	}
	d.check(len(q.Rows) >= 3, "the staging pass should stage at least three proposals, it staged %d", len(q.Rows))

	d.phase(6, "Review: one proposal approved, one dismissed, one stale after a person edits its test")
	if err := d.review(q.Rows); err != nil {
		return err
	}

	d.phase(7, "Revert an auto-repair")
	if err := d.revert(); err != nil {
		return err
	}

	d.phase(8, "Summary")
	if err := d.summary(); err != nil {
		return err
	}
	d.say("\nReview console: %s/console/projects/demo (sign in as %s)", d.api.URL, reviewer)
	if !d.serve {
		d.say("   it stops with the demo; run `gardener demo --serve` (make demo DEMO_FLAGS=--serve) to keep it up")
		return nil
	}
	d.say("   serving until interrupted: the console at %s/console, the API at %s (Authorization: %s), the demo shop at %s", d.api.URL, d.api.URL, d.token, d.appURL)
	<-d.ctx.Done()
	return nil
}

func (d *demo) seed() error {
	if err := seedDemo(d.ctx, d.l, d.appURL); err != nil {
		return err
	}
	tests, err := d.l.store.Tests(d.ctx, "demo")
	if err = d.listed(err); err != nil {
		return err
	}
	d.counts["tests"] = len(tests)
	d.say("project demo: %s, auto-repair on, model builtin (no key, no tokens)", plural(len(tests), "saved test", "saved tests"))
	return nil
}

// suite fires the suite state machine's schedule, as EventBridge does: every active test is
// replayed (the Map's bounded concurrency, each replay in its own browser context; a failing test
// spends most of its run waiting for an element) and recorded as a scheduled run, and each failed
// run's "Run Failed" starts the repair machine through the template's rule. It waits for the
// suite and the repairs it started, and returns the failing runs' ids in test order.
func (d *demo) suite() ([]string, error) {
	d.repairsSeen = len(d.l.Executions("RepairStateMachine"))
	if err := d.l.Scheduler.FireNow(d.ctx, "SuiteStateMachine.Suite"); err != nil {
		return nil, fmt.Errorf("firing the suite's schedule: %w", err)
	}
	d.l.Wait()
	execs := d.l.Executions("SuiteStateMachine")
	if len(execs) == 0 {
		return nil, errors.New("the suite's schedule started no suite execution")
	}
	last := execs[len(execs)-1]
	if last.Status != "SUCCEEDED" {
		return nil, fmt.Errorf("the suite execution ended %s: %v", last.Status, last.Failure)
	}
	var out struct {
		Plan    handler.SuitePlan        `json:"plan"`
		Results []handler.SuiteRunResult `json:"results"`
		Report  handler.SuiteReport      `json:"report"`
	}
	if err := json.Unmarshal(last.Output, &out); err != nil {
		return nil, fmt.Errorf("the suite execution's output: %w", err)
	}
	d.check(len(out.Results) == d.counts["tests"], "the suite should replay all %d tests, it replayed %d (skipped %v)", d.counts["tests"], len(out.Results), out.Plan.Skipped)
	slices.SortFunc(out.Results, func(a, b handler.SuiteRunResult) int { return strings.Compare(a.TestID, b.TestID) })
	var failed, line []string
	for _, r := range out.Results {
		if r.RunID == "" {
			d.check(false, "the suite did not replay %s: %s%s", r.TestID, r.Skipped, r.Error)
			continue
		}
		d.runs++
		if r.Passed {
			line = append(line, r.TestID+" "+d.marks.ok)
			continue
		}
		failed = append(failed, r.RunID)
		line = append(line, fmt.Sprintf("%s %s step %s", r.TestID, d.marks.fail, r.FailedStep))
		d.check(slices.Contains(out.Report.Reported, r.RunID), "the failed run %s was not put on the bus", r.RunID)
		if d.verbose {
			d.say("   %s: %s", r.TestID, r.Error)
		}
	}
	d.say("   suite: %s", strings.Join(line, ", "))
	return failed, nil
}

// queueHoldsOnlyHeld prints the queue and checks it holds only the tests auto-repair staged
// for a person, and, when it is empty and empty names a reason, that it gives that reason.
func (d *demo) queueHoldsOnlyHeld(q radar.Queue, empty string) {
	var staged []string
	for _, r := range q.Rows {
		staged = append(staged, r.TestID)
		d.check(slices.Contains(d.held, r.TestID), "the queue stages %s, which auto-repair did not hold for a person", r.TestID)
	}
	if len(staged) > 0 {
		d.say("   queue: %s staged for a person (%s)", plural(len(staged), "fix", "fixes"), strings.Join(staged, ", "))
		return
	}
	d.say("   queue: %q", q.Empty)
	d.check(empty == "" || q.Empty == empty, "the empty queue should say %q, it says %q", empty, q.Empty)
}

// repairFailures reports the repair execution each failed run's "Run Failed" started while the
// suite ran. The repairs run side by side, as they do in Step Functions; a heal propagated to
// another failing test makes that test's own repair find its run's version gone.
func (d *demo) repairFailures(runs []string) error {
	started := map[string]*asl.Execution{}
	execs := d.l.Executions("RepairStateMachine")
	for _, ex := range execs[min(d.repairsSeen, len(execs)):] {
		var in handler.RepairInput
		if err := json.Unmarshal(ex.Input, &in); err == nil {
			started[in.Detail.RunID] = ex
		}
	}
	d.check(len(started) == len(runs), "the suite's %d failed runs started %d repair executions", len(runs), len(started))
	for _, id := range runs {
		run, err := d.l.store.Run(d.ctx, id)
		if err != nil {
			return err
		}
		last, ok := started[id]
		if !ok {
			d.check(false, "the Run Failed event of %s started no repair execution", run.ID)
			continue
		}
		var out struct {
			Eligible  *bool  `json:"eligible"`
			Reason    string `json:"reason"`
			Persisted struct {
				Persisted struct {
					Outcome string `json:"outcome"`
					Reason  string `json:"reason"`
				} `json:"persisted"`
			} `json:"persisted"`
		}
		if last.Status != "SUCCEEDED" {
			// A failed execution has no output, only its failure.
			d.check(false, "repair execution for %s ended %s: %v", run.TestID, last.Status, last.Failure)
			continue
		}
		// An output of another shape must not read as an empty outcome.
		if err := json.Unmarshal(last.Output, &out); err != nil {
			return fmt.Errorf("the repair execution's output for %s: %w", run.TestID, err)
		}
		switch {
		case out.Eligible != nil && !*out.Eligible:
			d.say("   %s: not eligible — %s", run.TestID, out.Reason)
		default:
			p := out.Persisted.Persisted
			d.counts["outcome:"+p.Outcome]++
			d.say("   %s: %s %s", run.TestID, p.Outcome, p.Reason)
		}
	}
	return nil
}

func (d *demo) showRepairs(runs []string) error {
	seen := map[string]bool{}
	for _, id := range runs {
		run, err := d.l.store.Run(d.ctx, id)
		if err != nil {
			return err
		}
		if seen[run.TestID] {
			continue
		}
		seen[run.TestID] = true
		reps, err := d.l.store.Repairs(d.ctx, run.TestID)
		if err = d.listed(err); err != nil {
			return err
		}
		if len(reps) == 0 {
			// A drifted test the trust checks held back (an insensitive check, a flow change)
			// is staged for a person instead: an open proposal, and it keeps failing until
			// someone approves it.
			open, err := d.l.store.OpenProposals(d.ctx, "demo")
			if err = d.listed(err); err != nil {
				return err
			}
			staged := slices.ContainsFunc(open, func(p gardener.Proposal) bool { return p.TestID == run.TestID })
			d.check(staged, "%s has neither a repair record nor a proposal staged for a person", run.TestID)
			if staged {
				d.held = append(d.held, run.TestID)
				d.say("   %s: staged for a person, not repaired", run.TestID)
			}
			continue
		}
		for _, r := range reps {
			v := r.Verdict
			counts := gardener.Summarize(v.Changes)
			k, n := v.Contract.Kept()
			contract := "no requirement recorded"
			if n > 0 {
				contract = fmt.Sprintf("contract %d of %d kept", k, n)
			}
			badge := "no badge"
			if r.Badge {
				badge = "badged Auto-repaired"
			}
			d.say("   %s v%d→v%d by %s (run %s): %d repair / %d review / %d protected; %s; checks proven sensitive in %d of %d; %s",
				r.TestID, r.FromVersion, r.ToVersion, v.Strategy, r.RunID, counts[gardener.ClassRepair], counts[gardener.ClassReview], counts[gardener.ClassProtected], contract, v.Sensitivity.Sensitive, v.Sensitivity.Total, badge)
			for _, line := range strings.Split(strings.TrimRight(gardener.RenderDiff(gardener.Diff(r.PreSteps, v.Ops)), "\n"), "\n") {
				d.say("       %s", line)
			}
			for _, nt := range v.Notes {
				if nt.Kind != gardener.NotePageAtFailure {
					d.say("       %s %s", d.marks.warn, nt.Text)
				}
			}
			d.counts["repairs"]++
		}
	}
	return nil
}

// fireRadar fires the radar's schedule now and waits for the staging machine it starts.
func (d *demo) fireRadar() error {
	if err := d.l.Scheduler.FireNow(d.ctx, "RadarFunction.Sweep"); err != nil {
		return fmt.Errorf("firing the radar's schedule: %w", err)
	}
	d.l.Wait()
	if ex := d.l.Executions("StagingStateMachine"); len(ex) > 0 {
		last := ex[len(ex)-1]
		var out struct {
			Summary struct {
				DryRun, Passing, Staged, NotStaged, Deferred []string
			} `json:"summary"`
		}
		// A failed execution has no output, only its failure; an output of another shape must
		// not read as a pass that staged nothing.
		if last.Status != "SUCCEEDED" {
			d.say("   staging pass (%s): %v", last.Status, last.Failure)
			return nil
		}
		if err := json.Unmarshal(last.Output, &out); err != nil {
			return fmt.Errorf("the staging execution's output: %w", err)
		}
		s := out.Summary
		d.say("   staging pass (%s): dry-run %v, still passing %v, staged %v, not staged %v, waiting for the next pass %v", last.Status, s.DryRun, s.Passing, s.Staged, s.NotStaged, s.Deferred)
	}
	return nil
}

func (d *demo) review(rows []radar.QueueRow) error {
	if len(rows) < 3 {
		return nil
	}
	slices.SortFunc(rows, func(a, b radar.QueueRow) int { return strings.Compare(a.TestID, b.TestID) })
	var approved map[string]any
	if err := d.call("POST", "/proposals/"+url.PathEscape(rows[0].ProposalID)+"/approve", nil, http.StatusOK, &approved); err != nil {
		return err
	}
	versions, err := d.versions()
	if err != nil {
		return err
	}
	d.say("   approved %s: %s is now version %d, approved by %s", rows[0].ProposalID, rows[0].TestID, versions[rows[0].TestID], reviewer)
	d.counts["approved"]++
	if err := d.call("POST", "/proposals/"+url.PathEscape(rows[1].ProposalID)+"/dismiss", nil, http.StatusOK, nil); err != nil {
		return err
	}
	d.say("   dismissed %s: it is not proposed again unless the test or the app changes", rows[1].ProposalID)
	d.counts["dismissed"]++
	// A person edits the third test in the builder: its steps move to a new version.
	t, err := d.l.store.Test(d.ctx, rows[2].TestID)
	if err != nil {
		return err
	}
	t.Steps = append(t.Steps, gardener.Step{Kind: gardener.Screenshot, Name: "edited-in-builder"})
	if _, err := d.l.store.SaveTest(d.ctx, t); err != nil {
		return err
	}
	var conflict map[string]string
	if err := d.call("POST", "/proposals/"+url.PathEscape(rows[2].ProposalID)+"/approve", nil, http.StatusConflict, &conflict); err != nil {
		return err
	}
	p, err := d.l.store.Proposal(d.ctx, rows[2].ProposalID)
	if err != nil {
		return err
	}
	d.say("   approving %s after an edit: refused (%s); the row is %s", rows[2].ProposalID, conflict["error"], p.Status)
	d.check(p.Status == gardener.ProposalStale, "a proposal approved against an edited test should go stale, it is %s", p.Status)
	d.counts["stale"]++
	repairs, err := d.l.store.Repairs(d.ctx, rows[0].TestID)
	if err = d.listed(err); err != nil {
		return err
	}
	d.check(len(repairs) > 0 && repairs[0].ApprovedBy == reviewer, "the approved repair should record who approved it")
	return nil
}

func (d *demo) revert() error {
	repairs, err := d.l.store.RepairsSince(d.ctx, "demo", time.Time{})
	if err = d.listed(err); err != nil {
		return err
	}
	var target *gardener.Repair
	for i := range repairs {
		r := repairs[i]
		if t, err := d.l.store.Test(d.ctx, r.TestID); err == nil && r.Auto && t.Version == r.ToVersion {
			target = &r
		}
	}
	if target == nil {
		d.check(false, "no auto-repair left to revert")
		return nil
	}
	var conf map[string]string
	if err := d.call("POST", "/repairs/"+url.PathEscape(target.ID)+"/revert", map[string]any{}, http.StatusOK, &conf); err != nil {
		return err
	}
	d.say("   confirm: %s", conf["confirmation"])
	if err := d.call("POST", "/repairs/"+url.PathEscape(target.ID)+"/revert", map[string]any{"confirm": true}, http.StatusOK, nil); err != nil {
		return err
	}
	t, err := d.l.store.Test(d.ctx, target.TestID)
	if err != nil {
		return err
	}
	d.check(slices.EqualFunc(t.Steps, target.PreSteps, gardener.Step.Equal), "revert should restore the pre-repair steps exactly")
	d.say("   reverted %s: %s is version %d with its %s from before the repair", target.ID, t.ID, t.Version, plural(len(t.Steps), "step", "steps"))
	d.counts["reverted"]++
	return nil
}

func (d *demo) summary() error {
	tests, err := d.l.store.Tests(d.ctx, "demo")
	if err = d.listed(err); err != nil {
		return err
	}
	calls, tokens := 0, 0
	held := map[string]int{} // proposals staged for a person, by the first trust check that asked
	for _, t := range tests {
		props, err := d.l.store.TestProposals(d.ctx, t.ID)
		if err != nil {
			return err
		}
		for _, p := range props {
			if need, why := p.Verdict.NeedsPerson(); need {
				kind, _, _ := strings.Cut(why, ":")
				held[kind]++
			}
		}
		mc, err := d.l.store.ModelCalls(d.ctx, t.ID)
		if err = d.listed(err); err != nil {
			return err
		}
		calls += len(mc)
		for _, c := range mc {
			tokens += c.InputTokens + c.OutputTokens
		}
	}
	repairs, err := d.l.store.RepairsSince(d.ctx, "demo", time.Time{})
	if err = d.listed(err); err != nil {
		return err
	}
	issues, err := d.l.store.TriageIssues(d.ctx, "demo")
	if err = d.listed(err); err != nil {
		return err
	}
	refusals := 0
	for _, is := range issues {
		for _, a := range is.Attempts {
			refusals += len(a.Refusals)
		}
	}
	d.say("   %s; %s; %s; proposals dismissed %d, stale %d; %s; %s; %s (%s); %s; %.1fs",
		plural(len(tests), "test", "tests"), plural(d.runs, "scheduled run", "scheduled runs"), repairsWritten(repairs),
		d.counts["dismissed"], d.counts["stale"], plural(len(issues), "triage issue", "triage issues"), plural(refusals, "refusal", "refusals"),
		plural(calls, "model call", "model calls"), plural(tokens, "token", "tokens"), plural(d.counts["sns"], "SNS event", "SNS events"), time.Since(d.start).Seconds())
	whys := make([]string, 0, len(held))
	total := 0
	for _, k := range slices.Sorted(maps.Keys(held)) {
		whys = append(whys, fmt.Sprintf("%s %d", k, held[k]))
		total += held[k]
	}
	if total == 0 {
		d.say("   staged for a person: none")
	} else {
		d.say("   staged for a person %d (%s)", total, strings.Join(whys, ", "))
	}
	if len(d.fails) == 0 {
		d.say("   every demo check passed")
	}
	return nil
}

// repairsWritten says how many repairs were written and how each came to be: by auto-repair,
// approved by a person (a queue's approval or a person's manual repair), and how many of them a
// person reverted since. A revert undoes a repair's steps but keeps its record, so the reverted
// are among the written, not beside them.
func repairsWritten(repairs []gardener.Repair) string {
	auto, approved, other, reverted := 0, 0, 0, 0
	for _, r := range repairs {
		switch {
		case r.Auto:
			auto++
		case r.ApprovedBy != "":
			approved++
		default:
			other++
		}
		if !r.RevertedAt.IsZero() {
			reverted++
		}
	}
	var how []string
	if auto > 0 {
		how = append(how, fmt.Sprintf("%d by auto-repair", auto))
	}
	if approved > 0 {
		how = append(how, fmt.Sprintf("%d approved by a person", approved))
	}
	if other > 0 {
		how = append(how, fmt.Sprintf("%d with no approver recorded", other))
	}
	out := plural(len(repairs), "repair written", "repairs written")
	if len(how) > 0 {
		out += " (" + strings.Join(how, ", ") + ")"
	}
	if reverted > 0 {
		out += fmt.Sprintf(", %d of them reverted since", reverted)
	}
	return out
}

// versions maps each test to its version.
func (d *demo) versions() (map[string]int, error) {
	tests, err := d.l.store.Tests(d.ctx, "demo")
	if err = d.listed(err); err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, t := range tests {
		out[t.ID] = t.Version
	}
	return out, nil
}

// call calls the local HttpApi with the reviewer's development token and decodes the answer. An
// answer other than want is a failed check and is not decoded; a request that could not be made,
// or an answer of the wanted status that does not decode, is an error.
func (d *demo) call(method, path string, body any, want int, into any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(d.ctx, method, d.api.URL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", d.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode != want {
		// The failed check shows the answer; one of another status need not have into's shape.
		d.check(false, "%s %s answered %d, want %d: %s", method, path, resp.StatusCode, want, strings.TrimSpace(string(b)))
		return nil
	}
	if into != nil {
		// An answer of another shape must not read as zero values.
		if err := json.Unmarshal(b, into); err != nil {
			return fmt.Errorf("%s %s: decoding the answer: %w", method, path, err)
		}
	}
	return nil
}
