package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/ladder"
)

// TestAnUnreachableAppExitsThree: run, repair and sweep against an app nothing answers for
// exit 3 (a runtime failure of the network, as the README's table says), name the app, and
// replay nothing: no browser starts, no test is recorded or triaged. Under a second.
func TestAnUnreachableAppExitsThree(t *testing.T) {
	t.Parallel()
	closed := closedOrigin(t)
	dir := t.TempDir()
	test := filepath.Join(dir, "t.json")
	noErr(t, os.WriteFile(test, []byte(`{"id":"t","steps":[{"kind":"goto","url":"/"}]}`), 0o644))
	for _, args := range [][]string{
		{"run", test, "--base-url", closed},
		{"run", test, "--base-url", closed, "--record", "--state", t.TempDir()},
		{"repair", test, "--base-url", closed, "--state", t.TempDir()},
		{"sweep", "--tests", dir, "--base-url", closed, "--state", t.TempDir(), "--model", "none"},
	} {
		var out, errb bytes.Buffer
		code := dispatch(args, nil, &out, &errb)
		if code != exitFailure || !strings.Contains(errb.String(), "the app at "+closed+" could not be reached") || !strings.Contains(errb.String(), "connection refused") {
			t.Errorf("%v: exit %d, want 3 naming the app:\n%s%s", args, code, out.String(), errb.String())
		}
	}
}

// TestRepairWordsForAPassingTest: a test that passes is said to pass, with nothing to repair,
// and its run named; never a failed repair's NO-FIX.
func TestRepairWordsForAPassingTest(t *testing.T) {
	var out bytes.Buffer
	printRepair(&out, marksFor(false), &repairOutput{Outcome: ladder.NoFix, Reason: "the test passes: there is nothing to repair", TestID: "login", RunID: "run-7", ModelCalls: 1})
	text := out.String()
	for _, want := range []string{"PASSES: login — the test passes: there is nothing to repair", "run run-7", "1 model call,", "0 replays"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(strings.ToUpper(text), "NO-FIX") {
		t.Errorf("a passing test reads as a failed repair:\n%s", text)
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 tests", 1: "1 test", 2: "2 tests"} {
		if got := plural(n, "test", "tests"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestPortsAreFlags: serve and demo listen where --listen and --app-listen say, loopback only,
// and refuse a bad address (or --app-listen without the shop) as bad input before anything
// starts.
func TestPortsAreFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--app-listen", "127.0.0.1:0"}, "--app-listen is where the demo shop listens: it goes with --demo-app"},
		{[]string{"serve", "--listen", "0.0.0.0:8787"}, "only a loopback address"},
		{[]string{"serve", "--demo-app", "--app-listen", "example.com:80"}, "--app-listen \"example.com:80\": only a loopback address"},
		{[]string{"demo", "--listen", "10.0.0.1:80"}, "--listen \"10.0.0.1:80\": only a loopback address"},
		{[]string{"demo", "--app-listen", "127.0.0.1"}, "give HOST:PORT"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(c.args, nil, &out, &errb); code != exitBadInput || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q:\n%s", c.args, code, c.want, errb.String())
		}
	}
}
