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
// out: that says nothing about the locator, and a sweep must not read it as a change. Each
// result carries the fingerprints of at most maxElements visible matches.
func (r *run) resolveAll(locs []gardener.Locator, maxElements int) map[string]gardener.ResolvedLocator {
	out := make(map[string]gardener.ResolvedLocator, len(locs))
	for _, loc := range locs {
		key := loc.String()
		if _, done := out[key]; done {
			continue
		}
		ctx, cancel := context.WithTimeout(r.s.ctx, resolveTimeout)
		var res gardener.ResolvedLocator
		err := r.s.call(ctx, &res, "resolved", locatorArg(loc), maxElements)
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

// maxAhead bounds the later steps a failure's look ahead resolves (a long form).
const maxAhead = 30

// lookAhead resolves, on the page a failure at step failed left, the targets of the later
// top-level actions still on that page (gardener.Replay.Ahead): those up to and including the
// first that may change the page, none when the failing step itself may have. Checks are not
// looked at: a repair heals ahead only actions, since what a check reads may appear only once
// the steps before it have acted. Each resolution
// is one question to a page that has settled; the whole look costs far less than a proof that
// waits a step limit at the next missing element.
func (r *run) lookAhead(failed gardener.Step, later []gardener.Step) map[string]gardener.ResolvedLocator {
	if failed.MayChangePage() {
		return nil
	}
	var locs []gardener.Locator
	for _, st := range later {
		if len(locs) == maxAhead {
			break
		}
		if st.IsAction() && !st.Target().IsZero() {
			locs = append(locs, st.Target())
		}
		if st.MayChangePage() {
			break
		}
	}
	if len(locs) == 0 || r.s.ctx.Err() != nil {
		return nil
	}
	// What is there or gone is the look's answer; the elements' fingerprints are the
	// snapshot's, so none is taken, and a failure handed from one function to the next stays small.
	return r.resolveAll(locs, 0)
}
