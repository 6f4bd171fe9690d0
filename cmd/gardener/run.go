package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

func init() {
	register("run", command{
		summary:  "replay saved tests in headless Chromium: one file, folders, many in parallel",
		synopsis: []string{"--base-url URL [flags] TEST.json", "--base-url URL [--parallel N] [--junit FILE] PATH...", "--base-url URL --record [--state DIR] PATH..."},
		about: `Replays tests against the app at URL. One test file prints each step as it runs, then PASS or
FAIL; with --json, its run result as one JSON object. Several paths, or a folder (every *.json
under it), replay side by side in one shared Chromium (--parallel at a time), print a line per
test as it ends and a summary; with --json, one JSON object with every result and the counts.
--junit FILE writes a JUnit XML report CI systems read: one testcase per test, a failure naming
the step and the error. Navigation is held to the base URL's origin and the ones --allow-origin
adds. --record also records each run in the local state (--state DIR), syncing each file
there first: a passing run is the green run a later "gardener repair" of that version compares
a failure with — without one, a repair that finds no green proof says it cannot tell drift from
a bug. A recorded run's id is printed with its result (and is "runId" in --json); a run without
--record is not kept and has none. A test file that names no project is in project local.
Exit status: 0 every test passed; 1 a test failed; 2 bad input (nothing is replayed); 3 a
runtime failure: the browser, the state, or the network — the app at URL could not be reached
(nothing is replayed), or a page of a test could not be loaded.`,
		run: runRun,
	})
}

func runRun(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("run")
	base := fs.String("base-url", "", "the `URL` relative goto steps resolve against (required)")
	asJSON := fs.Bool("json", false, "print the run result (several tests: every result and the counts) as JSON")
	timeout := new(time.Duration)
	stepTimeoutVar(fs, timeout, 0, stepTimeoutUsage)
	parallel := fs.Int("parallel", defaultParallel(), "replay at most `N` tests at a time, in one shared Chromium")
	junit := fs.String("junit", "", "write a JUnit XML report to `FILE`")
	var allowed stringList
	fs.Var(&allowed, "allow-origin", "an `ORIGIN` navigation may reach besides the base URL's (repeatable)")
	record := fs.Bool("record", false, "record each run in the local state: a passing one is the green run a repair compares with")
	state := fs.String("state", defaultStateDir, "`DIR` of the local state --record writes to")
	by := fs.String("by", "", "who records the runs (--record); default cli:$USER")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return c.badUsage(fs, "give a test file or a folder of them")
	}
	if !*record {
		// A state named without --record would be silently left unwritten.
		var stray string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "state" || f.Name == "by" {
				stray = f.Name
			}
		})
		if stray != "" {
			return c.badUsage(fs, "--%s is for --record: without it no run is recorded", stray)
		}
	}
	// Refuse what no replay could use before a browser is started for it.
	if err := checkHTTPURL("--base-url", *base); err != nil {
		return c.badUsage(fs, "%v", err)
	}
	for _, u := range allowed {
		if err := checkHTTPURL("--allow-origin", u); err != nil {
			return c.badUsage(fs, "%v", err)
		}
	}
	if *parallel < 1 {
		return c.badUsage(fs, "--parallel %d: give at least 1", *parallel)
	}
	if *junit != "" {
		if st, err := os.Stat(filepath.Dir(*junit)); err != nil || !st.IsDir() {
			return c.badUsage(fs, "--junit %s: its folder %s does not exist", *junit, filepath.Dir(*junit))
		}
	}
	files, err := testFiles(pos)
	if err != nil {
		return c.fail("run", exitBadInput, err)
	}
	tests, err := readTests(files)
	if err != nil {
		return c.fail("run", exitBadInput, err)
	}
	reach := reachOnce(reachCLI)
	if err := reachApp(ctx, reach, *base); err != nil {
		return c.fail("run", exitFailure, err)
	}
	opts := gardener.ReplayOptions{BaseURL: *base, StepTimeout: *timeout}
	if len(allowed) > 0 {
		opts.AllowedOrigins = append([]string{*base}, allowed...)
	}
	var rec *runRecorder
	if *record {
		if rec, err = openRunRecorder(*state, cmp.Or(*by, localUser()), *base, c.stderr, reach); err != nil {
			return c.fail("run", exitFailure, err)
		}
		defer rec.Close()
	}
	single := len(pos) == 1 && len(files) == 1 && files[0] == pos[0]
	var results []fileResult
	if single {
		results, code = c.runOne(ctx, tests[0], files[0], opts, *asJSON, rec)
	} else {
		results, code = c.runMany(ctx, tests, files, opts, *parallel, *asJSON, rec)
	}
	if *junit != "" && results != nil {
		if err := writeJUnit(*junit, results); err != nil {
			return c.fail("run", exitFailure, err)
		}
	}
	return code
}

// defaultParallel is one replay per core: a replay keeps about one core busy (the renderer and
// the browser process), and more would only make each step slower.
func defaultParallel() int { return max(1, runtime.NumCPU()) }

// fileResult is the outcome of one test file: its result, or the error that kept it from running.
type fileResult struct {
	File   string             `json:"file"`
	Result gardener.RunResult `json:"result"`
	// RunID is the run recorded for it (--record); empty when none was.
	RunID string `json:"runId,omitempty"`
	Error string `json:"error,omitempty"`
	// Refused is set when the file was not run because the local state holds a later version of
	// its test (a repair the file does not have yet): a refusal, not a failure to run.
	Refused bool `json:"refused,omitempty"`
}

// recordedResult is what run --json prints for one test: its result, and the id of the run
// recorded for it with --record.
type recordedResult struct {
	gardener.RunResult
	RunID string `json:"runId,omitempty"`
}

// runOne replays one test file with a live step log, as `gardener run TEST.json` always has.
func (c *cli) runOne(ctx context.Context, test gardener.Test, file string, opts gardener.ReplayOptions, asJSON bool, rec *runRecorder) ([]fileResult, int) {
	if !asJSON {
		fmt.Fprintf(c.stdout, "running %s (%s) against %s\n", test.ID, plural(len(test.Steps), "step", "steps"), opts.BaseURL)
		opts.OnStep = func(rec gardener.StepRecord) { printStep(c.stdout, test, rec) }
	}
	r, closeRunner := c.browserFor(opts.StepTimeout)
	defer closeRunner()
	result, runID, err := replayFile(ctx, r, rec, test, file, opts)
	if err != nil {
		var stale *staleFileError
		return []fileResult{{File: file, Result: gardener.RunResult{TestID: test.ID}, Error: err.Error(), Refused: errors.As(err, &stale)}}, c.fail("run", exitOf(err), err)
	}
	if asJSON {
		if err := writeJSON(c.stdout, recordedResult{result, runID}); err != nil {
			return nil, c.fail("run", exitFailure, err)
		}
	} else {
		printRun(c.stdout, result, runID)
	}
	res := []fileResult{{File: file, Result: result, RunID: runID}}
	switch {
	case result.Passed:
		return res, exitOK
	case result.ErrorKind.Network():
		return res, c.fail("run", exitFailure, fmt.Errorf("%s: a page could not be loaded over the network (%s): the app was not reached, so the test was not judged", test.ID, result.Message))
	}
	return res, exitNegative
}

// replayFile replays one test file, through the recorder when the runs are recorded; runID is
// the recorded run's.
func replayFile(ctx context.Context, r gardener.Runner, rec *runRecorder, t gardener.Test, file string, opts gardener.ReplayOptions) (result gardener.RunResult, runID string, err error) {
	if rec != nil {
		return rec.replay(ctx, r, t, file, opts)
	}
	rep, err := r.Replay(ctx, t, opts)
	return rep.Result, "", err
}

// runSummary is what --json prints for several tests.
type runSummary struct {
	Passed  int          `json:"passed"`
	Failed  int          `json:"failed"`
	Errors  int          `json:"errors"`
	Seconds float64      `json:"seconds"`
	Results []fileResult `json:"results"`
}

// runMany replays the tests side by side in one browser, parallel at a time, printing a line
// per test as it ends, then the summary.
func (c *cli) runMany(ctx context.Context, tests []gardener.Test, files []string, opts gardener.ReplayOptions, parallel int, asJSON bool, rec *runRecorder) ([]fileResult, int) {
	start := time.Now()
	r, closeRunner := c.browserFor(opts.StepTimeout)
	defer closeRunner()
	if !asJSON {
		fmt.Fprintf(c.stdout, "running %s against %s, %d at a time\n", plural(len(tests), "test", "tests"), opts.BaseURL, parallel)
	}
	results := make([]fileResult, len(tests))
	var mu sync.Mutex
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, t := range tests {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			res := fileResult{File: files[i], Result: gardener.RunResult{TestID: t.ID, TestVersion: t.Version}}
			result, runID, err := replayFile(ctx, r, rec, t, files[i], opts)
			var stale *staleFileError
			if err != nil {
				res.Error, res.Refused = err.Error(), errors.As(err, &stale)
			} else {
				res.Result, res.RunID = result, runID
			}
			results[i] = res
			if !asJSON {
				mu.Lock()
				printProgress(c.stdout, res)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	sum := runSummary{Results: results, Seconds: time.Since(start).Seconds()}
	for _, res := range results {
		switch {
		case res.Refused:
			sum.Failed++
		case res.Error != "" || res.Result.ErrorKind.Network():
			sum.Errors++
		case res.Result.Passed:
			sum.Passed++
		default:
			sum.Failed++
		}
	}
	if asJSON {
		if err := writeJSON(c.stdout, sum); err != nil {
			return results, c.fail("run", exitFailure, err)
		}
	} else {
		fmt.Fprintf(c.stdout, "%s: %d passed, %d failed", plural(len(results), "test", "tests"), sum.Passed, sum.Failed)
		if sum.Errors > 0 {
			fmt.Fprintf(c.stdout, ", %d could not run (the browser, the state, or a page the network did not load)", sum.Errors)
		}
		fmt.Fprintf(c.stdout, " in %.1fs\n", sum.Seconds)
	}
	switch {
	case sum.Errors > 0:
		return results, exitFailure
	case sum.Failed > 0:
		return results, exitNegative
	}
	return results, exitOK
}

// printProgress writes the line of one finished test of several.
func printProgress(w io.Writer, res fileResult) {
	r := res.Result
	recorded := ""
	if res.RunID != "" {
		recorded = "  run " + res.RunID
	}
	switch {
	case res.Refused:
		fmt.Fprintf(w, "REFUSED %s  %s\n", r.TestID, res.Error)
	case res.Error != "":
		fmt.Fprintf(w, "ERROR %s  %s: %s\n", r.TestID, res.File, res.Error)
	case r.Passed:
		fmt.Fprintf(w, "PASS  %s  %s  %s%s\n", r.TestID, res.File, time.Duration(r.Millis)*time.Millisecond, recorded)
	case r.ErrorKind.Network():
		fmt.Fprintf(w, "ERROR %s  %s  [%s] %s: the app was not reached, the test not judged%s\n", r.TestID, res.File, r.ErrorKind, r.Message, recorded)
	default:
		fmt.Fprintf(w, "FAIL  %s  %s  [%s] %s%s\n", r.TestID, res.File, r.ErrorKind, r.Message, recorded)
	}
}

// testFiles expands the paths given: a file is itself, a folder every *.json file under it (its
// hidden folders and node_modules left out), in order; a file named twice runs once. A path
// that does not exist, and a folder with no test file, are bad input.
func testFiles(paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if clean := filepath.Clean(p); !seen[clean] {
			seen[clean] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		n := len(out)
		err = filepath.WalkDir(p, func(path string, d iofs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != p && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".json") {
				add(path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading the folder %s: %w", p, err)
		}
		if len(out) == n {
			return nil, fmt.Errorf("the folder %s holds no test file (*.json)", p)
		}
	}
	return out, nil
}

// readTests reads every test file before anything runs, so one bad file refuses the run, with
// every bad file named.
func readTests(files []string) ([]gardener.Test, error) {
	tests := make([]gardener.Test, len(files))
	var bad []error
	for i, f := range files {
		t, err := readTest(f)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		tests[i] = t
	}
	return tests, errors.Join(bad...)
}

// printStep writes one step record as a line: path, step, ok or FAIL, milliseconds.
func printStep(w io.Writer, test gardener.Test, rec gardener.StepRecord) {
	st, ok := stepByPath(test.Steps, rec.Path)
	desc := string(rec.Kind)
	if ok {
		// A run's output is a CI job's log: a fill names its locator and its value's length.
		desc = st.Redacted()
	}
	verdict := "ok"
	if !rec.Passed {
		verdict = "FAIL"
	}
	indent := strings.Repeat("  ", strings.Count(rec.Path, "."))
	line := fmt.Sprintf("%s%-5s %s  %s  %dms", indent, rec.Path, desc, verdict, rec.Millis)
	if rec.Observed != "" {
		// What a check read is page text, or an input's value a test may have typed: the
		// line shows it as a run message does (see gardener.Step.ShowObserved).
		shown := gardener.QuoteBounded(rec.Observed)
		if ok {
			shown = st.ShowObserved(rec.Observed)
		}
		line += "  (" + shown + ")"
	}
	fmt.Fprintln(w, line)
}

// printRun writes the verdict after the step lines, with the id of the run recorded for it.
func printRun(w io.Writer, res gardener.RunResult, runID string) {
	recorded := ""
	if runID != "" {
		recorded = fmt.Sprintf(" (run %s)", runID)
	}
	if res.Passed {
		fmt.Fprintf(w, "PASS %s in %s%s\n", res.TestID, time.Duration(res.Millis)*time.Millisecond, recorded)
		return
	}
	fmt.Fprintf(w, "FAIL %s [%s] %s%s\n", res.TestID, res.ErrorKind, res.Message, recorded)
}

// stepByPath finds a step by its path ("4" or "3.2").
func stepByPath(steps []gardener.Step, path string) (gardener.Step, bool) {
	var i, j int
	if n, _ := fmt.Sscanf(path, "%d.%d", &i, &j); n == 2 {
		if i >= 1 && i <= len(steps) && j >= 1 && j <= len(steps[i-1].Steps) {
			return steps[i-1].Steps[j-1], true
		}
		return gardener.Step{}, false
	}
	if n, _ := fmt.Sscanf(path, "%d", &i); n == 1 && i >= 1 && i <= len(steps) {
		return steps[i-1], true
	}
	return gardener.Step{}, false
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
