package asl

import (
	"fmt"
	"strconv"
	"strings"
)

// path is a compiled JSONPath of the subset ASL uses: $ or $$ (the context object) followed by
// .field, ['field'], ["field"], [index] and, when reading, [*] or .* selecting every element.
type path struct {
	src     string
	context bool // rooted at $$, the context object
	segs    []segment
}

type segKind int

const (
	segField segKind = iota
	segIndex
	segWildcard
)

type segment struct {
	kind  segKind
	field string
	index int
}

// parsePath compiles a JSONPath; context paths ($$…) are accepted only where allowContext.
func parsePath(s string, allowContext bool) (*path, error) {
	p := &path{src: s}
	rest := s
	switch {
	case strings.HasPrefix(s, "$$"):
		if !allowContext {
			return nil, fmt.Errorf("path %q: the context object ($$) is not allowed here", s)
		}
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
			if strings.HasPrefix(rest, ".") {
				return nil, fmt.Errorf("path %q: recursive descent (..) is not supported", s)
			}
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name := rest[:end]
			if name == "" {
				return nil, fmt.Errorf("path %q: empty field name", s)
			}
			if name == "*" {
				p.segs = append(p.segs, segment{kind: segWildcard})
			} else {
				p.segs = append(p.segs, segment{kind: segField, field: name})
			}
			rest = rest[end:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: unclosed [", s)
			}
			inner := rest[1:end]
			if q := inner; len(q) >= 2 && (q[0] == '\'' || q[0] == '"') {
				// A quoted name may itself contain ] or .: find the closing quote first.
				close := strings.IndexByte(rest[2:], q[0])
				if close < 0 || len(rest) < close+4 || rest[2+close+1] != ']' {
					return nil, fmt.Errorf("path %q: unclosed quoted field", s)
				}
				p.segs = append(p.segs, segment{kind: segField, field: rest[2 : 2+close]})
				rest = rest[2+close+2:]
				continue
			}
			switch {
			case inner == "*":
				p.segs = append(p.segs, segment{kind: segWildcard})
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("path %q: unsupported subscript [%s] (want a non-negative index, *, or a quoted field)", s, inner)
				}
				p.segs = append(p.segs, segment{kind: segIndex, index: n})
			}
			rest = rest[end+1:]
		default:
			return nil, fmt.Errorf("path %q: unexpected %q", s, rest[0])
		}
	}
	return p, nil
}

// reference reports whether the path names one node (no wildcard), as ResultPath requires.
func (p *path) reference() bool {
	for _, s := range p.segs {
		if s.kind == segWildcard {
			return false
		}
	}
	return !p.context
}

// eval reads the path from the input or, for $$ paths, the context object. ok is false when a
// step does not exist. A wildcard yields the array of everything it selected.
func (p *path) eval(input, ctxObj any) (any, bool) {
	root := input
	if p.context {
		root = ctxObj
	}
	nodes := []any{root}
	multi := false
	for _, s := range p.segs {
		var next []any
		for _, n := range nodes {
			switch s.kind {
			case segField:
				m, ok := n.(map[string]any)
				if !ok {
					continue
				}
				if v, ok := m[s.field]; ok {
					next = append(next, v)
				}
			case segIndex:
				a, ok := n.([]any)
				if !ok || s.index >= len(a) {
					continue
				}
				next = append(next, a[s.index])
			case segWildcard:
				multi = true
				switch c := n.(type) {
				case []any:
					next = append(next, c...)
				case map[string]any:
					for _, k := range sortedKeys(c) {
						next = append(next, c[k])
					}
				}
			}
		}
		nodes = next
		if len(nodes) == 0 && !multi {
			return nil, false
		}
	}
	if multi {
		if nodes == nil {
			nodes = []any{}
		}
		return nodes, true
	}
	return nodes[0], true
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
	switch s.kind {
	case segField:
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
	case segIndex:
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
	return nil, fmt.Errorf("ResultPath %q: a wildcard cannot be a target", src)
}
