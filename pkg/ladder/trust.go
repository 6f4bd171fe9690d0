package ladder

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

// conclude runs the trust checks on the green proof and decides between repaired and staged.
func (c *climb) conclude(ctx context.Context) error {
	g := c.green
	v, probes := judge(evidence{
		strategy: g.strategy, ops: g.ops, base: c.base.Steps, cand: g.test, proof: g.proof,
		lastGreen: c.req.LastGreen, rederived: g.rederived, lead: c.pageAtFailure(),
	})
	if g.strategy == gardener.StrategySelfHeal && len(g.rederived) > 0 {
		v.Strategy = gardener.StrategyIntent
	}
	c.res.Probes = probes
	sens := v.Sensitivity
	c.emit(Event{Stage: gardener.EventSensitivity, Rung: g.strategy, Sensitivity: &sens, Message: fmt.Sprintf("checks proven sensitive in %d of %d", sens.Sensitive, sens.Total)})
	kept, total := v.Contract.Kept()
	c.emit(Event{Stage: gardener.EventContract, Rung: g.strategy, Contract: &gardener.ContractSummary{Kept: kept, Total: total}, Message: contractLine(v.Contract)})
	verdict := Event{Stage: gardener.EventVerdict, Rung: v.Strategy, Notes: v.Notes, Ops: opLines(c.base.Steps, g.ops)}
	for _, ch := range v.Changes {
		verdict.Changes = append(verdict.Changes, fmt.Sprintf("step %s: %s (%s)", ch.Path, ch.Class, ch.Detail))
	}
	if need, why := v.NeedsPerson(); need {
		verdict.Reason, verdict.Message = why, "a person must look: "+why
	} else {
		verdict.Message = "trusted: no check asks for a person"
	}
	c.emit(verdict)

	c.res.Verdict = &v
	c.res.Steps = g.test.Steps
	c.res.Diff = gardener.Diff(c.base.Steps, g.ops)
	proof := g.proof.Result
	c.res.Proof = &proof
	d := gardener.Decide(v, c.req.Mode, c.req.ModeFrom, c.req.Actor)
	c.res.Facts = gardener.ClimbFacts{Green: &d}
	c.res.Outcome, c.res.Reason = gardener.Conclude(c.res.Facts)
	return nil
}

// contractLine says how much of the requirement contract a fix keeps, and what it does not.
// It is an event's message (a log line, an SSE frame): requirements are shown redacted.
func contractLine(ct gardener.Contract) string {
	kept, total := ct.Kept()
	s := fmt.Sprintf("requirement contract: %d of %d kept", kept, total)
	for _, r := range ct.Redacted().Requirements {
		if !r.Kept {
			s += fmt.Sprintf("; step %s no longer %s %s", r.Step, r.What, r.Detail)
		}
	}
	return s
}

// evidence is what the trust checks read: the steps before and after a fix, the green proof of
// the fix (with the probes it evaluated on its way), and the test's last green run.
type evidence struct {
	strategy  gardener.Strategy
	ops       []gardener.Op
	base      []gardener.Step
	cand      gardener.Test
	proof     gardener.Replay
	lastGreen *gardener.RunResult
	// rederived are the base indices of intent blocks the fix re-derived.
	rederived []int
	// lead are notes the caller already has (where the repair started).
	lead []gardener.Note
}

// judge runs every trust check on a green proof: flow and behaviour notes, the requirement
// contract, UNVERIFIED, intent confirmation and sensitivity. A ladder fix and a propagated one
// are judged alike, each against its own test's last green run.
func judge(e evidence) (gardener.Verdict, []gardener.ProbeResult) {
	v := gardener.Verdict{
		Strategy:        e.strategy,
		Ops:             e.ops,
		Changes:         gardener.Classify(e.base, e.cand.Steps),
		IntentConfirmed: true,
	}
	pairs := stepPairs(e.base, e.cand.Steps)
	v.Notes = append(v.Notes, e.lead...)
	v.Notes = append(v.Notes, flowNotes(pairs, e.proof.Result)...)
	v.Notes = append(v.Notes, behaviourNotes(pairs, e.lastGreen, e.proof.Result)...)
	v.Notes = append(v.Notes, addedValueNotes(pairs)...)
	for _, p := range pairs {
		if p.after != nil {
			if n, ok := gardener.VolatileNote(p.aPath, p.before, *p.after); ok {
				v.Notes = append(v.Notes, n)
			}
		}
	}
	v.Contract = contract(e.base, e.cand.Steps, pairs, e.lastGreen, e.proof.Result)
	for _, r := range v.Contract.Redacted().Requirements {
		if !r.Kept {
			v.Notes = append(v.Notes, gardener.Note{Kind: gardener.NoteRequirementNotKept, Step: r.Step, Text: fmt.Sprintf("requirement not kept: step %s no longer %s %s", r.Step, r.What, r.Detail)})
		}
	}
	v.Unverified = unverified(e.cand.Steps, e.proof.Result)
	if v.Unverified != "" {
		v.Notes = append(v.Notes, gardener.Note{Kind: gardener.NoteUnverified, Text: "UNVERIFIED: " + v.Unverified})
	}
	for _, bi := range e.rederived {
		if ok, why := intentConfirmed(bi, pairs, e.cand, e.proof, e.lastGreen); !ok {
			v.IntentConfirmed = false
			v.Notes = append(v.Notes, gardener.Note{Kind: gardener.NoteIntentUnconfirmed, Step: strconv.Itoa(bi + 1), Text: why})
		}
	}

	sens, probes := sensitivity(e.cand, e.proof)
	v.Sensitivity = sens
	byCheck := probedChecks(e.cand, e.proof)
	held := heldChecks(e.base, e.cand, e.proof, pairs, byCheck)
	for _, p := range sens.Insensitive {
		if _, ok := held[p]; !ok {
			text := fmt.Sprintf("insensitive check: step %s also passes before the step it follows runs, so it proves nothing about what that step does", p)
			if why := namedByStart(byCheck[p]); why != "" {
				text = fmt.Sprintf("insensitive check: step %s %s", p, why)
			}
			v.Notes = append(v.Notes, gardener.Note{Kind: gardener.NoteInsensitiveCheck, Step: p, Text: text})
		}
	}
	for _, p := range sortedPaths(held) {
		v.Notes = append(v.Notes, gardener.Note{Kind: gardener.NoteUnprovenCheck, Step: p, Text: fmt.Sprintf("unproven check: step %s, which the repair changed or now precedes, %s", p, held[p])})
	}
	v.Changes = gardener.RaiseNoted(v.Changes, v.Notes)
	return v, probes
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

// performs reports whether a step does something to the page a flow is made of: the actions
// whose loss or arrival a flow-change note names. Entering values is the behaviour notes' job.
func performs(s gardener.Step) bool {
	switch s.Kind {
	case gardener.Click, gardener.Press, gardener.Hover, gardener.Goto:
		return true
	}
	return false
}

// flowNotes lists every click, key press, hover or goto the repaired steps dropped or replaced,
// every navigation they added or redirected (a goto, or an added click the proof shows left the
// page, reaches the page a check expects without the flow that should lead there), and every
// action they only added.
func flowNotes(pairs []pair, proof gardener.RunResult) []gardener.Note {
	left := map[string]bool{}
	for _, r := range proof.Steps {
		left[r.Path] = r.URLBefore != "" && r.URLAfter != "" && stripFragment(r.URLBefore) != stripFragment(r.URLAfter)
	}
	var out []gardener.Note
	for _, p := range pairs {
		switch {
		case p.before != nil && performs(*p.before) && p.after == nil:
			out = append(out, gardener.Note{Kind: gardener.NoteFlowChange, Step: p.bPath, Text: fmt.Sprintf("flow change: step %s no longer performs %s. A page or navigation step may have been removed or merged.", p.bPath, p.before.Redacted())})
		case p.before != nil && performs(*p.before) && p.after.Kind != p.before.Kind:
			out = append(out, gardener.Note{Kind: gardener.NoteFlowChange, Step: p.bPath, Text: fmt.Sprintf("flow change: step %s no longer performs %s; it performs %s instead.", p.bPath, p.before.Redacted(), p.after.Redacted())})
		case p.before != nil && p.before.Kind == gardener.Goto && p.after != nil && p.after.Kind == gardener.Goto && p.after.URL != p.before.URL:
			out = append(out, gardener.Note{Kind: gardener.NoteFlowChange, Step: p.bPath, Text: fmt.Sprintf("flow change: step %s now goes to %s instead of %s.", p.bPath, p.after.URL, p.before.URL)})
		case p.after != nil && performs(*p.after) && p.before != nil && p.before.Kind != p.after.Kind:
			out = append(out, gardener.Note{Kind: gardener.NoteFlowChange, Step: p.aPath, Text: fmt.Sprintf("flow change: the repaired test performs %s at step %s, which the recorded test did not.", p.after.Redacted(), p.aPath)})
		case p.after != nil && performs(*p.after) && p.before == nil && left[p.aPath]:
			out = append(out, gardener.Note{Kind: gardener.NoteFlowChange, Step: p.aPath, Text: fmt.Sprintf("flow change: the repaired test performs %s at step %s, which the recorded test did not, and it leaves the page: a new way to a page is not a repair of the old one.", p.after.Redacted(), p.aPath)})
		case p.after != nil && p.after.Kind == gardener.Goto && p.before == nil:
			out = append(out, gardener.Note{Kind: gardener.NoteFlowChange, Step: p.aPath, Text: fmt.Sprintf("flow change: the repaired test navigates with %s at step %s, which the recorded test did not: a goto reaches a page without the flow that should lead there.", p.after.Redacted(), p.aPath)})
		case p.after != nil && performs(*p.after) && p.before == nil:
			out = append(out, gardener.Note{Kind: gardener.NoteActionAdded, Step: p.aPath, Text: fmt.Sprintf("action added: the repaired test performs %s at step %s, which the recorded test did not.", p.after.Redacted(), p.aPath)})
		}
	}
	return out
}

func stripFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

// addedValueNotes names a step the repair added that enters or picks a value: an added input.
// It is no behaviour change (every value the recording entered is still entered), but a value
// the recorded test never gave can produce the very one a later check expects, so a person
// confirms the app now asks for it.
func addedValueNotes(pairs []pair) []gardener.Note {
	var out []gardener.Note
	for _, p := range pairs {
		if p.before != nil || p.after == nil {
			continue
		}
		if _, ok := entersValue(*p.after); ok {
			out = append(out, gardener.Note{Kind: gardener.NoteInputAdded, Step: p.aPath, Text: fmt.Sprintf("input added: the repaired test enters %s at step %s, which the recorded test did not: a new input the test now gives. Confirm the app asks for it (a field it now requires, say).", p.after.Redacted(), p.aPath)})
		}
	}
	return out
}

// entersValue reports whether a step enters or picks a value, and which.
func entersValue(s gardener.Step) (string, bool) {
	switch {
	case s.Enters():
		return s.Value, true
	case s.Kind == gardener.Check, s.Kind == gardener.Uncheck:
		return string(s.Kind), true
	}
	return "", false
}

// behaviourNotes flags a step that no longer enters or picks what the recorded step did. A value
// moved to another control (a text field that became a dropdown) is still entered: no note.
// Where the last green run and the proof both recorded what the two steps entered, the records
// decide (gardener.StillEnters), as the requirement contract does: they hold what the form sent,
// so a select that names the same option by its value instead of its old label picks what it
// picked, and one that now picks another option does not, whatever the steps' texts say.
// Without those records the steps' own values are compared.
func behaviourNotes(pairs []pair, lastGreen *gardener.RunResult, proof gardener.RunResult) []gardener.Note {
	green, now := recordsByPath(lastGreen), recordsByPath(&proof)
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
			was, wok := green[p.bPath]
			rec, nok := now[p.aPath]
			if wok && nok && len(was.Entered()) > 0 {
				if !slices.ContainsFunc(was.Entered(), func(x string) bool { return !gardener.StillEnters(x, was, rec) }) {
					continue
				}
			} else if w, ok := entersValue(*p.after); ok && w == v {
				continue
			}
		}
		out = append(out, gardener.Note{Kind: gardener.NoteBehaviorChange, Step: p.bPath, Text: behaviourText(p, now[p.aPath])})
	}
	return out
}

// behaviourText says what a step that no longer enters what the recorded one did does instead.
// Values are masked by their length, so two steps that enter different values of one length on
// one control read alike: the text then says in words that the value is another, never which.
func behaviourText(p pair, rec gardener.StepRecord) string {
	const tail = " The test may now exercise something else."
	was := p.before.Redacted()
	if p.after == nil {
		return fmt.Sprintf("behavior change: step %s no longer does %s, and does nothing instead.%s", p.bPath, was, tail)
	}
	now := p.after.Redacted()
	other := ""
	if p.after.Enters() {
		other = "enters another value"
		if p.after.Kind == gardener.Select || rec.Picked() {
			other = "picks another value"
		}
	}
	switch {
	case other == "":
		return fmt.Sprintf("behavior change: step %s no longer does %s, and does %s instead.%s", p.bPath, was, now, tail)
	case now == was:
		return fmt.Sprintf("behavior change: step %s (%s) %s than the recorded step did.%s", p.bPath, was, other, tail)
	}
	return fmt.Sprintf("behavior change: step %s no longer does %s, and %s instead (%s).%s", p.bPath, was, other, now, tail)
}

// recordsByPath maps a run's step records by their paths; none for no run.
func recordsByPath(r *gardener.RunResult) map[string]gardener.StepRecord {
	m := map[string]gardener.StepRecord{}
	if r != nil {
		for _, s := range r.Steps {
			m[s.Path] = s
		}
	}
	return m
}

// contract reads the requirements of the last green run (values each step entered, requests it
// sent other than plain reads, checks it made) and asks whether the same step of the proof
// still does each of them.
func contract(before, after []gardener.Step, pairs []pair, lastGreen *gardener.RunResult, proof gardener.RunResult) gardener.Contract {
	var c gardener.Contract
	if lastGreen == nil {
		return c
	}
	green, now := recordsByPath(lastGreen), recordsByPath(&proof)
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
		// Detail and By are read by people: the step that keeps a requirement is rendered
		// redacted, and a value entered is masked (gardener.EntersValue).
		by := ""
		if p.after != nil {
			by = p.after.Redacted()
		}
		// seen is keyed by what is required, the value itself for a value entered: two values
		// of one length mask alike, yet each is its own requirement.
		seen := map[string]bool{}
		add := func(key string, r gardener.Requirement) {
			if k := r.What + " " + key; !seen[k] {
				seen[k] = true
				c.Requirements = append(c.Requirements, r)
			}
		}
		if _, enters := entersValue(*p.before); enters {
			// What the form sent is required (gardener.StillEnters): an option picked by its
			// value, not its label, which is the page's to change.
			for _, v := range rec.Entered() {
				add(v, gardener.EntersValue(p.bPath, v, p.after != nil && gardener.StillEnters(v, rec, after), p.after))
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
			add(rq.Method+" "+path, gardener.Requirement{Step: p.bPath, What: "sends", Detail: rq.Method + " " + path, Kept: kept, By: by})
		}
		if p.before.IsCheck() {
			kept := p.after != nil && p.after.Kind == p.before.Kind && after.Passed && checkSame(*p.before, *p.after) && sameSubject(*p.before, *p.after, rec, after, proof)
			c.Requirements = append(c.Requirements, gardener.Requirement{Step: p.bPath, What: "checks", Detail: p.before.Redacted(), Kept: kept, By: by})
		}
	}
	return c
}

// checkSame reports whether a check still checks the same outcome: the floor's own comparison.
func checkSame(b, a gardener.Step) bool {
	sc := gardener.Screen([]gardener.Step{b}, []gardener.Op{{Kind: gardener.OpReplace, Index: 0, Step: &a}})
	return len(sc.Refusals) == 0
}

// sameSubject reports whether a check still reads what it read on the last green run: its
// locator (an audit's scope) is unchanged, or the element it found in the proof is the one the
// last green run recorded. Drift renames the very attributes an identity is made of (an id, a
// label), so "the one recorded" is the locate engine's judgement, the same one self-heal acts
// on: among every element the proof recorded, the engine must pick the check's element for the
// recorded one, and not abstain. A moved check that recorded no element (an absence check, a
// toast) cannot show it still watches the same thing, so it is not kept.
func sameSubject(b, a gardener.Step, was, now gardener.StepRecord, proof gardener.RunResult) bool {
	if b.Target() == a.Target() {
		return true
	}
	if was.Element == nil || now.Element == nil {
		return false
	}
	if sameIdentity(*was.Element, *now.Element) {
		return true
	}
	var seen []gardener.Fingerprint
	for _, r := range proof.Steps {
		if r.Element != nil && !slices.ContainsFunc(seen, func(f gardener.Fingerprint) bool { return sameIdentity(f, *r.Element) }) {
			seen = append(seen, *r.Element)
		}
	}
	m := similo.Engine{}.Locate(*was.Element, seen)
	return !m.Abstained() && sameIdentity(seen[m.Index], *now.Element)
}

func requestPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return raw
	}
	return u.Path
}

// unverified finds a fill (or a set that typed) the proof recorded with an empty value where the
// step passes one.
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
			if (s.Kind != gardener.Fill && s.Kind != gardener.Set) || s.Value == "" {
				continue
			}
			rec, ok := byPath[path]
			if ok && (len(rec.Values) == 0 || slices.Contains(rec.Values, "")) {
				return fmt.Sprintf("step %s (%s) was recorded entering an empty value", path, s.Redacted())
			}
		}
		return ""
	}
	return walk(steps, "")
}

// intentConfirmed applies the rule for re-derived blocks (spec 000): an outcome check after the
// block passed — one that fails when it is evaluated before the block runs, so that it is about
// what the block does (a check merely placed somewhere after the block may pass whatever the
// block did) — or the block did what it did on its last green run: the same requests, the same
// values entered, the same elements acted on, ending on the same URL (blockDid). With no green
// run to compare, and no such check, it says so: unconfirmed, not assumed.
func intentConfirmed(bi int, pairs []pair, cand gardener.Test, proof gardener.Replay, lastGreen *gardener.RunResult) (bool, string) {
	bPath := strconv.Itoa(bi + 1)
	aPath := ""
	for _, p := range pairs {
		if p.bPath == bPath && p.after != nil {
			aPath = p.aPath
		}
	}
	if ai, err := strconv.Atoi(aPath); err == nil {
		probes, _ := probesFor(cand)
		for i, pr := range proof.Probes[ai-1] {
			if i < len(probes[ai-1]) && provenSensitive(probes[ai-1][i], pr) {
				return true, ""
			}
		}
	}
	if lastGreen == nil {
		return false, fmt.Sprintf("intent not confirmed: the intent block at step %s was re-derived, no check after it fails when the block is skipped, and the test has no green run to compare what the block did with", bPath)
	}
	diffs := blockDid(lastGreen.Steps, bPath, proof.Result.Steps, aPath)
	if len(diffs) == 0 {
		return true, ""
	}
	return false, fmt.Sprintf("intent not confirmed: the intent block at step %s was re-derived, no check after it fails when the block is skipped, and it did not do what it did on its last green run: %s", bPath, strings.Join(diffs, "; "))
}

// blockDid compares what a block did on its last green run (the records under was) with what it
// did in the proof (under now): the URL it ended on, the requests it sent other than plain reads
// (a request sent as the block's last step settled may be recorded under the step after it, so
// that step's are counted on either side), the values it entered, compared and never shown,
// and the elements it acted on, each found again among the other run's by the locate engine, as
// self-heal finds a renamed element. It answers each difference in words for people; none when
// the block did the same.
func blockDid(green []gardener.StepRecord, was string, proof []gardener.StepRecord, now string) []string {
	gIn, gNext := blockRecords(green, was)
	pIn, pNext := blockRecords(proof, now)
	if len(gIn) == 0 {
		return []string{"its last green run recorded nothing inside the block"}
	}
	if now == "" || len(pIn) == 0 {
		return []string{"the proof recorded nothing inside the block"}
	}
	var out []string
	if a, b := gIn[len(gIn)-1].URLAfter, pIn[len(pIn)-1].URLAfter; a != b {
		out = append(out, fmt.Sprintf("it ends on %s, not on %s", b, a))
	}
	gReq, pReq := writes(gIn), writes(pIn)
	gAll, pAll := append(slices.Clone(gReq), writes(gNext)...), append(slices.Clone(pReq), writes(pNext)...)
	for _, r := range uniq(gReq) {
		if !slices.Contains(pAll, r) {
			out = append(out, "it no longer sends "+r)
		}
	}
	for _, r := range uniq(pReq) {
		if !slices.Contains(gAll, r) {
			out = append(out, "it sends "+r+", which it did not")
		}
	}
	gVals, pVals := entered(gIn), entered(pIn)
	switch {
	case len(gVals) != len(pVals):
		out = append(out, fmt.Sprintf("it enters %s where it entered %d", gardener.Plural(len(pVals), "value", "values"), len(gVals)))
	case !slices.Equal(gVals, pVals):
		out = append(out, "it enters other values than it did")
	}
	gEls, pEls := actedOn(gIn), actedOn(pIn)
	typed := slices.Concat(gVals, pVals)
	for _, e := range gEls {
		if !foundAmong(e, pEls) {
			out = append(out, "it no longer acts on "+describe(e, typed))
		}
	}
	for _, e := range pEls {
		if !foundAmong(e, gEls) {
			out = append(out, "it acts on "+describe(e, typed)+", which it did not")
		}
	}
	return out
}

// blockRecords are the records of the steps inside the block at path, in run order, and those
// of the step after the block.
func blockRecords(recs []gardener.StepRecord, path string) (in, next []gardener.StepRecord) {
	if path == "" {
		return nil, nil
	}
	after := ""
	if i, err := strconv.Atoi(path); err == nil {
		after = strconv.Itoa(i + 1)
	}
	for _, r := range recs {
		switch {
		case strings.HasPrefix(r.Path, path+"."):
			in = append(in, r)
		case r.Path == after:
			next = append(next, r)
		}
	}
	return in, next
}

// writes are the requests the records sent other than plain reads, as "METHOD /path".
func writes(recs []gardener.StepRecord) []string {
	var out []string
	for _, r := range recs {
		for _, q := range r.Requests {
			if q.Method == "GET" || q.Method == "HEAD" || q.Method == "OPTIONS" {
				continue
			}
			out = append(out, q.Method+" "+requestPath(q.URL))
		}
	}
	return out
}

func uniq(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

// entered are the values the records entered as the form sent them (an option picked by its
// value, not its label), sorted: compared, never shown.
func entered(recs []gardener.StepRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Entered()...)
	}
	slices.Sort(out)
	return out
}

// actedOn are the elements the records' actions targeted, each once.
func actedOn(recs []gardener.StepRecord) []gardener.Fingerprint {
	var out []gardener.Fingerprint
	for _, r := range recs {
		if r.Element == nil || !(gardener.Step{Kind: r.Kind}).IsAction() {
			continue
		}
		if !slices.ContainsFunc(out, func(f gardener.Fingerprint) bool { return sameIdentity(f, *r.Element) }) {
			out = append(out, *r.Element)
		}
	}
	return out
}

// foundAmong reports whether the locate engine, asked for e among els, picks one without
// abstaining: the same element, renamed or not.
func foundAmong(e gardener.Fingerprint, els []gardener.Fingerprint) bool {
	if slices.ContainsFunc(els, func(f gardener.Fingerprint) bool { return sameIdentity(f, e) }) {
		return true
	}
	return len(els) > 0 && !similo.Engine{}.Locate(e, els).Abstained()
}

// describe names an element for people by its role and accessible name, else its tag: what the
// page shows, never a value typed into it. An element's name leaves out its own value, but a
// page may name a control by what was typed elsewhere (the "Delete Grace Hopper" of a row just
// created, a label holding another field): a name that holds any of typed is not shown.
func describe(f gardener.Fingerprint, typed []string) string {
	shows := f.AccessibleName != "" && !slices.ContainsFunc(typed, func(v string) bool {
		return strings.TrimSpace(v) != "" && strings.Contains(strings.ToLower(f.AccessibleName), strings.ToLower(strings.TrimSpace(v)))
	})
	switch {
	case f.Role != "" && shows:
		return fmt.Sprintf("%s %q", f.Role, f.AccessibleName)
	case f.Role != "":
		return "a " + f.Role
	case f.Tag != "":
		return "a " + strings.ToLower(f.Tag)
	}
	return "an element"
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

// provenSensitive reads one probe: the check failed, or could not run, on the page before its
// step. An absence check is proven only by finding its element there: one whose locator finds
// nothing before the step holds on any page.
func provenSensitive(check gardener.Step, pr gardener.ProbeResult) bool {
	if pr.Passed {
		return false
	}
	return check.Kind != gardener.AssertHidden || pr.Error == ""
}

// heldChecks names the top-level checks a repair touched that are not proven sensitive to what
// the repaired test does, each with the reason; such a check could pass whatever the new steps
// did, so the repair needs a person. A check is touched when the repair changed it, or changed,
// added or removed a step between the action it follows and itself (that action included): the
// probe evaluates it just before that action, so only then does its sensitivity speak of the
// new steps. Every check after an added action is touched. A request check is held wherever it sits when the request it matches was first
// sent by a step the repair added. A console check that no message may match is not held:
// added steps can only add messages, and dropped ones are flow changes of their own.
// probed is probedChecks(cand, proof), which the caller reads too.
func heldChecks(base []gardener.Step, cand gardener.Test, proof gardener.Replay, pairs []pair, probed map[string]probedCheck) map[string]string {
	changed := make([]bool, len(cand.Steps)+1) // changed[i]: step i is new or changed; changed[i] for a removal before i
	last, addedAction := -1, len(cand.Steps)
	for _, p := range gardener.Align(base, cand.Steps) {
		switch {
		case p.After < 0:
			changed[last+1] = true
		case p.Before < 0 || !base[p.Before].Equal(cand.Steps[p.After]):
			// An action found another way and otherwise the same does not touch the checks
			// after it: each is probed on the page before that action, which the locator
			// does not change, so a check that passes there passed there on the recorded test
			// too: an insensitive check the test always had, not one the repair made.
			changed[p.After], last = p.Before < 0 || !relocatedAction(base[p.Before], cand.Steps[p.After]), p.After
			if p.Before < 0 && performs(cand.Steps[p.After]) && !gardener.AddedDismissal(cand.Steps[p.After], recordOf(proof.Result, p.After)) {
				addedAction = min(addedAction, p.After)
			}
		default:
			last = p.After
		}
	}
	// An added action may change what every later check sees (a new page, a panel opened), so
	// every check after it must be proven sensitive, not only those that follow it directly. An
	// added dismissal takes away only what the recorded page never had: the checks after it
	// see the recorded test's page, and those that follow it directly are touched as any are.
	touched := func(j int) bool {
		if j > addedAction {
			return true
		}
		lo := 0
		for k := j - 1; k >= 0; k-- {
			if cand.Steps[k].IsAction() || cand.Steps[k].Kind == gardener.Intent {
				lo = k
				break
			}
		}
		return slices.Contains(changed[lo:j+1], true)
	}
	added := map[string]bool{}
	for _, p := range pairs {
		if p.before == nil && p.after != nil {
			added[p.aPath] = true
		}
	}
	held := map[string]string{}
	for j, s := range cand.Steps {
		path := strconv.Itoa(j + 1)
		if !s.IsCheck() {
			continue
		}
		if s.Kind == gardener.AssertRequest {
			if by := requestSentBy(s, proof.Result); by != "" && added[by] {
				held[path] = fmt.Sprintf("is satisfied by a request sent by step %s, which the repair added", by)
			}
			continue
		}
		if !touched(j) {
			continue
		}
		switch {
		case s.Kind == gardener.AssertConsole && s.Expect == gardener.ExpectNoMatch:
		case s.Kind == gardener.AssertConsole:
			held[path] = "reads the whole run's console, and no probe can tie a message to the step it follows"
		default:
			pc, ok := probed[path]
			switch {
			case !ok:
				held[path] = "has no action before it that it could be proven sensitive to"
			case s.Kind == gardener.AssertHidden && !provenSensitive(pc.check, pc.probe):
				held[path] = "finds no element on the page before the step that should remove it, so it holds on any page"
				if why := namedByStart(pc); why != "" {
					held[path] = why
				}
			case !provenSensitive(pc.check, pc.probe):
				held[path] = "also passes before the step it follows runs (an insensitive check)"
			}
		}
	}
	return held
}

// probedCheck is one probed check: its step, what its probe found, and the path of the action
// step it was evaluated before.
type probedCheck struct {
	check  gardener.Step
	probe  gardener.ProbeResult
	before string
}

// probedChecks maps the path of every check the proof probed to its probe.
func probedChecks(cand gardener.Test, proof gardener.Replay) map[string]probedCheck {
	probes, paths := probesFor(cand)
	out := map[string]probedCheck{}
	for a, ps := range paths {
		for i, path := range ps {
			if i < len(proof.Probes[a]) {
				out[path] = probedCheck{check: probes[a][i], probe: proof.Probes[a][i], before: strconv.Itoa(a + 1)}
			}
		}
	}
	return out
}

// namedByStart says, for an absence check that names a control by the start of its name, that
// it finds no element before or after its step, and names the control the page showed before
// the step in full (gardener.NamedByStart); "" for any other check, or one not probed (the
// zero probedCheck). The proof is green, so the check found nothing after its step too.
func namedByStart(pc probedCheck) string {
	if pc.check.Kind != gardener.AssertHidden || !pc.probe.Passed || pc.probe.Shown == "" {
		return ""
	}
	return fmt.Sprintf("(%s) names a control by the start of its name: it finds no element before or after step %s, while the page showed %s before that step. It holds on any page: name the control in full.", pc.check.Redacted(), pc.before, pc.probe.Shown)
}

// recordOf is the proof's record of top-level step i.
func recordOf(res gardener.RunResult, i int) gardener.StepRecord {
	path := strconv.Itoa(i + 1)
	for _, r := range res.Steps {
		if r.Path == path {
			return r
		}
	}
	return gardener.StepRecord{}
}

// relocatedAction reports whether after is the action before, found by another locator and
// otherwise unchanged (same kind, value, options).
func relocatedAction(before, after gardener.Step) bool {
	if !before.IsAction() || before.Kind == gardener.Goto || before.Kind != after.Kind {
		return false
	}
	b, a := before.Clone(), after.Clone()
	b.Locator, b.Alternatives, a.Locator, a.Alternatives = gardener.Locator{}, nil, gardener.Locator{}, nil
	return b.Equal(a)
}

// requestSentBy is the path of the step under which the proof first recorded a request the
// check matches; "" when none.
func requestSentBy(s gardener.Step, proof gardener.RunResult) string {
	re, err := regexp.Compile(s.URLPattern)
	if err != nil {
		return ""
	}
	for _, r := range proof.Steps {
		for _, q := range r.Requests {
			if q.Method == s.Method && re.MatchString(q.URL) && (s.Status == 0 || q.Status == s.Status) {
				return r.Path
			}
		}
	}
	return ""
}

// sortedPaths lists the keys of a map of step paths in step order.
func sortedPaths(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	return out
}
