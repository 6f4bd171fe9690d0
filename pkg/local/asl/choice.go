package asl

import (
	"fmt"
	"strings"
	"time"
)

// rule is a compiled Choice rule: a comparison on Variable, or And/Or/Not of nested rules.
type rule struct {
	next     string
	variable *path
	op       string // the comparison operator as written, e.g. NumericLessThanPath
	kind     string // String, Numeric, Boolean, Timestamp, or Is for the type tests
	cmp      string // Equals, LessThan, GreaterThan, LessThanEquals, GreaterThanEquals, Matches
	value    any
	other    *path // the second operand of a …Path comparison
	and, or  []*rule
	not      *rule
}

var comparisonKinds = []string{"String", "Numeric", "Boolean", "Timestamp"}
var comparisons = []string{"Equals", "LessThan", "GreaterThan", "LessThanEquals", "GreaterThanEquals"}
var typeTests = []string{"IsNull", "IsPresent", "IsNumeric", "IsString", "IsBoolean", "IsTimestamp"}

// operators maps each comparison operator to its kind and comparison.
var operators = func() map[string][2]string {
	m := map[string][2]string{"StringMatches": {"String", "Matches"}}
	for _, k := range comparisonKinds {
		for _, c := range comparisons {
			if k == "Boolean" && c != "Equals" {
				continue
			}
			m[k+c] = [2]string{k, c}
			m[k+c+"Path"] = [2]string{k, c}
		}
	}
	for _, t := range typeTests {
		m[t] = [2]string{"Is", t}
	}
	return m
}()

// compileRule compiles a Choice rule; top is true for the rules directly in Choices, which
// must name a Next while nested rules must not.
func compileRule(v any, top bool) (*rule, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a choice rule must be an object, got a %s", typeName(v))
	}
	r := &rule{}
	var ops []string
	for k, x := range m {
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
			p, err := parsePath(s, true)
			if err != nil {
				return nil, fmt.Errorf("field Variable: %w", err)
			}
			r.variable = p
		case "And", "Or":
			list, ok := x.([]any)
			if !ok || len(list) == 0 {
				return nil, fmt.Errorf("%s must be a non-empty array of rules", k)
			}
			for i, sub := range list {
				c, err := compileRule(sub, false)
				if err != nil {
					return nil, fmt.Errorf("%s[%d]: %w", k, i, err)
				}
				if k == "And" {
					r.and = append(r.and, c)
				} else {
					r.or = append(r.or, c)
				}
			}
			ops = append(ops, k)
		case "Not":
			c, err := compileRule(x, false)
			if err != nil {
				return nil, fmt.Errorf("rule Not: %w", err)
			}
			r.not = c
			ops = append(ops, k)
		default:
			o, ok := operators[k]
			if !ok {
				return nil, fmt.Errorf("unknown field %q in a choice rule", k)
			}
			r.op, r.kind, r.cmp = k, o[0], o[1]
			if err := r.compileOperand(x); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			ops = append(ops, k)
		}
	}
	switch {
	case len(ops) == 0:
		return nil, fmt.Errorf("the rule has no comparison operator, And, Or or Not")
	case len(ops) > 1:
		return nil, fmt.Errorf("the rule has more than one operator (%s)", strings.Join(ops, ", "))
	case top && r.next == "":
		return nil, fmt.Errorf("a top-level choice rule needs Next")
	case !top && r.next != "":
		return nil, fmt.Errorf("a nested choice rule may not have Next")
	case r.op != "" && r.variable == nil:
		return nil, fmt.Errorf("%s needs Variable", r.op)
	case r.op == "" && r.variable != nil:
		return nil, fmt.Errorf("rules And, Or and Not take no Variable")
	}
	return r, nil
}

func (r *rule) compileOperand(x any) error {
	if strings.HasSuffix(r.op, "Path") {
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("want a path string, got a %s", typeName(x))
		}
		p, err := parsePath(s, true)
		if err != nil {
			return err
		}
		r.other = p
		return nil
	}
	r.value = x
	switch r.kind {
	case "String":
		if _, ok := x.(string); !ok {
			return fmt.Errorf("want a string, got a %s", typeName(x))
		}
	case "Numeric":
		if _, ok := number(x); !ok {
			return fmt.Errorf("want a number, got a %s", typeName(x))
		}
	case "Boolean", "Is":
		if _, ok := x.(bool); !ok {
			return fmt.Errorf("want a boolean, got a %s", typeName(x))
		}
	case "Timestamp":
		s, _ := x.(string)
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			return fmt.Errorf("want an RFC 3339 timestamp, got %v", x)
		}
	}
	return nil
}

// eval decides the rule on the state's effective input. A Variable (or …Path operand) that
// does not exist fails the execution with States.Runtime, except under IsPresent.
func (r *rule) eval(input, ctxObj any) (bool, error) {
	switch {
	case r.and != nil:
		for _, c := range r.and {
			if ok, err := c.eval(input, ctxObj); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case r.or != nil:
		for _, c := range r.or {
			if ok, err := c.eval(input, ctxObj); err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case r.not != nil:
		ok, err := r.not.eval(input, ctxObj)
		return !ok && err == nil, err
	}
	v, present := r.variable.eval(input, ctxObj)
	if r.cmp == "IsPresent" {
		return present == r.value.(bool), nil
	}
	if !present {
		return false, fail(ErrRuntime, "invalid path %s: the choice rule %s references a value that does not exist", r.variable.src, r.op)
	}
	if r.kind == "Is" {
		var is bool
		switch r.cmp {
		case "IsNull":
			is = v == nil
		case "IsNumeric":
			_, is = number(v)
		case "IsString":
			_, is = v.(string)
		case "IsBoolean":
			_, is = v.(bool)
		case "IsTimestamp":
			_, is = timestamp(v)
		}
		return is == r.value.(bool), nil
	}
	want := r.value
	if r.other != nil {
		var ok bool
		if want, ok = r.other.eval(input, ctxObj); !ok {
			return false, fail(ErrRuntime, "invalid path %s: the choice rule %s references a value that does not exist", r.other.src, r.op)
		}
	}
	return compare(r.kind, r.cmp, v, want), nil
}

// compare applies a comparison; operands of the wrong type never match.
func compare(kind, cmp string, a, b any) bool {
	var c int
	switch kind {
	case "String":
		x, ok1 := a.(string)
		y, ok2 := b.(string)
		if !ok1 || !ok2 {
			return false
		}
		if cmp == "Matches" {
			return wildcardMatch(y, x)
		}
		c = strings.Compare(x, y)
	case "Numeric":
		x, ok1 := number(a)
		y, ok2 := number(b)
		if !ok1 || !ok2 {
			return false
		}
		c = cmpFloat(x, y)
	case "Boolean":
		x, ok1 := a.(bool)
		y, ok2 := b.(bool)
		return ok1 && ok2 && x == y
	case "Timestamp":
		x, ok1 := timestamp(a)
		y, ok2 := timestamp(b)
		if !ok1 || !ok2 {
			return false
		}
		c = x.Compare(y)
	}
	switch cmp {
	case "Equals":
		return c == 0
	case "LessThan":
		return c < 0
	case "GreaterThan":
		return c > 0
	case "LessThanEquals":
		return c <= 0
	case "GreaterThanEquals":
		return c >= 0
	}
	return false
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func timestamp(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// wildcardMatch implements StringMatches: * matches any run of characters, \* a literal star
// and \\ a literal backslash.
func wildcardMatch(pattern, s string) bool {
	type tok struct {
		star bool
		ch   byte
	}
	var toks []tok
	for i := 0; i < len(pattern); i++ {
		switch {
		case pattern[i] == '\\' && i+1 < len(pattern):
			i++
			toks = append(toks, tok{ch: pattern[i]})
		case pattern[i] == '*':
			toks = append(toks, tok{star: true})
		default:
			toks = append(toks, tok{ch: pattern[i]})
		}
	}
	// Greedy matching with backtracking to the last star: linear in practice.
	ti, si, starTok, starS := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case ti < len(toks) && !toks[ti].star && toks[ti].ch == s[si]:
			ti++
			si++
		case ti < len(toks) && toks[ti].star:
			starTok, starS = ti, si
			ti++
		case starTok >= 0:
			starS++
			si = starS
			ti = starTok + 1
		default:
			return false
		}
	}
	for ti < len(toks) && toks[ti].star {
		ti++
	}
	return ti == len(toks)
}
