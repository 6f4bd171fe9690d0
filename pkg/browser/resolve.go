package browser

import (
	"context"
	"errors"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// resolveTimeout bounds the resolution of one locator for a view of the page: the page has
// settled, so a locator finds what it finds now; the bound is for a renderer starved of CPU.
const resolveTimeout = 5 * time.Second

// resolveAll resolves the locators of a view (ReplayOptions.Views) on the page as it is, with the same
// locator resolution and fingerprints the steps use, so a radar sweep compares like with like.
// A locator the page gave no answer for (it hung, or the browser failed the command) is left
// out: that says nothing about the locator, and a sweep must not read it as a change.
func (r *run) resolveAll(locs []gardener.Locator) map[string]gardener.ResolvedLocator {
	out := make(map[string]gardener.ResolvedLocator, len(locs))
	for _, loc := range locs {
		key := loc.String()
		if _, done := out[key]; done {
			continue
		}
		ctx, cancel := context.WithTimeout(r.s.ctx, resolveTimeout)
		var res gardener.ResolvedLocator
		err := r.s.call(ctx, &res, "resolved", locatorArg(loc), gardener.MaxResolvedElements)
		cancel()
		if err != nil {
			var je *jsError
			if !errors.As(err, &je) {
				continue
			}
			res = gardener.ResolvedLocator{Error: loc.String() + " cannot be used: " + je.msg}
		}
		out[key] = res
	}
	return out
}
