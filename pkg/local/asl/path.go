package asl

import (
	"fmt"
	"strconv"
	"strings"
)

// path is a compiled JSONPath of the subset our state machines use: $ followed by .field and
// [index] steps, or, in a payload template (Parameters, ItemSelector), $$.Execution.Id and
// $$.Execution.Name, and in a Map's ItemSelector $$.Map.Item.Index and $$.Map.Item.Value (with
// further steps), from the context object.
type path struct {
	src     string
	context bool // rooted at $$, the context object
	segs    []segment
}

// segment is one step: a field name, or an array index when field is empty.
type segment struct {
	field string
	index int
}

// scope says which context object paths a path may take where it is written.
type scope int

const (
	noContext      scope = iota // InputPath, OutputPath, ResultPath, a Choice's Variable
	payloadContext              // a Task's or Pass's Parameters: $$.Execution
	itemContext                 // a Map's ItemSelector: $$.Execution and $$.Map.Item
)

// parsePath compiles a JSONPath; context paths are accepted only where sc allows them.
func parsePath(s string, sc scope) (*path, error) {
	p := &path{src: s}
	rest := s
	switch {
	case strings.HasPrefix(s, "$$"):
		p.context = true
		rest = s[2:]
	case strings.HasPrefix(s, "$"):
		rest = s[1:]
	default:
		return nil, fmt.Errorf("path %q: must start with $", s)
	}
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name := rest[:end]
			switch name {
			case "":
				return nil, fmt.Errorf("path %q: empty field name (recursive descent is not supported by the local interpreter)", s)
			case "*":
				return nil, fmt.Errorf("path %q: wildcards are not supported by the local interpreter", s)
			}
			p.segs = append(p.segs, segment{field: name})
			rest = rest[end:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: unclosed [", s)
			}
			inner := rest[1:end]
			n, err := strconv.Atoi(inner)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("path %q: subscript [%s] is not supported by the local interpreter (it takes a non-negative index)", s, inner)
			}
			p.segs = append(p.segs, segment{index: n})
			rest = rest[end+1:]
		default:
			return nil, fmt.Errorf("path %q: unexpected %q", s, rest[0])
		}
	}
	if p.context && !(sc >= payloadContext && p.execution() || sc == itemContext && p.mapItem()) {
		return nil, fmt.Errorf("path %q: the local interpreter supports the context object ($$) only as $$.Execution.Id or $$.Execution.Name in a payload template, and $$.Map.Item.Index or $$.Map.Item.Value in a Map's ItemSelector", s)
	}
	return p, nil
}

// mapItem reports whether the path starts $$.Map.Item.Index or $$.Map.Item.Value.
func (p *path) mapItem() bool {
	return len(p.segs) >= 3 && p.segs[0].field == "Map" && p.segs[1].field == "Item" &&
		(p.segs[2].field == "Index" || p.segs[2].field == "Value")
}

// execution reports whether the path is $$.Execution.Id or $$.Execution.Name.
func (p *path) execution() bool {
	return len(p.segs) == 2 && p.segs[0].field == "Execution" && (p.segs[1].field == "Id" || p.segs[1].field == "Name")
}

// eval reads the path from the input or, for $$ paths, the context object. ok is false when a
// step does not exist.
func (p *path) eval(input, ctxObj any) (any, bool) {
	v := input
	if p.context {
		v = ctxObj
	}
	for _, s := range p.segs {
		if s.field != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[s.field]; !ok {
				return nil, false
			}
			continue
		}
		a, ok := v.([]any)
		if !ok || s.index >= len(a) {
			return nil, false
		}
		v = a[s.index]
	}
	return v, true
}

// set returns a copy of doc with v placed at the path, creating missing objects on the way.
// doc itself is never modified: states share their input with retries, catchers and Map items.
func (p *path) set(doc, v any) (any, error) {
	return setSegs(doc, p.segs, v, p.src)
}

func setSegs(doc any, segs []segment, v any, src string) (any, error) {
	if len(segs) == 0 {
		return v, nil
	}
	s := segs[0]
	if s.field == "" {
		a, ok := doc.([]any)
		if !ok || s.index >= len(a) {
			return nil, fmt.Errorf("ResultPath %q: index %d does not exist", src, s.index)
		}
		c := append([]any(nil), a...)
		child, err := setSegs(c[s.index], segs[1:], v, src)
		if err != nil {
			return nil, err
		}
		c[s.index] = child
		return c, nil
	}
	var m map[string]any
	switch c := doc.(type) {
	case map[string]any:
		m = make(map[string]any, len(c)+1)
		for k, x := range c {
			m[k] = x
		}
	case nil:
		m = map[string]any{}
	default:
		return nil, fmt.Errorf("ResultPath %q: cannot set field %q in a %s", src, s.field, typeName(doc))
	}
	child, err := setSegs(m[s.field], segs[1:], v, src)
	if err != nil {
		return nil, err
	}
	m[s.field] = child
	return m, nil
}
