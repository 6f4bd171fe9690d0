package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
)

func init() {
	register("run", command{
		summary: "replay one test in headless Chromium: run TEST.json --base-url URL [--json]",
		run:     runRun,
	})
}

func runRun(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base-url", "", "the `URL` relative goto steps resolve against (required)")
	asJSON := fs.Bool("json", false, "print the run result as JSON instead of the step log")
	timeout := fs.Duration("step-timeout", 0, "time a step waits when it sets no timeoutMs (default 5s)")
	var allowed stringList
	fs.Var(&allowed, "allow-origin", "an `ORIGIN` navigation may reach besides the base URL's (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gardener run TEST.json --base-url URL [--json] [--step-timeout D] [--allow-origin ORIGIN]...")
		fs.PrintDefaults()
	}
	// Flags may follow the file name, as in the documented form.
	var file string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return 2
		}
		rest = fs.Args()
		if len(rest) > 0 {
			if file != "" {
				fmt.Fprintf(stderr, "gardener run: one test file at a time (got %q and %q)\n", file, rest[0])
				return 2
			}
			file, rest = rest[0], rest[1:]
		}
	}
	if file == "" || *base == "" {
		fs.Usage()
		return 2
	}
	// Refuse what no replay could use before a browser is started for it.
	for _, u := range append([]string{*base}, allowed...) {
		if err := checkHTTPURL(u); err != nil {
			fmt.Fprintf(stderr, "gardener run: %v\n", err)
			return 2
		}
	}
	if *timeout < 0 {
		fmt.Fprintf(stderr, "gardener run: --step-timeout %s is negative\n", *timeout)
		return 2
	}
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "gardener run: %v\n", err)
		return 2
	}
	test, err := gardener.DecodeTest(data)
	if err != nil {
		fmt.Fprintf(stderr, "gardener run: %s: %v\n", file, err)
		return 2
	}
	opts := gardener.ReplayOptions{BaseURL: *base, StepTimeout: *timeout}
	if len(allowed) > 0 {
		opts.AllowedOrigins = append([]string{*base}, allowed...)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bopts := browser.Options{}
	if !*asJSON {
		fmt.Fprintf(stdout, "running %s (%d steps) against %s\n", test.ID, len(test.Steps), *base)
		bopts.OnStep = func(_ string, rec gardener.StepRecord) { printStep(stdout, test, rec) }
	}
	r := browser.New(bopts)
	defer r.Close()
	rep, err := r.Replay(ctx, test, opts)
	if err != nil {
		fmt.Fprintf(stderr, "gardener run: %v\n", err)
		return 2
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep.Result); err != nil {
			fmt.Fprintf(stderr, "gardener run: %v\n", err)
			return 2
		}
	} else {
		printRun(stdout, rep.Result)
	}
	if !rep.Result.Passed {
		return 1
	}
	return 0
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

// checkHTTPURL accepts an http or https URL with a host: a base URL or an allowed origin.
func checkHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL with a host (e.g. http://127.0.0.1:8080/)", raw)
	}
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
