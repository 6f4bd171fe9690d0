package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/driftgardener/gardener/pkg/ownedtemp"
)

// launchTimeout bounds the start of Chromium: about a second on an idle machine, over twenty
// seconds on two cores with a load average of fifty.
const launchTimeout = 90 * time.Second

// ChromePath finds the Chromium binary: CHROME_PATH when set (as it is), else the first of
// chromium, chromium-browser, google-chrome on PATH. When what PATH finds is a distribution's launcher
// script and the binary it starts is installed, the binary is returned instead: Debian's
// /usr/bin/chromium sources /etc/chromium.d, whose dev-shm check is a shell test that fails to
// parse when findmnt prints two values for /dev/shm (a stacked mount), and the launch fails
// ("[: …: unexpected operator"). The runner passes every flag those scripts add that matters
// headless (--disable-dev-shm-usage among them), so nothing is lost by going around them.
func ChromePath() (string, error) {
	if p := os.Getenv("CHROME_PATH"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("CHROME_PATH=%s: %w", p, err)
		}
		return p, nil // asked for by name: used as it is, launcher or not
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return behindLauncher(p, launcherTargets), nil
		}
	}
	return "", errors.New("no Chromium found: set CHROME_PATH or install it (apt-get install -y chromium)")
}

// launcherTargets maps where distributions install a launcher script to the binaries it may
// start, in the order distributions install them. A script of the same name elsewhere is the
// user's own, written for a reason, and is used as it is.
var launcherTargets = map[string][]string{
	"/usr/bin/chromium":             {"/usr/lib/chromium/chromium"},
	"/usr/bin/chromium-browser":     {"/usr/lib/chromium-browser/chromium-browser", "/usr/lib/chromium/chromium"},
	"/usr/bin/google-chrome":        {"/opt/google/chrome/chrome"},
	"/usr/bin/google-chrome-stable": {"/opt/google/chrome/chrome"},
}

// behindLauncher returns the binary a launcher script at p starts when p is a script ("#!")
// and one of targets[p] is an executable file; else p itself. A binary, a symlink to one, or a
// script whose binary is not where expected is returned unchanged.
func behindLauncher(p string, targets map[string][]string) string {
	f, err := os.Open(p)
	if err != nil {
		return p
	}
	head := make([]byte, 2)
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || string(head) != "#!" {
		return p
	}
	for _, t := range targets[p] {
		if st, err := os.Stat(t); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return t
		}
	}
	return p
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
	lanes   map[*lane]bool // every lane not yet disposed of, for close to stop their proxies
	// proxy is the network of the browser's default context (--proxy-server): the one lane's
	// when single, else refusing everything, since no replay runs there.
	proxy *gateProxy
	// holder is the tab chromedp opened at launch, which keeps the default context's window.
	holder target.ID
	// memoryKills counts the processes the memory watchdog killed, memoryNote says why it
	// killed the last one (see watchMemory); stopWatch ends the watchdog.
	memoryKills atomic.Int64
	memoryNote  atomic.Value
	stopWatch   chan struct{}
	closeOnce   sync.Once
	// noGateProxy: the lanes are created without the gate proxy (see Options.noGateProxy).
	noGateProxy bool
	// inUse counts the replays running on the instance, served those that ended; retired is
	// an instance the runner no longer hands out, closed by its last replay (Runner.done).
	// All three are the runner's, under its mu.
	inUse, served int
	retired       bool
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
	// Once: a retired browser that crashed is closed by the crash and by its last replay.
	in.closeOnce.Do(func() {
		close(in.stopWatch)
		in.cancel()
		in.allocEnd()
		in.proxy.close()
		in.lanesMu.Lock()
		for l := range in.lanes {
			l.proxy.close()
		}
		in.lanesMu.Unlock()
		_ = os.RemoveAll(in.dir)
	})
}

// chromiumEnv is the whole environment Chromium starts with: what it needs to run and find its
// libraries and fonts, and nothing else. It never inherits the process's environment, which in
// a Lambda holds the function's AWS credentials and in CI tokens of all kinds.
func chromiumEnv(dir string) []string {
	env := []string{"HOME=" + dir, "TMPDIR=" + os.TempDir()}
	for _, name := range []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "FONTCONFIG_PATH", "FONTCONFIG_FILE"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// closePopups closes every window a page opens (window.open, a target=_blank link or form),
// as soon as the browser reports it: a replay has one tab, and a popup is a page no step can
// see, which outlives the replay unless something closes it. Its first requests meet the
// proxy like any other; the sweep at the end of each replay catches what this misses.
func (in *instance) closePopups(ev any) {
	e, ok := ev.(*target.EventTargetCreated)
	if !ok || e.TargetInfo.Type != "page" || e.TargetInfo.OpenerID == "" {
		return
	}
	id := e.TargetInfo.TargetID
	go func() {
		ctx, cancel := context.WithTimeout(in.ctx, disposeTimeout)
		defer cancel()
		_, _ = cdp.Call(ctx, chromedp.FromContext(in.ctx).Browser, target.CloseTarget, target.CloseTargetParams{TargetID: id})
	}()
}

// profilePrefix starts the name of a browser's profile directory in the temp dir, before its
// owner (see ownedtemp).
const profilePrefix = "gardener-chromium-"

// launch starts Chromium with flags that work both in Lambda and on a developer machine: no
// sandbox (Lambda has no user namespaces), no GPU, /tmp instead of a small /dev/shm, and none of
// the background traffic (component updates, sync, QUIC probes) that a sandboxed network
// refuses noisily. The profile and cache live in a temp dir that close removes.
//
// The browser's network is the gate proxy's (see gateProxy): every request goes through it,
// loopback included (<-loopback removes Chromium's implicit bypass of localhost), and what the
// proxy cannot see is turned off: WebRTC may use no UDP and no TCP but through the proxy,
// and there is no DNS prefetch. Chromium starts with a minimal environment (chromiumEnv) and
// a JavaScript heap limit, so a page that fills its heap dies alone, early; a watchdog stops
// a page that allocates outside its heap (see watchMemory).
// startError is a Chromium process that ended, or closed its output, before it gave its
// DevTools address: what chromedp reports as "chrome failed to start" or the wait's error.
type startError struct {
	path string
	err  error
}

func (e *startError) Error() string { return fmt.Sprintf("starting Chromium (%s): %v", e.path, e.err) }
func (e *startError) Unwrap() error { return e.err }

func launch(opts Options) (*instance, error) {
	path, err := ChromePath()
	if err != nil {
		return nil, err
	}
	// A process that crashed (kill -9, out of memory) left its browser's profile behind; its
	// name says whose it was, so the ones of dead processes go and a live run's stay. Failing
	// to remove one is no reason not to start.
	_, _ = ownedtemp.Sweep(os.TempDir(), profilePrefix, "")
	dir, err := os.MkdirTemp("", ownedtemp.Pattern(profilePrefix, ""))
	if err != nil {
		return nil, fmt.Errorf("creating the Chromium profile dir: %w", err)
	}
	proxy, err := startProxy()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	flags := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.NoInheritEnv,
		chromedp.Env(chromiumEnv(dir)...),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.Flag("js-flags", fmt.Sprintf("--max-old-space-size=%d", opts.JSHeapMB)),
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
		// Headless Chromium also loads the omnibox's two WebUI popups, each in a renderer of
		// its own, for every window: the browser's, and each lane's (a browser context has a
		// window of its own). No replay opens an omnibox; without them a launch and ten new
		// contexts (BenchmarkContextStart/new-context) took 15.3-17.1 CPU-seconds of the
		// browser's process tree instead of 26.3-27.1 (interleaved runs, a loaded machine).
		// disable-features replaces chromedp's default list, so that list is repeated here.
		chromedp.Flag("in-process-gpu", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,SpareRendererForSitePerProcess,BackForwardCache,WebUIOmniboxPopup,WebUIOmniboxAimPopup"),
		chromedp.Flag("disk-cache-dir", filepath.Join(dir, "cache")),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(1280, 800),
	)
	if !opts.noGateProxy {
		flags = append(flags, chromedp.ProxyServer(proxy.url()), chromedp.Flag("proxy-bypass-list", "<-loopback>"))
	}
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
		proxy.close()
		if err == nil || !stopped {
			return nil, fmt.Errorf("starting Chromium (%s): no answer after %s", path, launchTimeout)
		}
		return nil, &startError{path: path, err: err}
	}
	c := chromedp.FromContext(ctx)
	b := c.Browser
	in := &instance{ctx: ctx, cancel: cancel, allocEnd: allocEnd, dir: dir, lost: b.LostConnection, proxy: proxy, lanes: map[*lane]bool{}, stopWatch: make(chan struct{}), noGateProxy: opts.noGateProxy}
	if c.Target != nil {
		in.holder = c.Target.TargetID
	}
	if p := b.Process(); p != nil {
		in.pid = p.Pid
	}
	if err := chromedp.ListenBrowser(ctx, in.closePopups); err != nil {
		in.close()
		return nil, fmt.Errorf("watching the browser's windows: %w", err)
	}
	if opts.SingleProcess {
		in.single = newLane("", in.holder, proxy)
	}
	go in.watchMemory(opts.MemoryLimitMB, opts.SingleProcess, in.stopWatch)
	return in, nil
}
