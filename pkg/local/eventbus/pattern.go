package eventbus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Pattern is a compiled EventBridge event pattern of the kind our rules use: nested objects
// whose leaves are arrays of exact values (strings, numbers, booleans, null) and
// {"exists": true|false} filters. Every other content filter, and $or, is refused when the
// pattern is compiled, so a rule that starts to use one fails loudly on the local bus.
type Pattern struct {
	root *node
}

// node is an object level of a pattern.
type node struct {
	fields []field
}

type field struct {
	name  string
	child *node      // a nested object
	leaf  []*matcher // an array of allowed values: any one matches
}

// matcher is one allowed value: an exact value, or an exists filter when exists is set.
type matcher struct {
	val    any // string, json.Number, bool or nil
	exists *bool
}

// CompilePattern compiles an event pattern (JSON) and reports what is malformed or not
// supported in it, naming the field.
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
	for _, k := range slices.Sorted(maps.Keys(m)) {
		at := where + "." + k
		if where == "" {
			at = k
		}
		if k == "$or" {
			return nil, fmt.Errorf("%s: $or is not supported by the local event bus (it matches exact values and exists)", at)
		}
		switch v := m[k].(type) {
		case map[string]any:
			child, err := compileNode(v, at)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, field{name: k, child: child})
		case []any:
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
			return &matcher{val: x}, nil
		}
		return nil, fmt.Errorf("%s: %v cannot be matched (arrays inside an array of values are not allowed)", at, x)
	}
	if len(obj) != 1 {
		return nil, fmt.Errorf("%s: a content filter has exactly one operator, got %d", at, len(obj))
	}
	arg, isExists := obj["exists"]
	if !isExists {
		op := slices.Collect(maps.Keys(obj))[0]
		return nil, fmt.Errorf("%s: content filter %q is not supported by the local event bus (it matches exact values and exists)", at, op)
	}
	b, ok := arg.(bool)
	if !ok {
		return nil, fmt.Errorf("%s: exists takes true or false", at)
	}
	return &matcher{exists: &b}, nil
}

// Matches reports whether the event (its JSON) matches the pattern. Malformed JSON matches
// nothing.
func (p *Pattern) Matches(event []byte) bool {
	v, err := decode(event)
	if err != nil {
		return false
	}
	return p.root.match(v)
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
				// A nested pattern holds for a missing object only when all it asks is absence.
				if !f.child.match(map[string]any{}) {
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
	return true
}

func leafMatch(leaf []*matcher, val any, present bool) bool {
	for _, m := range leaf {
		if m.exists != nil {
			if present == *m.exists {
				return true
			}
			continue
		}
		if !present {
			continue
		}
		if arr, ok := val.([]any); ok {
			if slices.ContainsFunc(arr, m.matchValue) {
				return true
			}
			continue
		}
		if m.matchValue(val) {
			return true
		}
	}
	return false
}

// matchValue compares an exact value; numbers compare by value (1 matches 1.0).
func (m *matcher) matchValue(v any) bool {
	want, isNum := m.val.(json.Number)
	if !isNum {
		return v == m.val
	}
	got, ok := v.(json.Number)
	if !ok {
		return false
	}
	a, err1 := want.Float64()
	b, err2 := got.Float64()
	return err1 == nil && err2 == nil && a == b
}
