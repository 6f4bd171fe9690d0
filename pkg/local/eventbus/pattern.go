package eventbus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"strings"
)

// Pattern is a compiled EventBridge event pattern.
type Pattern struct {
	root *node
}

// node is an object level of a pattern: fields to match and $or alternatives.
type node struct {
	fields []field
	or     [][]*node // each $or: any one of its alternatives matches
}

type field struct {
	name  string
	child *node      // a nested object
	leaf  []*matcher // an array of allowed values: any one matches
}

type matcher struct {
	kind string // exact, prefix, suffix, prefix-ic, suffix-ic, equals-ignore-case, wildcard, anything-but, numeric, exists, cidr
	val  any    // exact value (string, json.Number, bool or nil), or the operand string
	not  []*matcher
	num  []numCond
	ex   bool
	cidr netip.Prefix
}

type numCond struct {
	op string
	v  float64
}

// CompilePattern compiles an event pattern (JSON) and reports what is malformed in it.
func CompilePattern(pattern []byte) (*Pattern, error) {
	v, err := decode(pattern)
	if err != nil {
		return nil, fmt.Errorf("event pattern is not JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("event pattern must be an object, got %s", pattern)
	}
	root, err := compileNode(m, "")
	if err != nil {
		return nil, fmt.Errorf("event pattern: %w", err)
	}
	return &Pattern{root: root}, nil
}

func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func compileNode(m map[string]any, where string) (*node, error) {
	n := &node{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		at := where + "." + k
		if where == "" {
			at = k
		}
		switch v := m[k].(type) {
		case map[string]any:
			child, err := compileNode(v, at)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, field{name: k, child: child})
		case []any:
			if k == "$or" {
				var alts []*node
				for i, a := range v {
					am, ok := a.(map[string]any)
					if !ok {
						return nil, fmt.Errorf("%s[%d]: each $or alternative must be an object", at, i)
					}
					alt, err := compileNode(am, where)
					if err != nil {
						return nil, err
					}
					alts = append(alts, alt)
				}
				if len(alts) < 2 {
					return nil, fmt.Errorf("%s: $or needs at least two alternatives", at)
				}
				n.or = append(n.or, alts)
				continue
			}
			if len(v) == 0 {
				return nil, fmt.Errorf("%s: an empty array matches nothing", at)
			}
			var leaf []*matcher
			for _, x := range v {
				mt, err := compileMatcher(x, at)
				if err != nil {
					return nil, err
				}
				leaf = append(leaf, mt)
			}
			n.fields = append(n.fields, field{name: k, leaf: leaf})
		default:
			return nil, fmt.Errorf("%s: a pattern value must be an array of allowed values or an object, got %v", at, v)
		}
	}
	return n, nil
}

func compileMatcher(x any, at string) (*matcher, error) {
	obj, ok := x.(map[string]any)
	if !ok {
		switch x.(type) {
		case string, json.Number, bool, nil:
			return &matcher{kind: "exact", val: x}, nil
		}
		return nil, fmt.Errorf("%s: %v cannot be matched (arrays inside an array of values are not allowed)", at, x)
	}
	if len(obj) != 1 {
		return nil, fmt.Errorf("%s: a content filter has exactly one operator, got %d", at, len(obj))
	}
	var op string
	var arg any
	for k, v := range obj {
		op, arg = k, v
	}
	switch op {
	case "prefix", "suffix":
		if s, ok := arg.(string); ok {
			return &matcher{kind: op, val: s}, nil
		}
		if m, ok := arg.(map[string]any); ok && len(m) == 1 {
			if s, ok := m["equals-ignore-case"].(string); ok {
				return &matcher{kind: op + "-ic", val: strings.ToLower(s)}, nil
			}
		}
		return nil, fmt.Errorf("%s: %s takes a string or {\"equals-ignore-case\": string}", at, op)
	case "equals-ignore-case":
		s, ok := arg.(string)
		if !ok {
			return nil, fmt.Errorf("%s: equals-ignore-case takes a string", at)
		}
		return &matcher{kind: op, val: strings.ToLower(s)}, nil
	case "wildcard":
		s, ok := arg.(string)
		if !ok {
			return nil, fmt.Errorf("%s: wildcard takes a string", at)
		}
		return &matcher{kind: op, val: s}, nil
	case "exists":
		b, ok := arg.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: exists takes true or false", at)
		}
		return &matcher{kind: op, ex: b}, nil
	case "cidr":
		s, _ := arg.(string)
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("%s: cidr %v: %v", at, arg, err)
		}
		return &matcher{kind: op, cidr: p.Masked()}, nil
	case "numeric":
		conds, err := compileNumeric(arg, at)
		if err != nil {
			return nil, err
		}
		return &matcher{kind: op, num: conds}, nil
	case "anything-but":
		m := &matcher{kind: op}
		var list []any
		switch a := arg.(type) {
		case []any:
			list = a
		case map[string]any:
			inner, err := compileMatcher(a, at+" anything-but")
			if err != nil {
				return nil, err
			}
			switch inner.kind {
			case "prefix", "suffix", "equals-ignore-case", "wildcard", "prefix-ic", "suffix-ic":
			default:
				return nil, fmt.Errorf("%s: anything-but takes values, prefix, suffix, equals-ignore-case or wildcard, not %s", at, inner.kind)
			}
			m.not = []*matcher{inner}
			return m, nil
		default:
			list = []any{a}
		}
		for _, v := range list {
			switch v.(type) {
			case string, json.Number:
			default:
				return nil, fmt.Errorf("%s: anything-but values must be strings or numbers, got %v", at, v)
			}
			m.not = append(m.not, &matcher{kind: "exact", val: v})
		}
		return m, nil
	default:
		return nil, fmt.Errorf("%s: unknown content filter %q", at, op)
	}
}

func compileNumeric(arg any, at string) ([]numCond, error) {
	list, ok := arg.([]any)
	if !ok || len(list) == 0 || len(list)%2 != 0 || len(list) > 4 {
		return nil, fmt.Errorf("%s: numeric takes [op, n] or [op, n, op, n]", at)
	}
	var out []numCond
	for i := 0; i < len(list); i += 2 {
		op, _ := list[i].(string)
		switch op {
		case "=", "<", "<=", ">", ">=":
		default:
			return nil, fmt.Errorf("%s: numeric operator %v is not one of = < <= > >=", at, list[i])
		}
		n, ok := list[i+1].(json.Number)
		f, err := n.Float64()
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: numeric %s needs a number, got %v", at, op, list[i+1])
		}
		out = append(out, numCond{op, f})
	}
	return out, nil
}

// Matches reports whether the event (its JSON) matches the pattern. Malformed JSON matches
// nothing.
func (p *Pattern) Matches(event []byte) bool {
	v, err := decode(event)
	if err != nil {
		return false
	}
	return p.MatchesValue(v)
}

// MatchesValue matches an event already decoded with json.Decoder.UseNumber.
func (p *Pattern) MatchesValue(event any) bool {
	return p.root.match(event)
}

func (n *node) match(v any) bool {
	// Arrays of objects are matched element-wise, as EventBridge flattens them.
	if arr, ok := v.([]any); ok {
		for _, x := range arr {
			if n.match(x) {
				return true
			}
		}
		return false
	}
	obj, _ := v.(map[string]any)
	for _, f := range n.fields {
		val, present := obj[f.name]
		if f.child != nil {
			if !present {
				if !f.child.matchesAbsent() {
					return false
				}
				continue
			}
			if !f.child.match(val) {
				return false
			}
			continue
		}
		if !leafMatch(f.leaf, val, present) {
			return false
		}
	}
	for _, alts := range n.or {
		any := false
		for _, alt := range alts {
			if alt.match(v) {
				any = true
				break
			}
		}
		if !any {
			return false
		}
	}
	return true
}

// matchesAbsent reports whether a nested pattern holds when its whole object is missing:
// only when everything in it asks for absence.
func (n *node) matchesAbsent() bool {
	return n.match(map[string]any{})
}

func leafMatch(leaf []*matcher, val any, present bool) bool {
	for _, m := range leaf {
		if m.kind == "exists" {
			if present == m.ex {
				return true
			}
			continue
		}
		if !present {
			continue
		}
		if arr, ok := val.([]any); ok {
			for _, x := range arr {
				if m.matchValue(x) {
					return true
				}
			}
			continue
		}
		if m.matchValue(val) {
			return true
		}
	}
	return false
}

func (m *matcher) matchValue(v any) bool {
	s, isStr := v.(string)
	switch m.kind {
	case "exact":
		switch want := m.val.(type) {
		case json.Number:
			got, ok := v.(json.Number)
			if !ok {
				return false
			}
			a, err1 := want.Float64()
			b, err2 := got.Float64()
			return err1 == nil && err2 == nil && a == b
		default:
			return v == m.val
		}
	case "prefix":
		return isStr && strings.HasPrefix(s, m.val.(string))
	case "suffix":
		return isStr && strings.HasSuffix(s, m.val.(string))
	case "prefix-ic":
		return isStr && strings.HasPrefix(strings.ToLower(s), m.val.(string))
	case "suffix-ic":
		return isStr && strings.HasSuffix(strings.ToLower(s), m.val.(string))
	case "equals-ignore-case":
		return isStr && strings.ToLower(s) == m.val.(string)
	case "wildcard":
		return isStr && wildcard(m.val.(string), s)
	case "cidr":
		a, err := netip.ParseAddr(s)
		return isStr && err == nil && m.cidr.Contains(a)
	case "numeric":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		if err != nil {
			return false
		}
		for _, c := range m.num {
			ok := false
			switch c.op {
			case "=":
				ok = f == c.v
			case "<":
				ok = f < c.v
			case "<=":
				ok = f <= c.v
			case ">":
				ok = f > c.v
			case ">=":
				ok = f >= c.v
			}
			if !ok {
				return false
			}
		}
		return true
	case "anything-but":
		for _, n := range m.not {
			if n.matchValue(v) {
				return false
			}
		}
		// A prefix, suffix or wildcard exclusion only speaks about strings.
		if len(m.not) == 1 && m.not[0].kind != "exact" {
			return isStr
		}
		return true
	}
	return false
}

// wildcard matches * as any run of characters and \* as a literal star.
func wildcard(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	if pattern[0] == '\\' && len(pattern) > 1 {
		return s != "" && s[0] == pattern[1] && wildcard(pattern[2:], s[1:])
	}
	if pattern[0] == '*' {
		for i := 0; i <= len(s); i++ {
			if wildcard(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	}
	return s != "" && s[0] == pattern[0] && wildcard(pattern[1:], s[1:])
}
