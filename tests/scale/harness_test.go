// Package scale drives the local stack of template.yaml (the embedded store, the ASL
// interpreter, the in-process bus) with many projects at once, replaying every test in real
// headless Chromium against small pages served here, and checks what docs/scale.md rests on:
// a staging pass dry-runs at most 10 tests, at most 5 at a time (the Map's MaxConcurrency); the
// scheduled suite replays at most 4 at a time and at most 500 an execution; the replays beyond
// a concurrency limit wait instead of being lost; and every test of every project gets exactly
// one result. BenchmarkScale measures the per-replay wall time and memory the doc's sweep of
// 1,000 projects is computed from.
package scale

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

const templatePath = "../../template.yaml"

// page is each project's app: small, so a replay's cost is the browser's and the stack's, not
// the page's. The project id is in the title so a replay against the wrong origin fails.
const page = `<!doctype html><html><head><title>%s</title></head><body><h1>%s</h1><form><label>Name <input id="name"></label><button id="go" type="button" onclick="document.getElementById('out').textContent='done'">Go</button></form><p id="out"></p></body></html>`

// meter is the runner every function of the stack replays through. It counts the replays
// invoked (a Map branch's Lambda running, whether or not it has a browser yet) per project and
// in all, and when slots is set it lets only that many replay at once, the rest waiting: the
// stand-in for the account's Lambda concurrency, which the local stack does not have.
type meter struct {
	next  gardener.Runner
	slots chan struct{}

	mu            sync.Mutex
	inFlight      map[string]int // per project
	maxPerProject map[string]int
	invoked       int
	maxInvoked    int
	running       int
	maxRunning    int
	waiting       int
	maxWaiting    int
	calls         map[string]int // per test
	errors        int
	walls         []time.Duration
}

func newMeter(next gardener.Runner, slots int) *meter {
	m := &meter{next: next, inFlight: map[string]int{}, maxPerProject: map[string]int{}, calls: map[string]int{}}
	if slots > 0 {
		m.slots = make(chan struct{}, slots)
	}
	return m
}

func (m *meter) Replay(ctx context.Context, t gardener.Test, opts gardener.ReplayOptions) (gardener.Replay, error) {
	m.mu.Lock()
	m.inFlight[t.ProjectID]++
	m.maxPerProject[t.ProjectID] = max(m.maxPerProject[t.ProjectID], m.inFlight[t.ProjectID])
	m.invoked++
	m.maxInvoked = max(m.maxInvoked, m.invoked)
	m.calls[t.ID]++
	m.waiting++
	m.maxWaiting = max(m.maxWaiting, m.waiting)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.inFlight[t.ProjectID]--
		m.invoked--
		m.mu.Unlock()
	}()
	if m.slots != nil {
		select {
		case m.slots <- struct{}{}:
			defer func() { <-m.slots }()
		case <-ctx.Done():
			m.mu.Lock()
			m.waiting--
			m.mu.Unlock()
			return gardener.Replay{}, ctx.Err()
		}
	}
	m.mu.Lock()
	m.waiting--
	m.running++
	m.maxRunning = max(m.maxRunning, m.running)
	m.mu.Unlock()
	start := time.Now()
	rep, err := m.next.Replay(ctx, t, opts)
	wall := time.Since(start)
	m.mu.Lock()
	m.running--
	m.walls = append(m.walls, wall)
	if err != nil {
		m.errors++
	}
	m.mu.Unlock()
	return rep, err
}

// rig is a local stack of template.yaml with its store, the metered runner and the app.
type rig struct {
	stack *stack.Stack
	store *embedded.Store
	meter *meter
	app   *httptest.Server
}

func newRig(tb testing.TB, slots int) *rig {
	tb.Helper()
	if _, err := browser.ChromePath(); err != nil {
		tb.Skipf("SKIP: no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	return newStack(tb, slots)
}

// newStack is the rig without the check for Chromium, for what replays nothing: the runner
// starts a browser only when a function replays.
func newStack(tb testing.TB, slots int) *rig {
	tb.Helper()
	return newStackWith(tb, slots, sharedRunner())
}

// newStackWith is the rig with runner behind the meter instead of the shared browser.
func newStackWith(tb testing.TB, slots int, runner gardener.Runner) *rig {
	tb.Helper()
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.Trim(r.URL.Path, "/")
		fmt.Fprintf(w, page, p, p)
	}))
	tb.Cleanup(app.Close)
	store, err := embedded.Open(filepath.Join(storeDir(tb), "state.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	m := newMeter(runner, slots)
	// The functions log a line per replay; at hundreds of replays that is noise, and a
	// failure is in the results the checks read.
	quiet := slog.New(slog.NewTextHandler(ioDiscard{}, nil))
	s, err := stack.New(stack.Config{Template: templatePath, Log: quiet, Services: handler.Services{Store: store, Runner: m, Log: quiet,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		}}})
	if err != nil {
		tb.Fatalf("the stack does not build from template.yaml: %v", err)
	}
	tb.Cleanup(s.Wait)
	return &rig{stack: s, store: store, meter: m, app: app}
}

// shared is the one browser every rig of the package replays in, as a warm Lambda keeps its
// browser between invocations: launching Chromium is seconds on a busy machine, and the tests
// measure the stack, not the launch (BenchmarkColdStart measures that on its own).
var shared struct {
	once   sync.Once
	runner *browser.Runner
}

func sharedRunner() *browser.Runner {
	shared.once.Do(func() { shared.runner = browser.New(browser.Options{}) })
	return shared.runner
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.runner != nil {
		shared.runner.Close()
	}
	os.Exit(code)
}

// storeDir is where the embedded store's file goes: in memory (/dev/shm) where the machine has
// it, since bbolt syncs each write to disk and seeding hundreds of tests on a busy disk takes
// tens of seconds that measure the disk, not the stack; else the test's temporary directory.
func storeDir(tb testing.TB) string {
	tb.Helper()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "gardener-scale-"); err == nil {
			tb.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return tb.TempDir()
}

type ioDiscard struct{}

func (ioDiscard) Write(p []byte) (int, error) { return len(p), nil }

// seed puts projects × tests in the store: each project a Pro project with the radar on, no
// auto-repair and the built-in model (so a staging pass selects its tests), its app a page of
// its own; each test goes to the page, types a name and clicks. Every test is put at risk.
func (r *rig) seed(tb testing.TB, projects, tests int) {
	tb.Helper()
	r.seedWith(tb, projects, tests, true)
}

func (r *rig) seedWith(tb testing.TB, projects, tests int, atRisk bool) {
	tb.Helper()
	ctx := context.Background()
	loc := func(s string) gardener.Locator {
		l, err := gardener.ParseLocator(s)
		if err != nil {
			tb.Fatal(err)
		}
		return l
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for p := range projects {
		pid := fmt.Sprintf("p%04d", p)
		if err := r.store.PutProject(ctx, gardener.Project{ID: pid, Name: pid, Plan: gardener.PlanPro, Radar: true, Model: "builtin", AllowedOrigins: []string{r.app.URL}}); err != nil {
			tb.Fatal(err)
		}
		var ids []string
		for i := range tests {
			id := fmt.Sprintf("%s-t%03d", pid, i)
			ids = append(ids, id)
			t := gardener.Test{ID: id, ProjectID: pid, Name: id, Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
				{Kind: gardener.Goto, URL: "/" + pid},
				{Kind: gardener.Fill, Locator: loc("#name"), Value: "Ada"},
				{Kind: gardener.Click, Locator: loc("#go"), TimeoutMs: 2000},
				{Kind: gardener.AssertVisible, Locator: loc("#out"), Text: "done", TimeoutMs: 2000},
			}}
			if err := r.store.CreateTest(ctx, t); err != nil {
				tb.Fatal(err)
			}
		}
		if !atRisk {
			continue
		}
		// Each test first seen a minute apart, so "longest at risk first" has one order.
		for i, id := range ids {
			if err := r.store.MarkAtRisk(ctx, pid, []string{id}, at.Add(time.Duration(i)*time.Minute)); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// figures are what one drive measured.
type figures struct {
	replays            int
	wall               time.Duration
	p50, p95, mean     time.Duration
	maxPerProject      int
	maxInvoked         int
	maxRunning         int
	maxWaiting         int
	peakChromiumPSSMB  float64
	peakGoHeapMB       float64
	loadBefore, loadAt string
}

func (r *rig) figures(wall time.Duration, peakPSS, peakHeap int64, loadBefore string) figures {
	m := r.meter
	m.mu.Lock()
	defer m.mu.Unlock()
	f := figures{replays: len(m.walls), wall: wall, maxInvoked: m.maxInvoked, maxRunning: m.maxRunning, maxWaiting: m.maxWaiting,
		peakChromiumPSSMB: float64(peakPSS) / (1 << 20), peakGoHeapMB: float64(peakHeap) / (1 << 20), loadBefore: loadBefore, loadAt: loadavg()}
	for _, n := range m.maxPerProject {
		f.maxPerProject = max(f.maxPerProject, n)
	}
	if len(m.walls) > 0 {
		w := slices.Clone(m.walls)
		slices.Sort(w)
		var sum time.Duration
		for _, d := range w {
			sum += d
		}
		f.mean = sum / time.Duration(len(w))
		f.p50 = w[len(w)/2]
		f.p95 = w[min(len(w)-1, len(w)*95/100)]
	}
	return f
}

func (f figures) String() string {
	return fmt.Sprintf("%d replays in %.1f s: per replay mean %d ms, p50 %d ms, p95 %d ms; at most %d in flight per project, %d invoked at once, %d replaying at once, %d waiting at once; peak Chromium PSS %.0f MB, peak Go heap %.0f MB; load average %s before, %s after",
		f.replays, f.wall.Seconds(), f.mean.Milliseconds(), f.p50.Milliseconds(), f.p95.Milliseconds(), f.maxPerProject, f.maxInvoked, f.maxRunning, f.maxWaiting, f.peakChromiumPSSMB, f.peakGoHeapMB, f.loadBefore, f.loadAt)
}

// sampler samples, until stopped, the proportional memory of this process's Chromium processes
// (PSS, so pages sharing the browser's libraries are not counted twice) and the Go heap.
type sampler struct {
	stop     chan struct{}
	done     chan struct{}
	pss      int64
	heap     int64
	interval time.Duration
}

func sample(interval time.Duration) *sampler {
	s := &sampler{stop: make(chan struct{}), done: make(chan struct{}), interval: interval}
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			s.pss = max(s.pss, descendantsPSS(os.Getpid()))
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			s.heap = max(s.heap, int64(ms.HeapInuse))
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *sampler) end() (pss, heap int64) {
	close(s.stop)
	<-s.done
	return s.pss, s.heap
}

// descendantsPSS sums the Pss of every process below root, read from /proc; 0 off Linux.
func descendantsPSS(root int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold spaces; the fields after it are fixed.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			parent[pid] = pp
		}
	}
	var total int64
	for pid := range parent {
		if pid == root || !below(pid, root, parent) {
			continue
		}
		total += pssOf(pid)
	}
	return total
}

func below(pid, root int, parent map[int]int) bool {
	for range 64 {
		pp, ok := parent[pid]
		if !ok || pp <= 1 {
			return false
		}
		if pp == root {
			return true
		}
		pid = pp
	}
	return false
}

func pssOf(pid int) int64 {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
