package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// benchModes are the two ways the runner runs Chromium: browser contexts reused as lanes, a
// tab per replay (the default), and one process with one context the replays take turns in
// (the Lambda image).
var benchModes = []struct {
	name string
	opts Options
}{{"lanes", Options{}}, {"single-process", Options{SingleProcess: true}}}

// BenchmarkBrowserStart measures a cold Chromium start, a Lambda's init phase: launch until the
// browser answers. Stopping it is not part of a start and is left out of the time.
func BenchmarkBrowserStart(b *testing.B) {
	needBrowser(b)
	for _, m := range benchModes {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				in, err := launch(New(m.opts).opts)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				in.close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkContextStart measures what every replay pays around its steps: a tab wired for
// events, the first page loaded in it (the demo's login page: most of the difference is there,
// in the renderers a new context starts), then the tab done with. "lane" is what the runner
// does, the tab of a browser context that earlier replays used, cleared of what they left and
// taken back to a blank page after the load; "new-context"
// is the way the runner no longer goes, a new context with its window per replay, kept for the
// ratio. machine-cpu-ms/op is the whole machine's busy time, so it means something only on a
// quiet machine.
func BenchmarkContextStart(b *testing.B) {
	r := needBrowser(b)
	in, err := r.instance()
	if err != nil {
		b.Fatal(err)
	}
	srv := startDemo(b, demoapp.New())
	gate, _ := newOriginGate(srv, nil)
	open := func(tabCtx context.Context) *session {
		s := newSession(in, tabCtx, r.opts, gate)
		if err := s.open(); err != nil {
			b.Fatal(err)
		}
		return s
	}
	load := func(tabCtx context.Context) {
		if err := chromedp.Do(tabCtx, chromedp.Navigate(srv+"/login")); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("lane", func(b *testing.B) {
		l, err := in.takeLane(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer in.giveBack(l, false)
		if err := l.openTab(in.ctx, context.Background()); err != nil {
			b.Fatal(err)
		}
		cpu := machineCPU()
		for b.Loop() {
			tabCtx, cancel := context.WithCancel(l.tab)
			s := open(tabCtx)
			if err := l.clear(tabCtx, s.tgt, chromedp.FromContext(in.ctx).Browser); err != nil {
				b.Fatal(err)
			}
			load(tabCtx)
			l.loaded([]string{srv})
			if err := l.reset(s.tgt); err != nil {
				b.Fatal(err)
			}
			cancel()
		}
		b.ReportMetric((machineCPU()-cpu).Seconds()*1000/float64(b.N), "machine-cpu-ms/op")
	})
	b.Run("new-context", func(b *testing.B) {
		cpu := machineCPU()
		for b.Loop() {
			tabCtx, cancel := chromedp.NewContext(in.ctx, chromedp.WithNewBrowserContext())
			if _, err := wireTab(tabCtx); err != nil {
				b.Fatal(err)
			}
			open(tabCtx)
			load(tabCtx)
			cancel()
		}
		b.ReportMetric((machineCPU()-cpu).Seconds()*1000/float64(b.N), "machine-cpu-ms/op")
	})
}

// BenchmarkSuite replays the demo's saved tests on the baseline app four at a time, as the
// demo's scheduled suite does: the figure the demo's time follows. Each iteration replays the
// suite twice, once in a browser whose every request goes through the gate proxy (the product)
// and once in one started without it (the tab's own gate alone deciding), in alternating order
// so that a change in the machine's load falls on both: proxy-s/op and no-proxy-s/op are the
// two suite times, proxy-ratio what the proxy costs (their ratio), machine-cpu-s/op the whole
// machine's busy time per iteration (see BenchmarkContextStart).
//
// The CPU a replay costs is measured apart from the machine's load: browser-cpu-ms/replay is
// the CPU time of the product browser's process tree (exited processes included, see treeCPU)
// per replay, go-cpu-ms/replay the test process's own (the runner, its proxies and the demo
// app, for both browsers) per replay of either.
func BenchmarkSuite(b *testing.B) {
	needBrowser(b)
	app := demoapp.New()
	srv := startDemo(b, app)
	saved, err := demoapp.Tests()
	if err != nil {
		b.Fatal(err)
	}
	withProxy := New(Options{StepTimeout: 10 * time.Second})
	noProxy := New(Options{StepTimeout: 10 * time.Second, noGateProxy: true})
	b.Cleanup(func() { _ = withProxy.Close(); _ = noProxy.Close() })
	start(b, withProxy)
	start(b, noProxy)
	suite := func(r *Runner) time.Duration {
		began := time.Now()
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for _, t := range saved {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				rep, err := r.Replay(context.Background(), t, gardener.ReplayOptions{BaseURL: srv, AllowedOrigins: []string{srv}})
				if err != nil || !rep.Result.Passed {
					b.Errorf("%s: %v %s", t.ID, err, rep.Result.Message)
				}
			}()
		}
		wg.Wait()
		return time.Since(began)
	}
	// One suite in each first, unmeasured: the lanes are opened then, as in a warm container.
	suite(withProxy)
	suite(noProxy)
	var proxied, direct time.Duration
	cpu, goCPU := machineCPU(), processCPU()
	treeBefore := treeCPU(start(b, withProxy))
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			proxied += suite(withProxy)
			direct += suite(noProxy)
		} else {
			direct += suite(noProxy)
			proxied += suite(withProxy)
		}
		n++
	}
	b.ReportMetric(proxied.Seconds()/float64(n), "proxy-s/op")
	b.ReportMetric(direct.Seconds()/float64(n), "no-proxy-s/op")
	b.ReportMetric(proxied.Seconds()/direct.Seconds(), "proxy-ratio")
	b.ReportMetric((machineCPU()-cpu).Seconds()/float64(n), "machine-cpu-s/op")
	replays := float64(n * len(saved))
	b.ReportMetric((treeCPU(start(b, withProxy))-treeBefore).Seconds()*1000/replays, "browser-cpu-ms/replay")
	b.ReportMetric((processCPU()-goCPU).Seconds()*1000/(2*replays), "go-cpu-ms/replay")
}

// treeCPU is the CPU time, user and system, that pid and its descendants have spent: each live
// process's own, and that of the children it has reaped (a renderer that exited counts in its
// parent's), read from /proc/<pid>/stat.
func treeCPU(pid int) time.Duration {
	var ticks int64
	for _, p := range descendants(pid, true) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		// utime, stime, cutime and cstime are the 14th to 17th fields; fields[0] is the 3rd.
		for _, f := range fields[11:15] {
			n, _ := strconv.ParseInt(f, 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// processCPU is the CPU time, user and system, the test process itself has spent.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineCPU is the time the machine's CPUs have been busy since boot (from /proc/stat: user,
// nice, system, irq and softirq).
func machineCPU() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7} {
		if i < len(fields) {
			n, _ := strconv.ParseInt(fields[i], 10, 64)
			ticks += n
		}
	}
	// The kernel reports in USER_HZ, 100 on every Linux this runs on.
	return time.Duration(ticks) * 10 * time.Millisecond
}

// benchSteps are the steps BenchmarkStep measures, one a step kind, assert subject or wait
// target: each on page (default /dashboard.html of the fixture) after the setup steps it needs.
var benchSteps = []benchStep{
	{"goto", "", "", `{"kind":"goto","url":"/dashboard.html"}`},
	{"click", "", "", `{"kind":"click","locator":"#save"}`},
	{"fill", "", "", `{"kind":"fill","locator":"#search","value":"kiwi"}`},
	{"select", "", "", `{"kind":"select","locator":"#country","value":"France"}`},
	{"check", "", "", `{"kind":"check","locator":"#terms"}`},
	{"uncheck", "", `{"kind":"check","locator":"#terms"}`, `{"kind":"uncheck","locator":"#terms"}`},
	{"press", "", "", `{"kind":"press","locator":"#search","key":"Enter"}`},
	{"hover", "", "", `{"kind":"hover","locator":"text=More"}`},
	{"assert-url", "", "", `{"kind":"assert","assert":"url","condition":"contains","expected":"/dashboard"}`},
	{"assert-title", "", "", `{"kind":"assert","assert":"title","condition":"contains","expected":"Dashboard"}`},
	{"assert-text", "", "", `{"kind":"assert","assert":"text","locator":"#total","condition":"equals","expected":"42.50"}`},
	{"assert-value", "", `{"kind":"fill","locator":"#search","value":"kiwi"}`, `{"kind":"assert","assert":"value","locator":"#search","condition":"equals","expected":"kiwi"}`},
	{"assert-variable", "", `{"kind":"extract","locator":"#total","variable":"t"}`, `{"kind":"assert","assert":"variable","actual":"${t}","condition":"equals","expected":"42.50"}`},
	{"assertVisible-role", "", "", `{"kind":"assertVisible","locator":"role=button[name=\"Save\"]"}`},
	{"assertHidden", "", "", `{"kind":"assertHidden","locator":"#modal"}`},
	{"assertToast", "", `{"kind":"click","locator":"#save"}`, `{"kind":"assertToast","text":"Order saved"}`},
	{"assertModal", "", `{"kind":"click","locator":"text=Delete order"}`, `{"kind":"assertModal","text":"Really delete?"}`},
	{"assertValidationError", "/login.html", `{"kind":"fill","locator":"label=Email","value":"nope"},{"kind":"click","locator":"testid=login-submit"}`, `{"kind":"assertValidationError","locator":"label=Email","text":"valid email"}`},
	{"assertConsole", "", "", `{"kind":"assertConsole","level":"error","pattern":"x","expect":"noMatch"}`},
	{"assertRequest", "", `{"kind":"click","locator":"#post"}`, `{"kind":"assertRequest","method":"POST","urlPattern":"/api/orders$","status":201}`},
	{"a11yAudit", "", "", `{"kind":"a11yAudit","reportOnly":true}`},
	{"wait-element", "", "", `{"kind":"wait","for":"element","locator":"#save"}`},
	{"wait-url", "", "", `{"kind":"wait","for":"url","url":"/dashboard"}`},
	{"screenshot", "", "", `{"kind":"screenshot"}`},
	{"extract", "", "", `{"kind":"extract","locator":"#total","variable":"t"}`},
	{"intent", "", "", `{"kind":"intent","goal":"search","steps":[{"kind":"fill","locator":"#search","value":"fig"},{"kind":"press","locator":"#search","key":"Enter"}]}`},
}

type benchStep struct{ name, page, setup, step string }

// steps is the replay of a benchStep: open its page, set up, then the measured step last.
func (k benchStep) steps(tb testing.TB) []gardener.Step {
	page := k.page
	if page == "" {
		page = "/dashboard.html"
	}
	list := `[{"kind":"goto","url":"` + page + `"},`
	if k.setup != "" {
		list += k.setup + ","
	}
	return steps(tb, list+k.step+`]`)
}

// BenchmarkStep measures one step of each kind, and of each assert subject and wait target, on
// an open page. Each iteration is a whole replay (the steps before the measured one set the page
// up); ms/step is the measured step alone, from the moment the step before it was recorded to
// the moment it was, taken to the microsecond because many steps take about a millisecond.
func BenchmarkStep(b *testing.B) {
	needBrowser(b)
	srv := fixture(b)
	// times holds when each step of the replay in progress was recorded, by path.
	var mu sync.Mutex
	times := map[string]time.Time{}
	r := New(Options{StepTimeout: 10 * time.Second, OnStep: func(_ string, rec gardener.StepRecord) {
		mu.Lock()
		times[rec.Path] = time.Now()
		mu.Unlock()
	}})
	b.Cleanup(func() { r.Close() })
	start(b, r)
	for _, k := range benchSteps {
		b.Run(k.name, func(b *testing.B) {
			st := k.steps(b)
			last, before := strconv.Itoa(len(st)), strconv.Itoa(len(st)-1)
			var total time.Duration
			for b.Loop() {
				mu.Lock()
				clear(times)
				mu.Unlock()
				rep := replayOK(b, r, srv.URL, st, gardener.ReplayOptions{})
				if !rep.Result.Passed {
					b.Fatal(rep.Result.Message)
				}
				mu.Lock()
				total += times[last].Sub(times[before])
				mu.Unlock()
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/step")
		})
	}
}

// BenchmarkReplay replays the demo app's checkout test (22 steps) on the baseline, in each mode:
// the time of one full replay, context start included, and the CPU it costs the browser's
// process tree (browser-cpu-ms/op, see treeCPU) and the test process (go-cpu-ms/op), apart
// from the machine's load. After the timed replays, one more replay
// is watched for the peak memory of the browser's process tree: summed RSS counts the pages
// Chromium's processes share once per process, so it overstates; summed PSS splits each shared
// page among the processes that map it and is the footprint a Lambda's memory limit sees.
func BenchmarkReplay(b *testing.B) {
	needBrowser(b)
	app := demoapp.New()
	srv := startDemo(b, app)
	saved, err := demoapp.Tests()
	if err != nil {
		b.Fatal(err)
	}
	var checkout gardener.Test
	for _, t := range saved {
		if t.ID == "checkout" {
			checkout = t
		}
	}
	for _, m := range benchModes {
		b.Run(m.name, func(b *testing.B) {
			r := New(m.opts)
			defer r.Close()
			pid := start(b, r)
			replayCheckout := func() {
				app.Reset()
				rep, err := r.Replay(context.Background(), checkout, gardener.ReplayOptions{BaseURL: srv})
				if err != nil || !rep.Result.Passed {
					b.Fatalf("%v %s", err, rep.Result.Message)
				}
			}
			replayCheckout() // the lane is opened then, as in a warm container
			tree, goCPU := treeCPU(pid), processCPU()
			for b.Loop() {
				replayCheckout()
			}
			b.ReportMetric((treeCPU(pid)-tree).Seconds()*1000/float64(b.N), "browser-cpu-ms/op")
			b.ReportMetric((processCPU()-goCPU).Seconds()*1000/float64(b.N), "go-cpu-ms/op")
			// The watch reads /proc every 20ms; it runs apart from the timed replays so its own
			// cost does not show in their time.
			var peakRSS, peakPSS int64
			done := make(chan struct{})
			watched := make(chan struct{})
			go func() {
				defer close(watched)
				for {
					rss, pss := treeMemory(pid)
					peakRSS, peakPSS = max(peakRSS, rss), max(peakPSS, pss)
					select {
					case <-done:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}()
			replayCheckout()
			close(done)
			<-watched
			b.ReportMetric(float64(peakRSS)/(1<<20), "peakRSS-MiB")
			b.ReportMetric(float64(peakPSS)/(1<<20), "peakPSS-MiB")
		})
	}
}

func startDemo(b *testing.B, app *demoapp.App) string {
	srv := httptest.NewServer(app.Handler())
	b.Cleanup(srv.Close)
	return srv.URL
}

// treeMemory sums RSS and PSS over pid and all its descendants, read from /proc.
func treeMemory(pid int) (rss, pss int64) {
	for _, p := range descendants(pid, true) {
		// smaps_rollup has both figures for the whole process in one read.
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p))
		if err != nil {
			continue
		}
		rss += kbField(string(data), "Rss:")
		pss += kbField(string(data), "Pss:")
	}
	return rss, pss
}

// kbField reads a "Name:   123 kB" line of a /proc file, in bytes.
func kbField(data, name string) int64 {
	for _, line := range strings.Split(data, "\n") {
		if v, ok := strings.CutPrefix(line, name); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}

// memoryBombs allocate without end, as fast as a page can: JavaScript arrays, in the heap, and
// array buffers, outside it.
var memoryBombs = map[string]string{
	"heap":    `<!doctype html><title>bomb</title><p id="x">x</p><script>const keep = []; (function grow() { for (let i = 0; i < 50; i++) keep.push(new Array(100000).fill(Math.random())); setTimeout(grow, 0) })()</script>`,
	"buffers": `<!doctype html><title>bomb</title><p id="x">x</p><script>const keep = []; (function grow() { keep.push(new Uint8Array(64 << 20).fill(1)); setTimeout(grow, 0) })()</script>`,
}

// BenchmarkMemoryBomb replays a page that allocates without end and reports the peak memory of
// the browser's process tree meanwhile (see BenchmarkReplay for RSS and PSS) and the time the
// replay took to end, with how it ended in the log: the JavaScript heap limit (Options.JSHeapMB)
// and the memory watchdog (Options.MemoryLimitMB) hold the page far below what the host has.
// Run with -benchtime 1x.
func BenchmarkMemoryBomb(b *testing.B) {
	needBrowser(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, memoryBombs[r.URL.Query().Get("bomb")]) }))
	b.Cleanup(srv.Close)
	for _, m := range benchModes {
		for _, bomb := range []string{"heap", "buffers"} {
			b.Run(m.name+"/"+bomb, func(b *testing.B) {
				st := steps(b, `[{"kind":"goto","url":"/?bomb=`+bomb+`"},{"kind":"wait","for":"time","ms":3000},{"kind":"assertVisible","locator":"#x"}]`)
				r := New(m.opts)
				defer r.Close()
				pid := start(b, r)
				var peakRSS, peakPSS int64
				var took time.Duration
				for b.Loop() {
					done := make(chan struct{})
					watched := make(chan struct{})
					go func() {
						defer close(watched)
						for {
							rss, pss := treeMemory(pid)
							peakRSS, peakPSS = max(peakRSS, rss), max(peakPSS, pss)
							select {
							case <-done:
								return
							case <-time.After(20 * time.Millisecond):
							}
						}
					}()
					began := time.Now()
					rep, err := r.Replay(context.Background(), gardener.Test{ID: "bomb", Steps: st}, gardener.ReplayOptions{BaseURL: srv.URL})
					took = time.Since(began)
					close(done)
					<-watched
					if err != nil {
						b.Fatal(err)
					}
					b.Logf("%s: %s %s; peak RSS %d MiB, PSS %d MiB, %s", bomb, rep.Result.ErrorKind, rep.Result.Message, peakRSS>>20, peakPSS>>20, took)
					// The next iteration needs the browser the crash may have taken down.
					pid = start(b, r)
				}
				b.ReportMetric(float64(peakRSS)/(1<<20), "peakRSS-MiB")
				b.ReportMetric(float64(peakPSS)/(1<<20), "peakPSS-MiB")
				b.ReportMetric(took.Seconds(), "s-to-end")
			})
		}
	}
}

// BenchmarkReplayOverhead replays a short test (a goto, a click, a check) one replay after
// another in one lane, the cost each replay pays around its steps being the larger share: the
// tab opened and wired, the lane cleared, the tab closed. browser-cpu-ms/op is the CPU of the
// browser's own process (where tabs, contexts and the DevTools protocol are served), tree-cpu-ms/op
// that of its whole process tree (renderers, zygote, utilities, see treeCPU), go-cpu-ms/op the
// test process's.
func BenchmarkReplayOverhead(b *testing.B) {
	needBrowser(b)
	srv := fixture(b)
	r := New(Options{StepTimeout: 10 * time.Second})
	b.Cleanup(func() { r.Close() })
	pid := start(b, r)
	st := steps(b, `[{"kind":"goto","url":"/dashboard.html"},{"kind":"click","locator":"#save"},{"kind":"assertVisible","locator":"#total"}]`)
	replayOK(b, r, srv.URL, st, gardener.ReplayOptions{}) // the lane opens then
	own, tree, goCPU := ownCPU(pid), treeCPU(pid), processCPU()
	for b.Loop() {
		if rep := replayOK(b, r, srv.URL, st, gardener.ReplayOptions{}); !rep.Result.Passed {
			b.Fatal(rep.Result.Message)
		}
	}
	b.ReportMetric((ownCPU(pid)-own).Seconds()*1000/float64(b.N), "browser-cpu-ms/op")
	b.ReportMetric((treeCPU(pid)-tree).Seconds()*1000/float64(b.N), "tree-cpu-ms/op")
	b.ReportMetric((processCPU()-goCPU).Seconds()*1000/float64(b.N), "go-cpu-ms/op")
}

// ownCPU is the CPU time, user and system, of process pid alone, its children left out.
func ownCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	var ticks int64
	for _, f := range fields[11:13] {
		n, _ := strconv.ParseInt(f, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
