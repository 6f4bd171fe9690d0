package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
)

// TestEveryCommandHelps: -h, --help and `gardener help NAME` print the same usage on stdout, with
// the synopsis first, and exit 0; nothing runs.
func TestEveryCommandHelps(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			var want string
			for _, args := range [][]string{{name, "-h"}, {name, "--help"}, {"help", name}} {
				var out, errOut bytes.Buffer
				if code := dispatch(args, nil, &out, &errOut); code != exitOK {
					t.Errorf("%v: exit %d, want 0 (stderr %q)", args, code, errOut.String())
				}
				if errOut.Len() != 0 {
					t.Errorf("%v wrote to stderr: %q", args, errOut.String())
				}
				if !strings.HasPrefix(out.String(), "usage: gardener "+name+" ") {
					t.Errorf("%v: usage does not start with the synopsis:\n%s", args, out.String())
				}
				if want == "" {
					want = out.String()
				} else if out.String() != want {
					t.Errorf("%v printed another usage:\n%s\nwant\n%s", args, out.String(), want)
				}
			}
		})
	}
}

// TestEveryCommandRefusesAnUnknownFlag: exit 2, the error and the usage on stderr, nothing on
// stdout.
func TestEveryCommandRefusesAnUnknownFlag(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := dispatch([]string{name, "--no-such-flag"}, nil, &out, &errOut); code != exitBadInput {
				t.Errorf("exit %d, want 2", code)
			}
			for _, want := range []string{"flag provided but not defined: -no-such-flag", "usage: gardener " + name} {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
				}
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q, want nothing", out.String())
			}
		})
	}
}

func TestTopLevelUsage(t *testing.T) {
	cases := []struct {
		args       []string
		code       int
		onStdout   bool
		stderrHas  string
		usageShown bool
	}{
		{args: []string{"help"}, code: exitOK, onStdout: true, usageShown: true},
		{args: []string{"-h"}, code: exitOK, onStdout: true, usageShown: true},
		{args: []string{"--help"}, code: exitOK, onStdout: true, usageShown: true},
		{args: nil, code: exitBadInput, usageShown: true},
		{args: []string{"nonsense"}, code: exitBadInput, stderrHas: `unknown command "nonsense"`, usageShown: true},
		{args: []string{"help", "nonsense"}, code: exitBadInput, stderrHas: `unknown command "nonsense"`, usageShown: true},
		{args: []string{"help", "run", "repair"}, code: exitBadInput, stderrHas: "one command at a time"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := dispatch(c.args, nil, &out, &errOut); code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			shown := &errOut
			if c.onStdout {
				shown = &out
				if errOut.Len() != 0 {
					t.Errorf("stderr %q, want nothing", errOut.String())
				}
			} else if out.Len() != 0 {
				t.Errorf("stdout %q, want nothing", out.String())
			}
			if c.stderrHas != "" && !strings.Contains(errOut.String(), c.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", c.stderrHas, errOut.String())
			}
			if !c.usageShown {
				return
			}
			for name := range commands {
				if !strings.Contains(shown.String(), "  "+name+" ") {
					t.Errorf("the usage does not list %s:\n%s", name, shown.String())
				}
			}
			for _, code := range []string{"0  success", "1  a negative result", "2  bad input", "3  a runtime failure"} {
				if !strings.Contains(shown.String(), code) {
					t.Errorf("the usage does not document exit code %q", code)
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		var out, errOut bytes.Buffer
		if code := dispatch(args, nil, &out, &errOut); code != exitOK || errOut.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
		if v := strings.TrimSpace(out.String()); !strings.HasPrefix(v, "gardener ") || len(v) <= len("gardener ") {
			t.Errorf("%v printed %q, want gardener and a version", args, v)
		}
	}
	defer func(v string) { version = v }(version)
	version = "v1.2.3"
	var out bytes.Buffer
	dispatch([]string{"version"}, nil, &out, &out)
	if out.String() != "gardener v1.2.3\n" {
		t.Errorf("with -ldflags -X main.version=v1.2.3: %q", out.String())
	}
}

// TestRuntimeFailuresExitThreeOnStderr: a state directory that cannot be made is a runtime
// failure, reported on stderr (also in text mode) with exit 3, before any browser starts.
func TestRuntimeFailuresExitThreeOnStderr(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "file")
	noErr(t, os.WriteFile(blocked, nil, 0o644))
	test := filepath.Join(dir, "t.json")
	noErr(t, os.WriteFile(test, []byte(`{"id":"t","steps":[{"kind":"goto","url":"/"}]}`), 0o644))
	for _, args := range [][]string{
		{"repair", test, "--base-url", "http://127.0.0.1:1", "--state", blocked},
		{"sweep", "--tests", dir, "--base-url", "http://127.0.0.1:1", "--state", blocked, "--model", "none"},
	} {
		var out, errOut bytes.Buffer
		if code := dispatch(args, nil, &out, &errOut); code != exitFailure {
			t.Errorf("%v: exit %d, want 3 (stderr %q)", args, code, errOut.String())
		}
		if !strings.Contains(errOut.String(), "gardener "+args[0]+": ") || !strings.Contains(errOut.String(), "not a directory") {
			t.Errorf("%v: stderr %q does not name the failure", args, errOut.String())
		}
		if out.Len() != 0 {
			t.Errorf("%v: stdout %q, want nothing", args, out.String())
		}
	}
}

// TestMarksOnlyOnATerminal: symbols and colour on a terminal, plain words elsewhere.
func TestMarksOnlyOnATerminal(t *testing.T) {
	o := &repairOutput{Outcome: ladder.Staged, TestID: "login", Notes: []gardener.Note{{Text: "the button moved"}}}
	for _, c := range []struct {
		term      bool
		want, not string
	}{
		{term: true, want: "⚠", not: "warning:"},
		{term: false, want: "warning: the button moved", not: "⚠"},
	} {
		var out bytes.Buffer
		printRepair(&out, marksFor(c.term), o)
		if !strings.Contains(out.String(), c.want) || strings.Contains(out.String(), c.not) {
			t.Errorf("terminal %v:\n%s\nwant %q and no %q", c.term, out.String(), c.want, c.not)
		}
		m := marksFor(c.term)
		for _, s := range []string{m.ok, m.fail, m.mail, m.warn} {
			ascii := !strings.ContainsFunc(s, func(r rune) bool { return r > 127 || r == '\033' })
			if ascii == c.term {
				t.Errorf("terminal %v: mark %q", c.term, s)
			}
		}
	}
	t.Setenv("NO_COLOR", "1")
	if isTerminal(os.Stdout) {
		t.Error("NO_COLOR is set, yet stdout counts as a terminal")
	}
}

func TestAWSRegion(t *testing.T) {
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	ctx := context.Background()
	for _, c := range []struct{ env, given, want string }{
		{env: "", given: "", want: fallbackRegion},
		{env: "eu-west-1", given: "", want: "eu-west-1"},
		{env: "eu-west-1", given: "ap-south-1", want: "ap-south-1"},
	} {
		t.Setenv("AWS_REGION", c.env)
		got, err := awsRegion(ctx, c.given)
		if err != nil || got != c.want {
			t.Errorf("AWS_REGION=%q --region %q: %q, %v; want %q", c.env, c.given, got, err, c.want)
		}
	}
}

// TestJSONOnEveryReport: every command that reports has --json.
func TestJSONOnEveryReport(t *testing.T) {
	var missing []string
	for _, name := range []string{"app", "demo", "repair", "run", "sweep"} {
		var out bytes.Buffer
		dispatch([]string{name, "-h"}, nil, &out, &out)
		if !strings.Contains(out.String(), "-json") {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no --json: %v", missing)
	}
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"app", "--list", "--json"}, nil, &out, &errOut); code != exitOK || !slices.Contains(strings.Fields(out.String()), `"name":`) {
		t.Errorf("app --list --json: exit %d:\n%s%s", code, out.String(), errOut.String())
	}
}

// TestStepTimeoutHelpSaysTheDefault: every command whose --step-timeout leaves the runner's
// default at 0 says what that default is and the range the flag takes, and refuses a value
// past it before anything runs. The help said "0: the runner's default" without the figure.
func TestStepTimeoutHelpSaysTheDefault(t *testing.T) {
	want := fmt.Sprintf("(0: the runner's default, %s)", browser.DefaultStepTimeout)
	if want != "(0: the runner's default, 5s)" {
		t.Fatalf("the runner's default is %s: update docs/limits.md, which says 5 s", browser.DefaultStepTimeout)
	}
	for _, name := range []string{"run", "repair", "sweep", "mcp"} {
		var out bytes.Buffer
		dispatch([]string{name, "-h"}, nil, &out, &out)
		if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "from 0 to 10m0s") {
			t.Errorf("gardener %s -h does not say %q and the range:\n%s", name, want, out.String())
		}
		if name == "run" {
			continue // run names a missing test file first; TestRunBadInput refuses its bounds
		}
		var errOut bytes.Buffer
		if code := dispatch([]string{name, "--step-timeout", "-2s"}, nil, io.Discard, &errOut); code != exitBadInput || !strings.Contains(errOut.String(), "--step-timeout -2s is negative") {
			t.Errorf("gardener %s --step-timeout -2s: exit %d, %q", name, code, errOut.String())
		}
	}
}
