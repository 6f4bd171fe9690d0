package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

// chrome is the one Chromium the package's browser tests share; each test opens its own
// browser context (its own cookies) in it. runner is the one the stacks the tests serve replay
// in (each replay in a browser context of its own): it starts on the first replay, so a run of
// tests that replay nothing starts no second Chromium, and the tests that do start one between
// them rather than one each.
var (
	chrome        context.Context
	chromeMissing string
	axeJS         string
	runner        = browser.New(browser.Options{})
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	defer runner.Close()
	path, err := browser.ChromePath()
	if err != nil {
		chromeMissing = err.Error()
		fmt.Fprintln(os.Stderr, "SKIPPING the console's browser tests: "+chromeMissing)
		return m.Run()
	}
	b, err := os.ReadFile("../browser/axe/axe.min.js")
	if err != nil {
		fmt.Fprintln(os.Stderr, "reading the vendored axe-core:", err)
		os.Exit(1)
	}
	axeJS = string(b)
	dir, err := os.MkdirTemp("", "console-chromium-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	flags := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(dir), chromedp.WindowSize(1280, 900))
	alloc, allocEnd := chromedp.NewExecAllocator(context.Background(), flags...)
	ctx, cancel := chromedp.NewContext(alloc)
	if err := chromedp.Do(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "starting Chromium:", err)
		os.Exit(1)
	}
	chrome = ctx
	code := m.Run()
	cancel()
	allocEnd()
	_ = os.RemoveAll(dir)
	return code
}

// tab is one browser context (fresh cookies) in the shared Chromium, at the given width.
type tab struct {
	t   testing.TB
	ctx context.Context
	// base is the console's server.
	base string
}

func newTab(t testing.TB, base string, width int) *tab {
	t.Helper()
	if chromeMissing != "" {
		t.Skipf("no Chromium (%s); install it with: apt-get install -y chromium", chromeMissing)
	}
	ctx, cancel := chromedp.NewContext(chrome, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	tb := &tab{t: t, ctx: ctx, base: base}
	// The first run opens the tab and ties it to ctx, so it carries no deadline.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	// The pages' Content-Security-Policy would stop an injected script on its own; it is
	// bypassed here so the XSS checks prove the escaping, and so axe can be loaded.
	tb.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true})
		return err
	}), chromedp.EmulateViewport(int64(width), 900))
	return tb
}

// do runs actions with a bound, failing the test on an error.
func (tb *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatalf("browser: %v", err)
	}
}

// value runs an action that answers a value.
func value[T any](tb *tab, a chromedp.Action[T]) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		tb.t.Fatalf("browser: %v", err)
	}
	return v
}

// open loads a console path and waits for its main landmark.
func (tb *tab) open(path string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(tb.base+path), chromedp.WaitReady(chromedp.CSS("main")))
}

// click clicks the element and waits for the page it leads to: the old page is marked, and
// the new one is the first complete document without the mark.
func (tb *tab) click(sel string) {
	tb.t.Helper()
	value(tb, chromedp.Evaluate[bool](`window.__old = true`))
	tb.do(clickAction(sel))
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Second)
		ready, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!window.__old && document.readyState === "complete" && !!document.querySelector("main")`))
		cancel()
		if err == nil && ready {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.t.Fatalf("clicking %s led to no new page", sel)
}

// clickAction clicks an element that does not leave the page.
func clickAction(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)
}

func (tb *tab) text(sel string) string {
	tb.t.Helper()
	return value(tb, chromedp.Text(chromedp.CSS(sel)))
}

func (tb *tab) url() string {
	return value(tb, chromedp.Evaluate[string](`location.pathname + location.search`))
}

// signIn signs in through the development form, starting from path.
func (tb *tab) signIn(path, email, projects string) {
	tb.t.Helper()
	tb.open(path)
	if !strings.HasPrefix(tb.url(), "/console/signin") {
		tb.t.Fatalf("opening %s signed out went to %s, want the sign-in page", path, tb.url())
	}
	tb.do(chromedp.SetValue(chromedp.CSS("#email"), email), chromedp.SetValue(chromedp.CSS("#projects"), projects))
	tb.click(`form[action="/console/signin"] button`)
}

// violation is an axe-core finding.
type violation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []string `json:"target"`
	} `json:"nodes"`
}

// audit runs the vendored axe-core on the page and fails the test on any serious or critical
// violation.
func (tb *tab) audit(name string) {
	tb.t.Helper()
	if !value(tb, chromedp.Evaluate[bool](`typeof window.axe === "object"`)) {
		value(tb, chromedp.Evaluate[bool](axeJS+`;true`))
	}
	out := value(tb, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations))`, chromedp.EvalAwaitPromise))
	var vs []violation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		tb.t.Fatalf("axe on %s: %v", name, err)
	}
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			var where []string
			for _, n := range v.Nodes {
				where = append(where, strings.Join(n.Target, " "))
			}
			tb.t.Errorf("axe on %s: %s (%s): %s at %v", name, v.ID, v.Impact, v.Help, where)
		}
	}
}

// serve is the console served by the local stack over a seeded store: the router, the
// development sign-in and the loopback checks of `gardener serve`.
func serve(t testing.TB, w *world) *httptest.Server {
	t.Helper()
	srv, _ := serveStack(t, w, 0)
	return srv
}

// serveStack is serve with the stack (to wait for its executions), its replayed steps bounded
// by stepTimeout (zero: the runner's default; a test whose step fails on purpose waits less).
// The paths the server was asked for are kept in w.asked.
func serveStack(t testing.TB, w *world, stepTimeout time.Duration) (*httptest.Server, *stack.Stack) {
	t.Helper()
	services := handler.Services{Store: w.store, Runner: runner, StepTimeout: stepTimeout,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		}}
	st, err := stack.New(stack.Config{Template: "../../template.yaml", Services: services})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Wait)
	h := st.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.asked.Store(r.URL.Path, true)
		h.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	return srv, st
}
