package browser

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
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

// TestWatchdogWalkSeesEveryPageProcess: the watchdog's walk, which does not look for children
// under renderers and utility processes, finds every process of the browser the full walk
// finds, the renderer of an open page among them.
func TestWatchdogWalkSeesEveryPageProcess(t *testing.T) {
	r := needBrowser(t)
	t.Parallel()
	srv := fixture(t)
	pid := start(t, r)
	var watched, all []int
	renderer := false
	rep := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/dashboard.html"},{"kind":"assertVisible","locator":"#save"}]`), gardener.ReplayOptions{OnStep: func(rec gardener.StepRecord) {
		if rec.Path != "1" {
			return
		}
		// Other tests' tabs open and close meanwhile: compare two walks taken back to back
		// until they agree.
		for try := 0; try < 20; try++ {
			watched, all = walkTree(pid, false, startsProcesses), descendants(pid, false)
			slices.Sort(watched)
			slices.Sort(all)
			if slices.Equal(watched, all) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, p := range watched {
			if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); err == nil && strings.Contains(string(cmd), "--type=renderer") {
				renderer = true
			}
		}
	}})
	if !rep.Result.Passed {
		t.Fatalf("replay failed: %s", rep.Result.Message)
	}
	if !slices.Equal(watched, all) {
		t.Errorf("the watchdog's walk found %v, the full walk %v; want the same processes", watched, all)
	}
	if !renderer {
		t.Errorf("the watchdog's walk found no renderer among %v while a page was open", watched)
	}
}
