package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/recorder"
)

func init() {
	register("import", command{
		summary:  "convert a Chrome DevTools Recorder recording or a Selenium IDE project into tests",
		synopsis: []string{"[--id ID] [--project P] [-o TEST.json | -o DIR] RECORDING.json | PROJECT.side"},
		about: `Converts a recording into tests. The format is read from the content, and said on stderr:
a recording exported from the Recorder panel of Chrome DevTools (JSON, the format of
@puppeteer/replay: an object with "steps") becomes one test; a Selenium IDE project (.side: an
object with "tests") becomes one test per test of the project, each named after its test.

Recorder: navigate, click, doubleClick, change (a set step: the control decides at replay
whether it is typed into, picked from or checked), keyDown/keyUp, hover, waitForElement,
setViewport (the test's viewport) and the navigations a step asserts. Selenium IDE: open,
click, doubleClick, type, editContent, sendKeys (keys only), select, check, uncheck, mouseOver,
assertText, assertTitle, assertValue, assertSelectedValue, assertElementPresent and
NotPresent, their verify forms, waitForElementVisible and the other element waits, storeText,
storeAttribute, selectFrame, setWindowSize (the test's viewport) and pause. Of each element's
selectors (targets) the most resilient (a role and name, a test id, an accessible name, text,
CSS, then XPath) is the locator and the others are kept as alternatives. URLs on the
recording's first origin (the project's URL) become paths, so a test replays against any
--base-url. Scroll steps and echo commands are dropped with a note on stderr. A step or command
that has no equivalent is refused, every one named with its test, its number and the reason, and
nothing is written. docs/importing.md lists what maps to what.

One test is written to stdout, or to -o TEST.json. Several need -o DIR: each is written to
DIR/ID.json, the id made from its test's name; every file is prepared before any is put in
place. Exit status: 0 converted; 2 bad input or a refused step; 3 a test could not be written.`,
		run: runImport,
	})
}

var unsafeID = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a test id of a file or test name: lower-case letters and digits joined by "-".
func slug(s string) string {
	return strings.Trim(unsafeID.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

func runImport(_ context.Context, c *cli, args []string) int {
	fs := c.flags("import")
	id := fs.String("id", "", "the test's `ID` (default: from the file name, or a Selenium IDE test's name); one test only")
	project := fs.String("project", "", "the `PROJECT` the tests belong to (default: none, read as local)")
	out := fs.String("o", "", "write the test to `FILE`, or several to a directory (default: stdout, one test only)")
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
	path := pos[0]
	b, err := readInput(path, "recording")
	if err != nil {
		return c.fail("import", exitBadInput, err)
	}
	imp, err := recorder.Import(b, path)
	if imp.Format != "" {
		fmt.Fprintf(c.stderr, "gardener import: %s: a %s\n", path, imp.Format)
	}
	for _, n := range imp.Notes {
		fmt.Fprintf(c.stderr, "gardener import: %s: %s\n", path, n)
	}
	if err != nil {
		// A refused step and a file that is not a recording are both the input's fault.
		return c.fail("import", exitBadInput, fmt.Errorf("%s: %w", path, err))
	}
	tests := imp.Tests
	several := len(tests) > 1
	if several && *id != "" {
		return c.badUsage(fs, "--id names one test, and %s holds %d", path, len(tests))
	}
	if err := nameTests(tests, path, *id, imp.Format == recorder.SeleniumIDE); err != nil {
		return c.badUsage(fs, "%v", err)
	}
	// The id rule: an id from --id, --project or a long name is checked before anything is
	// written, as the file would be refused when read back.
	if *project != "" {
		if err := gardener.CheckID("--project", *project); err != nil {
			return c.badUsage(fs, "%v", err)
		}
	}
	for i := range tests {
		tests[i].ProjectID = *project
		if err := gardener.CheckID("--id", tests[i].ID); err != nil {
			return c.badUsage(fs, "%v (give --id)", err)
		}
	}
	if *out == "" {
		if several {
			return c.badUsage(fs, "%s holds %d tests: give -o DIR to write each to its own file", path, len(tests))
		}
		if err := writeJSON(c.stdout, tests[0]); err != nil {
			return c.fail("import", exitFailure, err)
		}
		return exitOK
	}
	files, err := importTargets(*out, tests)
	if err != nil {
		return c.badUsage(fs, "%v", err)
	}
	if len(tests) == 1 {
		err = writeTest(files[0], tests[0])
	} else {
		err = writeTests(files, tests)
	}
	if err != nil {
		return c.fail("import", exitFailure, err)
	}
	for i, t := range tests {
		fmt.Fprintf(c.stdout, "imported %s: %d steps to %s\n", t.ID, len(t.Steps), files[i])
	}
	return exitOK
}

// nameTests gives each test its id: id when given (one test), else from the test's name for a
// Selenium IDE project and from the file's name for a recording, made unique with -2, -3, …;
// a test with no name takes its id.
func nameTests(tests []gardener.Test, path, id string, byName bool) error {
	seen := map[string]bool{}
	for i := range tests {
		t := &tests[i]
		t.ID = id
		if t.ID == "" {
			base := slug(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
			if byName {
				base = slug(t.Name)
			}
			if base == "" {
				if !byName {
					return fmt.Errorf("cannot make a test id from %q: give --id", path)
				}
				base = "test-" + strconv.Itoa(i+1)
			}
			t.ID = base
			for n := 2; seen[t.ID]; n++ {
				t.ID = base + "-" + strconv.Itoa(n)
			}
		}
		seen[t.ID] = true
		if t.Name == "" {
			t.Name = t.ID
		}
	}
	return nil
}

// importTargets is the file each test is written to: out itself for one test that is not an
// existing directory, else out/ID.json in the directory out (created for several tests).
func importTargets(out string, tests []gardener.Test) ([]string, error) {
	st, err := os.Stat(out)
	dir := err == nil && st.IsDir()
	if len(tests) == 1 && !dir {
		return []string{out}, nil
	}
	if err == nil && !dir {
		return nil, fmt.Errorf("-o %s is a file, and the recording holds %d tests: give a directory", out, len(tests))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("-o %s: %w", out, err)
	}
	files := make([]string, len(tests))
	for i, t := range tests {
		files[i] = filepath.Join(out, t.ID+".json")
	}
	return files, nil
}

// writeTests writes several tests, each to its file, creating their directory. Every file is
// first written and flushed beside its target, then each is renamed into place, so a failure
// while writing (a full disk, a directory it may not write) leaves no test written, not some.
func writeTests(files []string, tests []gardener.Test) error {
	type staged struct{ tmp, path string }
	var ready []staged
	defer func() {
		for _, s := range ready {
			os.Remove(s.tmp)
		}
	}()
	for i, t := range tests {
		b, err := gardener.FormatTest(t)
		if err != nil {
			return fmt.Errorf("writing %s: %w", files[i], err)
		}
		if err := os.MkdirAll(filepath.Dir(files[i]), 0o755); err != nil {
			return err
		}
		tmp, err := stageFile(files[i], b, 0o644)
		if err != nil {
			return fmt.Errorf("writing %s: %w", files[i], err)
		}
		ready = append(ready, staged{tmp, files[i]})
	}
	for _, s := range ready {
		if err := os.Rename(s.tmp, s.path); err != nil {
			return fmt.Errorf("writing %s: %w", s.path, err)
		}
	}
	ready = nil
	return nil
}
