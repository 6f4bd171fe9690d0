package asl

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// arrayPartition is the one intrinsic function our state machines use; the interpreter
// refuses every other at load.
const arrayPartition = "States.ArrayPartition"

// intrinsic is a compiled call States.ArrayPartition(array, size): each argument a path or a
// number.
type intrinsic struct {
	src  string
	args [2]iarg
}

type iarg struct {
	path *path
	lit  json.Number // when path is nil
}

// parseIntrinsic compiles an intrinsic function expression.
func parseIntrinsic(src string) (*intrinsic, error) {
	name, rest, found := strings.Cut(src, "(")
	name = strings.TrimSpace(name)
	if !found {
		return nil, fmt.Errorf("intrinsic %q: missing ( after the function name", src)
	}
	if name != arrayPartition {
		return nil, fmt.Errorf("intrinsic function %s is not supported by the local interpreter (it runs %s)", name, arrayPartition)
	}
	body, closed := strings.CutSuffix(strings.TrimSpace(rest), ")")
	if !closed {
		return nil, fmt.Errorf("intrinsic %q: missing ) closing %s", src, name)
	}
	parts := strings.Split(body, ",")
	if len(parts) != 2 {
		return nil, fmt.Errorf("intrinsic %q: %s takes 2 arguments, got %d", src, name, len(parts))
	}
	c := &intrinsic{src: src}
	for i, part := range parts {
		a := strings.TrimSpace(part)
		if strings.HasPrefix(a, "$") {
			p, err := parsePath(a, noContext)
			if err != nil {
				return nil, fmt.Errorf("intrinsic %q: %w", src, err)
			}
			c.args[i].path = p
			continue
		}
		v, err := decodeValue([]byte(a))
		n, isNum := v.(json.Number)
		if err != nil || !isNum {
			return nil, fmt.Errorf("intrinsic %q: argument %q is not supported by the local interpreter (it takes a path or a number)", src, a)
		}
		c.args[i].lit = n
	}
	return c, nil
}

// eval partitions the array into chunks of the given size, the last one shorter if need be.
func (c *intrinsic) eval(input any) (any, error) {
	var args [2]any
	for i, a := range c.args {
		if a.path == nil {
			args[i] = a.lit
			continue
		}
		v, ok := a.path.eval(input, nil)
		if !ok {
			return nil, c.fail("argument %d: path %s does not exist in the input", i+1, a.path.src)
		}
		args[i] = v
	}
	items, ok := args[0].([]any)
	if !ok {
		return nil, c.fail("expected an array, got a %s", typeName(args[0]))
	}
	size, err := c.integer(args[1])
	if err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, c.fail("chunk size %d must be positive", size)
	}
	out := []any{}
	for i := 0; i < len(items); i += size {
		out = append(out, append([]any{}, items[i:min(i+size, len(items))]...))
	}
	return out, nil
}

func (c *intrinsic) fail(format string, args ...any) *Failure {
	return fail(ErrIntrinsicFailure, "%s: %s", c.src, fmt.Sprintf(format, args...))
}

func (c *intrinsic) integer(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, c.fail("expected an integer, got a %s", typeName(v))
	}
	i, err := strconv.Atoi(n.String())
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != float64(int(f)) {
			return 0, c.fail("expected an integer, got %s", n)
		}
		i = int(f)
	}
	return i, nil
}
