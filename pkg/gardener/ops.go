package gardener

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
)

// OpKind is the kind of a step operation.
type OpKind string

// Step operations.
const (
	OpInsert  OpKind = "insert"
	OpReplace OpKind = "replace"
	OpDelete  OpKind = "delete"
)

// Op is one change to a test's step list. Index always refers to the step list of the base
// version the ops were computed from (0-based), never to a list shifted by earlier ops: insert
// puts Step before the base step at Index (Index == len means at the end), replace and delete
// act on the base step at Index. That makes every op readable and screenable on its own.
type Op struct {
	Kind  OpKind `json:"op"`
	Index int    `json:"index"`
	Step  *Step  `json:"step,omitempty"`
}

// String renders an op whole, values included (`replace 3: fill label=Email "ann@example.com"`):
// it names an op for comparing, hashing and debugging. Text for people shows ops as diff lines
// (DiffEntry.Lines), which render steps with Step.Redacted.
func (o Op) String() string {
	if o.Step == nil {
		return fmt.Sprintf("%s %d", o.Kind, o.Index)
	}
	return fmt.Sprintf("%s %d: %s", o.Kind, o.Index, o.Step)
}

// UnmarshalJSON decodes an op strictly; its step goes through the strict step decoder.
func (o *Op) UnmarshalJSON(b []byte) error {
	var wire struct {
		Kind  OpKind          `json:"op"`
		Index *int            `json:"index"`
		Step  json.RawMessage `json:"step"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&wire); err != nil {
		return fmt.Errorf("op: %w", err)
	}
	if wire.Index == nil {
		return errors.New(`op: field "index" is required`)
	}
	op := Op{Kind: wire.Kind, Index: *wire.Index}
	switch wire.Kind {
	case OpInsert, OpReplace:
		if len(wire.Step) == 0 || string(wire.Step) == "null" {
			return fmt.Errorf("op %s at index %d: field \"step\" is required", wire.Kind, op.Index)
		}
		// The step is numbered as a person counts the position it takes (or replaces), so an
		// error inside an intent block reads "step 3.2", as it would in the test itself.
		s, err := decodeStep(wire.Step, strconv.Itoa(op.Index+1))
		if err != nil {
			return fmt.Errorf("op %s at index %d: %w", wire.Kind, op.Index, err)
		}
		op.Step = &s
	case OpDelete:
		if len(wire.Step) != 0 && string(wire.Step) != "null" {
			return fmt.Errorf("op delete at index %d: field \"step\" does not apply", op.Index)
		}
	default:
		return fmt.Errorf("op: field \"op\": %q is not one of insert, replace, delete", wire.Kind)
	}
	*o = op
	return nil
}

// StaleError is returned when ops computed against one version of a test are applied to another.
type StaleError struct {
	TestID      string
	BaseVersion int
	Version     int
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("test %s: the change was computed against version %d but the test is at version %d; its step indices no longer refer to the same steps", e.TestID, e.BaseVersion, e.Version)
}

// ErrStale matches every StaleError with errors.Is.
var ErrStale = errors.New("stale")

// Is lets errors.Is(err, ErrStale) match.
func (e *StaleError) Is(target error) bool { return target == ErrStale }

// OpError is an op that cannot apply to the steps it was computed against.
type OpError struct {
	Op     int // position of the op in the list
	Index  int
	Reason string
}

func (e *OpError) Error() string {
	return fmt.Sprintf("op %d (index %d): %s", e.Op+1, e.Index, e.Reason)
}

// ValidateOps checks ops against a step list of length n: indices in range, a step where one is
// needed, at most one replace or delete per base step.
func ValidateOps(n int, ops []Op) error {
	touched := map[int]bool{}
	for i, op := range ops {
		if reason := opProblem(n, op, touched); reason != "" {
			return &OpError{i, op.Index, reason}
		}
	}
	return nil
}

// opProblem says what makes op unable to apply to n steps after the ops that touched the base
// steps in touched, or "" when it applies; it records a replace or delete in touched. ValidateOps
// and the floor's Screen both use it, so an op Screen lets through always applies.
func opProblem(n int, op Op, touched map[int]bool) string {
	switch op.Kind {
	case OpInsert:
		if op.Index < 0 || op.Index > n {
			return fmt.Sprintf("insert index out of range [0, %d]: the test has %d steps", n, n)
		}
		if op.Step == nil {
			return "an insert needs a step"
		}
	case OpReplace, OpDelete:
		if op.Index < 0 || op.Index >= n {
			return fmt.Sprintf("%s index out of range [0, %d): the test has %d steps", op.Kind, n, n)
		}
		if touched[op.Index] {
			return fmt.Sprintf("a second replace or delete of step %d", op.Index+1)
		}
		if op.Kind == OpDelete && op.Step != nil {
			return "a delete carries no step"
		}
		if op.Kind == OpReplace && op.Step == nil {
			return "a replace needs a step"
		}
		touched[op.Index] = true
	default:
		return fmt.Sprintf("unknown op %q (insert, replace or delete)", op.Kind)
	}
	return ""
}

// ApplySteps returns a new step list with the ops applied; the input is not modified.
func ApplySteps(steps []Step, ops []Op) ([]Step, error) {
	if err := ValidateOps(len(steps), ops); err != nil {
		return nil, err
	}
	inserts := map[int][]Step{}
	replace := map[int]*Step{}
	deleted := map[int]bool{}
	for _, op := range ops {
		switch op.Kind {
		case OpInsert:
			inserts[op.Index] = append(inserts[op.Index], op.Step.Clone())
		case OpReplace:
			s := op.Step.Clone()
			replace[op.Index] = &s
		case OpDelete:
			deleted[op.Index] = true
		}
	}
	out := make([]Step, 0, len(steps)+len(ops))
	for i := 0; i <= len(steps); i++ {
		out = append(out, inserts[i]...)
		if i == len(steps) {
			break
		}
		switch {
		case deleted[i]:
		case replace[i] != nil:
			out = append(out, *replace[i])
		default:
			out = append(out, steps[i].Clone())
		}
	}
	return out, nil
}

// Apply applies ops computed against baseVersion to an in-memory copy of t. The copy keeps t's
// version: a version is raised only when a store writes the steps.
func Apply(t Test, baseVersion int, ops []Op) (Test, error) {
	if baseVersion != t.Version {
		return Test{}, &StaleError{TestID: t.ID, BaseVersion: baseVersion, Version: t.Version}
	}
	steps, err := ApplySteps(t.Steps, ops)
	if err != nil {
		return Test{}, fmt.Errorf("test %s: %w", t.ID, err)
	}
	c := t
	c.Steps = steps
	return c, nil
}

// SortOps puts ops in the order a person reads a diff: by index, inserts before the replace or
// delete at the same index, stable otherwise.
func SortOps(ops []Op) []Op {
	out := append([]Op(nil), ops...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Index != out[j].Index {
			return out[i].Index < out[j].Index
		}
		return out[i].Kind == OpInsert && out[j].Kind != OpInsert
	})
	return out
}
