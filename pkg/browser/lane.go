package browser

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// maxIdleLanes bounds the browser contexts kept open between replays: as many as replays ran
// at once, up to this many; more are disposed of when their replay ends.
const maxIdleLanes = 8

// disposeTimeout bounds the closing of a lane's browser context.
const disposeTimeout = 10 * time.Second

// lane is a browser context that replays use one at a time. Each replay opens a tab of its own
// in the lane's window and closes it when it ends, so it starts with no history, no session
// storage and no page of the replay before; and before its first step it clears the context of
// the cookies, cache, permissions and every kind of storage the lane's earlier replays left.
//
// Why not a new browser context per replay: Chromium gives a new context a window of its own
// and new renderer processes, and the demo and the suite are bound by CPU. On two cores a
// replay of a single goto took 2.2 CPU-seconds in a new context and 1.05 in a lane, one after
// another on a quiet machine; the demo went from 151 s to 111 s. A single-process Chromium
// cannot make a second context at all (it crashes), so there the browser's default context is
// the one lane.
type lane struct {
	id cdp.BrowserContextID // "" for the default context of a single-process browser
	// dirty are the origins loaded since the last clear. Only the replay that holds the lane
	// touches it, and a lane passes between replays through the instance's lock (or the
	// runner's turn, single-process), so it needs no lock of its own.
	dirty map[string]bool
}

func newLane(id cdp.BrowserContextID) *lane {
	return &lane{id: id, dirty: map[string]bool{}}
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
	b := chromedp.FromContext(in.ctx).Browser
	res, err := cdp.Call(ctx, b, target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		return nil, fmt.Errorf("creating a browser context: %w", err)
	}
	newWindow := true
	if _, err := cdp.Call(ctx, b, target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: res.BrowserContextID, NewWindow: &newWindow}); err != nil {
		in.dispose(res.BrowserContextID)
		return nil, fmt.Errorf("opening the window of a browser context: %w", err)
	}
	return newLane(res.BrowserContextID), nil
}

// giveBack returns a lane after its replay. A lane whose replay went wrong in the browser (a
// tab that would not open, a crash) is disposed of rather than trusted with the next replay.
func (in *instance) giveBack(l *lane, healthy bool) {
	if in.single != nil {
		return
	}
	in.lanesMu.Lock()
	if healthy && len(in.idle) < maxIdleLanes {
		in.idle = append(in.idle, l)
		in.lanesMu.Unlock()
		return
	}
	in.lanesMu.Unlock()
	in.dispose(l.id)
}

// dispose closes a browser context with its tabs. It does not wait long: a browser that does
// not answer is hung or gone, and its contexts go with it.
func (in *instance) dispose(id cdp.BrowserContextID) {
	ctx, cancel := context.WithTimeout(in.ctx, disposeTimeout)
	defer cancel()
	_, _ = cdp.Call(ctx, chromedp.FromContext(in.ctx).Browser, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: id})
}

// tab is the chromedp context of a new tab in the lane's window.
func (l *lane) tab(parent context.Context) (context.Context, context.CancelFunc) {
	opts := []chromedp.ContextOption{chromedp.WithNewWindow(false)}
	if l.id != "" {
		opts = append(opts, chromedp.WithExistingBrowserContext(l.id))
	}
	return chromedp.NewContext(parent, opts...)
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
// context, the permissions granted in it, and every kind of storage of the origins loaded. A
// lane no replay has loaded anything in is as new. A clear that fails leaves the lane to be
// disposed of (the replay's tab did not open), so nothing half-cleared is used again.
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
	for _, o := range origins {
		if _, err := cdp.Call(ctx, tab, storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: o, StorageTypes: "all"}); err != nil {
			return fmt.Errorf("clearing the storage earlier replays left for %s: %w", o, err)
		}
	}
	clear(l.dirty)
	return nil
}
