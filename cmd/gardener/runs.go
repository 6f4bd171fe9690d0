package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardening"
)

func init() {
	register("runs", command{
		summary:  "list a test's runs, newest first (local state or --api)",
		synopsis: []string{"TEST [--limit N] [--after RUN] [--state DIR | --api URL] [--json]"},
		about: `Lists the runs recorded of a test, newest first, as the console's test page shows them: each
run's id, when it ran, the test version it ran, green or red (with the failing step and the
error kind), and what started it (the schedule, a person, CI, a worker, the radar, a repair's
proof). A red run's id is what "gardener repair --run RUN" and the MCP suggest_fix take. At most
--limit runs (1..100, default 20); when there are more, the last line says how to list the next
page (--after the last run listed). With --json, the page as GET /tests/{testId}/runs answers it.

Exit status: 0 listed (empty or not); 2 bad input (no such test, a --limit out of range, an
--after that is no run of the test, a token the API refuses); 3 the state or the API could not
be reached.`,
		run: runRuns,
	})
}

func runRuns(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("runs")
	var f reviewFlags
	f.register(fs, false)
	limit := fs.Int("limit", 0, fmt.Sprintf("list at most this many runs (1..%d; default %d)", gardening.MaxRunPage, gardening.DefaultRunPage))
	after := fs.String("after", "", "list the runs older than this run of the test (the next page)")
	r, pos, code, ok := c.openReview(fs, &f, args, "test id", idArg{"TEST", "testId"})
	if !ok {
		return code
	}
	defer r.close()
	page, err := r.runs(ctx, pos[0], strings.TrimSpace(*after), *limit)
	if err = c.listed("runs", err); err != nil {
		return c.fail("runs", exitOf(err), err)
	}
	var b strings.Builder
	printRuns(&b, page, *limit)
	return c.done("runs", f.json, page, b.String())
}

// printRuns prints a page of runs, one a line, in the words every door uses (RunLine.Summary).
func printRuns(w io.Writer, p gardening.RunsPage, limit int) {
	if len(p.Runs) == 0 {
		fmt.Fprintf(w, "Test %s has no runs recorded.\n", p.TestID)
		return
	}
	fmt.Fprintf(w, "Runs of test %s, newest first:\n", p.TestID)
	for _, l := range p.Runs {
		fmt.Fprintf(w, "  %s  %s  %s\n", l.At.UTC().Format(timeLayout), l.ID, l.Summary)
	}
	if p.Next != "" {
		more := ""
		if limit != 0 {
			more = fmt.Sprintf(" --limit %d", limit)
		}
		fmt.Fprintf(w, "More runs: gardener runs %s --after %s%s\n", p.TestID, p.Next, more)
	}
}
