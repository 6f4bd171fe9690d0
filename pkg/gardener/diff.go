package gardener

import (
	"strconv"
	"strings"
)

// DiffEntry is one op as a reviewer sees it: the base step it touches, with its number, and what
// it becomes. An intent block that is re-derived also lists the changes inside it.
type DiffEntry struct {
	Op     OpKind   `json:"op"`
	Index  int      `json:"index"` // 0-based base index, as in the op
	Path   string   `json:"step"`  // 1-based step number in the base version
	Before *Step    `json:"before,omitempty"`
	After  *Step    `json:"after,omitempty"`
	Inner  []Change `json:"inner,omitempty"`
}

// Diff describes ops against the base steps they were computed from, in reading order. Ops that
// do not fit the steps are skipped: screen or validate them first.
func Diff(base []Step, ops []Op) []DiffEntry {
	var out []DiffEntry
	for _, op := range SortOps(ops) {
		e := DiffEntry{Op: op.Kind, Index: op.Index, Path: strconv.Itoa(op.Index + 1)}
		switch op.Kind {
		case OpInsert:
			if op.Index < 0 || op.Index > len(base) || op.Step == nil {
				continue
			}
			a := op.Step.Clone()
			e.After = &a
		case OpReplace, OpDelete:
			if op.Index < 0 || op.Index >= len(base) {
				continue
			}
			b := base[op.Index].Clone()
			e.Before = &b
			if op.Kind == OpReplace {
				if op.Step == nil {
					continue
				}
				a := op.Step.Clone()
				e.After = &a
				if b.Kind == Intent && a.Kind == Intent {
					e.Inner = classify(b.Steps, a.Steps, e.Path+".")
				}
			}
		default:
			continue
		}
		out = append(out, e)
	}
	return out
}

// Lines renders the entry for a terminal or a log, each line naming the step (1-based) it
// touches: a replace is the line `- step 4  click role=button[name="Login"]` followed by
// `+ step 4  click role=button[name="Sign in"]`. A fill's value is redacted (its length kept):
// terminals and logs are copied into CI output and CloudWatch, and a typed value may be a
// password; the ops themselves, in JSON to an authorized reviewer, keep it.
func (e DiffEntry) Lines() []string {
	var out []string
	switch e.Op {
	case OpInsert:
		out = append(out, "+ new before step "+e.Path+"  "+e.After.Redacted())
	case OpDelete:
		out = append(out, "- step "+e.Path+"  "+e.Before.Redacted())
	case OpReplace:
		if len(e.Inner) > 0 {
			out = append(out, "~ step "+e.Path+"  "+e.Before.Redacted())
			for _, c := range e.Inner {
				if c.Before != nil {
					out = append(out, "  - step "+c.Path+"  "+c.Before.Redacted())
				}
				if c.After != nil {
					out = append(out, "  + step "+c.Path+"  "+c.After.Redacted())
				}
			}
			break
		}
		out = append(out, "- step "+e.Path+"  "+e.Before.Redacted(), "+ step "+e.Path+"  "+e.After.Redacted())
	}
	return out
}

// RenderDiff is the whole diff as text, one line per changed step.
func RenderDiff(entries []DiffEntry) string {
	var b strings.Builder
	for _, e := range entries {
		for _, l := range e.Lines() {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
