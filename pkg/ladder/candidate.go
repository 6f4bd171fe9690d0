package ladder

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// proven is a candidate whose re-run went green.
type proven struct {
	strategy gardener.Strategy
	ops      []gardener.Op
	test     gardener.Test
	proof    gardener.Replay
	// rederived are the base indices of intent blocks the fix re-derived.
	rederived []int
}

// try holds one candidate to the gates: floor, apply to a copy, full re-run. When the re-run
// goes red further along the test (several locators drifted at once), the new failing step is
// healed too and the combined candidate tried again, a bounded number of times.
func (c *climb) try(ctx context.Context, ri int, rung gardener.Strategy, ops []gardener.Op) error {
	limit := c.l.MaxRefinements
	if limit == 0 {
		limit = 6
	}
	healed := map[int]int{}
	lastFail := failedHow(c.fail.Result)
	for round := 0; ; round++ {
		sc := gardener.ScreenHeal(c.base.Steps, ops, c.fail.Result.FailedIndex)
		a := gardener.Attempt{Rung: rung, Ops: sc.Allowed, Refusals: sc.Refusals}
		for _, r := range sc.Refusals {
			c.emit(Event{Stage: gardener.EventRefusal, Rung: rung, Step: r.Path, Kind: r.Kind, Reason: r.Reason, Message: r.String()})
		}
		if len(sc.Allowed) == 0 {
			a.Outcome = "refused: every proposed change was refused"
			if sc.Outcome() == gardener.NothingProposed {
				a.Outcome = "no candidate"
			}
			c.attempt(ri, a)
			return nil
		}
		steps, origin, err := applyWithOrigin(c.base.Steps, sc.Allowed)
		if err != nil {
			a.Outcome = "does not apply: " + err.Error()
			c.attempt(ri, a)
			return nil
		}
		key := opsKey(sc.Allowed)
		if c.red[key] {
			// The same change was replayed and went red already: the page has not changed in
			// between, so another replay would only spend the time again.
			a.Outcome = "already proven red: not replayed again"
			c.attempt(ri, a)
			c.emit(Event{Stage: gardener.EventCandidate, Rung: rung, Ops: opLines(c.base.Steps, sc.Allowed), Message: a.Outcome})
			return nil
		}
		cand := c.base.Clone()
		cand.Steps = steps
		lines := opLines(c.base.Steps, sc.Allowed)
		c.emit(Event{Stage: gardener.EventCandidate, Rung: rung, Ops: lines, Message: "trying " + strings.Join(lines, " | ")})
		opts := c.req.Options
		opts.Probes, _ = probesFor(cand)
		opts.QuietFail = c.proofQuiet(cand, origin)
		reported := 0
		opts.OnStep = func(st gardener.StepRecord) {
			reported++
			c.proofStep(rung, st)
		}
		t0 := c.l.now()
		rep, err := c.replay(ctx, cand, opts)
		c.res.Timings.Proofs += c.l.now().Sub(t0).Milliseconds()
		if err != nil {
			return err
		}
		if reported == 0 {
			// A runner that does not report steps as they run has them reported now.
			for _, st := range rep.Result.Steps {
				c.proofStep(rung, st)
			}
		}
		if rep.Result.Passed {
			a.Outcome = "green"
			c.attempt(ri, a)
			c.emit(Event{Stage: gardener.EventProof, Rung: rung, Passed: ptr(true), Message: fmt.Sprintf("green: the re-run of %s with the fix applied passed all %d steps", cand.ID, len(cand.Steps))})
			c.green = &proven{strategy: rung, ops: sc.Allowed, test: cand, proof: rep, rederived: rederivedBlocks(c.base.Steps, sc.Allowed)}
			return nil
		}
		c.red[key] = true
		a.Outcome = fmt.Sprintf("red at step %s: %s", rep.Result.FailedStep, rep.Result.Message)
		c.attempt(ri, a)
		c.emit(Event{Stage: gardener.EventProof, Rung: rung, Passed: ptr(false), Step: rep.Result.FailedStep, Reason: string(rep.Result.ErrorKind), Message: a.Outcome})
		if round >= limit || failedHow(rep.Result) == lastFail && round > 0 {
			return nil
		}
		fi := rep.Result.FailedIndex
		if rest, ok := dropAbsentDismissal(sc.Allowed, cand.Steps, origin, len(c.base.Steps), rep.Result); ok {
			c.emit(Event{Stage: gardener.EventCandidate, Rung: rung, Message: fmt.Sprintf("the banner did not come back before step %s: its dismissal there and on the pages after it are dropped", rep.Result.FailedStep)})
			lastFail = failedHow(rep.Result)
			ops = rest
			continue
		}
		if fi < 0 || fi >= len(origin) || origin[fi] < 0 {
			return nil
		}
		// A step whose element was found under something that covers it needs that thing
		// gone, not another locator (another one finds it covered the same way): the drift
		// rules see it at once.
		covered := rep.Result.CoveredBy != nil
		var op *gardener.Op
		if !covered {
			op = c.nextAlternative(cand, rep, fi, origin[fi])
		}
		if op == nil {
			if failedHow(rep.Result) == lastFail && round > 0 || healed[origin[fi]] >= 2 {
				return nil
			}
			if !covered {
				if op, err = c.healStep(ctx, ri, cand, rep, origin); err != nil {
					return err
				}
			}
			if op == nil {
				// No new locator fits the new failure: the drift rules see it too (the consent
				// overlay that came back on the next page, a field the next form requires).
				more, err := c.suggestOn(ctx, ri, cand, rep, origin)
				if err != nil || len(more) == 0 {
					return err
				}
				lastFail = failedHow(rep.Result)
				ops = append(append([]gardener.Op(nil), sc.Allowed...), more...)
				continue
			}
			healed[op.Index]++
		}
		lastFail = failedHow(rep.Result)
		ops = mergeOps(sc.Allowed, *op)
		for _, more := range c.carried(*op) {
			if healed[more.Index] == 0 && !touches(ops, more.Index) {
				ops = mergeOps(ops, more)
			}
		}
		more, err := c.samePage(ctx, ri, cand, rep, origin, ops)
		if err != nil {
			return err
		}
		for _, m := range more {
			healed[m.Index]++
			ops = mergeOps(ops, m)
		}
		back, err := c.dismissalsBack(ctx, ri, cand, rep, origin)
		if err != nil {
			return err
		}
		ops = append(ops, back...)
	}
}

// dismissalsBack asks the drift rules, once, about the page a replay of t failed on, when a
// banner may stand over the element a heal has just renamed: t clicks something it inserted (a
// dismissal) and the banner may be back on this page, or the element was not found on a page a
// layer covers (see gardener.Fingerprint.Covered). It takes only their dismissals: a click on
// what t inserted, or, on a covered page, on a button named as dismissals are. Without them the
// heal's proof would meet its element covered and spend a replay learning so.
func (c *climb) dismissalsBack(ctx context.Context, ri int, t gardener.Test, rep gardener.Replay, origin []int) ([]gardener.Op, error) {
	var inserted []gardener.Locator
	for k, st := range t.Steps {
		if k < len(origin) && origin[k] < 0 && st.Kind == gardener.Click {
			inserted = append(inserted, st.Locator)
		}
	}
	covered := rep.Result.ErrorKind == gardener.ErrElementNotFound && blocked(rep.Snapshot)
	if len(inserted) == 0 && !covered || rep.Snapshot == nil {
		return nil, nil
	}
	ans, err := c.askOps(ctx, ri, t, rep, origin)
	if err != nil {
		return nil, err
	}
	var out []gardener.Op
	back := false
	for _, op := range ans.Ops {
		if op.Kind != gardener.OpInsert || op.Step == nil || op.Step.Kind != gardener.Click {
			return nil, nil
		}
		again := slices.Contains(inserted, op.Step.Locator)
		if !again && !(covered && gardener.DismissWords.MatchString(op.Step.Locator.Name)) {
			return nil, nil
		}
		back = back || again
		b, ok := toBase(op, origin, len(c.base.Steps))
		if !ok {
			return nil, nil
		}
		out = append(out, b)
	}
	if len(out) > 0 {
		prefix := "the page is covered, to the drift rules: "
		if back {
			prefix = "the banner is back on the page the proof failed on, to the drift rules: "
		}
		c.emit(Event{Stage: gardener.EventCandidate, Rung: c.res.Rungs[ri].Rung, Message: prefix + ans.Reason})
	}
	return out, nil
}

// blocked reports whether a snapshot shows a control covered by a layer over the page.
func blocked(s *gardener.Snapshot) bool {
	if s == nil {
		return false
	}
	for _, c := range s.Candidates {
		if c.Covered {
			return true
		}
	}
	return false
}

// failedHow names how a run failed, for telling a proof that failed again as the last one did
// (nothing learned: the climb stops) from one that got further or failed otherwise at the same
// step: its element found now but covered, where it was not found before.
func failedHow(r gardener.RunResult) string {
	return fmt.Sprintf("%s\x00%s\x00%t", r.FailedStep, r.ErrorKind, r.CoveredBy != nil)
}

// dropAbsentDismissal answers ops without the inserted click that res failed at for want of its
// element, and without the same click inserted later, when that click is one the candidate
// inserted and clicks earlier too: a dismissal of a banner the drift rules expected back on every
// page load (see the built-in rules) that did not come back here, on a page the app remembers it was dismissed. The
// dismissals before it stay: the proof passed them.
func dropAbsentDismissal(ops []gardener.Op, cand []gardener.Step, origin []int, baseLen int, res gardener.RunResult) ([]gardener.Op, bool) {
	fi := res.FailedIndex
	if fi < 0 || fi >= len(origin) || origin[fi] >= 0 || strings.Contains(res.FailedStep, ".") || res.ErrorKind != gardener.ErrElementNotFound {
		return nil, false
	}
	click := cand[fi]
	if click.Kind != gardener.Click || !clicksEarlier(cand[:fi], click.Locator) {
		return nil, false
	}
	at := baseLen // the base step the failed click was inserted before
	for k := fi + 1; k < len(origin); k++ {
		if origin[k] >= 0 {
			at = origin[k]
			break
		}
	}
	var out []gardener.Op
	dropped := false
	for _, op := range ops {
		if op.Kind == gardener.OpInsert && op.Index >= at && op.Step != nil && op.Step.Kind == gardener.Click && op.Step.Locator == click.Locator {
			dropped = true
			continue
		}
		out = append(out, op)
	}
	return out, dropped && len(out) > 0
}

// clicksEarlier reports whether one of steps, at the top level, clicks l.
func clicksEarlier(steps []gardener.Step, l gardener.Locator) bool {
	for _, st := range steps {
		if st.Kind == gardener.Click && st.Locator == l {
			return true
		}
	}
	return false
}

// askOps asks the drift rules about the failure of rep, a replay of candidate t, and records
// the call.
func (c *climb) askOps(ctx context.Context, ri int, t gardener.Test, rep gardener.Replay, origin []int) (gardener.OpsAnswer, error) {
	t0 := c.l.now()
	ans, err := c.l.Model.SuggestOps(ctx, gardener.OpsAsk{Failure: c.failureOn(t, rep, origin)})
	c.res.Timings.Model += c.l.now().Sub(t0).Milliseconds()
	c.recordCall(ri, "operations", ans.Usage, err, len(ans.Ops))
	if err != nil {
		// A model error the climb goes on after leaves nothing to take from the answer.
		return gardener.OpsAnswer{}, c.modelError(ri, err)
	}
	return ans, nil
}

// suggestOn asks the drift rules about the failure of a red proof of candidate t and returns
// their operations as operations on the base steps (origin maps t's indices to base indices),
// to be added to the candidate's own.
func (c *climb) suggestOn(ctx context.Context, ri int, t gardener.Test, rep gardener.Replay, origin []int) ([]gardener.Op, error) {
	ans, err := c.askOps(ctx, ri, t, rep, origin)
	if err != nil {
		return nil, err
	}
	var out []gardener.Op
	for _, op := range ans.Ops {
		b, ok := toBase(op, origin, len(c.base.Steps))
		if !ok {
			c.attempt(ri, gardener.Attempt{Rung: c.res.Rungs[ri].Rung, Outcome: fmt.Sprintf("no candidate: the drift rules changed step %d, which the candidate inserted", op.Index+1)})
			return nil, nil
		}
		out = append(out, b)
	}
	if len(out) > 0 {
		c.emit(Event{Stage: gardener.EventCandidate, Rung: c.res.Rungs[ri].Rung, Message: "the proof's failure, to the drift rules: " + ans.Reason})
	}
	return out, nil
}

// toBase turns an operation on a candidate's steps into one on the base steps. An insert goes
// before the base step now at its place (or at the end); a replace or delete of a step the
// candidate itself inserted has no base step to name.
func toBase(op gardener.Op, origin []int, baseLen int) (gardener.Op, bool) {
	if op.Kind == gardener.OpInsert {
		at := max(op.Index, 0)
		op.Index = baseLen
		for k := at; k < len(origin); k++ {
			if origin[k] >= 0 {
				op.Index = origin[k]
				break
			}
		}
		return op, true
	}
	if op.Index < 0 || op.Index >= len(origin) || origin[op.Index] < 0 {
		return op, false
	}
	op.Index = origin[op.Index]
	return op, true
}

// opsKey names a set of operations, so the same candidate is never proven twice.
func opsKey(ops []gardener.Op) string {
	b, err := json.Marshal(ops)
	if err != nil {
		return fmt.Sprint(ops)
	}
	return string(b)
}

// healStep asks for a fix of the step a replay of t failed at, as an op against the base steps
// (origin maps t's top-level indices to base indices). A failing step inside an intent block
// re-derives the block; any other step gets a new locator, but only when the failure is about
// finding the element: a check that found its element and read the wrong value is not drift,
// and moving its locator until some element reads the expected value would certify a regression.
func (c *climb) healStep(ctx context.Context, ri int, t gardener.Test, rep gardener.Replay, origin []int) (*gardener.Op, error) {
	res := rep.Result
	fi := res.FailedIndex
	if fi < 0 || fi >= len(t.Steps) || origin[fi] < 0 {
		c.attempt(ri, gardener.Attempt{Rung: gardener.StrategySelfHeal, Outcome: "no candidate: the failing step is not one of the recorded steps"})
		return nil, nil
	}
	bi := origin[fi]
	step := t.Steps[fi]
	if step.Kind == gardener.Intent {
		return c.rederive(ctx, ri, t, rep, fi, bi, origin)
	}
	if !res.LocatorTrouble() || step.Target().IsZero() {
		why, err := c.earlierElement(ctx, ri, t, rep, origin)
		if err != nil {
			return nil, err
		}
		outcome := fmt.Sprintf("no candidate: step %s failed with %s, which a new locator cannot fix", res.FailedStep, res.ErrorKind)
		if why != "" {
			outcome += "; " + why
		}
		c.attempt(ri, gardener.Attempt{Rung: gardener.StrategySelfHeal, Outcome: outcome})
		return nil, nil
	}
	op, why, err := c.newLocator(ctx, ri, t, rep, origin, "")
	if err != nil || op != nil {
		return op, err
	}
	c.attempt(ri, gardener.Attempt{Rung: gardener.StrategySelfHeal, Outcome: "no candidate: " + why})
	return nil, nil
}

// newLocator asks the model for a new locator for top-level step rep.Result.FailedIndex of t,
// as an op against the base steps, or says why there is none. note, when set, is added to the
// candidate event's reason.
func (c *climb) newLocator(ctx context.Context, ri int, t gardener.Test, rep gardener.Replay, origin []int, note string) (*gardener.Op, string, error) {
	fi := rep.Result.FailedIndex
	bi := origin[fi]
	step := t.Steps[fi]
	ask := gardener.LocatorAsk{Failure: c.failureOn(t, rep, origin), Index: fi, Inner: -1, Step: step, Recorded: c.req.LastGreen.Element(strconv.Itoa(bi + 1))}
	t0 := c.l.now()
	ans, err := c.l.Model.FixLocator(ctx, ask)
	c.res.Timings.Model += c.l.now().Sub(t0).Milliseconds()
	c.recordCall(ri, "locator", ans.Usage, err, boolInt(!ans.Locator.IsZero()))
	if err != nil {
		return nil, "", c.modelError(ri, err)
	}
	if ans.Locator.IsZero() || ans.Locator == step.Target() {
		return nil, cmp.Or(ans.Reason, "no element on the page is close enough to the recorded one"), nil
	}
	fixed := step.Clone()
	if fixed.Kind == gardener.A11yAudit {
		fixed.Scope = ans.Locator
	} else {
		fixed.Locator = ans.Locator
	}
	c.alts[bi] = ans.Alternatives
	why := ans.Reason
	if note != "" {
		why += "; " + note
	}
	c.emit(Event{Stage: gardener.EventCandidate, Rung: gardener.StrategySelfHeal, Step: strconv.Itoa(bi + 1), Message: fmt.Sprintf("step %d: %s → %s (%s)", bi+1, step.Target(), ans.Locator, why)})
	return &gardener.Op{Kind: gardener.OpReplace, Index: bi, Step: &fixed}, "", nil
}

// nextAlternative retries a healed step with the model's next locator for the same element when
// the proof shows the first one does not resolve to exactly one element: no model call.
func (c *climb) nextAlternative(t gardener.Test, rep gardener.Replay, fi, bi int) *gardener.Op {
	alts := c.alts[bi]
	if len(alts) == 0 || !rep.Result.LocatorTrouble() || strings.Contains(rep.Result.FailedStep, ".") {
		return nil
	}
	c.alts[bi] = alts[1:]
	fixed := t.Steps[fi].Clone()
	if fixed.Kind == gardener.A11yAudit {
		fixed.Scope = alts[0]
	} else {
		fixed.Locator = alts[0]
	}
	c.emit(Event{Stage: gardener.EventCandidate, Rung: gardener.StrategySelfHeal, Step: strconv.Itoa(bi + 1), Message: fmt.Sprintf("step %d: trying the next locator for the same element, %s", bi+1, alts[0])})
	return &gardener.Op{Kind: gardener.OpReplace, Index: bi, Step: &fixed}
}

func (c *climb) rederive(ctx context.Context, ri int, t gardener.Test, rep gardener.Replay, fi, bi int, origin []int) (*gardener.Op, error) {
	block := t.Steps[fi]
	t0 := c.l.now()
	ans, err := c.l.Model.DeriveIntent(ctx, gardener.IntentAsk{Failure: c.failureOn(t, rep, origin), Index: fi, Block: block})
	c.res.Timings.Model += c.l.now().Sub(t0).Milliseconds()
	c.recordCall(ri, "intent", ans.Usage, err, len(ans.Steps))
	if err != nil {
		return nil, c.modelError(ri, err)
	}
	if len(ans.Steps) == 0 {
		c.attempt(ri, gardener.Attempt{Rung: gardener.StrategyIntent, Outcome: "no candidate: " + cmp.Or(ans.Reason, "the block could not be re-derived")})
		return nil, nil
	}
	// The goal and values are the test's, never the model's: they are kept as recorded whatever
	// the answer carried.
	nb := block.Clone()
	nb.Steps = gardener.CloneSteps(ans.Steps)
	c.emit(Event{Stage: gardener.EventCandidate, Rung: gardener.StrategyIntent, Step: strconv.Itoa(bi + 1), Message: fmt.Sprintf("step %d: intent %q re-derived as %d steps", bi+1, block.Goal, len(nb.Steps))})
	return &gardener.Op{Kind: gardener.OpReplace, Index: bi, Step: &nb}, nil
}

// applyWithOrigin applies ops and also returns, for every resulting step, the base index it
// came from (-1 for an inserted step), so a later failure can be traced to a base step.
func applyWithOrigin(base []gardener.Step, ops []gardener.Op) ([]gardener.Step, []int, error) {
	steps, err := gardener.ApplySteps(base, ops)
	if err != nil {
		return nil, nil, err
	}
	inserts := map[int]int{}
	deleted := map[int]bool{}
	for _, op := range ops {
		switch op.Kind {
		case gardener.OpInsert:
			inserts[op.Index]++
		case gardener.OpDelete:
			deleted[op.Index] = true
		}
	}
	origin := make([]int, 0, len(steps))
	for i := 0; i <= len(base); i++ {
		for range inserts[i] {
			origin = append(origin, -1)
		}
		if i < len(base) && !deleted[i] {
			origin = append(origin, i)
		}
	}
	return steps, origin, nil
}

func identity(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

// sameElementLater carries a heal of base step bi to the later top-level steps that used the
// same failing locator for what the last green run recorded as the same element (a test that
// adds two products clicks "Add to cart" twice): each would otherwise cost a red proof of its
// own before being healed the same way. The proof still judges the whole candidate.
func (c *climb) sameElementLater(op gardener.Op) []gardener.Op {
	bi := op.Index
	if op.Kind != gardener.OpReplace || op.Step == nil || bi < 0 || bi >= len(c.base.Steps) || c.req.LastGreen == nil {
		return nil
	}
	old := c.base.Steps[bi].Target()
	rec := c.req.LastGreen.Element(strconv.Itoa(bi + 1))
	if old.IsZero() || rec == nil {
		return nil
	}
	var out []gardener.Op
	for j := bi + 1; j < len(c.base.Steps); j++ {
		st := c.base.Steps[j]
		if st.Kind == gardener.Intent || st.Kind != c.base.Steps[bi].Kind || st.Target() != old {
			continue
		}
		other := c.req.LastGreen.Element(strconv.Itoa(j + 1))
		if other == nil || !sameIdentity(*rec, *other) {
			continue
		}
		fixed := st.Clone()
		if fixed.Kind == gardener.A11yAudit {
			fixed.Scope = op.Step.Target()
		} else {
			fixed.Locator = op.Step.Target()
		}
		out = append(out, gardener.Op{Kind: gardener.OpReplace, Index: j, Step: &fixed})
	}
	return out
}

// sameIdentity compares what names an element to a user, not where it sits on the page.
func sameIdentity(a, b gardener.Fingerprint) bool {
	return a.Tag == b.Tag && a.Role == b.Role && a.AccessibleName == b.AccessibleName && a.TestID == b.TestID &&
		a.Label == b.Label && a.Type == b.Type && a.ID == b.ID && a.Name == b.Name
}

// sameFrameLater carries a heal that moved base step bi into another iframe to the later
// actions that lived in the same iframe as step bi did (a payment frame renamed from
// #payment-frame to #checkout-frame holds every field the test fills): each keeps its own
// locator inside the frame and takes the healed frame path, instead of costing a red proof of
// its own. Checks are left alone: where a check looks is the floor's business. The proof still
// judges the whole candidate, and a step the carry got wrong is healed on its own after it.
func (c *climb) sameFrameLater(op gardener.Op) []gardener.Op {
	bi := op.Index
	if op.Kind != gardener.OpReplace || op.Step == nil || bi < 0 || bi >= len(c.base.Steps) {
		return nil
	}
	from, to := c.base.Steps[bi].Target().Frame, op.Step.Target().Frame
	if from == "" || from == to {
		return nil
	}
	var out []gardener.Op
	for j := bi + 1; j < len(c.base.Steps); j++ {
		st := c.base.Steps[j]
		if st.Kind == gardener.Intent || !st.IsAction() || st.Locator.IsZero() || st.Locator.Frame != from {
			continue
		}
		fixed := st.Clone()
		fixed.Locator.Frame = to
		out = append(out, gardener.Op{Kind: gardener.OpReplace, Index: j, Step: &fixed})
	}
	return out
}

// carried is what a heal of one step carries to later steps: those on the same element, then
// those in the same iframe (a step in both is carried once, as the same element).
func (c *climb) carried(op gardener.Op) []gardener.Op {
	out := c.sameElementLater(op)
	for _, more := range c.sameFrameLater(op) {
		if !touches(out, more.Index) {
			out = append(out, more)
		}
	}
	return out
}

// mergeOps adds a replace of one base step to a set of ops, taking the place of an earlier
// replace of the same step.
func mergeOps(ops []gardener.Op, add gardener.Op) []gardener.Op {
	out := make([]gardener.Op, 0, len(ops)+1)
	for _, op := range ops {
		if op.Kind != gardener.OpInsert && op.Index == add.Index {
			continue
		}
		out = append(out, op)
	}
	return append(out, add)
}

// touches reports whether ops already change base step i.
func touches(ops []gardener.Op, i int) bool {
	for _, op := range ops {
		if op.Kind != gardener.OpInsert && op.Index == i {
			return true
		}
	}
	return false
}

func rederivedBlocks(base []gardener.Step, ops []gardener.Op) []int {
	var out []int
	for _, op := range ops {
		if op.Kind == gardener.OpReplace && base[op.Index].Kind == gardener.Intent {
			out = append(out, op.Index)
		}
	}
	return out
}

// opLines renders a candidate's operations as the diff lines a person reads, fill values
// redacted.
func opLines(base []gardener.Step, ops []gardener.Op) []string {
	var out []string
	for _, e := range gardener.Diff(base, ops) {
		out = append(out, e.Lines()...)
	}
	return out
}

// proofStep reports one step of a proof's replay as the run recorded it: its path, kind and
// verdict, never the values it entered or read.
func (c *climb) proofStep(rung gardener.Strategy, st gardener.StepRecord) {
	verdict := "passed"
	switch {
	case st.Skipped:
		verdict = "skipped"
	case !st.Passed:
		verdict = "failed"
	}
	c.emit(Event{Stage: gardener.EventProofStep, Rung: rung, Step: st.Path, Kind: st.Kind, Passed: ptr(st.Passed || st.Skipped),
		Message: fmt.Sprintf("step %s %s: %s (%d ms)", st.Path, st.Kind, verdict, st.Millis)})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// proofQuiet is where a proof of cand (origin maps its steps to the base steps) may give up
// waiting for an element: at a step whose locator matches nothing visible on a page that has
// settled (gardener.QuietFail, patient). A proof that waits out a step limit at an element a
// look at the settled page already shows absent spends the limit to learn what the look said:
// the menu item an inserted click did not reveal, the next renamed field. That holds as well
// when the element is there under another name the last green run recorded (a field on the
// next page renamed too): on a settled page the step's locator will not come to match it, and
// the next climb heals it from the snapshot of this red proof (a booking flow's proof waited
// its whole 10 s limit so at the second page's renamed field). It goes red sooner, with the same
// verdict; a green proof is the same whole replay as ever. Steps with a time limit of their
// own (the test's, or one the candidate gave a step to wait longer) and the step after a wait
// the candidate inserted keep their whole limit: waiting there is what was asked for. A check
// of the URL or title gives up on a settled page too (gardener.Step.PlaceCheck).
func (c *climb) proofQuiet(cand gardener.Test, origin []int) map[int]gardener.QuietFail {
	out := map[int]gardener.QuietFail{}
	afterWait := false
	for i, st := range cand.Steps {
		waited := afterWait
		afterWait = i < len(origin) && origin[i] < 0 && st.Kind == gardener.Wait
		if st.Kind == gardener.Intent && !waited && i < len(origin) {
			// The block's steps by their own locators, as in a reproduction.
			out[i] = gardener.QuietFail{Patient: true}
			continue
		}
		if st.TimeoutMs == 0 && !waited && i < len(origin) && st.PlaceCheck() {
			// A check of the URL, the title or a toast on a settled page nothing loads on: the
			// wrong button's page stays where it is and shows nothing new.
			out[i] = gardener.QuietFail{Patient: true}
			continue
		}
		if st.Kind == gardener.Intent || st.Target().IsZero() || st.TimeoutMs > 0 || waited || i >= len(origin) {
			continue
		}
		out[i] = gardener.QuietFail{Patient: true}
	}
	return out
}
