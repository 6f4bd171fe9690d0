package ownedtemp

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// process starts a process that waits, and returns its owner and a func that kills it with
// SIGKILL (as a crash would) and reaps it.
func process(t *testing.T) (Owner, func()) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sleep: %v", err)
	}
	o, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	kill := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	t.Cleanup(kill)
	return o, kill
}

// TestSweepRemovesOnlyWhatDeadProcessesLeft: of the entries named for an owner, Sweep removes
// those of a process killed with SIGKILL and of a pid now held by another process (its start
// differs), and leaves a live process's, this process's, and names it did not make.
func TestSweepRemovesOnlyWhatDeadProcessesLeft(t *testing.T) {
	dir := t.TempDir()
	dead, kill := process(t)
	live, _ := process(t)
	kill()
	if dead.Alive() {
		t.Fatalf("process %d is alive after SIGKILL and wait", dead.PID)
	}
	if !live.Alive() || !Self().Alive() {
		t.Fatal("a running process reads as dead")
	}
	reused := Owner{PID: live.PID, Start: live.Start + 1}
	mk := func(name string, isDir bool) string {
		p := filepath.Join(dir, name)
		var err error
		if isDir {
			err = os.MkdirAll(filepath.Join(p, "profile", "Default"), 0o755)
		} else {
			err = os.WriteFile(p, []byte("half a test"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		probe, name string
		dir, gone   bool
	}{
		{"a profile dir of a killed process", "gardener-chromium-" + dead.String() + "-123", true, true},
		{"a temp file of a killed process", ".gardener-" + dead.String() + "-456.tmp", false, true},
		{"a profile dir of a pid given to another process", "gardener-chromium-" + reused.String() + "-789", true, true},
		{"a profile dir of a live process", "gardener-chromium-" + live.String() + "-123", true, false},
		{"a temp file of a live process", ".gardener-" + live.String() + "-456.tmp", false, false},
		{"a profile dir of this process", "gardener-chromium-" + Self().String() + "-1", true, false},
		{"a profile dir of an earlier process with this pid", "gardener-chromium-" + Owner{PID: Self().PID, Start: Self().Start + 1}.String() + "-2", true, true},
		{"a name without an owner (an older version's)", ".gardener-123456.tmp", false, false},
		{"another program's dir", "gardener-chromiumish-" + dead.String() + "-1", true, false},
	} {
		p := mk(tc.name, tc.dir)
		t.Cleanup(func() {
			_, err := os.Stat(p)
			if gone := os.IsNotExist(err); gone != tc.gone {
				t.Errorf("%s (%s): removed %v, want %v", tc.probe, tc.name, gone, tc.gone)
			}
		})
	}
	var removed []string
	for _, kind := range [][2]string{{"gardener-chromium-", ""}, {".gardener-", ".tmp"}} {
		r, err := Sweep(dir, kind[0], kind[1])
		if err != nil {
			t.Fatal(err)
		}
		removed = append(removed, r...)
	}
	if len(removed) != 4 || !slices.Contains(removed, filepath.Join(dir, ".gardener-"+dead.String()+"-456.tmp")) {
		t.Errorf("removed %v; want the four entries of dead owners", removed)
	}
}

// TestPatternNamesThisProcess: a name made from Pattern parses back to this process.
func TestPatternNamesThisProcess(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), Pattern(".gardener-", ".tmp"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	o, ok := parse(filepath.Base(f.Name()), ".gardener-", ".tmp")
	if !ok || o != Self() || o.Start == 0 {
		t.Fatalf("%s parses as %+v, %v; want this process %+v with its start time", f.Name(), o, ok, Self())
	}
}
