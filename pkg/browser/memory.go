package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// memoryWatchInterval is how often the watchdog reads the browser's processes: a page that
// allocates as fast as it can gains a few hundred MB in that time.
const memoryWatchInterval = 200 * time.Millisecond

// memoryTreeEvery is how many of the watchdog's looks reuse the list of the browser's processes
// before it walks their tree again. Walking it reads a file per thread of every process it
// walks into (the browser process alone has dozens of threads): done at every look it was
// more than half of the CPU a replaying test process spent (e2e drift variants: 4.8 of
// 8.3 s), while reading the memory of known processes is one small file each. A page started
// since the last walk is watched within a second; the JavaScript heap limit holds it
// meanwhile.
const memoryTreeEvery = 5

// watchMemory kills any process of the browser whose resident memory passes limitMB, until
// stop closes. The JavaScript heap limit stops a page that fills its heap, but not one that
// allocates outside it (array buffers, canvases, images, DOM); this catches those. Only the
// pages' processes are candidates, since killing the browser process would end every replay
// at once -- except in a single-process browser, where the page lives in the browser process
// and the browser goes with it (the runner relaunches it). A killed renderer ends its replay as
// a browser crash, and the note says why.
func (in *instance) watchMemory(limitMB int, single bool, stop <-chan struct{}) {
	limit := int64(limitMB) << 20
	page := os.Getpagesize()
	t := time.NewTicker(memoryWatchInterval)
	defer t.Stop()
	var pids []int
	for look := 0; ; look++ {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if look%memoryTreeEvery == 0 {
			pids = walkTree(in.pid, single, startsProcesses)
		}
		for _, pid := range pids {
			rss := residentBytes(pid, page)
			if rss <= limit {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				in.memoryNote.Store(fmt.Sprintf("the browser's memory watchdog killed a page's process at %d MiB, over the limit of %d MiB", rss>>20, limitMB))
				in.memoryKills.Add(1)
			}
		}
	}
}

// descendants lists the processes under pid (pid itself too when withRoot), all of them.
func descendants(pid int, withRoot bool) []int {
	return walkTree(pid, withRoot, func(int) bool { return true })
}

// walkTree lists the processes under pid (pid itself too when withRoot), looking for children
// only under the processes forks says may have some. It walks the tree down from pid through
// /proc/<pid>/task/<tid>/children, reading only the browser's own processes: scanning every
// process of a busy host, as the watchdog once did five times a second, cost more CPU than the
// replays it watched. On a kernel without those files it scans /proc instead.
func walkTree(pid int, withRoot bool, forks func(pid int) bool) []int {
	if pid == 0 {
		return nil
	}
	var out []int
	if withRoot {
		out = append(out, pid)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)); err != nil {
		return append(out, scanDescendants(pid)...)
	}
	stack := childrenOf(pid)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, p)
		if forks(p) {
			stack = append(stack, childrenOf(p)...)
		}
	}
	return out
}

// startsProcesses reports whether a process of the browser may start others: the browser
// itself and its zygotes do; a renderer or a utility process (--type= anything else) does not.
// Finding a process's children reads a file per thread, and a renderer has a dozen or more:
// walking into every page's process made the walk, once a second, two thirds of the CPU the
// test process spent in BenchmarkSuite (13.9 of 20.9 s sampled). A process whose command line
// cannot be read is walked into.
func startsProcesses(pid int) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return true
	}
	// Chromium rewrites its processes' titles, arguments joined by spaces or by NULs.
	_, typ, ok := strings.Cut(string(cmdline), "--type=")
	return !ok || strings.HasPrefix(typ, "zygote")
}

// childrenOf lists the children of every thread of pid; none when pid is gone.
func childrenOf(pid int) []int {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(data)) {
			if c, err := strconv.Atoi(field); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// scanDescendants finds the processes under pid from every process's parent in /proc.
func scanDescendants(pid int) []int {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// The command name may hold spaces and parens; the fields after the last paren are fixed.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		ppid, err1 := strconv.Atoi(fields[1])
		p, err2 := strconv.Atoi(strings.Fields(s)[0])
		if err1 == nil && err2 == nil {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	stack := append([]int(nil), children[pid]...)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, p)
		stack = append(stack, children[p]...)
	}
	return out
}

// residentBytes is the resident memory of a process, from /proc/<pid>/statm; 0 when gone.
func residentBytes(pid, page int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(f[1], 10, 64)
	return n * int64(page)
}
