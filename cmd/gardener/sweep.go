package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/radar"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/pkg/workspace"
)

func init() {
	register("sweep", command{
		summary:  "radar sweep and staging pass over a directory of saved tests",
		synopsis: []string{"--tests DIR --base-url URL [flags]"},
		about: `Syncs the tests in DIR (one JSON file a test, one project) into the local state, records a
first green run of each, and a radar baseline when none exists (or with --baseline). Then it
sweeps the app's pages for changes since the baseline, lists the tests the changes put at risk,
dry-runs them and stages a proven fix for each one that fails. Progress goes to stdout, or to
stderr with --json. Exit status: 0 nothing broken, or every broken test has a staged fix; 1 a
broken test has none; 2 bad input; 3 a runtime failure.`,
		run: runSweep,
	})
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
	// Corrupt names the stored records left out of the queue because they do not decode.
	Corrupt []string `json:"corrupt,omitempty"`
}

type recordedGreen struct {
	TestID string `json:"testId"`
	RunID  string `json:"runId"`
	Passed bool   `json:"passed"`
	Error  string `json:"error,omitempty"`
}

func runSweep(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("sweep")
	var f sweepFlags
	fs.StringVar(&f.baseURL, "base-url", "", "the app's base `URL` (required)")
	fs.StringVar(&f.tests, "tests", "", "`DIR` of saved tests, one JSON file a test (required)")
	fs.StringVar(&f.state, "state", defaultStateDir, "`DIR` of the local state (green runs, baseline, at-risk ledger, proposals)")
	fs.StringVar(&f.model, "model", "builtin", "builtin, bedrock:MODEL_ID, or none (no AI key: sweep and list at-risk tests, stage nothing)")
	fs.StringVar(&f.setup, "setup", "", "`ID` of the setup test (a login) replayed before pages that need a session")
	fs.StringVar(&f.region, "region", "", regionFlag)
	fs.StringVar(&f.endpoint, "bedrock-endpoint", "", "override the Bedrock runtime endpoint `URL`")
	fs.BoolVar(&f.baseline, "baseline", false, "record a new baseline before sweeping")
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of text")
	stepTimeoutVar(fs, &f.stepTimeout, 0, stepTimeoutUsage)
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return c.badUsage(fs, "unexpected argument %q", pos[0])
	}
	if f.tests == "" {
		return c.badUsage(fs, "--tests is required")
	}
	if f.setup != "" {
		if err := checkIDArgs(fs, nil, []idArg{{"--setup", "testId"}}); err != nil {
			return c.badUsage(fs, "%v", err)
		}
	}
	if err := checkHTTPURL("--base-url", f.baseURL); err != nil {
		return c.badUsage(fs, "%v", err)
	}
	tests, err := readTestDir(f.tests)
	if err != nil {
		return c.fail("sweep", exitBadInput, err)
	}
	if f.setup != "" && !slices.ContainsFunc(tests, func(t testFile) bool { return t.ID == f.setup }) {
		return c.fail("sweep", exitBadInput, fmt.Errorf("--setup %q: no test in %s has that id", f.setup, f.tests))
	}
	var model gardener.Model
	if f.model != noModel {
		if f.region, err = awsRegion(ctx, f.region); err != nil {
			return c.fail("sweep", exitBadInput, err)
		}
		if model, err = modelspec.Open(ctx, f.model, modelspec.Options{Region: f.region, Endpoint: f.endpoint}); err != nil {
			return c.fail("sweep", exitBadInput, err)
		}
	}
	progress := c.stdout
	if f.json {
		progress = c.stderr
	}
	out, err := sweepTests(ctx, c, f, tests, model, progress)
	var stale *staleFileError
	switch {
	case errors.As(err, &stale):
		return c.fail("sweep", exitNegative, err)
	case err != nil:
		return c.fail("sweep", exitFailure, err)
	}
	if f.json {
		if err := writeJSON(c.stdout, out); err != nil {
			return c.fail("sweep", exitFailure, err)
		}
	} else {
		printSweep(c.stdout, out)
	}
	for _, p := range out.Pass.Proposed {
		if p.Outcome != ladder.Staged && p.Outcome != ladder.NoFix && p.Skipped == "" {
			return exitNegative // a test the change broke that no proven fix could be staged for
		}
	}
	return exitOK
}

// testFile is a test and the file it was read from.
type testFile struct {
	path string
	gardener.Test
}

// readTestDir reads every *.json file of dir as a test; they must belong to one project.
func readTestDir(dir string) ([]testFile, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--tests %s: no *.json test files there", dir)
	}
	slices.Sort(names)
	var tests []testFile
	for _, n := range names {
		t, err := readTest(n)
		if err != nil {
			return nil, err
		}
		if len(tests) > 0 && t.ProjectID != tests[0].ProjectID {
			return nil, fmt.Errorf("%s is in project %q, %s in %q: sweep one project's tests at a time", n, t.ProjectID, names[0], tests[0].ProjectID)
		}
		if slices.ContainsFunc(tests, func(o testFile) bool { return o.ID == t.ID }) {
			return nil, fmt.Errorf("%s: a second test with id %q", n, t.ID)
		}
		tests = append(tests, testFile{path: n, Test: t})
	}
	return tests, nil
}

func sweepTests(ctx context.Context, c *cli, f sweepFlags, files []testFile, model gardener.Model, progress io.Writer) (*sweepOutput, error) {
	store, err := openState(f.state)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := reachApp(ctx, reachCLI, f.baseURL); err != nil {
		return nil, err
	}
	ws := &workspace.Service{Store: store, OnReplay: announceRecording(progress)}
	projectID := files[0].ProjectID
	set := workspace.Settings{Model: ptr(""), Origins: []string{originOf(f.baseURL)}, New: gardener.Project{Radar: true}}
	if model != nil {
		set.Model = ptr(model.Name())
	}
	if f.setup != "" {
		set.SetupTestID = &f.setup
	}
	project, err := ws.EnsureProject(ctx, projectID, set)
	if err != nil {
		return nil, err
	}
	var tests []gardener.Test
	writes := fileWritesIn(f.state)
	for _, file := range files {
		synced, err := syncTestFile(ctx, ws, writes, file.path, file.Test, progress)
		if err != nil {
			return nil, err
		}
		tests = append(tests, synced.Test)
	}

	runner, closeRunner := c.browserFor(f.stepTimeout)
	defer closeRunner()
	discard := slog.New(slog.DiscardHandler)
	rad := &radar.Radar{Runner: runner, Store: store, Log: discard, BaseURL: f.baseURL}
	if model != nil {
		lad := &ladder.Ladder{Runner: runner, Model: model}
		rad.Tender = &tend.Tender{Store: store, Life: lifecycle.New(store, nil), Ladder: lad, Log: discard}
	}
	out := &sweepOutput{ProjectID: projectID}
	// Each active test needs a green run of its version for the baseline to start from; one
	// that fails is reported and left out.
	opts := gardener.ReplayOptions{BaseURL: f.baseURL, AllowedOrigins: project.AllowedOrigins}
	for _, t := range tests {
		if t.Status != gardener.StatusActive {
			continue
		}
		rec, err := ws.RecordGreen(ctx, runner, t, opts)
		if err != nil {
			return nil, err
		}
		if rec.Replayed {
			res := rec.Replay.Result
			out.Recorded = append(out.Recorded, recordedGreen{TestID: t.ID, RunID: rec.Run.ID, Passed: res.Passed, Error: res.Message})
		}
	}
	if out.BaselineWhy, err = rad.BaselineDue(ctx, projectID, f.baseline); err != nil {
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
	if out.Queue, out.Corrupt, err = readQueue(ctx, rad, projectID); err != nil {
		return nil, err
	}
	return out, nil
}

// readQueue reads a project's queue. A stored record that does not decode leaves the sweep's
// work standing: it is named and the queue shows the rest, as the API's listings do.
func readQueue(ctx context.Context, rad *radar.Radar, projectID string) (radar.Queue, []string, error) {
	q, err := rad.Queue(ctx, projectID)
	bad, err := gardener.SplitCorrupt(err)
	if err != nil {
		return q, nil, err
	}
	var named []string
	if bad != nil {
		for _, r := range bad.Records {
			named = append(named, fmt.Sprintf("%s %q: %v", r.Entity, r.ID, r.Err))
		}
	}
	return q, named, nil
}

func printSweep(w io.Writer, o *sweepOutput) {
	for _, c := range o.Corrupt {
		fmt.Fprintf(w, "left out of the queue, does not decode: %s\n", c)
	}
	for _, r := range o.Recorded {
		if r.Passed {
			fmt.Fprintf(w, "recorded: %s passes, run %s is its green run\n", r.TestID, r.RunID)
		} else {
			fmt.Fprintf(w, "not baselined: %s fails (%s), run %s\n", r.TestID, r.Error, r.RunID)
		}
	}
	if o.Baseline != nil {
		fmt.Fprintf(w, "baseline: %s of %s (%s)\n", plural(len(o.Baseline.Pages), "page", "pages"), plural(len(o.Baseline.Tests), "test", "tests"), o.BaselineWhy)
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
	fmt.Fprintf(w, "\nApp changes: %d on %d of %s\n", len(o.Sweep.Changes), changed, plural(len(o.Sweep.Pages), "page", "pages"))
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
				fmt.Fprintf(w, "  %-16s still passes (run %s): nothing proposed, no model call\n", d.TestID, d.RunID)
			default:
				fmt.Fprintf(w, "  %-16s fails at step %s (run %s): %s\n", d.TestID, d.FailedStep, d.RunID, d.Error)
			}
		}
		fmt.Fprintf(w, "Staged: %d\n", len(o.Pass.Proposed))
		for _, p := range o.Pass.Proposed {
			what := string(p.Outcome)
			if p.Staged != "" {
				what = fmt.Sprintf("%s %s (restated %s)", p.Staged, p.ProposalID, plural(p.Restated, "time", "times"))
			}
			if p.Skipped != "" {
				what = "skipped: " + p.Skipped
			}
			fmt.Fprintf(w, "  %-16s %s, %s\n", p.TestID, what, plural(p.ModelCalls, "model call", "model calls"))
		}
	}
	if len(sel.Deferred) > 0 {
		fmt.Fprintf(w, "Waiting for the next pass (cap of %s): %s\n", plural(radar.MaxDryRuns, "dry-run", "dry-runs"), strings.Join(sel.Deferred, ", "))
	}
	for _, s := range sel.Ineligible {
		fmt.Fprintf(w, "Not eligible: %s (%s)\n", s.ID, s.Reason)
	}
	fmt.Fprintln(w)
	printQueue(w, o.Queue)
}
