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
	// What the parallel tests read from the environment, which a parallel test may not set:
	// push and pull read the API's token (they push and pull through a local stack's API as
	// ann, in project demo), and the fake Bedrock servers take requests signed with any
	// credentials (no test reaches AWS). A sequential test that needs other values sets them
	// with t.Setenv.
	for k, v := range map[string]string{
		tokenEnv:                stack.DevToken("ann@example.com", "demo"),
		"AWS_ACCESS_KEY_ID":     "test",
		"AWS_SECRET_ACCESS_KEY": "test",
		// The review commands' tokens, which they name with --token-env.
		"REVIEW_TOKEN_SHOP":  stack.DevToken("ann@example.com", "shop"),
		"REVIEW_TOKEN_OTHER": stack.DevToken("eve@example.com", "other"),
		"REVIEW_TOKEN_BAD":   "not-a-token",
	} {
		if err := os.Setenv(k, v); err != nil {
			panic(err)
		}
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
