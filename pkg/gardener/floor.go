package gardener

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The assertion floor (DESIGN.md §4.2, spec "What the gardener may not do"): every edit source —
// a ladder rung, the manual fix, a diagnosis, a chat edit, and persist once more — passes its ops
// through Screen before anything is applied. The green gate alone can be gamed: rewriting
// `expect /dashboard` to `expect /login` re-runs green precisely because it no longer asserts
// anything.

// floorRationale closes every refusal of a changed or deleted check.
const floorRationale = "Outcome assertions are only changed by a human — an auto-rewrite to observed reality cannot fail."

// Refusal is one proposed op the floor refused, with the reason written for a person.
type Refusal struct {
	Op     int      `json:"op"`    // position of the op among those proposed
	Index  int      `json:"index"` // 0-based index of the base step the op targets
	Path   string   `json:"step"`  // the step as a person counts it: "4", or "3.2" inside a block
	Kind   StepKind `json:"kind"`  // the kind of the step that was protected
	Reason string   `json:"reason"`
}

// String is the line shown to a person.
func (r Refusal) String() string { return "Refused: " + r.Reason }

// ScreenOutcome distinguishes the three results a caller must report differently.
type ScreenOutcome string

// Screen outcomes.
const (
	NothingProposed ScreenOutcome = "nothing-proposed" // no fix found
	AllRefused      ScreenOutcome = "all-refused"      // every proposed change was refused
	SomeAllowed     ScreenOutcome = "allowed"          // at least one op goes on to the gate
)

// Screening is the floor's verdict on a set of proposed ops.
type Screening struct {
	Allowed  []Op      `json:"allowed"`
	Refusals []Refusal `json:"refusals"`
}

// Outcome says which of the three cases this is.
func (s Screening) Outcome() ScreenOutcome {
	switch {
	case len(s.Allowed) > 0:
		return SomeAllowed
	case len(s.Refusals) > 0:
		return AllRefused
	}
	return NothingProposed
}

// Screen returns the ops a repair may make to steps and refuses the rest, each refusal with its
// step and reason; it never modifies its inputs. Ops refer to indices of steps (see Op). An op
// that is malformed (index out of range, a second op on the same step, a step that would not
// decode) is refused too, so nothing unscreened can slip through.
func Screen(steps []Step, ops []Op) Screening {
	var s Screening
	touched := map[int]bool{}
	for i, op := range ops {
		refuse := func(path string, kind StepKind, reason string) {
			s.Refusals = append(s.Refusals, Refusal{Op: i, Index: op.Index, Path: path, Kind: kind, Reason: reason})
		}
		if reason := malformed(len(steps), op, touched); reason != "" {
			refuse(strconv.Itoa(op.Index+1), "", reason)
			continue
		}
		if op.Kind == OpInsert {
			s.Allowed = append(s.Allowed, op)
			continue
		}
		base := steps[op.Index]
		path := strconv.Itoa(op.Index + 1)
		var after *Step
		if op.Kind == OpReplace {
			after = op.Step
		}
		if r := screenStep(base, after, path); r != nil {
			refuse(r.Path, r.Kind, r.Reason)
			continue
		}
		s.Allowed = append(s.Allowed, op)
	}
	return s
}

// ScreenHeal screens the ops of a heal: everything Screen refuses, and any op that rewrites or
// deletes a step before the one that failed (failed: its 0-based top-level index). Replay had
// already passed those steps, so the failure says nothing against them, and spec 002 is plain:
// a heal never rewrites the steps before the one that failed. A step inserted before the failed
// one rewrites nothing already there (a field the form now requires, filled before the submit
// that failed) and goes on to be classed review like every added step. A failed index below 0
// (nothing failed, or a caller that does not know) adds no refusal.
func ScreenHeal(steps []Step, ops []Op, failed int) Screening {
	if failed <= 0 {
		return Screen(steps, ops)
	}
	var early []Refusal
	var rest []Op
	var restAt []int
	for i, op := range ops {
		if op.Kind != OpInsert && op.Index >= 0 && op.Index < failed && op.Index < len(steps) {
			verb := "rewriting"
			if op.Kind == OpDelete {
				verb = "deleting"
			}
			early = append(early, Refusal{Op: i, Index: op.Index, Path: strconv.Itoa(op.Index + 1), Kind: steps[op.Index].Kind,
				Reason: fmt.Sprintf("%s step %d (%s), which passed before step %d failed: a heal never rewrites the steps before the one that failed.", verb, op.Index+1, steps[op.Index].Redacted(), failed+1)})
			continue
		}
		rest = append(rest, op)
		restAt = append(restAt, i)
	}
	s := Screen(steps, rest)
	for k := range s.Refusals {
		// Screen counted ops among those it saw; a person counts among those proposed.
		s.Refusals[k].Op = restAt[s.Refusals[k].Op]
	}
	s.Refusals = append(early, s.Refusals...)
	slices.SortStableFunc(s.Refusals, func(a, b Refusal) int { return a.Op - b.Op })
	return s
}

// malformed says why op cannot be screened: it would not apply, or its step would not decode.
func malformed(n int, op Op, touched map[int]bool) string {
	if reason := opProblem(n, op, touched); reason != "" {
		return reason
	}
	if op.Step != nil {
		if err := ValidateStep(*op.Step); err != nil {
			return fmt.Sprintf("the proposed step is malformed: %v", err)
		}
	}
	return ""
}

// ValidateStep checks a step built in code (by a model adapter, say) against the same rules as
// the strict decoder, by encoding it and decoding it again.
func ValidateStep(s Step) error {
	b, err := s.MarshalJSON()
	if err != nil {
		return err
	}
	d, err := decodeStep(b, "?")
	if err != nil {
		return err
	}
	if !d.Equal(s) {
		return fmt.Errorf("step %s has fields that do not belong to its kind", s.Kind)
	}
	return nil
}

// screenStep decides whether base may become after (nil: be deleted).
func screenStep(base Step, after *Step, path string) *Refusal {
	refusal := func(reason string) *Refusal {
		return &Refusal{Path: path, Kind: base.Kind, Reason: reason}
	}
	if base.Kind == Intent {
		return screenIntent(base, after, path)
	}
	if !base.IsCheck() {
		return nil
	}
	if after == nil {
		return refusal(fmt.Sprintf("deleting the check at step %s (%s). %s", path, base.Redacted(), floorRationale))
	}
	if fields := protectedDiff(base, *after); len(fields) > 0 {
		return refusal(describeCheckChange(base, *after, path) + " " + floorRationale)
	}
	return nil
}

// screenIntent keeps an intent block's goal and values, and every check inside it, in order.
// Re-derived steps may replace the recorded ones between the markers; checks may only move
// their locators, and may not be moved out of the block.
func screenIntent(base Step, after *Step, path string) *Refusal {
	refusal := func(reason string) *Refusal { return &Refusal{Path: path, Kind: Intent, Reason: reason} }
	if after == nil {
		return refusal(fmt.Sprintf("deleting the intent block at step %s (%q): its goal and values are the test's own, and only a person removes them.", path, base.Goal))
	}
	if after.Kind != Intent {
		return refusal(fmt.Sprintf("replacing the intent block at step %s (%q) with a %s step: a re-derived block keeps its markers, goal and values.", path, base.Goal, after.Kind))
	}
	if after.Goal != base.Goal || !maps.Equal(after.Values, base.Values) {
		return refusal(fmt.Sprintf("changing the goal or values of the intent block at step %s: they say what the test exercises, and only a person changes them.", path))
	}
	// Every check of the recorded block must appear in the new block, in order, with the same
	// outcome; only its locator may move.
	next := 0
	for i, in := range base.Steps {
		if !in.IsCheck() {
			continue
		}
		innerPath := path + "." + strconv.Itoa(i+1)
		found := false
		for j := next; j < len(after.Steps); j++ {
			if after.Steps[j].IsCheck() && len(protectedDiff(in, after.Steps[j])) == 0 {
				found, next = true, j+1
				break
			}
		}
		if !found {
			return &Refusal{Path: innerPath, Kind: in.Kind, Reason: fmt.Sprintf("re-deriving the intent block at step %s drops or rewrites its check at step %s (%s). %s", path, innerPath, in.Redacted(), floorRationale)}
		}
	}
	return nil
}

// protectedDiff names the protected fields of check b that a differs in. For a check, only its
// locator (an audit's scope) and its timeout are free: how the element is found or waited for.
// An audit's scope is free only when it had one: moving it is finding the same region again
// (the trust checks hold a move to another region for a person), adding one narrows the audit.
func protectedDiff(b, a Step) []string {
	if b.Kind != a.Kind {
		return []string{"kind"}
	}
	var out []string
	add := func(name string, differ bool) {
		if differ {
			out = append(out, name)
		}
	}
	add("assert", b.Subject != a.Subject)
	add("condition", b.Condition != a.Condition)
	add("expected", b.Expected != a.Expected)
	add("actual", b.Actual != a.Actual)
	add("text", b.Text != a.Text)
	add("level", b.Level != a.Level)
	add("pattern", b.Pattern != a.Pattern)
	add("expect", b.Expect != a.Expect)
	add("method", b.Method != a.Method)
	add("status", b.Status != a.Status)
	add("urlPattern", b.URLPattern != a.URLPattern)
	add("rules", !slices.Equal(b.Rules, a.Rules))
	add("threshold", b.Threshold != a.Threshold)
	add("reportOnly", b.ReportOnly != a.ReportOnly)
	add("for", b.For != a.For)
	add("url", b.URL != a.URL)
	// An audit of the whole page may not become an audit of one region: the region can be the
	// one place the violations are not.
	add("scope", b.Kind == A11yAudit && b.Scope.IsZero() && !a.Scope.IsZero())
	// Whatever else a check carries is protected too, so a field added to Step later is refused
	// until someone decides otherwise, rather than slipping through unnamed.
	if len(out) == 0 && !withoutFreeFields(b).Equal(withoutFreeFields(a)) {
		out = append(out, "step")
	}
	return out
}

// withoutFreeFields is a check with what a repair may change cleared: how its element is found
// (locator, an audit's scope) and how long it is waited for.
func withoutFreeFields(s Step) Step {
	s.Locator, s.Scope, s.TimeoutMs = Locator{}, Locator{}, 0
	return s
}

// describeCheckChange writes the refusal for a changed check in the words of the spec. A refusal
// is read by people and agents, so steps in it are rendered with Redacted.
func describeCheckChange(b, a Step, path string) string {
	switch {
	case b.Kind == AssertVisible && a.Kind == AssertHidden, b.Kind == AssertHidden && a.Kind == AssertVisible:
		return fmt.Sprintf("flipping the check at step %s from %s to %s.", path, b.Kind, a.Kind)
	case b.Kind != a.Kind:
		return fmt.Sprintf("replacing the check at step %s (%s) with a %s step.", path, b.Redacted(), a.Kind)
	case b.Kind == Assert:
		return fmt.Sprintf("rewriting the expectation at step %s from %q to %q.", path, expectation(b), expectation(a))
	case b.Kind == A11yAudit:
		if a.ReportOnly {
			return fmt.Sprintf("making the accessibility audit at step %s report-only.", path)
		}
		if ImpactRank(a.Threshold) > ImpactRank(b.Threshold) {
			return fmt.Sprintf("loosening the accessibility audit at step %s from threshold %s to %s.", path, b.Threshold, a.Threshold)
		}
		if b.Scope.IsZero() && !a.Scope.IsZero() {
			return fmt.Sprintf("narrowing the accessibility audit at step %s from the whole page to %s.", path, a.Scope)
		}
		if !slices.Equal(b.Rules, a.Rules) {
			return fmt.Sprintf("changing the rules of the accessibility audit at step %s from [%s] to [%s].", path, strings.Join(b.Rules, ","), strings.Join(a.Rules, ","))
		}
		return fmt.Sprintf("changing the threshold of the accessibility audit at step %s from %s to %s.", path, b.Threshold, a.Threshold)
	case b.Kind == Wait && a.For != WaitURL:
		return fmt.Sprintf("turning the wait for URL %q at step %s into a wait for %s.", b.URL, path, a.For)
	case b.Kind == Wait:
		return fmt.Sprintf("changing the URL awaited at step %s from %q to %q.", path, b.URL, a.URL)
	case b.Kind == AssertConsole || b.Kind == AssertRequest:
		return fmt.Sprintf("changing what the check at step %s matches, from %s to %s.", path, b.Redacted(), a.Redacted())
	case b.Text != a.Text:
		return fmt.Sprintf("changing the text expected at step %s from %q to %q.", path, b.Text, a.Text)
	}
	return fmt.Sprintf("changing the check at step %s (%s → %s).", path, b.Redacted(), a.Redacted())
}

// expectation is how an assert reads aloud: "url contains /dashboard".
func expectation(s Step) string {
	subject := string(s.Subject)
	if s.Subject == SubjectVariable {
		subject = "variable " + s.Actual
	}
	return fmt.Sprintf("%s %s %s", subject, s.Condition, s.Expected)
}
