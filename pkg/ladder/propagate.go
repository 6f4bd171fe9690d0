package ladder

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// LocatorChange is a proven heal reduced to what other tests can reuse: one locator that now
// finds its element another way.
type LocatorChange struct {
	From gardener.Locator `json:"from"`
	To   gardener.Locator `json:"to"`
}

// HealedLocators extracts the locator changes of a verdict: replaces that changed only a step's
// locator (inside intent blocks too). Anything else a fix did is not propagated.
func HealedLocators(base []gardener.Step, v gardener.Verdict) []LocatorChange {
	var out []LocatorChange
	seen := map[LocatorChange]bool{}
	add := func(b, a gardener.Step) {
		if b.Kind != a.Kind || b.Target() == a.Target() || b.Target().IsZero() {
			return
		}
		x, y := b, a
		x.Locator, y.Locator, x.Scope, y.Scope = gardener.Locator{}, gardener.Locator{}, gardener.Locator{}, gardener.Locator{}
		x.TimeoutMs, y.TimeoutMs = 0, 0
		if !x.Equal(y) {
			return
		}
		lc := LocatorChange{From: b.Target(), To: a.Target()}
		if !seen[lc] {
			seen[lc] = true
			out = append(out, lc)
		}
	}
	for _, op := range v.Ops {
		if op.Kind != gardener.OpReplace || op.Index < 0 || op.Index >= len(base) || op.Step == nil {
			continue
		}
		b, a := base[op.Index], *op.Step
		if b.Kind == gardener.Intent && a.Kind == gardener.Intent {
			for _, p := range gardener.Align(b.Steps, a.Steps) {
				if p.Before >= 0 && p.After >= 0 {
					add(b.Steps[p.Before], a.Steps[p.After])
				}
			}
			continue
		}
		add(b, a)
	}
	return out
}

// Propagated is what became of one other test that used a healed locator.
type Propagated struct {
	TestID      string            `json:"testId"`
	BaseVersion int               `json:"baseVersion"`
	Green       bool              `json:"green"`
	Ops         []gardener.Op     `json:"ops,omitempty"`
	Verdict     *gardener.Verdict `json:"verdict,omitempty"`
	Reason      string            `json:"reason,omitempty"`
	// Proof is the green re-run, for the caller to record.
	Proof *gardener.RunResult `json:"-"`
}

// Target is one other test a heal may propagate to, with its own last green run: the record its
// propagated fix is judged against.
type Target struct {
	Test      gardener.Test
	LastGreen *gardener.RunResult
}

// Propagate gives every other test that uses a healed locator the same change, each proven by
// its own green re-run, with no model call, and judged by the same trust checks as a ladder fix
// (contract, sensitivity, UNVERIFIED, notes) against its own last green run. A test that does not
// go green is left alone and named with the reason.
func (l *Ladder) Propagate(ctx context.Context, changes []LocatorChange, targets []Target, opts gardener.ReplayOptions) ([]Propagated, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	var out []Propagated
	for _, tg := range targets {
		t := tg.Test
		ops := locatorOps(t.Steps, changes)
		if len(ops) == 0 {
			continue
		}
		p := Propagated{TestID: t.ID, BaseVersion: t.Version}
		sc := gardener.Screen(t.Steps, ops)
		if len(sc.Refusals) > 0 {
			p.Reason = "the change was refused: " + sc.Refusals[0].Reason
			out = append(out, p)
			continue
		}
		cand, err := gardener.Apply(t, t.Version, sc.Allowed)
		if err != nil {
			p.Reason = err.Error()
			out = append(out, p)
			continue
		}
		l.emit(Event{Stage: gardener.EventPropagate, Rung: gardener.StrategyPropagation, TestID: t.ID, Ops: opLines(t.Steps, sc.Allowed), Message: fmt.Sprintf("%s: %s a healed locator", t.ID, gardener.Plural(len(sc.Allowed), "step uses", "steps use"))})
		o := opts
		o.Probes, _ = probesFor(cand)
		rep, err := l.Runner.Replay(ctx, cand, o)
		if err != nil {
			return out, fmt.Errorf("ladder: propagating to %s: %w", t.ID, err)
		}
		if !rep.Result.Passed {
			p.Reason = fmt.Sprintf("not green with the healed locator: step %s: %s", rep.Result.FailedStep, rep.Result.Message)
			l.emit(Event{Stage: gardener.EventPropagate, Rung: gardener.StrategyPropagation, TestID: t.ID, Passed: ptr(false), Step: rep.Result.FailedStep, Message: t.ID + ": " + p.Reason})
			out = append(out, p)
			continue
		}
		v, _ := judge(evidence{strategy: gardener.StrategyPropagation, ops: sc.Allowed, base: t.Steps, cand: cand, proof: rep, lastGreen: tg.LastGreen})
		proof := rep.Result
		p.Green, p.Ops, p.Verdict, p.Proof = true, sc.Allowed, &v, &proof
		msg := t.ID + ": green"
		if need, why := v.NeedsPerson(); need {
			msg += "; a person must look: " + why
		}
		l.emit(Event{Stage: gardener.EventPropagate, Rung: gardener.StrategyPropagation, TestID: t.ID, Passed: ptr(true), Message: msg})
		out = append(out, p)
	}
	return out, nil
}

// locatorOps replaces every use of a healed locator in a step list.
func locatorOps(steps []gardener.Step, changes []LocatorChange) []gardener.Op {
	to := map[gardener.Locator]gardener.Locator{}
	for _, c := range changes {
		to[c.From] = c.To
	}
	swap := func(s gardener.Step) (gardener.Step, bool) {
		n, ok := to[s.Target()]
		if !ok {
			return s, false
		}
		s = s.Clone()
		if s.Kind == gardener.A11yAudit {
			s.Scope = n
		} else {
			s.Locator = n
		}
		return s, true
	}
	var ops []gardener.Op
	for i, s := range steps {
		if s.Kind == gardener.Intent {
			nb, changed := s.Clone(), false
			for j, in := range s.Steps {
				if ns, ok := swap(in); ok {
					nb.Steps[j], changed = ns, true
				}
			}
			if changed {
				ops = append(ops, gardener.Op{Kind: gardener.OpReplace, Index: i, Step: &nb})
			}
			continue
		}
		if ns, ok := swap(s); ok {
			ops = append(ops, gardener.Op{Kind: gardener.OpReplace, Index: i, Step: &ns})
		}
	}
	return ops
}

// Use is one other test that uses a locator a heal changed: the steps that use it (paths, "4"
// or "3.2" inside an intent block) and the healed locators they use, as written.
type Use struct {
	TestID   string   `json:"testId"`
	Name     string   `json:"name,omitempty"`
	Steps    []string `json:"steps"`
	Locators []string `json:"locators"`
}

// Uses names every test of tests that uses a locator changes heals, in the order given: the
// tests a propagation would reach (locatorOps), each with the steps that use it. The caller
// leaves out the test the heal was made on and the tests no longer active.
func Uses(changes []LocatorChange, tests []gardener.Test) []Use {
	from := map[gardener.Locator]bool{}
	for _, c := range changes {
		from[c.From] = true
	}
	var out []Use
	for _, t := range tests {
		u := Use{TestID: t.ID, Name: t.Name}
		add := func(s gardener.Step, path string) {
			if tg := s.Target(); !tg.IsZero() && from[tg] {
				u.Steps = append(u.Steps, path)
				if l := tg.String(); !slices.Contains(u.Locators, l) {
					u.Locators = append(u.Locators, l)
				}
			}
		}
		for i, s := range t.Steps {
			path := strconv.Itoa(i + 1)
			if s.Kind == gardener.Intent {
				for j, in := range s.Steps {
					add(in, path+"."+strconv.Itoa(j+1))
				}
				continue
			}
			add(s, path)
		}
		if len(u.Steps) > 0 {
			out = append(out, u)
		}
	}
	return out
}
