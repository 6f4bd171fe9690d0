package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/driftgardener/gardener/pkg/gardener"
)

func init() {
	register("fmt", command{
		summary:  "rewrite test files in the canonical layout",
		synopsis: []string{"[--check] PATH..."},
		about: `Rewrites each test file (a file, or every *.json under a folder) in the canonical layout:
the fields in a fixed order, one step per line, each step's keys in a fixed order, css locators
with their css= prefix. Nothing else writes it uninvited: repair --write, push and pull change
only the steps a repair or an edit changed (and the version line) in a file you wrote, keeping
its own layout. With --check nothing is written: the files not in the canonical layout are
listed.

Exit status: 0 formatted (with --check: every file is canonical); 1 with --check, some file is
not; 2 bad input (a path that does not exist, a file that is not a test; nothing is written);
3 a file could not be written.`,
		run: runFmt,
	})
}

func runFmt(_ context.Context, c *cli, args []string) int {
	fs := c.flags("fmt")
	check := fs.Bool("check", false, "write nothing; list the files that are not in the canonical layout")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return c.badUsage(fs, "give a test file or a folder of them")
	}
	files, err := testFiles(pos)
	if err != nil {
		return c.fail("fmt", exitBadInput, err)
	}
	// Every file is read and formatted before any is written: one that is not a test stops the
	// command with nothing changed.
	formatted := make([][]byte, len(files))
	changed := make([]bool, len(files))
	var bad []error
	for i, f := range files {
		b, err := readInput(f, "test file")
		if err == nil {
			var t gardener.Test
			if t, err = gardener.DecodeTest(b); err == nil {
				formatted[i], err = gardener.FormatTest(t)
			}
		}
		if err != nil {
			bad = append(bad, fmt.Errorf("%s: %w", f, err))
			continue
		}
		changed[i] = !bytes.Equal(b, formatted[i])
	}
	if len(bad) > 0 {
		return c.fail("fmt", exitBadInput, errors.Join(bad...))
	}
	n := 0
	for i, f := range files {
		if !changed[i] {
			continue
		}
		n++
		if *check {
			fmt.Fprintln(c.stdout, f)
			continue
		}
		if err := writeTestBytes(f, formatted[i]); err != nil {
			return c.fail("fmt", exitFailure, err)
		}
		fmt.Fprintf(c.stdout, "formatted %s\n", f)
	}
	if *check && n > 0 {
		fmt.Fprintf(c.stderr, "gardener fmt: %s not in the canonical layout\n", plural(n, "file is", "files are"))
		return exitNegative
	}
	return exitOK
}
