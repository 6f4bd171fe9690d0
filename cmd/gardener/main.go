// Command gardener is Drift Gardener on one machine: the demo, the local stack, and the single
// operations (run a test, repair it, locate elements, serve the demo app) that the Lambdas perform
// in AWS.
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/driftgardener/gardener/pkg/browser"
)

// Exit codes, the same for every command.
const (
	exitOK       = 0
	exitNegative = 1 // the command ran and the answer is no: a failing test, a fix not found
	exitBadInput = 2 // the command line or an input file is wrong; nothing was attempted
	exitFailure  = 3 // the command could not do its work: the browser, the store, the network
)

// command is one subcommand. run receives the arguments after the subcommand name and returns
// one of the exit codes above.
type command struct {
	summary string
	// synopsis holds the forms of the command line after "gardener NAME", one line each.
	synopsis []string
	// about says what the command does, printed under the synopsis by -h.
	about string
	run   func(ctx context.Context, c *cli, args []string) int
}

// commands is filled by the init functions of the files beside this one, one file a subcommand,
// so that adding a subcommand never touches another's file.
var commands = map[string]command{}

func register(name string, c command) {
	if _, dup := commands[name]; dup {
		panic("gardener: subcommand registered twice: " + name)
	}
	commands[name] = c
}

func init() {
	register("help", command{
		summary:  "print how to use gardener, or one command",
		synopsis: []string{"[COMMAND]"},
		run:      runHelp,
	})
	register("version", command{
		summary: "print the version",
		run:     runVersion,
	})
}

// cli is what a command runs with: the process's streams, whether stdout is a terminal, and the
// browser to replay in.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// term says stdout is a terminal a person reads: symbols and colour are used there, plain
	// words elsewhere (a pipe, a log file, NO_COLOR set).
	term bool
	// runner, when set, is the browser the commands replay in, left open when they finish; nil,
	// each command launches its own Chromium and closes it. The tests share one.
	runner *browser.Runner
	// halt, when set, is called at each named point between the writes of a command
	// (repair --write: "state written", "file written"); an error from it stops the command
	// there as a crash would, so a test can prove that a rerun completes what was cut short.
	halt func(point string) error
}

func main() {
	// SIGINT and SIGTERM cancel the command's context: it closes Chromium and the store, and
	// returns. A second signal kills the process as usual.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, term: isTerminal(os.Stdout)}
	code := c.dispatch(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

func (c *cli) dispatch(ctx context.Context, args []string) int {
	if len(args) == 0 {
		usage(c.stderr)
		return exitBadInput
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(c.stderr, "gardener: unknown command %q\n\n", name)
		usage(c.stderr)
		return exitBadInput
	}
	return cmd.run(ctx, c, args[1:])
}

func runHelp(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("help")
	pos, code, ok := c.parse(fs, args)
	switch {
	case !ok:
		return code
	case len(pos) == 0:
		usage(c.stdout)
		return exitOK
	case len(pos) > 1:
		return c.badUsage(fs, "one command at a time (got %s)", strings.Join(pos, " "))
	}
	if _, known := commands[pos[0]]; !known {
		fmt.Fprintf(c.stderr, "gardener help: unknown command %q\n\n", pos[0])
		usage(c.stderr)
		return exitBadInput
	}
	return commands[pos[0]].run(ctx, c, []string{"-h"})
}

// usage lists the commands and the exit codes they share.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gardener COMMAND [flags] [arguments]")
	fmt.Fprintln(w, "       gardener help COMMAND")
	fmt.Fprintln(w, "\ncommands:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		fmt.Fprintf(tw, "  %s\t%s\n", n, commands[n].summary)
	}
	tw.Flush()
	fmt.Fprint(w, `
exit codes (the same for every command):
  0  success (a test that passes, a repair written or staged, a review action done)
  1  a negative result: a test fails, no proven fix, a refusal (stale, decided already,
     not confirmed, an edited file not overwritten), a demo check failed
  2  bad input: a wrong flag or argument, an unreadable or malformed file, an id that does
     not exist, a token the API refuses; nothing was done
  3  a runtime failure: the browser, the store, git, the network (the app or the API could
     not be reached: nothing is judged), an interrupt

The local state (run --record, repair, sweep, push, pull, queue, approve, dismiss, revert,
history, mcp) is kept in .gardener beside where a command runs (--state DIR). A test file that
names no "project" is in project local there; push and pull name theirs with --project. The
review commands and push and pull act on an API instead with --api URL (the bearer token in
$GARDENER_TOKEN, or the variable --token-env names).

-h or --help after any command prints its usage; gardener --version prints the version.
`)
}

// version is the release, set at build time with -ldflags "-X main.version=v1.2.3"; left empty,
// it is read from the build information the Go toolchain embeds.
var version string

func runVersion(_ context.Context, c *cli, args []string) int {
	fs := c.flags("version")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.badUsage(fs, "unexpected argument %q", pos[0])
	}
	fmt.Fprintln(c.stdout, "gardener", versionString())
	return exitOK
}

func versionString() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		v += " " + rev
		if modified == "true" {
			v += " (modified)"
		}
	}
	return v
}

// haltAt stops a command at a named point when a test asks it to (see cli.halt).
func (c *cli) haltAt(point string) error {
	if c.halt == nil {
		return nil
	}
	return c.halt(point)
}
