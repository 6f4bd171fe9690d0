package browser

import (
	"context"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// alternative returns the step with its locator replaced by the first recorded alternative that
// matches exactly one element, when its own locator matches none on the page as it is now, and
// says so in the step's record. A step that waits for its element to be gone keeps its locator:
// matching nothing is what it waits for. Only the replay uses the alternative; the test keeps
// its locator, so a repair still sees which one drifted.
func (r *run) alternative(ctx context.Context, st gardener.Step, rec *gardener.StepRecord) gardener.Step {
	if len(st.Alternatives) == 0 || st.Kind == gardener.AssertHidden || st.Kind == gardener.Wait && st.State == "hidden" {
		return st
	}
	count := func(loc gardener.Locator) (int, bool) {
		c, cancel := context.WithTimeout(ctx, resolveTimeout)
		defer cancel()
		var res gardener.ResolvedLocator
		err := r.s.call(c, &res, "resolved", locatorArg(loc), gardener.MaxResolvedElements)
		return res.Count, err == nil && res.Error == ""
	}
	if n, ok := count(st.Locator); !ok || n > 0 {
		return st
	}
	for _, alt := range st.Alternatives {
		if n, ok := count(alt); ok && n == 1 {
			rec.Observed = "found by the recorded alternative " + alt.String() + ": " + st.Locator.String() + " matched nothing"
			st.Locator = alt
			return st
		}
	}
	return st
}
