package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

func init() {
	register("run", command{
		summary:  "replay one saved test in headless Chromium",
		synopsis: []string{"--base-url URL [flags] TEST.json"},
		about: `Replays TEST.json against the app at URL and prints each step as it runs, then PASS or FAIL;
with --json, the run result as one JSON object. Navigation is held to the base URL's origin and
the ones --allow-origin adds. Exit status: 0 the test passed; 1 it failed; 2 bad input; 3 a
runtime failure.`,
		run: runRun,
	})
}

func runRun(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("run")
	base := fs.String("base-url", "", "the `URL` relative goto steps resolve against (required)")
	asJSON := fs.Bool("json", false, "print the run result as JSON instead of the step log")
	timeout := fs.Duration("step-timeout", 0, "time a step waits when it sets no timeoutMs (default 5s)")
	var allowed stringList
	fs.Var(&allowed, "allow-origin", "an `ORIGIN` navigation may reach besides the base URL's (repeatable)")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return c.badUsage(fs, "give a test file")
	case len(pos) > 1:
		return c.badUsage(fs, "one test file at a time (got %q and %q)", pos[0], pos[1])
	}
	file := pos[0]
	// Refuse what no replay could use before a browser is started for it.
	if err := checkHTTPURL("--base-url", *base); err != nil {
		return c.badUsage(fs, "%v", err)
	}
	for _, u := range allowed {
		if err := checkHTTPURL("--allow-origin", u); err != nil {
			return c.badUsage(fs, "%v", err)
		}
	}
	if *timeout < 0 {
		return c.badUsage(fs, "--step-timeout %s is negative", *timeout)
	}
	test, err := readTest(file)
	if err != nil {
		return c.fail("run", exitBadInput, err)
	}
	opts := gardener.ReplayOptions{BaseURL: *base, StepTimeout: *timeout}
	if len(allowed) > 0 {
		opts.AllowedOrigins = append([]string{*base}, allowed...)
	}

	var onStep func(string, gardener.StepRecord)
	if !*asJSON {
		fmt.Fprintf(c.stdout, "running %s (%d steps) against %s\n", test.ID, len(test.Steps), *base)
		onStep = func(_ string, rec gardener.StepRecord) { printStep(c.stdout, test, rec) }
	}
	r, closeRunner := c.browserFor(0, onStep)
	defer closeRunner()
	rep, err := r.Replay(ctx, test, opts)
	if err != nil {
		return c.fail("run", exitFailure, err)
	}
	if *asJSON {
		if err := writeJSON(c.stdout, rep.Result); err != nil {
			return c.fail("run", exitFailure, err)
		}
	} else {
		printRun(c.stdout, rep.Result)
	}
	if !rep.Result.Passed {
		return exitNegative
	}
	return exitOK
}

// printStep writes one step record as a line: path, step, ok or FAIL, milliseconds.
func printStep(w io.Writer, test gardener.Test, rec gardener.StepRecord) {
	st, ok := stepByPath(test.Steps, rec.Path)
	desc := string(rec.Kind)
	if ok {
		desc = st.String()
	}
	verdict := "ok"
	if !rec.Passed {
		verdict = "FAIL"
	}
	indent := strings.Repeat("  ", strings.Count(rec.Path, "."))
	line := fmt.Sprintf("%s%-5s %s  %s  %dms", indent, rec.Path, desc, verdict, rec.Millis)
	if rec.Observed != "" {
		line += "  (" + rec.Observed + ")"
	}
	fmt.Fprintln(w, line)
}

// printRun writes the verdict after the step lines.
func printRun(w io.Writer, res gardener.RunResult) {
	if res.Passed {
		fmt.Fprintf(w, "PASS %s in %s\n", res.TestID, time.Duration(res.Millis)*time.Millisecond)
		return
	}
	fmt.Fprintf(w, "FAIL %s [%s] %s\n", res.TestID, res.ErrorKind, res.Message)
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
