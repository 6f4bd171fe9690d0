package ladder

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// samePage heals, before the candidate that heals the failing step is proven, every later step
// on the page the failure left whose element is gone too: a form whose fields were all renamed
// at once costs one proof, not one proof (and one step limit waited out) per field. rep is a
// red replay of t (the reproduction, or a proof of a candidate; origin maps t's top-level
// indices to base indices) and ops the candidate's operations on the base steps so far; the
// result is the further operations, on the base steps.
//
// The page is the failing step's until a step that may change it: a goto, an intent block, a
// click, a key press or a hover (each looked at itself: its element is on this page before it
// acts), or a step the last green run began on another URL; when the failing step is itself
// one that may change the page, nothing is looked at. A step is healed only when it acts
// on an element and its locator matches nothing at all on the page (one that matches a hidden
// element is out of sight, not renamed: the drift rules reveal it); checks are left to the
// proof, since what they read may appear only once the steps before them have acted. Each
// heal is its own model answer with its own candidate event, and the proof judges them all.
func (c *climb) samePage(ctx context.Context, ri int, t gardener.Test, rep gardener.Replay, origin []int, ops []gardener.Op) ([]gardener.Op, error) {
	res := rep.Result
	fi := res.FailedIndex
	if len(rep.Ahead) == 0 || rep.Snapshot == nil || fi < 0 || fi >= len(t.Steps) || strings.Contains(res.FailedStep, ".") || t.Steps[fi].MayChangePage() {
		// A failing click (a key press, a hover) would have changed the page: the later steps'
		// elements may be on the page it opens (a confirmation dialog), not on this one.
		return nil, nil
	}
	page := c.greenURL(origin[fi])
	var out []gardener.Op
	for j := fi + 1; j < len(t.Steps); j++ {
		st := t.Steps[j]
		bj := origin[j]
		if st.Kind == gardener.Goto || st.Kind == gardener.Intent {
			break
		}
		if u := c.greenURL(bj); page != "" && u != "" && u != page {
			break
		}
		if bj >= 0 && st.IsAction() && !st.Target().IsZero() && !touches(ops, bj) && !touches(out, bj) {
			if r, ok := rep.Ahead[st.Target().String()]; ok && r.Count == 0 && r.Error == "" {
				op, err := c.healAhead(ctx, ri, t, rep, origin, j)
				if err != nil {
					return nil, err
				}
				if op != nil && !sameTarget(append(ops, out...), *op) {
					out = append(out, *op)
				}
			}
		}
		if st.MayChangePage() {
			break
		}
	}
	return out, nil
}

// sameTarget reports whether op would make its step act on the element another of ops acts on
// now: two steps healed to one element is one of them healed wrong, and a look ahead leaves
// the step to its own proof instead.
func sameTarget(ops []gardener.Op, op gardener.Op) bool {
	for _, o := range ops {
		if o.Step != nil && o.Index != op.Index && o.Step.Kind != gardener.Intent && o.Step.Target() == op.Step.Target() {
			return true
		}
	}
	return false
}

// healAhead asks for a new locator for top-level step j of t, whose locator matched nothing on
// the page rep failed on, as if the step had failed there. A step the model finds no element
// for is left to the proof: it may appear only later on the page.
func (c *climb) healAhead(ctx context.Context, ri int, t gardener.Test, rep gardener.Replay, origin []int, j int) (*gardener.Op, error) {
	at := rep
	at.Result.FailedStep = strconv.Itoa(j + 1)
	at.Result.FailedIndex = j
	at.Result.ErrorKind = gardener.ErrElementNotFound
	at.Result.Cause = ""
	at.Result.Message = fmt.Sprintf("step %d (%s): no element matches %s on the page step %s failed on", j+1, t.Steps[j].Redacted(), t.Steps[j].Target(), rep.Result.FailedStep)
	note := fmt.Sprintf("looked at on the page step %s failed on, where %s matches nothing", rep.Result.FailedStep, t.Steps[j].Target())
	op, why, err := c.newLocator(ctx, ri, t, at, origin, note)
	if err != nil || op != nil {
		return op, err
	}
	c.emit(Event{Stage: gardener.EventCandidate, Rung: gardener.StrategySelfHeal, Step: strconv.Itoa(origin[j] + 1),
		Message: fmt.Sprintf("step %d matches nothing on the page step %s failed on; no new locator yet (%s): left to the proof", origin[j]+1, rep.Result.FailedStep, why)})
	return nil, nil
}

// greenURL is the URL the last green run was on when base step bi began, "" when unknown.
func (c *climb) greenURL(bi int) string {
	if c.req.LastGreen == nil || bi < 0 {
		return ""
	}
	p := strconv.Itoa(bi + 1)
	for _, r := range c.req.LastGreen.Steps {
		if r.Path == p {
			return r.URLBefore
		}
	}
	return ""
}
