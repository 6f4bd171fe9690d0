package asl

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// rule is a compiled Choice rule: a comparison of Variable with a literal, or an Or of nested
// rules.
type rule struct {
	next     string
	variable *path
	op       string // the comparison operator, a key of comparisons
	value    any
	or       []*rule
}

// comparison is a Choice operator: the type its operand must have and its test, which a value
// of another type never passes.
type comparison struct {
	operand string
	valid   func(any) bool
	test    func(v, want any) bool
}

// comparisons are the Choice operators our state machines use; the interpreter refuses every
// other at load.
var comparisons = map[string]comparison{
	"StringEquals": {"a string",
		func(x any) bool { _, ok := x.(string); return ok },
		func(v, want any) bool { s, ok := v.(string); return ok && s == want }},
	"BooleanEquals": {"a boolean",
		func(x any) bool { _, ok := x.(bool); return ok },
		func(v, want any) bool { b, ok := v.(bool); return ok && b == want }},
	"NumericGreaterThan": {"a number",
		func(x any) bool { _, ok := number(x); return ok },
		func(v, want any) bool {
			x, ok := number(v)
			y, _ := number(want)
			return ok && x > y
		}},
}

// supportedRules names what a Choice rule may use, for the refusal of anything else.
var supportedRules = strings.Join(append(slices.Sorted(maps.Keys(comparisons)), "Or"), ", ")

// compileRule compiles a Choice rule; top is true for the rules directly in Choices, which
// must name a Next while nested rules must not.
func compileRule(v any, top bool) (*rule, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a choice rule must be an object, got a %s", typeName(v))
	}
	r := &rule{}
	var ops []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		x := m[k]
		switch k {
		case "Comment":
		case "Next":
			s, ok := x.(string)
			if !ok || s == "" {
				return nil, fmt.Errorf("field Next must be a state name")
			}
			r.next = s
		case "Variable":
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("field Variable must be a path string")
			}
			p, err := parsePath(s, noContext)
			if err != nil {
				return nil, fmt.Errorf("field Variable: %w", err)
			}
			r.variable = p
		case "Or":
			list, ok := x.([]any)
			if !ok || len(list) == 0 {
				return nil, fmt.Errorf("%s must be a non-empty array of rules", k)
			}
			for i, sub := range list {
				c, err := compileRule(sub, false)
				if err != nil {
					return nil, fmt.Errorf("%s[%d]: %w", k, i, err)
				}
				r.or = append(r.or, c)
			}
			ops = append(ops, k)
		default:
			cmp, ok := comparisons[k]
			if !ok {
				return nil, fmt.Errorf("choice operator %q is not supported by the local interpreter (it runs %s)", k, supportedRules)
			}
			if !cmp.valid(x) {
				return nil, fmt.Errorf("%s: want %s, got a %s", k, cmp.operand, typeName(x))
			}
			r.op, r.value = k, x
			ops = append(ops, k)
		}
	}
	switch {
	case len(ops) == 0:
		return nil, fmt.Errorf("the rule has no comparison operator or Or")
	case len(ops) > 1:
		return nil, fmt.Errorf("the rule has more than one operator (%s)", strings.Join(ops, ", "))
	case top && r.next == "":
		return nil, fmt.Errorf("a top-level choice rule needs Next")
	case !top && r.next != "":
		return nil, fmt.Errorf("a nested choice rule may not have Next")
	case r.op != "" && r.variable == nil:
		return nil, fmt.Errorf("%s needs Variable", r.op)
	case r.op == "" && r.variable != nil:
		return nil, fmt.Errorf("rule Or takes no Variable")
	}
	return r, nil
}

// eval decides the rule on the state's effective input. A Variable that does not exist fails
// the execution with States.Runtime.
func (r *rule) eval(input any) (bool, error) {
	if r.or != nil {
		for _, c := range r.or {
			if ok, err := c.eval(input); err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	}
	v, present := r.variable.eval(input, nil)
	if !present {
		return false, fail(ErrRuntime, "invalid path %s: the choice rule %s references a value that does not exist", r.variable.src, r.op)
	}
	return comparisons[r.op].test(v, r.value), nil
}
