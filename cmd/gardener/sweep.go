package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/radar"
	"github.com/driftgardener/gardener/pkg/tend"
)

func init() {
	register("sweep", command{summary: "radar sweep and staging pass over a directory of tests (--tests DIR --base-url URL)", run: runSweep})
}

// noModel is the --model value of a project without an AI key: the radar and its at-risk list
// still work; nothing is staged.
const noModel = "none"

type sweepFlags struct {
	baseURL, tests, state, model, setup, region, endpoint string
	baseline, json                                        bool
	stepTimeout                                           time.Duration
}

// sweepOutput is the one object `--json` prints.
type sweepOutput struct {
	ProjectID string `json:"projectId"`
	// Recorded lists the tests replayed to record a first green run, and how that went.
	Recorded []recordedGreen       `json:"recorded,omitempty"`
	Baseline *radar.BaselineReport `json:"baseline,omitempty"`
	// BaselineWhy says why a baseline was recorded: asked for, or none existed.
	BaselineWhy string            `json:"baselineWhy,omitempty"`
	Sweep       radar.SweepResult `json:"sweep"`
	Pass        radar.PassResult  `json:"pass"`
	Queue       radar.Queue       `json:"queue"`
}

type recordedGreen struct {
	TestID string `json:"testId"`
	Passed bool   `json:"passed"`
	Error  string `json:"error,omitempty"`
}

func runSweep(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f sweepFlags
	fs.StringVar(&f.baseURL, "base-url", "", "the app's base URL (required)")
	fs.StringVar(&f.tests, "tests", "", "directory of saved tests, one JSON file a test (required)")
	fs.StringVar(&f.state, "state", defaultStateDir, "directory of the local state (green runs, baseline, at-risk ledger, proposals)")
	fs.StringVar(&f.model, "model", "builtin", "builtin, bedrock:MODEL_ID, or none (no AI key: sweep and list at-risk tests, stage nothing)")
	fs.StringVar(&f.setup, "setup", "", "id of the setup test (a login) replayed before pages that need a session")
	fs.StringVar(&f.region, "region", os.Getenv("AWS_REGION"), "AWS region for bedrock")
	fs.StringVar(&f.endpoint, "bedrock-endpoint", "", "override the Bedrock runtime endpoint")
	fs.BoolVar(&f.baseline, "baseline", false, "record a new baseline before sweeping")
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of text")
	fs.DurationVar(&f.stepTimeout, "step-timeout", 0, "default time limit of a step (0: the runner's default)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 || f.tests == "" {
		fmt.Fprintln(stderr, "usage: gardener sweep --tests DIR --base-url URL [--state DIR] [--baseline] [--setup TEST_ID] [--model builtin|bedrock:MODEL_ID|none] [--json]")
		return 2
	}
	if err := checkBaseURL(f.baseURL); err != nil {
		fmt.Fprintln(stderr, "gardener sweep:", err)
		return 2
	}
	tests, err := readTestDir(f.tests)
	if err != nil {
		fmt.Fprintln(stderr, "gardener sweep:", err)
		return 2
	}
	if f.setup != "" && !slices.ContainsFunc(tests, func(t gardener.Test) bool { return t.ID == f.setup }) {
		fmt.Fprintf(stderr, "gardener sweep: --setup %q: no test in %s has that id\n", f.setup, f.tests)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var model gardener.Model
	if f.model != noModel {
		if model, err = modelspec.Open(ctx, f.model, modelspec.Options{Region: f.region, Endpoint: f.endpoint}); err != nil {
			fmt.Fprintln(stderr, "gardener sweep:", err)
			return 2
		}
	}
	progress := stdout
	if f.json {
		progress = stderr
	}
	out, err := sweepTests(ctx, f, tests, model, progress)
	if err != nil {
		fmt.Fprintln(stderr, "gardener sweep:", err)
		return 2
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(stderr, "gardener sweep:", err)
			return 2
		}
	} else {
		printSweep(stdout, out)
	}
	for _, p := range out.Pass.Proposed {
		if p.Outcome != ladder.Staged && p.Outcome != ladder.NoFix && p.Skipped == "" {
			return 1 // a test the change broke that no proven fix could be staged for
		}
	}
	return 0
}

// readTestDir reads every *.json file of dir as a test; they must belong to one project.
func readTestDir(dir string) ([]gardener.Test, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--tests %s: no *.json test files there", dir)
	}
	slices.Sort(names)
	var tests []gardener.Test
	for _, n := range names {
		t, err := readTest(n)
		if err != nil {
			return nil, err
		}
		if len(tests) > 0 && t.ProjectID != tests[0].ProjectID {
			return nil, fmt.Errorf("%s is in project %q, %s in %q: sweep one project's tests at a time", n, t.ProjectID, names[0], tests[0].ProjectID)
		}
		if slices.ContainsFunc(tests, func(o gardener.Test) bool { return o.ID == t.ID }) {
			return nil, fmt.Errorf("%s: a second test with id %q", n, t.ID)
		}
		tests = append(tests, t)
	}
	return tests, nil
}

func sweepTests(ctx context.Context, f sweepFlags, files []gardener.Test, model gardener.Model, progress io.Writer) (*sweepOutput, error) {
	if err := os.MkdirAll(f.state, 0o755); err != nil {
		return nil, err
	}
	store, err := embedded.Open(filepath.Join(f.state, "gardener.db"))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	life := lifecycle.New(store, nil)
	projectID := files[0].ProjectID
	project, err := store.Project(ctx, projectID)
	if errors.Is(err, gardener.ErrNotFound) {
		project = gardener.Project{ID: projectID, Name: projectID, Plan: gardener.PlanPro, Radar: true}
	} else if err != nil {
		return nil, err
	}
	project.Model = ""
	if model != nil {
		project.Model = model.Name()
	}
	if f.setup != "" {
		project.SetupTestID = f.setup
	}
	if origin := originOf(f.baseURL); !containsString(project.AllowedOrigins, origin) {
		project.AllowedOrigins = append(project.AllowedOrigins, origin)
	}
	if err := store.PutProject(ctx, project); err != nil {
		return nil, err
	}
	var tests []gardener.Test
	for _, file := range files {
		t, err := syncTest(ctx, store, life, file)
		if err != nil {
			return nil, err
		}
		tests = append(tests, t)
	}

	runner := browser.New(browser.Options{StepTimeout: f.stepTimeout})
	defer runner.Close()
	rad := &radar.Radar{Runner: runner, Store: store, Log: discardLogger(), BaseURL: f.baseURL}
	if model != nil {
		lad := &ladder.Ladder{Runner: runner, Model: model}
		rad.Tender = &tend.Tender{Store: store, Life: life, Ladder: lad, Log: discardLogger()}
	}
	out := &sweepOutput{ProjectID: projectID}
	if out.Recorded, err = recordFirstGreen(ctx, store, runner, tests, gardener.ReplayOptions{BaseURL: f.baseURL, AllowedOrigins: project.AllowedOrigins}, progress); err != nil {
		return nil, err
	}
	_, err = store.Baseline(ctx, projectID)
	switch {
	case f.baseline:
		out.BaselineWhy = "asked for (--baseline)"
	case errors.Is(err, gardener.ErrNotFound):
		out.BaselineWhy = "none existed: recorded one first, so this sweep compares the app with itself"
	case err != nil:
		return nil, err
	}
	if out.BaselineWhy != "" {
		fmt.Fprintf(progress, "[baseline] recording the radar baseline (%s)\n", out.BaselineWhy)
		rep, err := rad.RecordBaseline(ctx, projectID)
		if err != nil {
			return nil, err
		}
		out.Baseline = &rep
	}
	fmt.Fprintln(progress, "[sweep] visiting the baseline's pages")
	if out.Sweep, err = rad.Sweep(ctx, projectID); err != nil {
		return nil, err
	}
	fmt.Fprintln(progress, "[pass] staging pass")
	if out.Pass, err = rad.Pass(ctx, projectID); err != nil {
		return nil, err
	}
	if out.Queue, err = rad.Queue(ctx, projectID); err != nil {
		return nil, err
	}
	return out, nil
}

// recordFirstGreen replays each active test that has no green run of its current version, so
// the baseline has something to start from; a test that fails is reported and left out.
func recordFirstGreen(ctx context.Context, store gardener.Store, runner gardener.Runner, tests []gardener.Test, opts gardener.ReplayOptions, progress io.Writer) ([]recordedGreen, error) {
	var out []recordedGreen
	for _, t := range tests {
		if t.Status != gardener.StatusActive {
			continue
		}
		green, err := store.LastGreenRun(ctx, t.ID)
		if err == nil && green.TestVersion == t.Version {
			continue
		}
		if err != nil && !errors.Is(err, gardener.ErrNotFound) {
			return out, err
		}
		fmt.Fprintf(progress, "[record] replaying %s version %d to record what a green run does\n", t.ID, t.Version)
		rep, err := runner.Replay(ctx, t, opts)
		if err != nil {
			return out, err
		}
		res := rep.Result
		run := gardener.Run{ID: "cli-" + t.ID + "-" + strconv.FormatInt(time.Now().UnixNano(), 36), ProjectID: t.ProjectID, TestID: t.ID, TestVersion: t.Version, Trigger: gardener.TriggerManual, Result: &res, At: time.Now()}
		if err := store.PutRun(ctx, run); err != nil {
			return out, err
		}
		out = append(out, recordedGreen{TestID: t.ID, Passed: res.Passed, Error: res.Message})
	}
	return out, nil
}

func printSweep(w io.Writer, o *sweepOutput) {
	for _, r := range o.Recorded {
		if !r.Passed {
			fmt.Fprintf(w, "not baselined: %s fails (%s)\n", r.TestID, r.Error)
		}
	}
	if o.Baseline != nil {
		fmt.Fprintf(w, "baseline: %d pages of %d tests (%s)\n", len(o.Baseline.Pages), len(o.Baseline.Tests), o.BaselineWhy)
		for _, u := range o.Baseline.Unreached {
			fmt.Fprintf(w, "  not reached: %s (%s)\n", u.ID, u.Reason)
		}
	}
	changed := 0
	for _, p := range o.Sweep.Pages {
		if p.Changed {
			changed++
		}
	}
	fmt.Fprintf(w, "\nApp changes: %d on %d of %d pages\n", len(o.Sweep.Changes), changed, len(o.Sweep.Pages))
	for _, c := range o.Sweep.Changes {
		fmt.Fprintf(w, "  %-8s %s  %s\n", c.Kind, c.URL, c.Detail)
	}
	for _, p := range o.Sweep.Pages {
		if p.Unreached != "" {
			fmt.Fprintf(w, "  not reached %s: %s\n", p.URL, p.Unreached)
		}
	}
	fmt.Fprintf(w, "\nAt-risk tests: %d\n", len(o.Sweep.AtRisk))
	for _, t := range o.Sweep.AtRisk {
		fmt.Fprintf(w, "  %s\n", t.TestID)
		for _, s := range t.Steps {
			fmt.Fprintf(w, "    step %s %s on %s: %s\n", s.Step, s.Locator, s.URL, s.Why)
		}
	}
	sel := o.Pass.Selection
	fmt.Fprintln(w)
	if sel.Skipped != "" {
		fmt.Fprintf(w, "Staging pass skipped: %s\n", sel.Skipped)
	} else {
		fmt.Fprintf(w, "Dry-runs: %d\n", len(o.Pass.DryRuns))
		for _, d := range o.Pass.DryRuns {
			switch {
			case d.Skipped != "":
				fmt.Fprintf(w, "  %-16s skipped: %s\n", d.TestID, d.Skipped)
			case d.Passed:
				fmt.Fprintf(w, "  %-16s still passes: nothing proposed, no model call\n", d.TestID)
			default:
				fmt.Fprintf(w, "  %-16s fails at step %s: %s\n", d.TestID, d.FailedStep, d.Error)
			}
		}
		fmt.Fprintf(w, "Staged: %d\n", len(o.Pass.Proposed))
		for _, p := range o.Pass.Proposed {
			what := string(p.Outcome)
			if p.Staged != "" {
				what = fmt.Sprintf("%s %s (restated %d)", p.Staged, p.ProposalID, p.Restated)
			}
			if p.Skipped != "" {
				what = "skipped: " + p.Skipped
			}
			fmt.Fprintf(w, "  %-16s %s, %d model call(s)\n", p.TestID, what, p.ModelCalls)
		}
	}
	if len(sel.Deferred) > 0 {
		fmt.Fprintf(w, "Waiting for the next pass (cap of %d dry-runs): %s\n", radar.MaxDryRuns, strings.Join(sel.Deferred, ", "))
	}
	for _, s := range sel.Ineligible {
		fmt.Fprintf(w, "Not eligible: %s (%s)\n", s.ID, s.Reason)
	}
	q := o.Queue
	fmt.Fprintf(w, "\nStaged repairs: %d\n", len(q.Rows))
	if q.Empty != "" {
		fmt.Fprintf(w, "  %s. %s\n", q.Empty, q.Explain)
	}
	for _, r := range q.Rows {
		fmt.Fprintf(w, "  %s  %s (staged %s ago, restated %d)\n", r.TestID, r.ProposalID, r.StagedFor, r.Restated)
		fmt.Fprintf(w, "    failed at step %s: %s\n", r.FailedStep, r.Error)
		for _, e := range r.Diff {
			for _, l := range e.Lines() {
				fmt.Fprintf(w, "    %s\n", l)
			}
		}
		for _, c := range r.Triggers {
			fmt.Fprintf(w, "    trigger: %s %s %s\n", c.Kind, c.URL, c.Detail)
		}
	}
}
