package main

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/local/stack"
)

// sharedRunner is the one Chromium the tests of this package replay in: a command given it
// launches no browser of its own.
var sharedRunner *browser.Runner

func TestMain(m *testing.M) {
	if os.Getenv(runAsGardener) == "1" {
		main() // exits with the command's status
	}
	// push and pull read the API's token from the environment, and a parallel test may not set
	// it: the browser tests that push and pull through a local stack's API do so as ann, in
	// project demo. A sequential test that needs another token sets it with t.Setenv.
	if err := os.Setenv(tokenEnv, stack.DevToken("ann@example.com", "demo")); err != nil {
		panic(err)
	}
	sharedRunner = browser.New(browser.Options{})
	code := m.Run()
	sharedRunner.Close()
	os.Exit(code)
}

// dispatch runs a command line in-process as main does, with the shared browser and stdout
// taken for a pipe (no terminal).
func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, runner: sharedRunner}
	return c.dispatch(context.Background(), args)
}

// noErr stops the test at an error in its fixture.
func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
