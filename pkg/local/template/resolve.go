package template

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
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

// eval evaluates one value: literals stay as they are, intrinsics are computed.
func (t *Template) eval(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			r, err := t.eval(c)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		if !isIntrinsic(x) {
			return x, nil
		}
	default:
		return v, nil
	}
	m := v.(map[string]any)
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
		case "Fn::Join":
			l := asList(arg)
			if len(l) != 2 {
				return nil, fmt.Errorf("Fn::Join %s: want [delimiter, list]", describe(arg))
			}
			items, err := t.list(l[1])
			if err != nil {
				return nil, err
			}
			var parts []string
			for _, it := range items {
				s, err := t.ResolveString(it)
				if err != nil {
					return nil, err
				}
				parts = append(parts, s)
			}
			return strings.Join(parts, str(l[0])), nil
		case "Fn::Select":
			l := asList(arg)
			if len(l) != 2 {
				return nil, fmt.Errorf("Fn::Select %s: want [index, list]", describe(arg))
			}
			idx, err := t.ResolveString(l[0])
			if err != nil {
				return nil, err
			}
			i, err := strconv.Atoi(idx)
			items, lerr := t.list(l[1])
			if lerr != nil {
				return nil, lerr
			}
			if err != nil || i < 0 || i >= len(items) {
				return nil, fmt.Errorf("Fn::Select index %s outside a list of %d", idx, len(items))
			}
			return t.eval(items[i])
		case "Fn::Split":
			l := asList(arg)
			if len(l) != 2 {
				return nil, fmt.Errorf("Fn::Split %s: want [delimiter, string]", describe(arg))
			}
			s, err := t.ResolveString(l[1])
			if err != nil {
				return nil, err
			}
			var out []any
			for _, p := range strings.Split(s, str(l[0])) {
				out = append(out, p)
			}
			return out, nil
		case "Fn::If":
			l := asList(arg)
			if len(l) != 3 {
				return nil, fmt.Errorf("Fn::If %s: want [condition, then, else]", describe(arg))
			}
			ok, err := t.condition(str(l[0]))
			if err != nil {
				return nil, err
			}
			if ok {
				return t.eval(l[1])
			}
			return t.eval(l[2])
		case "Fn::Equals", "Fn::And", "Fn::Or", "Fn::Not", "Condition":
			return t.boolean(m)
		case "Fn::FindInMap":
			l := asList(arg)
			if len(l) != 3 {
				return nil, fmt.Errorf("Fn::FindInMap %s: want [map, key, key]", describe(arg))
			}
			var keys [3]string
			for i := range keys {
				s, err := t.ResolveString(l[i])
				if err != nil {
					return nil, err
				}
				keys[i] = s
			}
			v, ok := asMap(asMap(t.mappings[keys[0]])[keys[1]])[keys[2]]
			if !ok {
				return nil, fmt.Errorf("Fn::FindInMap %v: no such entry in Mappings", keys)
			}
			return t.eval(v)
		case "Fn::Base64":
			s, err := t.ResolveString(arg)
			if err != nil {
				return nil, err
			}
			return base64.StdEncoding.EncodeToString([]byte(s)), nil
		}
		return nil, fmt.Errorf("%s cannot be resolved on the local stack", fn)
	}
	return nil, nil
}

func (t *Template) list(v any) ([]any, error) {
	r, err := t.eval(v)
	if err != nil {
		return nil, err
	}
	l, ok := r.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a list", describe(v))
	}
	return l, nil
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
	case "AWS::StackName", "AWS::StackId":
		return "local", nil
	case "AWS::URLSuffix":
		return "amazonaws.com", nil
	case "AWS::NoValue":
		return nil, nil
	}
	r, ok := t.resources[name]
	if !ok {
		return nil, fmt.Errorf("intrinsic Ref %s: no parameter or resource of that name", name)
	}
	switch r.Type {
	case "AWS::Serverless::StateMachine", "AWS::StepFunctions::StateMachine":
		return StateMachineARN(name), nil
	case "AWS::SNS::Topic":
		return t.arn(name, "Arn")
	case "AWS::DynamoDB::Table", "AWS::Serverless::SimpleTable":
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
	case "AWS::Serverless::Function", "AWS::Lambda::Function":
		if attr == "Arn" {
			return FunctionARN(id), nil
		}
	case "AWS::Serverless::StateMachine", "AWS::StepFunctions::StateMachine":
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
	case "AWS::DynamoDB::Table", "AWS::Serverless::SimpleTable":
		name := t.nameOr(r.Properties["TableName"], id)
		switch attr {
		case "Arn":
			return "arn:aws:dynamodb:" + Region + ":" + AccountID + ":table/" + name, nil
		case "StreamArn":
			return "arn:aws:dynamodb:" + Region + ":" + AccountID + ":table/" + name + "/stream/local", nil
		}
	case "AWS::Events::Rule":
		if attr == "Arn" {
			return "arn:aws:events:" + Region + ":" + AccountID + ":rule/" + id, nil
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

// subRefs lists the ${…} references of a Fn::Sub string.
func subRefs(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return out
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return out
		}
		if name := s[i+2 : i+end]; !strings.HasPrefix(name, "!") {
			out = append(out, name)
		}
		s = s[i+end+1:]
	}
}

func (t *Template) condition(name string) (bool, error) {
	c, ok := t.conditions[name]
	if !ok {
		return false, fmt.Errorf("condition %s is not defined", name)
	}
	if t.evaluating[name] {
		return false, fmt.Errorf("condition %s depends on itself", name)
	}
	if t.evaluating == nil {
		t.evaluating = map[string]bool{}
	}
	t.evaluating[name] = true
	defer delete(t.evaluating, name)
	return t.boolean(c)
}

func (t *Template) boolean(v any) (bool, error) {
	m := asMap(v)
	for fn, arg := range m {
		switch fn {
		case "Condition":
			return t.condition(str(arg))
		case "Fn::Equals":
			l := asList(arg)
			if len(l) != 2 {
				return false, fmt.Errorf("Fn::Equals %s: want two values", describe(arg))
			}
			a, err := t.ResolveString(l[0])
			if err != nil {
				return false, err
			}
			b, err := t.ResolveString(l[1])
			if err != nil {
				return false, err
			}
			return a == b, nil
		case "Fn::Not":
			l := asList(arg)
			if len(l) != 1 {
				return false, fmt.Errorf("Fn::Not %s: want one condition", describe(arg))
			}
			b, err := t.boolean(l[0])
			return !b, err
		case "Fn::And", "Fn::Or":
			for _, c := range asList(arg) {
				b, err := t.boolean(c)
				if err != nil {
					return false, err
				}
				if fn == "Fn::And" && !b {
					return false, nil
				}
				if fn == "Fn::Or" && b {
					return true, nil
				}
			}
			return fn == "Fn::And", nil
		}
	}
	return false, fmt.Errorf("%s is not a condition", describe(v))
}
