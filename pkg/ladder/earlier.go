package ladder

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// earlierElement explains a failure that an earlier step caused by acting on another element
// than the last green run's there. A positional locator (the second row's first button) still
// matches something after the rows were reordered, a button was wrapped or another button was
// put before it, so its step passes on the wrong element and a later step fails (the wait for
// the member's URL, a check of what the page shows), where no new locator helps. When the
// failing step is such a later one, the earliest top-level action before it whose element's
// name differs from the green run's is replayed up to, the page just before it is looked at,
// and the model is asked where the recorded element is on that page, as for a step whose
// element is gone.
//
// The answer is evidence for a person, never a candidate: a heal never rewrites the steps
// before the one that failed (gardener.ScreenHeal; the README's promise), and that step
// passed. The reason says which step acted on what, and what names the recorded element now.
// It is "" when no earlier step acted on another element.
func (c *climb) earlierElement(ctx context.Context, ri int, t gardener.Test, rep gardener.Replay, origin []int) (string, error) {
	res := rep.Result
	fi := res.FailedIndex
	if c.req.LastGreen == nil || fi <= 0 || fi > len(t.Steps) || len(origin) != len(t.Steps) || strings.Contains(res.FailedStep, ".") {
		return "", nil
	}
	k := -1
	var now, was *gardener.Fingerprint
	for j := range fi {
		s := t.Steps[j]
		if origin[j] < 0 || s.Kind == gardener.Intent || !s.IsAction() || s.Target().IsZero() {
			continue
		}
		now, was = res.Element(strconv.Itoa(j+1)), c.req.LastGreen.Element(strconv.Itoa(origin[j]+1))
		if now != nil && was != nil && otherName(*now, *was) {
			k = j
			break
		}
	}
	if k < 0 || c.lookedBack {
		return "", nil
	}
	c.lookedBack = true
	typed := gardener.TypedBy(t, &res, c.req.LastGreen)
	acted := fmt.Sprintf("step %d (%s) acted on %s, where the last green run acted on %s", k+1, t.Steps[k].Target(), typed.Quote(now.Shown()), typed.Quote(was.Shown()))
	opts := c.req.Options
	opts.Probes, opts.OnStep = nil, nil
	opts.QuietFail = QuietFailOf(t, nil)
	opts.Views = map[int][]gardener.Locator{k: nil}
	seen, err := c.replay(ctx, t, opts)
	if err != nil {
		return "", err
	}
	v, ok := seen.Views[k]
	if !ok || v.Snapshot == nil {
		return acted + "; the page before it could not be seen again", nil
	}
	// The page before step k stands in for the page a failing step k would have left; the
	// step's record is the element it acted on, which the model then does not offer again.
	before := gardener.Replay{Result: res, Snapshot: v.Snapshot}
	before.Result.FailedStep, before.Result.FailedIndex = strconv.Itoa(k+1), k
	ask := gardener.LocatorAsk{Failure: c.failureOn(t, before, origin), Index: k, Inner: -1, Step: t.Steps[k], Recorded: was}
	t0 := c.l.now()
	ans, err := c.l.Model.FixLocator(ctx, ask)
	c.res.Timings.Model += c.l.now().Sub(t0).Milliseconds()
	c.recordCall(ri, "locator", ans.Usage, err, boolInt(!ans.Locator.IsZero()))
	if err != nil {
		return "", c.modelError(ri, err)
	}
	if ans.Locator.IsZero() || ans.Locator == t.Steps[k].Target() {
		return acted + "; no element of the page before it is the recorded one: " + ans.Reason, nil
	}
	why := fmt.Sprintf("%s; on the page before it the recorded element is %s (%s); a heal never rewrites a step before the one that failed, so moving step %d's locator is for a person",
		acted, ans.Locator, ans.Reason, k+1)
	c.emit(Event{Stage: gardener.EventCandidate, Rung: gardener.StrategySelfHeal, Step: strconv.Itoa(origin[k] + 1), Message: why})
	return why, nil
}

// otherName reports whether two elements read differently; an element with no name says
// nothing either way.
func otherName(a, b gardener.Fingerprint) bool {
	na, nb := a.Shown(), b.Shown()
	return na != "" && nb != "" && !strings.EqualFold(na, nb)
}
