package ladder

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// conclude runs the trust checks on the green proof and decides between repaired and staged.
func (c *climb) conclude(ctx context.Context) error {
	g := c.green
	v := gardener.Verdict{
		Strategy:        g.strategy,
		Ops:             g.ops,
		Changes:         gardener.Classify(c.base.Steps, g.test.Steps),
		IntentConfirmed: true,
	}
	if g.strategy == gardener.StrategySelfHeal && len(g.rederived) > 0 {
		v.Strategy = gardener.StrategyIntent
	}
	pairs := stepPairs(c.base.Steps, g.test.Steps)
	v.Notes = append(v.Notes, c.pageAtFailure()...)
	v.Notes = append(v.Notes, flowNotes(c.base.Steps, g.test.Steps, pairs)...)
	v.Notes = append(v.Notes, behaviourNotes(c.base.Steps, g.test.Steps, pairs)...)
	v.Contract = contract(c.base.Steps, g.test.Steps, pairs, c.req.LastGreen, g.proof.Result)
	for _, r := range v.Contract.Requirements {
		if !r.Kept {
			v.Notes = append(v.Notes, gardener.Note{Kind: gardener.NoteRequirementNotKept, Step: r.Step, Text: fmt.Sprintf("requirement not kept: step %s no longer %s %s", r.Step, r.What, r.Detail)})
		}
	}
	v.Unverified = unverified(g.test.Steps, g.proof.Result)
	if v.Unverified != "" {
		v.Notes = append(v.Notes, gardener.Note{Kind: gardener.NoteUnverified, Text: "UNVERIFIED: " + v.Unverified})
	}
	for _, bi := range g.rederived {
		if ok, why := c.intentConfirmed(bi, pairs, g); !ok {
			v.IntentConfirmed = false
			v.Notes = append(v.Notes, gardener.Note{Kind: gardener.NoteIntentUnconfirmed, Step: strconv.Itoa(bi + 1), Text: why})
		}
	}

	sens, probes := sensitivity(g.test, g.proof)
	v.Sensitivity = sens
	c.res.Probes = probes
	for _, p := range sens.Insensitive {
		v.Notes = append(v.Notes, gardener.Note{Kind: gardener.NoteInsensitiveCheck, Step: p, Text: fmt.Sprintf("insensitive check: step %s also passes before the step it follows runs, so it proves nothing about what that step does", p)})
	}
	c.l.emit(Event{Stage: "sensitivity", Rung: g.strategy, Message: fmt.Sprintf("checks proven sensitive in %d of %d", sens.Sensitive, sens.Total)})

	c.res.Verdict = &v
	c.res.Steps = g.test.Steps
	c.res.Diff = gardener.Diff(c.base.Steps, g.ops)
	proof := g.proof.Result
	c.res.Proof = &proof
	if need, why := v.NeedsPerson(); need {
		c.res.Outcome, c.res.Reason = Staged, "a person must look: "+why
		return nil
	}
	if c.req.Mode == gardener.ModePropose {
		c.res.Outcome, c.res.Reason = Staged, "proposed for review: auto-repair is off"
		return nil
	}
	c.res.Outcome = Repaired
	return nil
}

func (c *climb) pageAtFailure() []gardener.Note {
	r := c.fail.Result
	return []gardener.Note{{Kind: gardener.NotePageAtFailure, Step: r.FailedStep, Text: fmt.Sprintf("page at failure: replay stopped at step %s on %s, where the repair started", r.FailedStep, failureURL(c.fail))}}
}

// pair is an aligned step with paths on both sides ("" for a side that has no step).
type pair struct {
	before, after *gardener.Step
	bPath, aPath  string
}

// stepPairs aligns two step lists, descending into intent blocks that pair up, so every
// recorded step, top-level or inside a block, is matched with the step that now does its job.
func stepPairs(before, after []gardener.Step) []pair {
	return alignPaths(before, after, "")
}

func alignPaths(before, after []gardener.Step, prefix string) []pair {
	var out []pair
	for _, p := range gardener.Align(before, after) {
		var pr pair
		if p.Before >= 0 {
			pr.before, pr.bPath = &before[p.Before], prefix+strconv.Itoa(p.Before+1)
		}
		if p.After >= 0 {
			pr.after, pr.aPath = &after[p.After], prefix+strconv.Itoa(p.After+1)
		}
		out = append(out, pr)
		if pr.before != nil && pr.after != nil && pr.before.Kind == gardener.Intent && pr.after.Kind == gardener.Intent {
			out = append(out, alignPaths(pr.before.Steps, pr.after.Steps, pr.bPath+".")...)
		}
	}
	return out
}

// navigates reports whether a step moves the user through the app: the actions a flow-change
// note lists when a repair drops or adds them.
func navigates(s gardener.Step) bool {
	return s.Kind == gardener.Click || s.Kind == gardener.Press || s.Kind == gardener.Goto
}

// flowNotes lists every click, key press or goto the repaired steps dropped or added.
func flowNotes(before, after []gardener.Step, pairs []pair) []gardener.Note {
	var out []gardener.Note
	for _, p := range pairs {
		switch {
		case p.before != nil && navigates(*p.before) && (p.after == nil || p.after.Kind != p.before.Kind):
			out = append(out, gardener.Note{Kind: gardener.NoteFlowChange, Step: p.bPath, Text: fmt.Sprintf("flow change: step %s no longer performs %s. A page or navigation step may have been removed or merged.", p.bPath, p.before)})
		case p.after != nil && navigates(*p.after) && (p.before == nil || p.before.Kind != p.after.Kind):
			out = append(out, gardener.Note{Kind: gardener.NoteFlowChange, Step: p.aPath, Text: fmt.Sprintf("flow change: the repaired test performs %s at step %s, which the recorded test did not.", p.after, p.aPath)})
		}
	}
	return out
}

// entersValue reports whether a step enters or picks a value, and which.
func entersValue(s gardener.Step) (string, bool) {
	switch s.Kind {
	case gardener.Fill, gardener.Select:
		return s.Value, true
	case gardener.Check, gardener.Uncheck:
		return string(s.Kind), true
	}
	return "", false
}

// behaviourNotes flags a step that no longer enters or picks what the recorded step did. A value
// moved to another control (a text field that became a dropdown) is still entered: no note.
func behaviourNotes(before, after []gardener.Step, pairs []pair) []gardener.Note {
	var out []gardener.Note
	for _, p := range pairs {
		if p.before == nil {
			continue
		}
		v, ok := entersValue(*p.before)
		if !ok {
			continue
		}
		if p.after != nil {
			if w, ok := entersValue(*p.after); ok && w == v {
				continue
			}
		}
		instead := "nothing"
		if p.after != nil {
			instead = p.after.String()
		}
		out = append(out, gardener.Note{Kind: gardener.NoteBehaviorChange, Step: p.bPath, Text: fmt.Sprintf("behavior change: step %s no longer does %s, and does %s instead. The test may now exercise something else.", p.bPath, p.before, instead)})
	}
	return out
}

// contract reads the requirements of the last green run (values each step entered, requests it
// sent other than plain reads, checks it made) and asks whether the same step of the proof
// still does each of them.
func contract(before, after []gardener.Step, pairs []pair, lastGreen *gardener.RunResult, proof gardener.RunResult) gardener.Contract {
	var c gardener.Contract
	if lastGreen == nil {
		return c
	}
	recs := func(r gardener.RunResult) map[string]gardener.StepRecord {
		m := map[string]gardener.StepRecord{}
		for _, s := range r.Steps {
			m[s.Path] = s
		}
		return m
	}
	green, now := recs(*lastGreen), recs(proof)
	// sentBy holds, per proof step, the requests it sent together with those recorded by its
	// neighbours in run order: a page sends some requests once a step has settled (a beacon, a
	// debounced save), and whether this run or the last green one recorded them under the step
	// or the next is a matter of timing, not of behaviour.
	sentBy := map[string][]gardener.Request{}
	for i, r := range proof.Steps {
		var sent []gardener.Request
		for j := max(i-1, 0); j <= min(i+1, len(proof.Steps)-1); j++ {
			sent = append(sent, proof.Steps[j].Requests...)
		}
		sentBy[r.Path] = sent
	}
	for _, p := range pairs {
		if p.before == nil {
			continue
		}
		rec, ok := green[p.bPath]
		if !ok {
			continue
		}
		var after gardener.StepRecord
		if p.after != nil {
			after = now[p.aPath]
		}
		by := ""
		if p.after != nil {
			by = p.after.String()
		}
		seen := map[string]bool{}
		add := func(r gardener.Requirement) {
			if k := r.What + " " + r.Detail; !seen[k] {
				seen[k] = true
				c.Requirements = append(c.Requirements, r)
			}
		}
		if _, enters := entersValue(*p.before); enters {
			for _, v := range rec.Values {
				add(gardener.Requirement{Step: p.bPath, What: "enters", Detail: strconv.Quote(v), Kept: p.after != nil && slices.Contains(after.Values, v), By: by})
			}
		}
		for _, rq := range rec.Requests {
			if rq.Method == "GET" || rq.Method == "HEAD" || rq.Method == "OPTIONS" {
				continue
			}
			path := requestPath(rq.URL)
			kept := p.after != nil && slices.ContainsFunc(sentBy[p.aPath], func(o gardener.Request) bool {
				return o.Method == rq.Method && requestPath(o.URL) == path
			})
			add(gardener.Requirement{Step: p.bPath, What: "sends", Detail: rq.Method + " " + path, Kept: kept, By: by})
		}
		if p.before.IsCheck() {
			kept := p.after != nil && p.after.Kind == p.before.Kind && after.Passed && checkSame(*p.before, *p.after)
			c.Requirements = append(c.Requirements, gardener.Requirement{Step: p.bPath, What: "checks", Detail: p.before.String(), Kept: kept, By: by})
		}
	}
	return c
}

// checkSame reports whether a check still checks the same outcome: the floor's own comparison.
func checkSame(b, a gardener.Step) bool {
	sc := gardener.Screen([]gardener.Step{b}, []gardener.Op{{Kind: gardener.OpReplace, Index: 0, Step: &a}})
	return len(sc.Refusals) == 0
}

func requestPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return raw
	}
	return u.Path
}

// unverified finds a fill the proof recorded with an empty value where the step passes one.
func unverified(steps []gardener.Step, proof gardener.RunResult) string {
	byPath := map[string]gardener.StepRecord{}
	for _, r := range proof.Steps {
		byPath[r.Path] = r
	}
	var walk func([]gardener.Step, string) string
	walk = func(ss []gardener.Step, prefix string) string {
		for i, s := range ss {
			path := prefix + strconv.Itoa(i+1)
			if s.Kind == gardener.Intent {
				if why := walk(s.Steps, path+"."); why != "" {
					return why
				}
				continue
			}
			if s.Kind != gardener.Fill || s.Value == "" {
				continue
			}
			rec, ok := byPath[path]
			if ok && (len(rec.Values) == 0 || slices.Contains(rec.Values, "")) {
				return fmt.Sprintf("step %s (%s) was recorded entering an empty value", path, s)
			}
		}
		return ""
	}
	return walk(steps, "")
}

// intentConfirmed applies the rule for re-derived blocks: the block did what it did on its last
// green run (it left the page on the same URL), or an outcome check after it passed.
func (c *climb) intentConfirmed(bi int, pairs []pair, g *proven) (bool, string) {
	bPath := strconv.Itoa(bi + 1)
	aPath := ""
	for _, p := range pairs {
		if p.bPath == bPath && p.after != nil {
			aPath = p.aPath
		}
	}
	ai, _ := strconv.Atoi(aPath)
	for _, s := range g.test.Steps[ai:] {
		if s.IsCheck() {
			return true, ""
		}
	}
	if lg := c.req.LastGreen; lg != nil {
		was, now := blockURL(lg.Steps, bPath), blockURL(g.proof.Result.Steps, aPath)
		if was != "" && was == now {
			return true, ""
		}
	}
	return false, fmt.Sprintf("the intent block at step %s was re-derived, but neither does it end where it did on its last green run nor does an outcome check after it confirm it", bPath)
}

// blockURL is the URL after the last step recorded inside a block.
func blockURL(recs []gardener.StepRecord, path string) string {
	out := ""
	for _, r := range recs {
		if r.Path == path || strings.HasPrefix(r.Path, path+".") {
			out = r.URLAfter
		}
	}
	return out
}

// probesFor says, for a candidate's proof, which checks to evaluate on the page as it is just
// before the action step each follows: a check that passes there too sees nothing that step
// did. The proof replay evaluates them on its way (they only read the page), so the
// sensitivity of a green candidate costs no replay of its own. Request and console checks read
// the whole run rather than the page, so they are not probed; a check with no action before it
// has nothing to be sensitive to. paths names each probed check by its step.
func probesFor(t gardener.Test) (probes map[int][]gardener.Step, paths map[int][]string) {
	probes, paths = map[int][]gardener.Step{}, map[int][]string{}
	for j, s := range t.Steps {
		if !s.IsCheck() || s.Kind == gardener.AssertRequest || s.Kind == gardener.AssertConsole {
			continue
		}
		a := -1
		for k := j - 1; k >= 0; k-- {
			if t.Steps[k].IsAction() || t.Steps[k].Kind == gardener.Intent {
				a = k
				break
			}
		}
		if a < 0 || t.Steps[a].Kind == gardener.Goto && a == 0 {
			continue
		}
		probes[a] = append(probes[a], s)
		paths[a] = append(paths[a], strconv.Itoa(j+1))
	}
	return probes, paths
}

// sensitivity reads what the green proof's probes (probesFor) found.
func sensitivity(t gardener.Test, proof gardener.Replay) (gardener.Sensitivity, []gardener.ProbeResult) {
	probes, paths := probesFor(t)
	var sens gardener.Sensitivity
	var all []gardener.ProbeResult
	for a, checks := range probes {
		got := proof.Probes[a]
		for i := range checks {
			sens.Total++
			if i >= len(got) {
				continue // not evaluated: proven neither way
			}
			pr := got[i]
			if pr.Path == "" {
				pr.Path = paths[a][i]
			}
			all = append(all, pr)
			if pr.Passed {
				sens.Insensitive = append(sens.Insensitive, paths[a][i])
			} else {
				sens.Sensitive++
			}
		}
	}
	slices.SortFunc(sens.Insensitive, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	return sens, all
}
