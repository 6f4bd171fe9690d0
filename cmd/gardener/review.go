package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/driftgardener/gardener/pkg/gardening"
)

func init() {
	register("approve", command{
		summary:  "approve and apply a staged proposal in the local state",
		synopsis: []string{"PROPOSAL [--state DIR] [--by WHO] [--json]"},
		about: `Applies an open proposal of the local state (one "gardener repair --mode propose" staged, or
one the queue lists) to its test and records who approved it, as the console's and the API's
Approve do. A proposal computed on a version the test has moved past is refused and marked
stale. Write the repaired test back to its file with "gardener pull".

Exit status: 0 applied; 1 refused (stale, no longer open); 2 bad input (no such proposal); 3 the
state could not be read or written.`,
		run: func(ctx context.Context, c *cli, args []string) int { return runReview(ctx, c, "approve", args) },
	})
	register("dismiss", command{
		summary:  "dismiss a staged proposal in the local state",
		synopsis: []string{"PROPOSAL [--state DIR] [--by WHO] [--json]"},
		about: `Declines an open proposal of the local state, as the console's and the API's Dismiss do: it
is not proposed again unless the test or the app changes.

Exit status: 0 dismissed; 1 refused (no longer open); 2 bad input (no such proposal); 3 the state
could not be read or written.`,
		run: func(ctx context.Context, c *cli, args []string) int { return runReview(ctx, c, "dismiss", args) },
	})
}

// runReview is the CLI's door to the queue's two actions: it decodes the command line, calls
// the application layer and prints its answer.
func runReview(ctx context.Context, c *cli, verb string, args []string) int {
	fs := c.flags(verb)
	var state, by string
	var asJSON bool
	fs.StringVar(&state, "state", defaultStateDir, "`DIR` of the local state")
	fs.StringVar(&by, "by", "", "who decides (recorded on the proposal); default cli:$USER")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object instead of text")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.badUsage(fs, "give one proposal id (got %d arguments)", len(pos))
	}
	by = cmp.Or(by, localUser())
	store, err := openState(state)
	if err != nil {
		return c.fail(verb, exitFailure, err)
	}
	defer store.Close()
	app, err := gardening.New(gardening.Deps{Store: store, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		return c.fail(verb, exitFailure, err)
	}
	var out any
	var line string
	switch verb {
	case "approve":
		a, aerr := app.Approve(ctx, gardening.Person(by), pos[0])
		out, err = a, aerr
		line = fmt.Sprintf("approved %s: %s is now version %d (repair %s, approved by %s)", pos[0], a.Test.ID, a.Test.Version, a.Repair.ID, a.Repair.ApprovedBy)
	case "dismiss":
		p, derr := app.Dismiss(ctx, gardening.Person(by), pos[0])
		out, err = p, derr
		line = fmt.Sprintf("dismissed %s of %s: it is not proposed again unless the test or the app changes", p.ID, p.TestID)
	}
	if err != nil {
		return c.fail(verb, exitOf(err), err)
	}
	if asJSON {
		if err := writeJSON(c.stdout, out); err != nil {
			return c.fail(verb, exitFailure, err)
		}
		return exitOK
	}
	fmt.Fprintln(c.stdout, line)
	return exitOK
}

// localUser is who a command acts for when it is not told: the person at this machine.
func localUser() string { return "cli:" + cmp.Or(os.Getenv("USER"), "local") }

// exitOf is the exit status of an error of the application layer: the CLI's answer to the class
// every door maps alike.
func exitOf(err error) int {
	switch gardening.ClassOf(err) {
	case gardening.ClassBadInput, gardening.ClassNotFound:
		return exitBadInput
	case gardening.ClassConflict, gardening.ClassRefused, gardening.ClassUnproven, gardening.ClassMoved:
		return exitNegative
	}
	return exitFailure
}
