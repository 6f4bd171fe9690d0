package browser

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// maxIdleLanes bounds the browser contexts kept open between replays: as many as replays ran
// at once, up to this many; more are disposed of when their replay ends.
const maxIdleLanes = 8

// disposeTimeout bounds the closing of a lane's browser context.
const disposeTimeout = 10 * time.Second

// lane is a browser context that replays use one at a time, in one tab of the lane's window
// that stays open between them (see reset): each replay ends with the tab taken back to a blank
// page with no history, no session storage, no window name and no viewport of its own, so the
// next starts with no page of the replay before; and before its first step it clears the
// context of the cookies, cache, permissions and every kind of storage the lane's earlier
// replays left.
//
// Why not a tab per replay: opening and closing a tab is most of what the browser's own
// process does for a short replay. A goto, a click and a check took 190-215 ms of that
// process's CPU and 340-375 ms of its whole tree per replay with a tab each, of which opening
// an empty tab and closing it alone took 100-115 ms and 165-180 ms; in the lane's one tab, the
// replay took 130-160 ms and 215-260 ms (BenchmarkReplayOverhead and measurements of its
// parts, interleaved runs at a load average of 13-17).
//
// Why not a new browser context per replay: Chromium gives a new context a window of its own
// and new renderer processes, and the demo and the suite are bound by CPU. On two cores a
// replay of a single goto took 2.2 CPU-seconds in a new context and 1.05 in a lane, one after
// another on a quiet machine; the demo went from 151 s to 111 s. A single-process Chromium
// cannot make a second context at all (it crashes), so there the browser's default context is
// the one lane.
//
// Each lane has a network proxy of its own (see gateProxy), which the browser context is created
// with, so that the gate of the replay holding the lane decides for every target in it; between
// replays it refuses everything. A lane goes back for the next replay only when no target of the
// replay before remains in it (see sweep).
type lane struct {
	id cdp.BrowserContextID // "" for the default context of a single-process browser
	// holder is the blank tab that keeps the lane's window; the sweep leaves it.
	holder target.ID
	// tab is the chromedp context of the tab the lane's replays run in, tabID its target (the
	// sweep leaves it too), closeTab closes it; tab is nil until the lane's first replay opens
	// it (see openTab).
	tab      context.Context
	closeTab context.CancelFunc
	tabID    target.ID
	proxy    *gateProxy
	// dirty are the origins loaded since the last clear. Only the replay that holds the lane
	// touches it, and a lane passes between replays through the instance's lock (or the
	// runner's turn, single-process), so it needs no lock of its own.
	dirty map[string]bool
}

func newLane(id cdp.BrowserContextID, holder target.ID, proxy *gateProxy) *lane {
	return &lane{id: id, holder: holder, proxy: proxy, dirty: map[string]bool{}}
}

// takeLane returns an idle lane of the browser, or opens a new one: a browser context with a
// blank tab that holds its window, so that replay tabs open in that window.
func (in *instance) takeLane(ctx context.Context) (*lane, error) {
	if in.single != nil {
		return in.single, nil
	}
	in.lanesMu.Lock()
	if n := len(in.idle); n > 0 {
		l := in.idle[n-1]
		in.idle = in.idle[:n-1]
		in.lanesMu.Unlock()
		return l, nil
	}
	in.lanesMu.Unlock()
	proxy, err := startProxy()
	if err != nil {
		return nil, err
	}
	b := chromedp.FromContext(in.ctx).Browser
	params := target.CreateBrowserContextParams{ProxyServer: proxy.url(), ProxyBypassList: "<-loopback>"}
	if in.noGateProxy {
		params = target.CreateBrowserContextParams{}
	}
	res, err := cdp.Call(ctx, b, target.CreateBrowserContext, params)
	if err != nil {
		proxy.close()
		return nil, fmt.Errorf("creating a browser context: %w", err)
	}
	l := newLane(res.BrowserContextID, "", proxy)
	newWindow := true
	tab, err := cdp.Call(ctx, b, target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: res.BrowserContextID, NewWindow: &newWindow})
	if err != nil {
		in.dispose(l)
		return nil, fmt.Errorf("opening the window of a browser context: %w", err)
	}
	l.holder = tab.TargetID
	in.lanesMu.Lock()
	in.lanes[l] = true
	in.lanesMu.Unlock()
	return l, nil
}

// giveBack returns a lane after its replay, its proxy refusing everything again. A lane whose
// replay went wrong in the browser (a tab that would not open, a crash) or left a target
// behind is disposed of rather than trusted with the next replay; in a single-process browser,
// which cannot lose its one context, it reports that the browser must go instead.
func (in *instance) giveBack(l *lane, healthy bool) (keep bool) {
	l.proxy.use(nil)
	if healthy {
		healthy = in.sweep(l)
	}
	if in.single != nil {
		return healthy
	}
	in.lanesMu.Lock()
	if healthy && len(in.idle) < maxIdleLanes {
		in.idle = append(in.idle, l)
		in.lanesMu.Unlock()
		return true
	}
	in.lanesMu.Unlock()
	in.dispose(l)
	return true
}

// dispose closes a lane's browser context with its tabs, and its proxy. It does not wait long:
// a browser that does not answer is hung or gone, and its contexts go with it.
func (in *instance) dispose(l *lane) {
	l.proxy.close()
	if l.closeTab != nil {
		l.closeTab()
	}
	in.lanesMu.Lock()
	delete(in.lanes, l)
	in.lanesMu.Unlock()
	ctx, cancel := context.WithTimeout(in.ctx, disposeTimeout)
	defer cancel()
	_, _ = cdp.Call(ctx, chromedp.FromContext(in.ctx).Browser, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: l.id})
}

// sweepWait bounds the wait for the targets a sweep closed to go.
const sweepWait = 3 * time.Second

// sweep closes every target a replay left in the lane but its window's holder -- popups that
// escaped closePopups, shared workers -- and reports whether the lane is empty afterwards.
func (in *instance) sweep(l *lane) bool {
	ctx, cancel := context.WithTimeout(in.ctx, sweepWait+disposeTimeout)
	defer cancel()
	b := chromedp.FromContext(in.ctx).Browser
	deadline := time.Now().Add(sweepWait)
	closed := map[target.ID]bool{}
	for {
		left, err := in.leftIn(ctx, l)
		if err != nil {
			return false
		}
		if len(left) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		for _, t := range left {
			if t.Type == "page" && !closed[t.TargetID] {
				closed[t.TargetID] = true
				_, _ = cdp.Call(ctx, b, target.CloseTarget, target.CloseTargetParams{TargetID: t.TargetID})
			}
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// leftIn lists the targets of the lane's browser context other than its holder and the
// browser's own interface (the window's omnibox and the like, which no page can drive).
func (in *instance) leftIn(ctx context.Context, l *lane) ([]*target.Info, error) {
	all, err := in.targets(ctx)
	if err != nil {
		return nil, err
	}
	var left []*target.Info
	for _, t := range all {
		if t.TargetID == l.holder || t.TargetID == l.tabID || t.TargetID == in.holder || browserOwn[t.Type] {
			continue
		}
		if l.id == "" || t.BrowserContextID == l.id {
			left = append(left, t)
		}
	}
	return left, nil
}

// browserOwn are the types of target that are the browser's, not a page's.
var browserOwn = map[string]bool{"browser": true, "browser_ui": true, "tab": true}

// targets lists every target of the browser: pages, workers, service workers, iframes of
// other processes.
func (in *instance) targets(ctx context.Context) ([]*target.Info, error) {
	res, err := cdp.Call(ctx, chromedp.FromContext(in.ctx).Browser, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, fmt.Errorf("listing the browser's targets: %w", err)
	}
	return res.TargetInfos, nil
}

// newTab is the chromedp context of a new tab in the lane's window.
func (l *lane) newTab(parent context.Context) (context.Context, context.CancelFunc) {
	opts := []chromedp.ContextOption{chromedp.WithNewWindow(false)}
	if l.id != "" {
		opts = append(opts, chromedp.WithExistingBrowserContext(l.id))
	}
	return chromedp.NewContext(parent, opts...)
}

// openTab opens the lane's tab unless its first replay did, as a child of the browser's
// context (parent); an open that openCtx ends before it is done closes the tab and fails.
func (l *lane) openTab(parent, openCtx context.Context) error {
	if l.tab != nil {
		return nil
	}
	tabCtx, closeTab := l.newTab(parent)
	stop := context.AfterFunc(openCtx, closeTab)
	tgt, err := wireTab(tabCtx)
	if !stop() || err != nil {
		closeTab()
		return cmp.Or(err, openCtx.Err())
	}
	l.tab, l.closeTab, l.tabID = tabCtx, closeTab, tgt.TargetID
	return nil
}

// opaqueOrigin is a URL whose origin is opaque: a clear for it is a clear for no origin in
// particular (see clear).
const opaqueOrigin = "data:,"

// resetTimeout bounds the reset of a lane's tab after a replay: a blank page loads at once
// when the machine is idle, in seconds on two loaded cores.
const resetTimeout = 15 * time.Second

// reset takes the lane's tab back to where a new tab starts, after a replay (tgt its session,
// while the replay's listener still answers the page's dialogs, a beforeunload among them):
// a blank page, which ends the replay's page and everything running in it, with no history
// to go back to, no window name (a browsing context keeps it across navigations) and no
// viewport of the replay's. The tab's session storage goes in the next replay's clear. A tab
// that does not come back in time is no longer trusted: the caller disposes of the lane.
func (l *lane) reset(tgt cdp.Session) error {
	ctx, cancel := context.WithTimeout(l.tab, resetTimeout)
	defer cancel()
	if _, err := cdp.Call(ctx, tgt, page.Navigate, page.NavigateParams{URL: "about:blank"}); err != nil {
		return fmt.Errorf("taking the tab back to a blank page: %w", err)
	}
	// Navigate answers before the blank page commits; until then an evaluation runs in the
	// page that is leaving.
	byValue := true
	for {
		res, err := cdp.Call(ctx, tgt, runtime.Evaluate, runtime.EvaluateParams{Expression: `window.name = ""; location.href`, ReturnByValue: &byValue})
		if err == nil && res.ExceptionDetails == nil && res.Result != nil && string(res.Result.Value) == `"about:blank"` {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("taking the tab back to a blank page: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if _, err := cdp.Call(ctx, tgt, page.ResetNavigationHistory, cdp.Empty{}); err != nil {
		return fmt.Errorf("clearing the tab's history: %w", err)
	}
	if _, err := cdp.Call(ctx, tgt, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
		return fmt.Errorf("clearing the tab's viewport: %w", err)
	}
	return nil
}

// loaded notes the origins of URLs a replay loaded, for the clear before the next replay.
func (l *lane) loaded(urls []string) {
	for _, u := range urls {
		if o, err := originOf(u); err == nil {
			l.dirty[o] = true
		}
	}
}

// clear removes what the lane's earlier replays left, through the tab of the replay about to
// run (the permissions through the browser, br): the cookies and the cache of the whole
// context, the permissions granted in it, the session storage of its tab, and every kind of
// storage of the origins loaded. A lane no replay has loaded anything in is as new. A clear
// that fails leaves the lane to be disposed of, so nothing half-cleared is used again.
//
// Session storage belongs to the tab, which outlives the replay, and Chromium clears it only
// in a clear that names no origin in particular: given an origin, its storage partition skips
// session storage; given an opaque one (that of a data: URL), it clears the session storage of
// every origin in the context. TestReplaysAreIsolated fails if that ever changes.
func (l *lane) clear(ctx context.Context, tab, br cdp.Session) error {
	origins := slices.Sorted(maps.Keys(l.dirty))
	if len(origins) == 0 {
		return nil
	}
	if _, err := cdp.Call(ctx, tab, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		return fmt.Errorf("clearing the cookies of earlier replays: %w", err)
	}
	if _, err := cdp.Call(ctx, tab, network.ClearBrowserCache, cdp.Empty{}); err != nil {
		return fmt.Errorf("clearing the cache of earlier replays: %w", err)
	}
	if _, err := cdp.Call(ctx, br, browser.ResetPermissions, browser.ResetPermissionsParams{BrowserContextID: l.id}); err != nil {
		return fmt.Errorf("resetting the permissions of earlier replays: %w", err)
	}
	if _, err := cdp.Call(ctx, tab, storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: opaqueOrigin, StorageTypes: "local_storage"}); err != nil {
		return fmt.Errorf("clearing the session storage of earlier replays: %w", err)
	}
	for _, o := range origins {
		if _, err := cdp.Call(ctx, tab, storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: o, StorageTypes: "all"}); err != nil {
			return fmt.Errorf("clearing the storage earlier replays left for %s: %w", o, err)
		}
	}
	clear(l.dirty)
	return nil
}
