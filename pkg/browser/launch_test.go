package browser

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ownedtemp"
)

// TestChromiumEnvironment starts Chromium in both modes with AWS credentials and tokens in the
// process environment, as a Lambda and a CI job have them, and reads the environment of every
// process of the browser from /proc: no AWS variable and none of the secrets may be there, and
// nothing of the parent's environment but what chromiumEnv passes on. (The distribution's
// launcher script may add variables of its own; those are not the parent's.)
func TestChromiumEnvironment(t *testing.T) {
	needBrowser(t)
	secrets := map[string]string{
		"AWS_ACCESS_KEY_ID":     "AKIAHOSTILETESTKEY01",
		"AWS_SECRET_ACCESS_KEY": "hostile-test-secret-access-key",
		"AWS_SESSION_TOKEN":     "hostile-test-session-token",
		"AWS_REGION":            "eu-west-1",
		"GITHUB_TOKEN":          "ghp_hostiletesttoken",
		"DG_HOSTILE_CANARY":     "must-not-reach-chromium",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	// A shell launcher (the distribution's chromium script) sets PWD, SHLVL and _ itself.
	passed := map[string]bool{"HOME": true, "TMPDIR": true, "PWD": true, "SHLVL": true, "_": true}
	for _, kv := range chromiumEnv(t.TempDir()) {
		name, _, _ := strings.Cut(kv, "=")
		passed[name] = true
	}
	for _, single := range []bool{false, true} {
		t.Run(fmt.Sprintf("single-process=%v", single), func(t *testing.T) {
			r := New(Options{SingleProcess: single})
			defer r.Close()
			pid := start(t, r)
			procs := descendants(pid, true)
			if len(procs) < 1 {
				t.Fatalf("no process found for the browser (pid %d)", pid)
			}
			read := 0
			for _, p := range procs {
				data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p))
				if err != nil {
					continue // the process ended meanwhile
				}
				read++
				for _, kv := range bytes.Split(data, []byte{0}) {
					name, value, ok := strings.Cut(string(kv), "=")
					if !ok {
						continue
					}
					if strings.HasPrefix(name, "AWS_") {
						t.Errorf("process %d of the browser has %s in its environment", p, name)
					}
					for k, v := range secrets {
						if strings.Contains(value, v) {
							t.Errorf("process %d of the browser has the value of %s in %s", p, k, name)
						}
					}
					if parent, inParent := os.LookupEnv(name); inParent && parent == value && !passed[name] {
						t.Errorf("process %d of the browser inherited %s from the runner's environment", p, name)
					}
				}
			}
			if read == 0 {
				t.Fatalf("could not read the environment of any of the browser's %d processes", len(procs))
			}
		})
	}
}

// TestNoBrowserInterfaceRenderers: a browser and each lane's window start no renderer for the
// browser's own interface (headless Chromium preloads the omnibox's WebUI popups otherwise,
// about a CPU-second per window, for an omnibox no replay opens). The popups come a moment
// after their window, so the test looks for a while after a replay in a fresh lane.
func TestNoBrowserInterfaceRenderers(t *testing.T) {
	r := needBrowser(t)
	t.Parallel()
	srv := fixture(t)
	replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/login.html"}]`), gardener.ReplayOptions{})
	in, err := r.instance()
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		all, err := in.targets(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range all {
			if tg.Type == "browser_ui" {
				t.Fatalf("the browser runs its own interface in a renderer: %s %s", tg.Type, tg.URL)
			}
		}
	}
}

// TestAFailedStartIsTriedOnce: a Chromium that ends before giving its address (here a launcher
// that exits with a status the first time, as a browser crashing while it starts on a loaded
// machine does) is started once more, and the runner answers with the second; one that fails
// every time fails the replay, after two tries, naming the start.
func TestAFailedStartIsTriedOnce(t *testing.T) {
	needBrowser(t)
	real, err := ChromePath()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Chromium gets none of this process's environment, so the script names its files itself.
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tries := filepath.Join(dir, "tries")
	once := script("once", fmt.Sprintf("echo x >> %q\n[ $(wc -l < %q) -gt 1 ] && exec %q \"$@\"\necho 'crashed while starting' >&2\nexit 1\n", tries, tries, real))
	always := script("always", fmt.Sprintf("echo x >> %q\necho 'crashed while starting' >&2\nexit 1\n", tries+"-always"))

	t.Setenv("CHROME_PATH", once)
	r := New(Options{})
	defer r.Close()
	if _, err := r.instance(); err != nil {
		t.Fatalf("the second start was not tried, or failed: %v", err)
	}
	if b, _ := os.ReadFile(tries); strings.Count(string(b), "x") != 2 {
		t.Errorf("started %d times, want 2", strings.Count(string(b), "x"))
	}

	t.Setenv("CHROME_PATH", always)
	r2 := New(Options{})
	defer r2.Close()
	_, err = r2.instance()
	if err == nil || !strings.Contains(err.Error(), "starting Chromium") {
		t.Fatalf("a browser that never starts: %v, want an error naming the start", err)
	}
	if b, _ := os.ReadFile(tries + "-always"); strings.Count(string(b), "x") != 2 {
		t.Errorf("a browser that never starts was started %d times, want 2", strings.Count(string(b), "x"))
	}
}

// TestLaunchRemovesProfilesOfDeadProcesses: a browser's profile directory is named after the
// process that launched it, so a launch removes the ones a process killed with SIGKILL left in
// the temp dir and keeps a live process's; its own goes when it closes.
func TestLaunchRemovesProfilesOfDeadProcesses(t *testing.T) {
	needBrowser(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	owner := func(kill bool) ownedtemp.Owner {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		o, err := ownedtemp.Of(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if kill {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
		}
		return o
	}
	stale := filepath.Join(tmp, profilePrefix+owner(true).String()+"-1")
	live := filepath.Join(tmp, profilePrefix+owner(false).String()+"-2")
	for _, d := range []string{stale, live} {
		if err := os.MkdirAll(filepath.Join(d, "profile", "Default"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	in, err := launch(Options{StepTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mine, _ := filepath.Glob(filepath.Join(tmp, profilePrefix+ownedtemp.Self().String()+"-*"))
	in.close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the profile of a killed process is still there (%v)", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the profile of a live process was removed: %v", err)
	}
	if len(mine) != 1 {
		t.Errorf("this launch's profile dirs: %v; want one named for this process", mine)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, profilePrefix+ownedtemp.Self().String()+"-*")); len(left) != 0 {
		t.Errorf("close left %v", left)
	}
}

// TestBehindLauncher: a launcher script resolves to the binary it starts when that binary is
// installed, and stays itself when it is not; a binary is never replaced.
func TestBehindLauncher(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "chromium")
	binary := filepath.Join(dir, "real-chromium")
	missing := filepath.Join(dir, "absent")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec real \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(binary, []byte("\x7fELF\x02\x01"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExec := filepath.Join(dir, "plain")
	if err := os.WriteFile(notExec, []byte("\x7fELF"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		path    string
		targets []string
		want    string
	}{
		{"script with its binary installed", script, []string{missing, binary}, binary},
		{"script whose binary is absent", script, []string{missing}, script},
		{"script whose binary is not executable", script, []string{notExec}, script},
		{"a binary is kept", binary, []string{script}, binary},
		{"an unreadable path is kept", missing, []string{binary}, missing},
		{"a script not where a distribution puts it is kept", script, nil, script},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := behindLauncher(c.path, map[string][]string{c.path: c.targets})
			if got != c.want {
				t.Errorf("behindLauncher(%s) = %s, want %s", c.path, got, c.want)
			}
		})
	}
	// On a Debian machine with chromium installed, PATH's launcher resolves to the binary.
	if _, err := os.Stat("/usr/lib/chromium/chromium"); err == nil && os.Getenv("CHROME_PATH") == "" {
		if p, err := exec.LookPath("chromium"); err == nil && p == "/usr/bin/chromium" {
			if got, _ := ChromePath(); got != "/usr/lib/chromium/chromium" {
				t.Errorf("ChromePath() = %s with Debian's launcher on PATH, want /usr/lib/chromium/chromium", got)
			}
		}
	}
}
