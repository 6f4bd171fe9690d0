// Package testkit is the plumbing the browser test packages share: one Chromium per package
// (Main), a runner that keeps what the app saw each green replay do (Witness), a laboratory app
// described once for the matrices (Subject) with its saved tests' green runs on the baseline
// recorded once per package, a lab of its own per scenario (Lab), and the figures of the repair
// benchmarks (RepairFigures). The demo shop and Crewdesk tests and the drift generator use it;
// what the apps themselves share (their hit record and variants) is in package appkit below it,
// which imports no browser, as the apps are also served by the CLI.
package testkit

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
)

// Chromium says how a package's tests use Chromium.
type Chromium struct {
	// Package names the package in the line that says Chromium is missing ("tests/e2e").
	Package string
	// Shared, when set, receives the one runner the package's tests share, started with
	// Options; nil starts none (a package whose tests start runners of their own).
	Shared  **browser.Runner
	Options browser.Options
	// Parallel is -parallel unless the command line gives it; 0 leaves Go's default.
	Parallel int
	// AfterTests runs once the tests have ended, before the shared runner closes: what the
	// tests left open on it is closed there.
	AfterTests func()
}

// shared is the runner Main started, for the kit's own helpers (Subject, Lab).
var shared *browser.Runner

// Runner is the package's shared runner, which Main started.
func Runner() *browser.Runner { return shared }

// Main is a browser test package's TestMain: it parses the flags, and without Chromium says so
// on stderr with the reason and how to install it, and runs no test or benchmark, so that
// go test reports "[no tests to run]" for the package instead of a silent ok. With Chromium it
// starts the shared runner (when c.Shared is set), runs the tests, closes it and exits with the
// tests' status. It does not return.
func Main(m *testing.M, c Chromium) {
	flag.Parse()
	if c.Parallel > 0 {
		given := false
		flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
		if !given {
			if err := flag.Set("test.parallel", strconv.Itoa(c.Parallel)); err != nil {
				panic(err)
			}
		}
	}
	if _, err := browser.ChromePath(); err != nil {
		fmt.Fprintf(os.Stderr, "SKIP %s: no Chromium (%v); install it with: apt-get install -y chromium\n", c.Package, err)
		// A test or benchmark run without a browser would fail on a nil runner, not on what it
		// checks; running none of them says plainly that nothing was proved. -test.bench is
		// only emptied when given: set at all, it keeps go test from saying no test ran.
		if err := flag.Set("test.run", "^$"); err != nil {
			panic(err)
		}
		if flag.Lookup("test.bench").Value.String() != "" {
			if err := flag.Set("test.bench", "^$"); err != nil {
				panic(err)
			}
		}
		os.Exit(m.Run())
	}
	if c.Shared != nil {
		shared = browser.New(c.Options)
		*c.Shared = shared
	}
	code := m.Run()
	if c.AfterTests != nil {
		c.AfterTests()
	}
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}
