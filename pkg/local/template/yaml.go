package template

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// toValue turns a YAML node into the JSON form of a CloudFormation value: short-form tags
// become their long form (!Ref x → {"Ref": "x"}, !GetAtt a.b → {"Fn::GetAtt": ["a", "b"]},
// !Sub … → {"Fn::Sub": …}), numbers become json.Number, and every other value keeps its type.
func toValue(n *yaml.Node) (any, error) {
	c := &converter{open: map[*yaml.Node]bool{}, budget: maxNodes}
	return c.value(n)
}

// maxNodes bounds the nodes a template may expand to, so aliases of aliases cannot multiply a
// small file into an enormous one.
const maxNodes = 1_000_000

type converter struct {
	open   map[*yaml.Node]bool // nodes being converted: an alias to one of them is a cycle
	budget int
}

func (c *converter) value(n *yaml.Node) (any, error) {
	if c.budget--; c.budget < 0 {
		return nil, fmt.Errorf("the template expands to more than %d nodes (aliases?)", maxNodes)
	}
	if c.open[n] {
		return nil, fmt.Errorf("line %d: an alias refers to a node that contains it", n.Line)
	}
	c.open[n] = true
	defer delete(c.open, n)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0])
	case yaml.AliasNode:
		return c.value(n.Alias)
	}
	if fn, ok := shortForm(n.Tag); ok {
		inner := *n
		inner.Tag = ""
		inner.Style &^= yaml.TaggedStyle
		v, err := c.plain(&inner)
		if err != nil {
			return nil, err
		}
		if fn == "Fn::GetAtt" {
			if s, ok := v.(string); ok {
				id, attr, found := strings.Cut(s, ".")
				if !found {
					return nil, fmt.Errorf("line %d: !GetAtt %q needs Resource.Attribute", n.Line, s)
				}
				v = []any{id, attr}
			}
		}
		return map[string]any{fn: v}, nil
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return nil, fmt.Errorf("line %d: unknown tag %s", n.Line, n.Tag)
	}
	return c.plain(n)
}

// shortForm maps a short-form intrinsic tag to its long name.
func shortForm(tag string) (string, bool) {
	switch tag {
	case "!Ref":
		return "Ref", true
	case "!Condition":
		return "Condition", true
	case "!Base64", "!Cidr", "!Equals", "!FindInMap", "!GetAtt", "!GetAZs", "!If", "!ImportValue",
		"!Join", "!Not", "!And", "!Or", "!Select", "!Split", "!Sub", "!Transform", "!Length", "!ToJsonString":
		return "Fn::" + tag[1:], true
	}
	return "", false
}

func (c *converter) plain(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a mapping key must be a scalar", k.Line)
			}
			v, err := c.value(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := c.value(item)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			return b, nil
		case "!!int":
			i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
			if err != nil {
				return n.Value, nil
			}
			return json.Number(strconv.FormatInt(i, 10)), nil
		case "!!float":
			f, err := strconv.ParseFloat(n.Value, 64)
			if err != nil {
				return n.Value, nil
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		}
		return n.Value, nil
	case yaml.AliasNode:
		return c.value(n.Alias)
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}
