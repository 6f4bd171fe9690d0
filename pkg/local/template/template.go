// Package template reads a SAM template.yaml for the local stack: the parameters, functions,
// state machines, EventBridge rules and schedules, SNS topics, DynamoDB tables and HttpApi
// routes, with CloudFormation intrinsics (short or long form) resolved to deterministic local
// values where they can be, and state machine definitions loaded with their substitutions.
package template

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
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

// Template is what the local stack needs from template.yaml.
type Template struct {
	// Path is the template file; DefinitionUri is relative to its directory.
	Path          string
	Parameters    map[string]Parameter
	Functions     map[string]*Function
	StateMachines map[string]*StateMachine
	Rules         map[string]*Rule
	Topics        map[string]*Topic
	Tables        map[string]*Table
	Routes        []Route

	resources  map[string]resource
	conditions map[string]any
	evaluating map[string]bool // conditions being evaluated, to report a cycle
	mappings   map[string]any
	overrides  map[string]string
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
	Command       []string // Image functions: ImageConfig.Command
	Runtime       string
	Architectures []string
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
	Type     string          // HttpApi, Api, EventBridgeRule, Schedule, ScheduleV2, …
	Path     string          // HttpApi, Api
	Method   string          // HttpApi, Api (upper case; ANY for any)
	API      string          // HttpApi, Api: the logical id of the API, if ApiId/RestApiId names one
	Pattern  json.RawMessage // EventBridgeRule
	Schedule string          // Schedule, ScheduleV2: the rate() or cron() expression
}

// StateMachine is an AWS::Serverless::StateMachine.
type StateMachine struct {
	LogicalID     string
	DefinitionURI string
	// Substitutions are DefinitionSubstitutions resolved to local values.
	Substitutions map[string]string
	// Unresolved holds, for each substitution that could not be resolved locally, why.
	Unresolved map[string]string
	Events     []Event

	inline any // an inline Definition instead of DefinitionUri
}

// ARN is the state machine's local ARN.
func (s *StateMachine) ARN() string { return StateMachineARN(s.LogicalID) }

// Rule is an AWS::Events::Rule.
type Rule struct {
	LogicalID          string
	EventPattern       json.RawMessage
	ScheduleExpression string
	State              string
	// Targets are the logical ids of the resources the rule targets.
	Targets []string
}

// Topic is an AWS::SNS::Topic.
type Topic struct {
	LogicalID string
	TopicName string
}

// Table is an AWS::DynamoDB::Table (or AWS::Serverless::SimpleTable).
type Table struct {
	LogicalID string
	TableName string
	HashKey   string
	RangeKey  string
	Indexes   []Index
}

// Index is a global secondary index.
type Index struct {
	Name, HashKey, RangeKey string
}

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

// Property returns a resource property as written (intrinsics in long form), for values the
// typed fields do not carry; resolve it with ResolveString.
func (t *Template) Property(logicalID, name string) any {
	return t.resources[logicalID].Properties[name]
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
	t := &Template{
		Parameters: map[string]Parameter{}, Functions: map[string]*Function{},
		StateMachines: map[string]*StateMachine{}, Rules: map[string]*Rule{},
		Topics: map[string]*Topic{}, Tables: map[string]*Table{},
		resources: map[string]resource{}, overrides: overrides,
	}
	t.conditions, _ = top["Conditions"].(map[string]any)
	t.mappings, _ = top["Mappings"].(map[string]any)
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
	for _, id := range sortedKeys(t.resources) {
		r := t.resources[id]
		var err error
		switch r.Type {
		case "AWS::Serverless::Function":
			err = t.addFunction(id, r.Properties, globals)
		case "AWS::Serverless::StateMachine":
			err = t.addStateMachine(id, r.Properties)
		case "AWS::Events::Rule":
			err = t.addRule(id, r.Properties)
		case "AWS::SNS::Topic":
			t.Topics[id] = &Topic{LogicalID: id, TopicName: t.nameOr(r.Properties["TopicName"], id)}
		case "AWS::DynamoDB::Table", "AWS::Serverless::SimpleTable":
			t.addTable(id, r)
		case "AWS::Serverless::HttpApi":
			err = t.addAPIRoutes(id, r.Properties)
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
		Runtime:     str(get("Runtime")),
		Environment: map[string]any{},
	}
	if f.PackageType == "" {
		f.PackageType = "Zip"
	}
	for _, a := range asList(get("Architectures")) {
		f.Architectures = append(f.Architectures, str(a))
	}
	for _, c := range asList(asMap(get("ImageConfig"))["Command"]) {
		f.Command = append(f.Command, str(c))
	}
	// Function variables override the global ones, key by key, as SAM merges them.
	for k, v := range asMap(asMap(globals["Environment"])["Variables"]) {
		f.Environment[k] = v
	}
	for k, v := range asMap(asMap(p["Environment"])["Variables"]) {
		f.Environment[k] = v
	}
	events, err := t.events(p["Events"])
	if err != nil {
		return err
	}
	f.Events = events
	for _, e := range events {
		if e.Type == "HttpApi" || e.Type == "Api" {
			t.Routes = append(t.Routes, Route{Method: e.Method, Path: e.Path, Function: id, API: e.API})
		}
	}
	t.Functions[id] = f
	return nil
}

func (t *Template) events(v any) ([]Event, error) {
	m := asMap(v)
	var out []Event
	for _, name := range sortedKeys(m) {
		em := asMap(m[name])
		props := asMap(em["Properties"])
		e := Event{Name: name, Type: str(em["Type"])}
		switch e.Type {
		case "HttpApi", "Api":
			e.Path, e.Method = str(props["Path"]), strings.ToUpper(str(props["Method"]))
			if e.Path == "" {
				e.Path = "$default"
			}
			if e.Method == "" {
				e.Method = "ANY"
			}
			for _, k := range []string{"ApiId", "RestApiId"} {
				if ref, ok := asMap(props[k])["Ref"].(string); ok {
					e.API = ref
				}
			}
		case "EventBridgeRule", "CloudWatchEvent":
			raw, err := t.patternJSON(props["Pattern"])
			if err != nil {
				return nil, fmt.Errorf("event %s: %w", name, err)
			}
			e.Pattern = raw
		case "Schedule":
			s, err := t.ResolveString(props["Schedule"])
			if err != nil {
				return nil, fmt.Errorf("event %s: Schedule: %w", name, err)
			}
			e.Schedule = s
		case "ScheduleV2":
			s, err := t.ResolveString(props["ScheduleExpression"])
			if err != nil {
				return nil, fmt.Errorf("event %s: ScheduleExpression: %w", name, err)
			}
			e.Schedule = s
		}
		out = append(out, e)
	}
	return out, nil
}

// patternJSON renders an event pattern, written as YAML or as a JSON string, as JSON with
// any intrinsics in it resolved.
func (t *Template) patternJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, fmt.Errorf("the event pattern is missing")
	}
	if s, ok := v.(string); ok {
		if !json.Valid([]byte(s)) {
			return nil, fmt.Errorf("the event pattern string is not JSON")
		}
		return json.RawMessage(s), nil
	}
	resolved, err := t.resolveTree(v)
	if err != nil {
		return nil, fmt.Errorf("event pattern: %w", err)
	}
	return marshal(resolved)
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
	sm := &StateMachine{LogicalID: id, Substitutions: map[string]string{}, Unresolved: map[string]string{}}
	switch uri := p["DefinitionUri"].(type) {
	case string:
		sm.DefinitionURI = uri
	case nil:
		if p["Definition"] == nil {
			return fmt.Errorf("neither DefinitionUri nor Definition is set")
		}
		sm.inline = p["Definition"]
	default:
		return fmt.Errorf("DefinitionUri must be a path relative to the template (an S3 location cannot be read locally)")
	}
	for k, v := range asMap(p["DefinitionSubstitutions"]) {
		s, err := t.ResolveString(v)
		if err != nil {
			sm.Unresolved[k] = err.Error()
			continue
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

func (t *Template) addRule(id string, p map[string]any) error {
	r := &Rule{LogicalID: id, State: str(p["State"])}
	if p["EventPattern"] != nil {
		raw, err := t.patternJSON(p["EventPattern"])
		if err != nil {
			return err
		}
		r.EventPattern = raw
	}
	if p["ScheduleExpression"] != nil {
		s, err := t.ResolveString(p["ScheduleExpression"])
		if err != nil {
			return fmt.Errorf("ScheduleExpression: %w", err)
		}
		r.ScheduleExpression = s
	}
	if r.EventPattern == nil && r.ScheduleExpression == "" {
		return fmt.Errorf("a rule needs EventPattern or ScheduleExpression")
	}
	for i, tg := range asList(p["Targets"]) {
		target, ok := t.referencedResource(asMap(tg)["Arn"])
		if !ok {
			return fmt.Errorf("Targets[%d].Arn does not name a resource of this template (use !GetAtt X.Arn or !Ref X)", i)
		}
		r.Targets = append(r.Targets, target)
	}
	t.Rules[id] = r
	return nil
}

// referencedResource finds the resource an ARN expression points at: !Ref X, !GetAtt X.Arn,
// or a !Sub whose only reference is ${X} or ${X.Arn}.
func (t *Template) referencedResource(v any) (string, bool) {
	m := asMap(v)
	var id string
	switch {
	case m["Ref"] != nil:
		id = str(m["Ref"])
	case m["Fn::GetAtt"] != nil:
		parts := asList(m["Fn::GetAtt"])
		if len(parts) > 0 {
			id = str(parts[0])
		}
	case m["Fn::Sub"] != nil:
		s := str(m["Fn::Sub"])
		if l := asList(m["Fn::Sub"]); len(l) > 0 {
			s = str(l[0])
		}
		for _, ref := range subRefs(s) {
			name, _, _ := strings.Cut(ref, ".")
			if _, ok := t.resources[name]; ok {
				id = name
			}
		}
	}
	_, ok := t.resources[id]
	return id, ok
}

func (t *Template) addTable(id string, r resource) {
	p := r.Properties
	tb := &Table{LogicalID: id, TableName: t.nameOr(p["TableName"], id)}
	if r.Type == "AWS::Serverless::SimpleTable" {
		tb.HashKey = str(asMap(p["PrimaryKey"])["Name"])
		if tb.HashKey == "" {
			tb.HashKey = "id"
		}
		t.Tables[id] = tb
		return
	}
	tb.HashKey, tb.RangeKey = keySchema(p["KeySchema"])
	for _, g := range asList(p["GlobalSecondaryIndexes"]) {
		gm := asMap(g)
		h, rk := keySchema(gm["KeySchema"])
		tb.Indexes = append(tb.Indexes, Index{Name: str(gm["IndexName"]), HashKey: h, RangeKey: rk})
	}
	t.Tables[id] = tb
}

func keySchema(v any) (hash, rng string) {
	for _, k := range asList(v) {
		km := asMap(k)
		switch str(km["KeyType"]) {
		case "HASH":
			hash = str(km["AttributeName"])
		case "RANGE":
			rng = str(km["AttributeName"])
		}
	}
	return hash, rng
}

// addAPIRoutes reads the routes of an HttpApi's OpenAPI DefinitionBody: each operation whose
// x-amazon-apigateway-integration uri names a function of the template.
func (t *Template) addAPIRoutes(id string, p map[string]any) error {
	body := asMap(p["DefinitionBody"])
	paths := asMap(body["paths"])
	for _, path := range sortedKeys(paths) {
		ops := asMap(paths[path])
		for _, method := range sortedKeys(ops) {
			integ := asMap(asMap(ops[method])["x-amazon-apigateway-integration"])
			if integ == nil {
				continue
			}
			fn, ok := t.referencedResource(integ["uri"])
			if !ok {
				return fmt.Errorf("DefinitionBody %s %s: the integration uri names no function of this template", method, path)
			}
			m := strings.ToUpper(method)
			if m == "X-AMAZON-APIGATEWAY-ANY-METHOD" {
				m = "ANY"
			}
			t.Routes = append(t.Routes, Route{Method: m, Path: path, Function: fn, API: id})
		}
	}
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Definition returns the state machine's definition with every ${Placeholder} substituted. A
// placeholder with no substitution, a substitution no placeholder uses, and a substitution
// that cannot be resolved locally are all errors, reported together.
func (t *Template) Definition(logicalID string) ([]byte, error) {
	sm, ok := t.StateMachines[logicalID]
	if !ok {
		return nil, fmt.Errorf("no state machine %s in the template", logicalID)
	}
	var text string
	source := "the inline Definition"
	if sm.inline != nil {
		resolved, err := t.resolveTree(sm.inline)
		if err != nil {
			return nil, fmt.Errorf("state machine %s: Definition: %w", logicalID, err)
		}
		b, err := marshal(resolved)
		if err != nil {
			return nil, fmt.Errorf("state machine %s: Definition: %w", logicalID, err)
		}
		text = string(b)
	} else {
		path := sm.DefinitionURI
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(t.Path), path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("state machine %s: DefinitionUri: %w", logicalID, err)
		}
		text, source = string(data), sm.DefinitionURI
	}
	return substitute(logicalID, source, text, sm)
}

func substitute(logicalID, source, text string, sm *StateMachine) ([]byte, error) {
	used := map[string]bool{}
	var problems []string
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
		if why, ok := sm.Unresolved[name]; ok {
			problems = append(problems, fmt.Sprintf("placeholder ${%s}: its substitution cannot be resolved locally: %s", name, why))
		} else {
			problems = append(problems, fmt.Sprintf("placeholder ${%s} has no DefinitionSubstitutions entry", name))
		}
		b.WriteString("${" + name + "}")
	}
	all := map[string]bool{}
	for k := range sm.Substitutions {
		all[k] = true
	}
	for k := range sm.Unresolved {
		all[k] = true
	}
	for _, k := range sortedKeys(all) {
		if !used[k] {
			problems = append(problems, fmt.Sprintf("DefinitionSubstitutions %s is used by no placeholder", k))
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		return nil, fmt.Errorf("state machine %s (%s):\n  %s", logicalID, source, strings.Join(dedupe(problems), "\n  "))
	}
	return []byte(b.String()), nil
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
