package browser

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
)

// oneContext is the only browser context of a single-process Chromium (Options.SingleProcess):
// there, asking for a second context crashes the browser. Replays take turns in this one (the
// runner lets one in at a time), and each starts from it cleared of what the replays before
// left, as a fresh context would be.
type oneContext struct {
	mu    sync.Mutex
	dirty map[string]bool // origins loaded since the last clear
}

func newOneContext() *oneContext {
	return &oneContext{dirty: map[string]bool{}}
}

// loaded notes the origins of URLs a replay loaded, for the clear before the next replay.
func (c *oneContext) loaded(urls []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range urls {
		if o, err := originOf(u); err == nil {
			c.dirty[o] = true
		}
	}
}

// clear removes the cookies, the cache and every kind of storage of the origins loaded before,
// through the tab of the replay whose turn it is.
func (c *oneContext) clear(ctx context.Context, tab cdp.Session) error {
	if _, err := cdp.Call(ctx, tab, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		return fmt.Errorf("clearing the cookies of earlier replays: %w", err)
	}
	if _, err := cdp.Call(ctx, tab, network.ClearBrowserCache, cdp.Empty{}); err != nil {
		return fmt.Errorf("clearing the cache of earlier replays: %w", err)
	}
	c.mu.Lock()
	origins := slices.Sorted(maps.Keys(c.dirty))
	c.mu.Unlock()
	for _, o := range origins {
		if _, err := cdp.Call(ctx, tab, storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: o, StorageTypes: "all"}); err != nil {
			return fmt.Errorf("clearing the storage earlier replays left for %s: %w", o, err)
		}
	}
	c.mu.Lock()
	for _, o := range origins {
		delete(c.dirty, o)
	}
	c.mu.Unlock()
	return nil
}
