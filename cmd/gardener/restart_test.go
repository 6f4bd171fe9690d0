package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/ownedtemp"
)

// TestWriteRemovesTempFilesOfDeadProcesses: the file a write stages beside a test file is named
// after the writing process, so the next write in the directory removes the ones a process
// killed with SIGKILL left, and keeps a live run's.
func TestWriteRemovesTempFilesOfDeadProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	owner := func(kill bool) ownedtemp.Owner {
		cmd := exec.Command("sleep", "60")
		noErr(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		o, err := ownedtemp.Of(cmd.Process.Pid)
		noErr(t, err)
		if kill {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
		}
		return o
	}
	stale := filepath.Join(dir, stagePrefix+owner(true).String()+"-1"+stageSuffix)
	live := filepath.Join(dir, stagePrefix+owner(false).String()+"-2"+stageSuffix)
	for _, p := range []string{stale, live} {
		noErr(t, os.WriteFile(p, []byte(`{"id":"half`), 0o644))
	}
	test := filepath.Join(dir, "sign-in.json")
	noErr(t, writeFileAtomic(test, []byte(`{"id":"sign-in"}`+"\n"), 0o644))
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the temp file of a killed process is still there (%v)", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live run's temp file was removed: %v", err)
	}
	if mine, _ := filepath.Glob(filepath.Join(dir, stagePrefix+ownedtemp.Self().String()+"-*")); len(mine) != 0 {
		t.Errorf("the write left %v", mine)
	}
	if b, err := os.ReadFile(test); err != nil || string(b) != `{"id":"sign-in"}`+"\n" {
		t.Errorf("the test file reads %q, %v", b, err)
	}
}

// TestServeKeepsExecutionsInTheState: the stack gardener serve starts on the embedded store
// keeps its executions there, so the stack of a later serve on the same state answers for them.
func TestServeKeepsExecutionsInTheState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := localOptions{state: t.TempDir(), template: "../../template.yaml", stepTimeout: time.Second, runner: sharedRunner}
	l, err := startLocal(ctx, o)
	noErr(t, err)
	// A run of a test that does not exist: eligibility fails it at once, with no browser.
	id, err := l.Start(ctx, "RepairStateMachine", "kept", map[string]any{"detail": map[string]any{"runId": "r-none", "testId": "t-none"}})
	noErr(t, err)
	l.Wait()
	status, _, err := l.Describe(ctx, id)
	noErr(t, err)
	l.close()

	again, err := startLocal(ctx, o)
	noErr(t, err)
	defer again.close()
	got, _, err := again.Describe(ctx, id)
	if err != nil || got != status {
		t.Fatalf("execution %s after a restart of the stack: %q, %v; want %q as before", id, got, err, status)
	}
}
