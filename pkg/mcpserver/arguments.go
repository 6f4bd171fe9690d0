package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK validates a tool's arguments against its input schema before the handler runs and
// answers a mismatch in its validator's words, which name Go's reflection rather than the
// argument ("validating /properties/proposalId: type: <invalid reflect.Value> has type "null",
// want "string""). An agent reads the error to correct its call, so each tool's arguments are
// checked first, against the same schema, and a mismatch is answered as the handlers answer
// their own input errors: the argument, what it wants and what it is for.

// addTool adds a tool whose input schema is derived from In, as mcp.AddTool would derive it, and
// keeps that schema in schemas under the tool's name for checkArguments.
func addTool[In, Out any](s *mcp.Server, schemas map[string]*jsonschema.Schema, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		// In is one of this package's input types: a schema it cannot give is a programming error.
		panic(fmt.Sprintf("mcpserver: the input schema of %s: %v", t.Name, err))
	}
	t.InputSchema = schema
	schemas[t.Name] = schema
	mcp.AddTool(s, t, h)
}

// checkingArguments answers a tools/call whose arguments do not fit the tool's schema with a
// tool error naming the argument, before the SDK's validation can answer in its own words.
func checkingArguments(schemas map[string]*jsonschema.Schema) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
				if schema, ok := schemas[call.Params.Name]; ok {
					if err := checkArguments(call.Params.Name, schema, call.Params.Arguments); err != nil {
						res := &mcp.CallToolResult{}
						res.SetError(err)
						return res, nil
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// checkArguments checks a tool's raw arguments against its input schema: an object, each
// property one the tool takes and of the type it wants, every required one given. The first
// mismatch is an *InputError naming the argument. No arguments, or null, is an empty object (as
// the SDK reads it): the handler says which argument is missing.
func checkArguments(tool string, schema *jsonschema.Schema, raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return &InputError{Field: "arguments", Reason: fmt.Sprintf("want a JSON object of %s's arguments (%s): %v", tool, argumentNames(schema), err)}
	}
	if v == nil {
		return nil
	}
	args, ok := v.(map[string]any)
	if !ok {
		return &InputError{Field: "arguments", Reason: fmt.Sprintf("want an object of %s's arguments (%s), not %s", tool, argumentNames(schema), kindOf(v))}
	}
	names := make([]string, 0, len(args))
	for name := range args {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		prop, ok := schema.Properties[name]
		if !ok {
			return &InputError{Field: name, Reason: fmt.Sprintf("%s takes no argument %q; it takes %s", tool, name, argumentNames(schema))}
		}
		if err := checkValue(name, prop, args[name]); err != nil {
			return err
		}
	}
	for _, name := range schema.Required {
		if _, ok := args[name]; !ok {
			return &InputError{Field: name, Reason: "missing: want " + wanted(schema.Properties[name]) + about(schema.Properties[name])}
		}
	}
	return nil
}

// checkValue checks one value against its property's schema; path names it ("rungs[1]").
func checkValue(path string, s *jsonschema.Schema, v any) error {
	if s == nil {
		return nil
	}
	if !slices.ContainsFunc(typesOf(s), func(t string) bool { return isType(t, v) }) {
		return &InputError{Field: path, Reason: fmt.Sprintf("want %s, not %s%s", wanted(s), kindOf(v), about(s))}
	}
	if list, ok := v.([]any); ok && s.Items != nil {
		for i, item := range list {
			if err := checkValue(fmt.Sprintf("%s[%d]", path, i), s.Items, item); err != nil {
				return err
			}
		}
	}
	return nil
}

// typesOf is the JSON types a schema allows; none is any.
func typesOf(s *jsonschema.Schema) []string {
	switch {
	case s.Type != "":
		return []string{s.Type}
	case len(s.Types) > 0:
		return s.Types
	}
	return []string{"null", "boolean", "object", "array", "number", "string"}
}

func isType(t string, v any) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	}
	return false
}

// wanted says in words what a schema wants; null, which an optional list allows, goes unsaid:
// leaving the argument out says the same.
func wanted(s *jsonschema.Schema) string {
	if s == nil {
		return "a value"
	}
	var out []string
	for _, t := range typesOf(s) {
		switch t {
		case "null":
		case "boolean":
			out = append(out, "true or false")
		case "string":
			out = append(out, "a string")
		case "object":
			out = append(out, "an object")
		case "number":
			out = append(out, "a number")
		case "integer":
			out = append(out, "a whole number")
		case "array":
			if s.Items != nil && len(typesOf(s.Items)) == 1 {
				out = append(out, "a list of "+strings.TrimPrefix(strings.TrimPrefix(wanted(s.Items), "a "), "an ")+"s")
			} else {
				out = append(out, "a list")
			}
		}
	}
	if len(out) == 0 {
		return "null"
	}
	return strings.Join(out, " or ")
}

// about is what an argument is for, as its schema describes it, in brackets.
func about(s *jsonschema.Schema) string {
	if s == nil || s.Description == "" {
		return ""
	}
	return " (" + s.Description + ")"
}

// kindOf names the JSON type of a decoded value.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprint(v)
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// argumentNames lists a tool's arguments in their declared order.
func argumentNames(s *jsonschema.Schema) string {
	names := slices.Clone(s.PropertyOrder)
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(names, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	names = append(names, rest...)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
