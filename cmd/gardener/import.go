package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/driftgardener/gardener/pkg/recorder"
)

func init() {
	register("import", command{
		summary:  "convert a Chrome DevTools Recorder recording (JSON) into a test",
		synopsis: []string{"[--id ID] [--project P] [-o TEST.json] RECORDING.json"},
		about: `Converts a recording exported from the Recorder panel of Chrome DevTools (JSON, the format of
@puppeteer/replay) into a test: navigate, click, change, keyDown/keyUp, hover, waitForElement
and the navigations a step asserts. Of each step's selectors the most resilient (a role and name,
a test id, text, CSS, then XPath) is the locator and the others are kept as alternatives. URLs
on the recording's first origin become paths, so the test replays against any --base-url.
setViewport and scroll steps are dropped with a note on stderr. A step that has no equivalent
is refused, every one named with its number and the reason, and nothing is written. Exit status:
0 converted; 2 bad input or a refused step; 3 the test could not be written.`,
		run: runImport,
	})
}

var unsafeID = regexp.MustCompile(`[^a-z0-9]+`)

func runImport(_ context.Context, c *cli, args []string) int {
	fs := c.flags("import")
	id := fs.String("id", "", "the test's `ID` (default: from the file name)")
	project := fs.String("project", "", "the `PROJECT` the test belongs to (default: none, read as local)")
	out := fs.String("o", "", "write the test to `FILE` (default: stdout)")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return c.badUsage(fs, "give a recording file")
	case len(pos) > 1:
		return c.badUsage(fs, "one recording at a time (got %q and %q)", pos[0], pos[1])
	}
	b, err := readInput(pos[0], "recording")
	if err != nil {
		return c.fail("import", exitBadInput, err)
	}
	t, notes, err := recorder.Convert(b)
	for _, n := range notes {
		fmt.Fprintf(c.stderr, "gardener import: %s: step %d: %s\n", pos[0], n.Step, n.Text)
	}
	if err != nil {
		// A refused step and a file that is not a recording are both the input's fault.
		return c.fail("import", exitBadInput, fmt.Errorf("%s: %w", pos[0], err))
	}
	t.ID = *id
	if t.ID == "" {
		t.ID = strings.Trim(unsafeID.ReplaceAllString(strings.ToLower(strings.TrimSuffix(filepath.Base(pos[0]), filepath.Ext(pos[0]))), "-"), "-")
	}
	if t.ID == "" {
		return c.badUsage(fs, "cannot make a test id from %q: give --id", pos[0])
	}
	t.ProjectID = *project
	if t.Name == "" {
		t.Name = t.ID
	}
	if *out == "" {
		if err := writeJSON(c.stdout, t); err != nil {
			return c.fail("import", exitFailure, err)
		}
		return exitOK
	}
	if err := writeTest(*out, t); err != nil {
		return c.fail("import", exitFailure, err)
	}
	fmt.Fprintf(c.stdout, "imported %s: %d steps to %s\n", t.ID, len(t.Steps), *out)
	return exitOK
}
