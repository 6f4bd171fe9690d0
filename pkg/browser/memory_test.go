package browser

import (
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestDescendantsWalksTheTree: the watchdog's walk down /proc/<pid>/task/*/children finds the
// same processes as the scan of every process's parent, grandchildren included.
func TestDescendantsWalksTheTree(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", "sleep 30 & (sleep 30 & wait) & wait")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start a shell to build a process tree: %v", err)
	}
	t.Cleanup(func() {
		for _, p := range descendants(cmd.Process.Pid, false) {
			_ = exec.Command("kill", "-9", strconv.Itoa(p)).Run()
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// sh, its subshell and two sleeps: four processes once the shells have forked.
	var got []int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = descendants(cmd.Process.Pid, true); len(got) >= 4 {
			break
		}
	}
	want := append([]int{cmd.Process.Pid}, scanDescendants(cmd.Process.Pid)...)
	slices.Sort(got)
	slices.Sort(want)
	if len(got) != 4 || !slices.Equal(got, want) {
		t.Errorf("descendants = %v, the scan of /proc = %v; want the same four processes", got, want)
	}
	if d := descendants(0, true); d != nil {
		t.Errorf("descendants of pid 0 = %v, want none", d)
	}
}
