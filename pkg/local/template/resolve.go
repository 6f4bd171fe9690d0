package template

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ResolveString evaluates a template value (a literal or intrinsics in long form, as
// Function.Environment holds them) to the string it has on the local stack.
func (t *Template) ResolveString(v any) (string, error) {
	r, err := t.eval(v)
	if err != nil {
		return "", err
	}
	switch x := r.(type) {
	case string:
		return x, nil
	case json.Number, bool:
		return fmt.Sprint(x), nil
	}
	return "", fmt.Errorf("%s is not a string", describe(v))
}

// resolveTree evaluates every intrinsic inside a structure (an event pattern, an inline
// definition), leaving the rest as it is.
func (t *Template) resolveTree(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if isIntrinsic(x) {
			return t.eval(x)
		}
		out := make(map[string]any, len(x))
		for k, c := range x {
			r, err := t.resolveTree(c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			r, err := t.resolveTree(c)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

func isIntrinsic(m map[string]any) bool {
	if len(m) != 1 {
		return false
	}
	for k := range m {
		return k == "Ref" || k == "Condition" || strings.HasPrefix(k, "Fn::")
	}
	return false
}

func describe(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// supported are the intrinsic functions the local stack resolves.
var supported = []string{"Ref", "Fn::GetAtt", "Fn::Sub"}

// checkIntrinsics refuses every other intrinsic function anywhere in the template, naming it
// and the path where it is, so a template that starts to use one fails to load.
func checkIntrinsics(v any, where string) error {
	switch x := v.(type) {
	case map[string]any:
		if isIntrinsic(x) {
			for fn := range x {
				if !slices.Contains(supported, fn) {
					return fmt.Errorf("%s: %s is not supported by the local stack (it resolves %s)", where, fn, strings.Join(supported, ", "))
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			at := k
			if where != "" {
				at = where + "." + k
			}
			if err := checkIntrinsics(x[k], at); err != nil {
				return err
			}
		}
	case []any:
		for i, c := range x {
			if err := checkIntrinsics(c, fmt.Sprintf("%s[%d]", where, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// eval evaluates one value: literals stay as they are, intrinsics are computed.
func (t *Template) eval(v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok || !isIntrinsic(m) {
		return v, nil
	}
	for fn, arg := range m {
		switch fn {
		case "Ref":
			return t.ref(str(arg))
		case "Fn::GetAtt":
			parts := asList(arg)
			if len(parts) != 2 {
				return nil, fmt.Errorf("Fn::GetAtt %s: want [resource, attribute]", describe(arg))
			}
			return t.getAtt(str(parts[0]), str(parts[1]))
		case "Fn::Sub":
			return t.sub(arg)
		}
		return nil, fmt.Errorf("%s is not supported by the local stack (it resolves %s)", fn, strings.Join(supported, ", "))
	}
	return nil, nil
}

// ref resolves Ref: a parameter (its override or default), a pseudo parameter, or a resource
// (what Ref returns for its type, locally).
func (t *Template) ref(name string) (any, error) {
	if p, ok := t.Parameters[name]; ok {
		if v, ok := t.overrides[name]; ok {
			return v, nil
		}
		if !p.HasDefault {
			return nil, fmt.Errorf("parameter %s has no default and no override", name)
		}
		return p.Default, nil
	}
	switch name {
	case "AWS::Region":
		return Region, nil
	case "AWS::AccountId":
		return AccountID, nil
	case "AWS::Partition":
		return "aws", nil
	case "AWS::StackName":
		return "local", nil
	case "AWS::URLSuffix":
		return "amazonaws.com", nil
	}
	r, ok := t.resources[name]
	if !ok {
		return nil, fmt.Errorf("intrinsic Ref %s: no parameter or resource of that name", name)
	}
	switch r.Type {
	case "AWS::Serverless::StateMachine":
		return StateMachineARN(name), nil
	case "AWS::SNS::Topic":
		return t.arn(name, "Arn")
	case "AWS::DynamoDB::Table":
		return t.nameOr(r.Properties["TableName"], name), nil
	}
	return name, nil
}

// getAtt resolves Fn::GetAtt to a deterministic local value.
func (t *Template) getAtt(id, attr string) (any, error) {
	if _, ok := t.resources[id]; !ok {
		return nil, fmt.Errorf("Fn::GetAtt %s.%s: no resource %s", id, attr, id)
	}
	return t.arn(id, attr)
}

func (t *Template) arn(id, attr string) (any, error) {
	r := t.resources[id]
	switch r.Type {
	case "AWS::Serverless::Function":
		if attr == "Arn" {
			return FunctionARN(id), nil
		}
	case "AWS::Serverless::StateMachine":
		switch attr {
		case "Arn":
			return StateMachineARN(id), nil
		case "Name":
			return id, nil
		}
	case "AWS::SNS::Topic":
		name := t.nameOr(r.Properties["TopicName"], id)
		switch attr {
		case "Arn", "TopicArn":
			return "arn:aws:sns:" + Region + ":" + AccountID + ":" + name, nil
		case "TopicName":
			return name, nil
		}
	case "AWS::DynamoDB::Table":
		if attr == "Arn" {
			return "arn:aws:dynamodb:" + Region + ":" + AccountID + ":table/" + t.nameOr(r.Properties["TableName"], id), nil
		}
	}
	if attr == "Arn" {
		return "arn:aws:local:" + Region + ":" + AccountID + ":" + strings.ReplaceAll(r.Type, "::", "-") + "/" + id, nil
	}
	return nil, fmt.Errorf("Fn::GetAtt %s.%s: attribute %s of a %s has no local value", id, attr, attr, r.Type)
}

// sub implements Fn::Sub: ${Name} and ${Resource.Attribute} from the variable map, parameters,
// pseudo parameters and resources; ${!Literal} writes ${Literal}.
func (t *Template) sub(arg any) (any, error) {
	text, vars := str(arg), map[string]any{}
	if l := asList(arg); l != nil {
		if len(l) != 2 {
			return nil, fmt.Errorf("Fn::Sub %s: want a string or [string, variables]", describe(arg))
		}
		text, vars = str(l[0]), asMap(l[1])
	}
	var b strings.Builder
	rest := text
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		end := strings.IndexByte(rest[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("Fn::Sub %q: unclosed ${", text)
		}
		b.WriteString(rest[:i])
		name := rest[i+2 : i+end]
		rest = rest[i+end+1:]
		if strings.HasPrefix(name, "!") {
			b.WriteString("${" + name[1:] + "}")
			continue
		}
		var v any
		var err error
		if val, ok := vars[name]; ok {
			v, err = t.eval(val)
		} else if id, attr, dotted := strings.Cut(name, "."); dotted {
			v, err = t.getAtt(id, attr)
		} else {
			v, err = t.ref(name)
		}
		if err != nil {
			return nil, fmt.Errorf("Fn::Sub %q: ${%s}: %w", text, name, err)
		}
		b.WriteString(scalarString(v))
	}
	return b.String(), nil
}
