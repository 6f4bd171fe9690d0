package gardener

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// ChangeClass says how much attention a change to a step needs (spec 002, "What the agent may
// change"). It is computed from the steps before and after, never from a model's account of
// what it did, so a model cannot call a renaming a repair.
type ChangeClass string

// Change classes, in rising order of concern.
const (
	// ClassRepair: only how the same element is found or waited for.
	ClassRepair ChangeClass = "repair"
	// ClassReview: what a step does — an action, a value, a URL, an element named another way,
	// a step added or removed.
	ClassReview ChangeClass = "review"
	// ClassProtected: what no repair may change — a check's outcome, an intent's goal or values.
	ClassProtected ChangeClass = "protected"
)

func (c ChangeClass) rank() int {
	switch c {
	case ClassRepair:
		return 1
	case ClassReview:
		return 2
	case ClassProtected:
		return 3
	}
	return 0
}

// Change is one changed step, classified.
type Change struct {
	Class  ChangeClass `json:"class"`
	Before *Step       `json:"before,omitempty"`
	After  *Step       `json:"after,omitempty"`
	// Path is the step's number as a person counts (in the before list, or the after list for an
	// added step), "3.2" inside a block.
	Path   string   `json:"path"`
	Detail string   `json:"detail"`
	Inner  []Change `json:"inner,omitempty"`
}

// Pair is one position of an alignment of two step lists; Before or After is -1 for a step
// only one side has.
type Pair struct{ Before, After int }

// Align lines two step lists up: identical steps anchor the alignment (longest common
// subsequence), and between anchors steps of the same kind pair up in order, since a repaired
// step keeps its kind far more often than not.
func Align(before, after []Step) []Pair {
	n, m := len(before), len(after)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if before[i].Equal(after[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var pairs []Pair
	i, j := 0, 0
	var gapB, gapA []int
	flush := func() {
		pairs = append(pairs, pairGap(before, after, gapB, gapA)...)
		gapB, gapA = nil, nil
	}
	for i < n && j < m {
		switch {
		case before[i].Equal(after[j]):
			flush()
			pairs = append(pairs, Pair{i, j})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			gapB = append(gapB, i)
			i++
		default:
			gapA = append(gapA, j)
			j++
		}
	}
	for ; i < n; i++ {
		gapB = append(gapB, i)
	}
	for ; j < m; j++ {
		gapA = append(gapA, j)
	}
	flush()
	return pairs
}

// pairGap pairs the unmatched steps between two anchors by kind, in order; the rest stand alone.
func pairGap(before, after []Step, gb, ga []int) []Pair {
	var out []Pair
	used := make([]bool, len(ga))
	next := 0
	for _, b := range gb {
		match := -1
		for k := next; k < len(ga); k++ {
			if !used[k] && after[ga[k]].Kind == before[b].Kind {
				match = k
				break
			}
		}
		if match < 0 {
			out = append(out, Pair{b, -1})
			continue
		}
		for k := next; k < match; k++ {
			if !used[k] {
				out = append(out, Pair{-1, ga[k]})
				used[k] = true
			}
		}
		out = append(out, Pair{b, ga[match]})
		used[match] = true
		next = match + 1
	}
	for k := range ga {
		if !used[k] {
			out = append(out, Pair{-1, ga[k]})
		}
	}
	// As many steps gone as came, in one gap: read them as changed in place (a click that became
	// a key press), not as a removal and an unrelated addition.
	var gone, came []int
	for i, p := range out {
		if p.After < 0 {
			gone = append(gone, i)
		} else if p.Before < 0 {
			came = append(came, i)
		}
	}
	if len(gone) == 0 || len(gone) != len(came) {
		return out
	}
	merged := out[:0:0]
	drop := map[int]bool{}
	for k := range gone {
		out[gone[k]].After = out[came[k]].After
		drop[came[k]] = true
	}
	for i, p := range out {
		if !drop[i] {
			merged = append(merged, p)
		}
	}
	return merged
}

// Classify returns every changed step between two versions of a step list, each with its class.
func Classify(before, after []Step) []Change {
	return classify(before, after, "")
}

func classify(before, after []Step, prefix string) []Change {
	var out []Change
	for _, p := range Align(before, after) {
		switch {
		case p.Before >= 0 && p.After >= 0:
			if before[p.Before].Equal(after[p.After]) {
				continue
			}
			out = append(out, classifyPair(before[p.Before], after[p.After], prefix+strconv.Itoa(p.Before+1)))
		case p.Before >= 0:
			b := before[p.Before]
			c := Change{Class: ClassReview, Before: &b, Path: prefix + strconv.Itoa(p.Before+1), Detail: "step removed"}
			switch {
			case b.IsCheck() || b.Kind == Intent:
				c.Class, c.Detail = ClassProtected, "check removed"
				if b.Kind == Intent {
					c.Detail = "intent block removed"
				}
			case isPlainWait(b):
				c.Class, c.Detail = ClassRepair, "wait removed"
			}
			out = append(out, c)
		default:
			a := after[p.After]
			c := Change{Class: ClassReview, After: &a, Path: prefix + strconv.Itoa(p.After+1), Detail: "step added"}
			if isPlainWait(a) {
				c.Class, c.Detail = ClassRepair, "wait added"
			}
			out = append(out, c)
		}
	}
	return out
}

// isPlainWait is a wait for an element or a time: how a test waits, not what it does.
func isPlainWait(s Step) bool { return s.Kind == Wait && s.For != WaitURL }

func classifyPair(b, a Step, path string) Change {
	c := Change{Before: &b, After: &a, Path: path}
	switch {
	case b.Kind == Intent && a.Kind == Intent:
		if b.Goal != a.Goal || !maps.Equal(b.Values, a.Values) {
			c.Class, c.Detail = ClassProtected, "intent goal or values changed"
			return c
		}
		c.Inner = classify(b.Steps, a.Steps, path+".")
		c.Class, c.Detail = ClassRepair, "intent block re-derived"
		for _, in := range c.Inner {
			if in.Class.rank() > c.Class.rank() {
				c.Class = in.Class
			}
		}
		return c
	case b.Kind == Intent:
		// The block's markers, goal and values are the test's own, as when it is removed.
		c.Class, c.Detail = ClassProtected, fmt.Sprintf("intent block replaced by a %s step", a.Kind)
		return c
	case b.IsCheck():
		if fields := protectedDiff(b, a); len(fields) > 0 {
			c.Class, c.Detail = ClassProtected, "check changed: "+strings.Join(fields, ", ")
			return c
		}
	case b.Kind != a.Kind:
		c.Class, c.Detail = ClassReview, fmt.Sprintf("%s became %s", b.Kind, a.Kind)
		return c
	case isPlainWait(b) && isPlainWait(a):
		c.Class, c.Detail = ClassRepair, "wait changed"
		return c
	}
	if other := actionDiff(b, a); len(other) > 0 {
		c.Class, c.Detail = ClassReview, strings.Join(other, ", ")+" changed"
		return c
	}
	var details []string
	c.Class = ClassRepair
	if b.Target() != a.Target() {
		details = append(details, fmt.Sprintf("locator %s → %s", b.Target(), a.Target()))
		if !namedAlike(b.Target(), a.Target()) {
			c.Class = ClassReview
		}
	}
	if b.TimeoutMs != a.TimeoutMs {
		details = append(details, fmt.Sprintf("timeout %dms → %dms", b.TimeoutMs, a.TimeoutMs))
	}
	c.Detail = strings.Join(details, "; ")
	return c
}

// namedAlike reports whether two locators name the element the same way, so that a change
// between them is only how it is found. The selector is all that names the element unless a role
// name, label, placeholder, test id or text still names the same thing on both sides: another
// name can be another element ("Pay with card" or "Pay with test simulator"). The frame and the
// role name it too (spec 002): a field in another iframe is another field, and a link "Cart" is
// not the button "Cart". A role written where any role was accepted only narrows the match; a
// role dropped for any role, or changed, names the element another way.
func namedAlike(b, a Locator) bool {
	bn, an := b.SemanticName(), a.SemanticName()
	if bn == "" || bn != an || b.Frame != a.Frame {
		return false
	}
	if b.Kind == ByRole && a.Kind == ByRole && b.Role != a.Role && b.Role != AnyRole {
		return false
	}
	return true
}

// actionDiff names the fields other than the element and the timeout that differ.
func actionDiff(b, a Step) []string {
	b2, a2 := b, a
	b2.Locator, a2.Locator, b2.Scope, a2.Scope, b2.TimeoutMs, a2.TimeoutMs = Locator{}, Locator{}, Locator{}, Locator{}, 0, 0
	if b2.Equal(a2) {
		return nil
	}
	var names []string
	for _, f := range []struct {
		name string
		diff bool
	}{
		{"url", b.URL != a.URL}, {"value", b.Value != a.Value}, {"key", b.Key != a.Key}, {"clicks", b.Clicks != a.Clicks},
		{"variable", b.Variable != a.Variable}, {"attribute", b.Attribute != a.Attribute},
		{"name", b.Name != a.Name}, {"for", b.For != a.For}, {"state", b.State != a.State},
		{"ms", b.Ms != a.Ms},
	} {
		if f.diff {
			names = append(names, f.name)
		}
	}
	if len(names) == 0 {
		names = append(names, "step")
	}
	return names
}

// Summarize counts changes per class, the line under a diff: "1 to review".
func Summarize(changes []Change) map[ChangeClass]int {
	out := map[ChangeClass]int{}
	for _, c := range changes {
		out[c.Class]++
	}
	return out
}

// Highest is the most concerning class among the changes; empty when there are none.
func Highest(changes []Change) ChangeClass {
	var hi ChangeClass
	for _, c := range changes {
		if c.Class.rank() > hi.rank() {
			hi = c.Class
		}
	}
	return hi
}

// RaiseNoted raises to review every change in class repair whose step a note names: a step a
// trust check wrote about (an insensitive check, a behaviour change) needs reading whatever
// changed in it. The page-at-failure note only says where a repair started, so it raises
// nothing. Changes are modified in place and returned.
func RaiseNoted(changes []Change, notes []Note) []Change {
	named := map[string]NoteKind{}
	for _, n := range notes {
		if n.Step != "" && n.Kind != NotePageAtFailure {
			if _, seen := named[n.Step]; !seen {
				named[n.Step] = n.Kind
			}
		}
	}
	var raise func([]Change) ChangeClass
	raise = func(cs []Change) ChangeClass {
		var hi ChangeClass
		for i := range cs {
			c := &cs[i]
			if len(c.Inner) > 0 {
				if in := raise(c.Inner); in.rank() > c.Class.rank() {
					c.Class = in
				}
			}
			if k, ok := named[c.Path]; ok && c.Class == ClassRepair {
				c.Class = ClassReview
				c.Detail = strings.TrimPrefix(c.Detail+"; named by a "+string(k)+" note", "; ")
			}
			if c.Class.rank() > hi.rank() {
				hi = c.Class
			}
		}
		return hi
	}
	raise(changes)
	return changes
}
