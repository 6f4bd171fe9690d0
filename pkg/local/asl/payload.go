package asl

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// payload is a compiled payload template (Parameters, ItemSelector): fields
// whose name ends in ".$" take a path or an intrinsic function, the rest are copied as they are.
type payload struct {
	lit    any
	fields []payloadField // set for an object
	isObj  bool
	items  []*payload // set for an array
	isArr  bool
	path   *path
	call   *intrinsic
}

type payloadField struct {
	name string // without the ".$"
	src  string // the key as written, for error messages
	val  *payload
}

// compilePayload compiles a payload template; item (a Map's ItemSelector) allows the $$.Map.Item
// context paths too.
func compilePayload(v any, item bool) (*payload, error) {
	switch c := v.(type) {
	case map[string]any:
		p := &payload{isObj: true}
		for _, k := range slices.Sorted(maps.Keys(c)) {
			if !strings.HasSuffix(k, ".$") {
				sub, err := compilePayload(c[k], item)
				if err != nil {
					return nil, err
				}
				p.fields = append(p.fields, payloadField{name: k, src: k, val: sub})
				continue
			}
			sub, err := compileExpr(c[k], item)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", k, err)
			}
			p.fields = append(p.fields, payloadField{name: strings.TrimSuffix(k, ".$"), src: k, val: sub})
		}
		return p, nil
	case []any:
		p := &payload{isArr: true}
		for i, x := range c {
			sub, err := compilePayload(x, item)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			p.items = append(p.items, sub)
		}
		return p, nil
	}
	return &payload{lit: v}, nil
}

// compileExpr compiles the value of a ".$" field: a path or an intrinsic function.
func compileExpr(v any, item bool) (*payload, error) {
	expr, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("want a path or an intrinsic function string, got a %s", typeName(v))
	}
	var err error
	sub := &payload{}
	if strings.HasPrefix(expr, "States.") {
		sub.call, err = parseIntrinsic(expr)
	} else {
		sc := payloadContext
		if item {
			sc = itemContext
		}
		sub.path, err = parsePath(expr, sc)
	}
	return sub, err
}

func (p *payload) eval(input, ctxObj any) (any, error) {
	switch {
	case p.isObj:
		out := make(map[string]any, len(p.fields))
		for _, f := range p.fields {
			if f.val.path != nil {
				v, ok := f.val.path.eval(input, ctxObj)
				if !ok {
					return nil, fail(ErrRuntime, "the JSONPath %s given for the field %q could not be found in the input", f.val.path.src, f.src)
				}
				out[f.name] = v
				continue
			}
			v, err := f.val.eval(input, ctxObj)
			if err != nil {
				return nil, err
			}
			out[f.name] = v
		}
		return out, nil
	case p.isArr:
		out := make([]any, len(p.items))
		for i, it := range p.items {
			v, err := it.eval(input, ctxObj)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case p.call != nil:
		return p.call.eval(input)
	case p.path != nil:
		v, ok := p.path.eval(input, ctxObj)
		if !ok {
			return nil, fail(ErrRuntime, "the JSONPath %s could not be found in the input", p.path.src)
		}
		return v, nil
	}
	return p.lit, nil
}
