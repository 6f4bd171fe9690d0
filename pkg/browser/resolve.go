package browser

import (
	"context"
	"errors"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// resolveTimeout bounds the resolution of one locator at the end of a replay: the page has
// settled, so a locator finds what it finds now.
const resolveTimeout = 2 * time.Second

// resolveAll answers ReplayOptions.Resolve on the page where the replay stopped, with the same
// locator resolution and fingerprints the steps use, so a radar sweep compares like with like.
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
			if errors.As(err, &je) {
				res = gardener.ResolvedLocator{Error: loc.String() + " cannot be used: " + je.msg}
			} else {
				res = gardener.ResolvedLocator{Error: "the page did not answer while resolving " + loc.String() + ": " + err.Error()}
			}
		}
		out[key] = res
	}
	return out
}
