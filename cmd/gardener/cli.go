package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/jsonlist"
)

// flags is a command's flag set. Parse errors go to stderr; the usage is printed by parse, on
// stdout after -h and on stderr after a mistake.
func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {}
	return fs
}

// parse parses a command's arguments. Flags may come before or after the positional arguments,
// as people type them (`gardener repair TEST.json --base-url URL`). When ok is false the command
// returns code at once: 0 after -h (its usage printed on stdout), 2 after a bad flag.
func (c *cli) parse(fs *flag.FlagSet, args []string) (positional []string, code int, ok bool) {
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.printUsage(c.stdout, fs)
			return nil, exitOK, false
		}
		if err != nil {
			// The flag package has printed the error.
			fmt.Fprintln(c.stderr)
			c.printUsage(c.stderr, fs)
			return nil, exitBadInput, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, exitOK, true
		}
		positional, args = append(positional, args[0]), args[1:]
	}
}

// badUsage reports a mistake on the command line, with the command's usage, and returns 2.
func (c *cli) badUsage(fs *flag.FlagSet, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "gardener %s: %s\n\n", fs.Name(), fmt.Sprintf(format, args...))
	c.printUsage(c.stderr, fs)
	return exitBadInput
}

// fail reports an error with the command's name and returns code.
func (c *cli) fail(name string, code int, err error) int {
	fmt.Fprintf(c.stderr, "gardener %s: %v\n", name, err)
	return code
}

// printUsage writes a command's usage: its synopsis, what it does and its flags.
func (c *cli) printUsage(w io.Writer, fs *flag.FlagSet) {
	cmd := commands[fs.Name()]
	synopsis := cmd.synopsis
	if len(synopsis) == 0 {
		synopsis = []string{"[flags]"}
	}
	for i, s := range synopsis {
		lead := "usage:"
		if i > 0 {
			lead = "      "
		}
		fmt.Fprintf(w, "%s gardener %s %s\n", lead, fs.Name(), s)
	}
	if cmd.about != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.about))
	} else {
		fmt.Fprintf(w, "\n%s.\n", strings.ToUpper(cmd.summary[:1])+cmd.summary[1:])
	}
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nflags:")
		out := fs.Output()
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(out)
	}
}

// isTerminal reports whether w is a terminal a person reads, and NO_COLOR (no-color.org) is
// not set.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// marks are the signs report lines carry: symbols in colour on a terminal, plain words
// elsewhere, so a pipe or a log file reads in ASCII.
type marks struct{ ok, fail, mail, warn string }

func marksFor(term bool) marks {
	if !term {
		return marks{ok: "ok", fail: "FAIL", mail: "mail:", warn: "warning:"}
	}
	const green, red, yellow, reset = "\033[32m", "\033[31m", "\033[33m", "\033[0m"
	return marks{ok: green + "✓" + reset, fail: red + "✗" + reset, mail: "✉", warn: yellow + "⚠" + reset}
}

// writeJSON prints v as the one indented JSON object a --json command writes; its empty lists
// are [], as in the API's answers.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonlist.Empty(v))
}

// checkHTTPURL accepts an http or https URL with a host: a base URL or an allowed origin.
func checkHTTPURL(flagName, raw string) error {
	if raw == "" {
		return fmt.Errorf("%s is required", flagName)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q is not an http or https URL with a host (e.g. http://127.0.0.1:8080/)", flagName, raw)
	}
	return nil
}

// regionFlag is the help of every --region flag.
const regionFlag = "AWS `REGION` (default: from the standard AWS settings, AWS_REGION or the profile's, else " + fallbackRegion + ")"

// fallbackRegion is the region when nothing names one: a local DynamoDB and a recorded Bedrock
// server accept any, and it is Bedrock's home region.
const fallbackRegion = "us-east-1"

// awsRegion is the region given on the command line, else the one the standard AWS settings
// name, else fallbackRegion: the same rule in every command.
func awsRegion(ctx context.Context, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the AWS settings: %w", err)
	}
	return cmp.Or(cfg.Region, fallbackRegion), nil
}

// maxStepTimeout is the most --step-timeout may give a step: the bound a step's own timeoutMs
// has (gardener.MaxStepMillis), which keeps a step inside a replay's limit.
const maxStepTimeout = gardener.MaxStepMillis * time.Millisecond

// stepTimeoutUsage is the help of a --step-timeout whose zero leaves the runner's default,
// built from the constants so the help says what the code does.
var stepTimeoutUsage = fmt.Sprintf("default time limit (a `duration`) of a step that sets no timeoutMs, from 0 to %s (0: the runner's default, %s)", maxStepTimeout, browser.DefaultStepTimeout)

// stepTimeoutVar defines --step-timeout on fs into p, with value as its default. The flag
// refuses, as it is parsed, a limit outside 0 to maxStepTimeout: a negative one was taken
// silently as the runner's default, and one past the bound ran into the replay's limit. Every
// command that takes the flag defines it here, so each refuses it alike.
func stepTimeoutVar(fs *flag.FlagSet, p *time.Duration, value time.Duration, usage string) {
	*p = value
	fs.Var(stepTimeoutValue{p}, "step-timeout", usage)
}

// stepTimeoutValue is --step-timeout as a flag.Value (see stepTimeoutVar).
type stepTimeoutValue struct{ d *time.Duration }

func (v stepTimeoutValue) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

func (v stepTimeoutValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return err
	case d < 0:
		return fmt.Errorf("--step-timeout %s is negative", d)
	case d > maxStepTimeout:
		return fmt.Errorf("--step-timeout %s is over %s, the most a step may wait (as for a step's timeoutMs)", d, maxStepTimeout)
	}
	*v.d = d
	return nil
}

// browserFor returns the browser a command replays in and how to let go of it: the shared runner
// when there is one, else a Chromium of the command's own.
func (c *cli) browserFor(stepTimeout time.Duration) (gardener.Runner, func()) {
	if c.runner != nil {
		return stepTimeoutRunner{c.runner, stepTimeout}, func() {}
	}
	r := browser.New(browser.Options{StepTimeout: stepTimeout})
	return r, func() { r.Close() }
}

// stepTimeoutRunner gives each replay that sets no step timeout the command's, as
// browser.Options.StepTimeout does for a runner of one's own.
type stepTimeoutRunner struct {
	*browser.Runner
	stepTimeout time.Duration
}

func (r stepTimeoutRunner) Replay(ctx context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	o.StepTimeout = cmp.Or(o.StepTimeout, r.stepTimeout)
	return r.Runner.Replay(ctx, t, o)
}

// plural is gardener.Plural: every count the CLI prints with its noun.
func plural(n int, one, many string) string { return gardener.Plural(n, one, many) }
