package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// launchTimeout bounds the start of Chromium: about a second on an idle machine, over twenty
// seconds on two cores with a load average of fifty.
const launchTimeout = 90 * time.Second

// ChromePath finds the Chromium binary: CHROME_PATH when set, else the first of chromium,
// chromium-browser, google-chrome on PATH.
func ChromePath() (string, error) {
	if p := os.Getenv("CHROME_PATH"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("CHROME_PATH=%s: %w", p, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found: set CHROME_PATH or install it (apt-get install -y chromium)")
}

// instance is one running Chromium. It dies as a whole: when it crashes or hangs, the runner
// drops it and the next replay launches a new one.
type instance struct {
	ctx      context.Context // the chromedp context owning the browser; tabs derive from it
	cancel   context.CancelFunc
	allocEnd context.CancelFunc
	dir      string // profile and cache, removed on close
	pid      int
	lost     <-chan struct{}
	hung     atomic.Bool // the browser let a ping go unanswered
	// single is the one lane of a single-process browser (its default context); nil otherwise.
	single *lane
	// idle are the lanes no replay uses now, for the next replays (see lane).
	lanesMu sync.Mutex
	idle    []*lane
}

// alive reports whether the connection to the browser still stands and the browser answered
// every ping so far.
func (in *instance) alive() bool {
	if in.hung.Load() {
		return false
	}
	select {
	case <-in.lost:
		return false
	case <-in.ctx.Done():
		return false
	default:
		return true
	}
}

// answers pings the browser itself, apart from any tab. A browser that does not answer within
// timeout is marked hung, so the runner replaces it and no later check waits on it again.
func (in *instance) answers(timeout time.Duration) bool {
	if !in.alive() {
		return false
	}
	ctx, cancel := context.WithTimeout(in.ctx, timeout)
	defer cancel()
	if _, err := cdp.Call(ctx, chromedp.FromContext(in.ctx).Browser, browser.GetVersion, cdp.Empty{}); err != nil {
		in.hung.Store(true)
		return false
	}
	return true
}

func (in *instance) close() {
	in.cancel()
	in.allocEnd()
	_ = os.RemoveAll(in.dir)
}

// launch starts Chromium with flags that work both in Lambda and on a developer machine: no
// sandbox (Lambda has no user namespaces), no GPU, /tmp instead of a small /dev/shm, and none of
// the background traffic (component updates, sync, QUIC probes) that a sandboxed network
// refuses noisily. The profile and cache live in a temp dir that close removes.
func launch(opts Options) (*instance, error) {
	path, err := ChromePath()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "gardener-chromium-")
	if err != nil {
		return nil, fmt.Errorf("creating the Chromium profile dir: %w", err)
	}
	flags := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		// Replays are bound by CPU on a small machine, and these three cost CPU for nothing a
		// replay uses: a GPU process of its own (there is no GPU; the compositor runs as a
		// thread instead), a spare renderer started ahead of every navigation, and pages kept
		// alive for a back button no step presses. Together they took the demo's nine-test
		// suite from 14.4-15.1 s to 12.2-12.4 s (BenchmarkSuite, interleaved runs).
		// disable-features replaces chromedp's default list, so that list is repeated here.
		chromedp.Flag("in-process-gpu", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,SpareRendererForSitePerProcess,BackForwardCache"),
		chromedp.Flag("disk-cache-dir", filepath.Join(dir, "cache")),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(1280, 800),
	)
	if opts.SingleProcess {
		flags = append(flags, chromedp.Flag("single-process", true), chromedp.Flag("no-zygote", true))
	}
	allocCtx, allocEnd := chromedp.NewExecAllocator(context.Background(), flags...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	// The first Run ties the browser's life to its context, so it cannot carry a deadline; a
	// watchdog ends a start that hangs instead.
	watchdog := time.AfterFunc(launchTimeout, cancel)
	err = chromedp.Do(ctx)
	stopped := watchdog.Stop()
	if err != nil || !stopped {
		cancel()
		allocEnd()
		_ = os.RemoveAll(dir)
		if err == nil {
			err = fmt.Errorf("no answer after %s", launchTimeout)
		}
		return nil, fmt.Errorf("starting Chromium (%s): %w", path, err)
	}
	b := chromedp.FromContext(ctx).Browser
	in := &instance{ctx: ctx, cancel: cancel, allocEnd: allocEnd, dir: dir, lost: b.LostConnection}
	if p := b.Process(); p != nil {
		in.pid = p.Pid
	}
	if opts.SingleProcess {
		in.single = newLane("")
	}
	return in, nil
}
