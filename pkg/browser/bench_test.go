package browser

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// BenchmarkBrowserStart measures a cold Chromium start, a Lambda's init phase.
func BenchmarkBrowserStart(b *testing.B) {
	needBrowser(b)
	for b.Loop() {
		in, err := launch(Options{})
		if err != nil {
			b.Fatal(err)
		}
		in.close()
	}
}

// BenchmarkContextStart measures a replay's fresh browser context and tab, wired for events.
func BenchmarkContextStart(b *testing.B) {
	r := needBrowser(b)
	in, err := r.instance()
	if err != nil {
		b.Fatal(err)
	}
	gate, _ := newOriginGate("http://127.0.0.1", nil)
	for b.Loop() {
		tabCtx, cancel := chromedp.NewContext(in.ctx, chromedp.WithNewBrowserContext())
		if err := newSession(in, tabCtx, r.opts, gate).open(); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
}

// BenchmarkStep measures one step of each kind on an open page, excluding the goto that
// opens it; the figure is the step's own record (ms/step) averaged over the iterations.
func BenchmarkStep(b *testing.B) {
	r := needBrowser(b)
	srv := fixture(b)
	kinds := []struct{ name, step string }{
		{"goto", `{"kind":"goto","url":"/dashboard.html"}`},
		{"click", `{"kind":"click","locator":"#save"}`},
		{"fill", `{"kind":"fill","locator":"#search","value":"kiwi"}`},
		{"select", `{"kind":"select","locator":"#country","value":"France"}`},
		{"check", `{"kind":"check","locator":"#terms"}`},
		{"press", `{"kind":"press","locator":"#search","key":"Enter"}`},
		{"hover", `{"kind":"hover","locator":"text=More"}`},
		{"assert-text", `{"kind":"assert","assert":"text","locator":"#total","condition":"equals","expected":"42.50"}`},
		{"assertVisible-role", `{"kind":"assertVisible","locator":"role=button[name=\"Save\"]"}`},
		{"assertHidden", `{"kind":"assertHidden","locator":"#modal"}`},
		{"assertToast", `{"kind":"click","locator":"#save"},{"kind":"assertToast","text":"Order saved"}`},
		{"assertConsole", `{"kind":"assertConsole","level":"error","pattern":"x","expect":"noMatch"}`},
		{"a11yAudit", `{"kind":"a11yAudit","reportOnly":true}`},
		{"wait-element", `{"kind":"wait","for":"element","locator":"#save"}`},
		{"screenshot", `{"kind":"screenshot"}`},
		{"extract", `{"kind":"extract","locator":"#total","variable":"t"}`},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			st := steps(b, `[{"kind":"goto","url":"/dashboard.html"},`+k.step+`]`)
			var total time.Duration
			for b.Loop() {
				rep := replayOK(b, r, srv.URL, st, gardener.ReplayOptions{})
				if !rep.Result.Passed {
					b.Fatal(rep.Result.Message)
				}
				last := rep.Result.Steps[len(rep.Result.Steps)-1]
				total += time.Duration(last.Millis) * time.Millisecond
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/step")
		})
	}
}

// BenchmarkReplay replays the demo app's checkout test on the baseline and reports the peak
// resident memory of the browser's process tree during the replay.
func BenchmarkReplay(b *testing.B) {
	r := needBrowser(b)
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
	if err := r.Start(); err != nil {
		b.Fatal(err)
	}
	var peak int64
	for b.Loop() {
		app.Reset()
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if rss := treeRSS(r.BrowserPID()); rss > peak {
					peak = rss
				}
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		rep, err := r.Replay(context.Background(), checkout, gardener.ReplayOptions{BaseURL: srv})
		close(done)
		wg.Wait()
		if err != nil || !rep.Result.Passed {
			b.Fatalf("%v %s", err, rep.Result.Message)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peakRSS-MiB")
}

func startDemo(b *testing.B, app *demoapp.App) string {
	srv := httptest.NewServer(app.Handler())
	b.Cleanup(srv.Close)
	return srv.URL
}

// treeRSS sums VmRSS over pid and all its descendants, read from /proc.
func treeRSS(pid int) int64 {
	if pid == 0 {
		return 0
	}
	children := map[int][]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// The command name may hold spaces; the fields after its closing paren are fixed.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		p, _ := strconv.Atoi(strings.Fields(s)[0])
		children[ppid] = append(children[ppid], p)
	}
	var total int64
	stack := []int{pid}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		stack = append(stack, children[p]...)
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
				total += n << 10
			}
		}
	}
	return total
}
