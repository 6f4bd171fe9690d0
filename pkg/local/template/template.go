// Package template reads a SAM template.yaml for the local stack: the parameters, functions,
// state machines, their EventBridge rules, schedules and HttpApi routes, with the intrinsics
// Ref, Fn::GetAtt and Fn::Sub (short or long form) resolved to deterministic local values, and
// state machine definitions loaded with their substitutions.
//
// It reads what our template uses and refuses the rest when the template is parsed, naming the
// construct and where it is: any other intrinsic function, Conditions, Mappings, a resource
// type or event type the local stack has no stand-in for, an inline state machine Definition
// and an HttpApi DefinitionBody. A template that starts to use one fails loudly on the local
// stack instead of running differently there.
package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Local identity used in every ARN the template resolves to.
const (
	Region    = "local"
	AccountID = "000000000000"
)

// FunctionARN is the local ARN of a function: what !GetAtt Fn.Arn resolves to.
func FunctionARN(logicalID string) string {
	return "arn:aws:lambda:" + Region + ":" + AccountID + ":function:" + logicalID
}

// FunctionFromARN returns the logical id in a local function ARN (a trailing :qualifier is
// ignored), the inverse of FunctionARN.
func FunctionFromARN(arn string) (string, bool) {
	prefix := "arn:aws:lambda:" + Region + ":" + AccountID + ":function:"
	if !strings.HasPrefix(arn, prefix) {
		return "", false
	}
	id, _, _ := strings.Cut(arn[len(prefix):], ":")
	return id, id != ""
}

// StateMachineARN is the local ARN of a state machine: what !Ref and !GetAtt .Arn resolve to.
func StateMachineARN(logicalID string) string {
	return "arn:aws:states:" + Region + ":" + AccountID + ":stateMachine:" + logicalID
}

// resourceTypes are the resource types the local stack knows: it runs the functions and state
// machines and stands in for the rest (the caller's store for the table, a log for the topic,
// an in-process bus, a local HTTP server for the API, the process log for log groups).
var resourceTypes = []string{
	"AWS::Serverless::Function", "AWS::Serverless::StateMachine", "AWS::Serverless::HttpApi",
	"AWS::DynamoDB::Table", "AWS::SNS::Topic", "AWS::Events::EventBus", "AWS::Logs::LogGroup",
}

// eventTypes are the event source types the local stack wires.
var eventTypes = []string{"HttpApi", "EventBridgeRule", "Schedule"}

// Template is what the local stack needs from template.yaml.
type Template struct {
	// Path is the template file; DefinitionUri is relative to its directory.
	Path          string
	Parameters    map[string]Parameter
	Functions     map[string]*Function
	StateMachines map[string]*StateMachine
	Routes        []Route

	resources map[string]resource
	overrides map[string]string
}

// Parameter is a template parameter.
type Parameter struct {
	Type       string
	Default    string
	HasDefault bool
}

// Function is an AWS::Serverless::Function.
type Function struct {
	LogicalID     string
	PackageType   string   // Zip or Image
	Handler       string   // Zip functions
	CodeURI       string   // Zip functions: the directory sam build packages
	Command       []string // Image functions: ImageConfig.Command
	Runtime       string
	Architectures []string
	// MemorySize is the memory in MB Lambda gives the function, and bills its time at; SAM's
	// default (128) when neither the function nor Globals sets it.
	MemorySize int
	// Timeout is the seconds Lambda lets one invocation run; SAM's default (3) when neither the
	// function nor Globals sets it.
	Timeout int
	// Environment is Environment.Variables as written (intrinsics in long form); resolve a
	// value with Template.ResolveString.
	Environment map[string]any
	Events      []Event
}

// ARN is the function's local ARN.
func (f *Function) ARN() string { return FunctionARN(f.LogicalID) }

// Event is an event source of a function or state machine.
type Event struct {
	Name     string
	Type     string          // HttpApi, EventBridgeRule or Schedule
	Path     string          // HttpApi
	Method   string          // HttpApi (upper case; ANY for any)
	API      string          // HttpApi: the logical id of the API, if ApiId names one
	Pattern  json.RawMessage // EventBridgeRule
	Schedule string          // Schedule: the rate() expression
}

// StateMachine is an AWS::Serverless::StateMachine.
type StateMachine struct {
	LogicalID     string
	DefinitionURI string
	// Substitutions are DefinitionSubstitutions resolved to local values.
	Substitutions map[string]string
	Events        []Event
}

// ARN is the state machine's local ARN.
func (s *StateMachine) ARN() string { return StateMachineARN(s.LogicalID) }

// Route is an HttpApi route served by a function.
type Route struct {
	Method   string // upper case; ANY for any
	Path     string // /tests/{id}, /{proxy+}
	Function string // logical id
	API      string // logical id of the API, empty for the implicit one
}

type resource struct {
	Type       string
	Properties map[string]any
}

// Load reads and parses the template at path. overrides replace parameter defaults, as
// sam deploy --parameter-overrides does.
func Load(path string, overrides map[string]string) (*Template, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	t, err := Parse(data, overrides)
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", path, err)
	}
	t.Path = path
	return t, nil
}

// Parse parses a template; DefinitionUri paths are then relative to the working directory
// unless Path is set.
func Parse(data []byte, overrides map[string]string) (*Template, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	v, err := toValue(&doc)
	if err != nil {
		return nil, err
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the template is not a mapping")
	}
	for _, section := range []string{"Conditions", "Mappings"} {
		if top[section] != nil {
			return nil, fmt.Errorf("%s are not supported by the local stack", section)
		}
	}
	if err := checkIntrinsics(top, ""); err != nil {
		return nil, err
	}
	t := &Template{
		Parameters: map[string]Parameter{}, Functions: map[string]*Function{},
		StateMachines: map[string]*StateMachine{},
		resources:     map[string]resource{}, overrides: overrides,
	}
	for name, p := range asMap(top["Parameters"]) {
		pm := asMap(p)
		param := Parameter{Type: str(pm["Type"])}
		if d, ok := pm["Default"]; ok {
			param.Default, param.HasDefault = scalarString(d), true
		}
		t.Parameters[name] = param
	}
	for name := range overrides {
		if _, ok := t.Parameters[name]; !ok {
			return nil, fmt.Errorf("parameter override %s: the template has no such parameter", name)
		}
	}
	resources := asMap(top["Resources"])
	if len(resources) == 0 {
		return nil, fmt.Errorf("no Resources")
	}
	for id, r := range resources {
		rm := asMap(r)
		t.resources[id] = resource{Type: str(rm["Type"]), Properties: asMap(rm["Properties"])}
	}
	globals := asMap(asMap(top["Globals"])["Function"])
	for _, id := range slices.Sorted(maps.Keys(t.resources)) {
		r := t.resources[id]
		var err error
		switch {
		case !slices.Contains(resourceTypes, r.Type):
			err = fmt.Errorf("the resource type is not supported by the local stack (it knows %s)", strings.Join(resourceTypes, ", "))
		case asMap(resources[id])["Condition"] != nil:
			err = errors.New("its Condition is not supported by the local stack")
		case r.Type == "AWS::Serverless::Function":
			err = t.addFunction(id, r.Properties, globals)
		case r.Type == "AWS::Serverless::StateMachine":
			err = t.addStateMachine(id, r.Properties)
		case r.Type == "AWS::Serverless::HttpApi" && r.Properties["DefinitionBody"] != nil:
			err = fmt.Errorf("DefinitionBody is not supported by the local stack: declare the routes as HttpApi events of the functions")
		}
		if err != nil {
			return nil, fmt.Errorf("resource %s (%s): %w", id, r.Type, err)
		}
	}
	sort.Slice(t.Routes, func(i, j int) bool {
		a, b := t.Routes[i], t.Routes[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Method < b.Method
	})
	return t, nil
}

func (t *Template) addFunction(id string, p, globals map[string]any) error {
	// SAM merges Globals into each function: lists add up, scalars are overridden.
	get := func(k string) any {
		v, ok := p[k]
		if !ok {
			return globals[k]
		}
		if gl, isList := globals[k].([]any); isList {
			if fl, isList := v.([]any); isList {
				return append(append([]any{}, gl...), fl...)
			}
		}
		return v
	}
	f := &Function{
		LogicalID:   id,
		PackageType: str(get("PackageType")),
		Handler:     str(get("Handler")),
		CodeURI:     str(get("CodeUri")),
		Runtime:     str(get("Runtime")),
		Environment: map[string]any{},
	}
	if f.PackageType == "" {
		f.PackageType = "Zip"
	}
	f.MemorySize = 128
	if v := scalarString(get("MemorySize")); v != "" {
		mb, err := strconv.Atoi(v)
		if err != nil || mb < 128 || mb > 10240 {
			return fmt.Errorf("function %s: MemorySize %q is not a whole number of MB from 128 to 10240", id, v)
		}
		f.MemorySize = mb
	}
	f.Timeout = 3
	if v := scalarString(get("Timeout")); v != "" {
		secs, err := strconv.Atoi(v)
		if err != nil || secs < 1 || secs > 900 {
			return fmt.Errorf("function %s: Timeout %q is not a whole number of seconds from 1 to 900", id, v)
		}
		f.Timeout = secs
	}
	for _, a := range asList(get("Architectures")) {
		f.Architectures = append(f.Architectures, str(a))
	}
	for _, c := range asList(asMap(get("ImageConfig"))["Command"]) {
		f.Command = append(f.Command, str(c))
	}
	// Function variables override the global ones, key by key, as SAM merges them.
	maps.Copy(f.Environment, asMap(asMap(globals["Environment"])["Variables"]))
	maps.Copy(f.Environment, asMap(asMap(p["Environment"])["Variables"]))
	events, err := t.events(p["Events"])
	if err != nil {
		return err
	}
	f.Events = events
	for _, e := range events {
		if e.Type == "HttpApi" {
			t.Routes = append(t.Routes, Route{Method: e.Method, Path: e.Path, Function: id, API: e.API})
		}
	}
	t.Functions[id] = f
	return nil
}

func (t *Template) events(v any) ([]Event, error) {
	m := asMap(v)
	var out []Event
	for _, name := range slices.Sorted(maps.Keys(m)) {
		em := asMap(m[name])
		props := asMap(em["Properties"])
		e := Event{Name: name, Type: str(em["Type"])}
		switch e.Type {
		case "HttpApi":
			e.Path, e.Method = str(props["Path"]), strings.ToUpper(str(props["Method"]))
			if e.Path == "" {
				e.Path = "$default"
			}
			if e.Method == "" {
				e.Method = "ANY"
			}
			if ref, ok := asMap(props["ApiId"])["Ref"].(string); ok {
				e.API = ref
			}
		case "EventBridgeRule":
			pattern, ok := props["Pattern"].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("event %s: Pattern must be a mapping", name)
			}
			resolved, err := t.resolveTree(pattern)
			if err != nil {
				return nil, fmt.Errorf("event %s: Pattern: %w", name, err)
			}
			if e.Pattern, err = marshal(resolved); err != nil {
				return nil, fmt.Errorf("event %s: Pattern: %w", name, err)
			}
		case "Schedule":
			s, err := t.ResolveString(props["Schedule"])
			if err != nil {
				return nil, fmt.Errorf("event %s: Schedule: %w", name, err)
			}
			e.Schedule = s
		default:
			return nil, fmt.Errorf("event %s: type %s is not supported by the local stack (it wires %s)", name, e.Type, strings.Join(eventTypes, ", "))
		}
		out = append(out, e)
	}
	return out, nil
}

// marshal encodes JSON without escaping <, > and &, which patterns and definitions use as is.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func (t *Template) addStateMachine(id string, p map[string]any) error {
	sm := &StateMachine{LogicalID: id, Substitutions: map[string]string{}}
	switch uri := p["DefinitionUri"].(type) {
	case string:
		sm.DefinitionURI = uri
	case nil:
		if p["Definition"] != nil {
			return fmt.Errorf("an inline Definition is not supported by the local stack: use DefinitionUri")
		}
		return fmt.Errorf("DefinitionUri is not set")
	default:
		return fmt.Errorf("DefinitionUri must be a path relative to the template (an S3 location cannot be read locally)")
	}
	subs := asMap(p["DefinitionSubstitutions"])
	for _, k := range slices.Sorted(maps.Keys(subs)) {
		s, err := t.ResolveString(subs[k])
		if err != nil {
			return fmt.Errorf("DefinitionSubstitutions %s: %w", k, err)
		}
		sm.Substitutions[k] = s
	}
	events, err := t.events(p["Events"])
	if err != nil {
		return err
	}
	sm.Events = events
	t.StateMachines[id] = sm
	return nil
}

// nameOr resolves an explicit resource name, falling back to the logical id.
func (t *Template) nameOr(v any, id string) string {
	if v == nil {
		return id
	}
	if s, err := t.ResolveString(v); err == nil && s != "" {
		return s
	}
	return id
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// Definition returns the state machine's definition with every ${Placeholder} substituted. A
// placeholder with no substitution and a substitution no placeholder uses are both errors,
// reported together.
func (t *Template) Definition(logicalID string) ([]byte, error) {
	sm, ok := t.StateMachines[logicalID]
	if !ok {
		return nil, fmt.Errorf("no state machine %s in the template", logicalID)
	}
	path := sm.DefinitionURI
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(t.Path), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("state machine %s: DefinitionUri: %w", logicalID, err)
	}
	used := map[string]bool{}
	var problems []string
	var b strings.Builder
	rest := string(data)
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		end := strings.IndexByte(rest[i:], '}')
		if end < 0 {
			b.WriteString(rest)
			break
		}
		name := rest[i+2 : i+end]
		b.WriteString(rest[:i])
		rest = rest[i+end+1:]
		used[name] = true
		if v, ok := sm.Substitutions[name]; ok {
			// The value lands inside a JSON string: escape it as one.
			enc, _ := json.Marshal(v)
			b.WriteString(string(enc[1 : len(enc)-1]))
			continue
		}
		problems = append(problems, fmt.Sprintf("placeholder ${%s} has no DefinitionSubstitutions entry", name))
		b.WriteString("${" + name + "}")
	}
	for _, k := range slices.Sorted(maps.Keys(sm.Substitutions)) {
		if !used[k] {
			problems = append(problems, fmt.Sprintf("DefinitionSubstitutions %s is used by no placeholder", k))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("state machine %s (%s):\n  %s", logicalID, sm.DefinitionURI, strings.Join(slices.Compact(problems), "\n  "))
	}
	return []byte(b.String()), nil
}
