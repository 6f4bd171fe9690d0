package asl

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// DefinitionError lists every problem found in a state machine definition, each naming the
// state (and the Map state around it) where it is.
type DefinitionError struct {
	Problems []string
}

func (e *DefinitionError) Error() string {
	return "invalid state machine definition:\n  " + strings.Join(e.Problems, "\n  ")
}

// graph is a compiled set of states: the machine itself or a Map processor.
type graph struct {
	startAt string
	states  map[string]*state
}

type state struct {
	name, typ string
	next      string
	end       bool

	inputPath, outputPath, resultPath optPath
	parameters                        *payload // Parameters, or a Map's ItemSelector
	result                            any
	hasResult                         bool

	resource string
	timeout  time.Duration
	retry    []*retrier
	catch    []*catcher

	choices []*rule
	dflt    string

	errName, cause string

	itemsPath      *path
	processor      *graph
	maxConcurrency int
}

// optPath is InputPath, OutputPath or ResultPath: absent means $, null discards.
type optPath struct {
	null bool
	p    *path
}

type retrier struct {
	errorEquals []string
	interval    float64
	maxAttempts int
	backoff     float64
	maxDelay    float64 // 0: no cap
}

type catcher struct {
	errorEquals []string
	resultPath  optPath
	next        string
}

// allowed lists the fields each supported state type may have besides Type and Comment.
var allowed = map[string][]string{
	"Task":    {"Next", "End", "InputPath", "OutputPath", "Parameters", "ResultPath", "Retry", "Catch", "Resource", "TimeoutSeconds"},
	"Pass":    {"Next", "End", "InputPath", "OutputPath", "Parameters", "ResultPath", "Result"},
	"Choice":  {"InputPath", "OutputPath", "Choices", "Default"},
	"Succeed": {"InputPath", "OutputPath"},
	"Fail":    {"Error", "Cause"},
	"Map":     {"Next", "End", "InputPath", "OutputPath", "ItemsPath", "ItemSelector", "ResultPath", "Retry", "Catch", "ItemProcessor", "MaxConcurrency"},
}

// unsupportedTypes are the state types of the specification this interpreter refuses.
var unsupportedTypes = []string{"Wait", "Parallel"}

// unsupported are fields of the specification this interpreter refuses rather than silently
// ignores: our state machines do not use them.
var unsupported = map[string]string{
	"ResultSelector":             "result selectors",
	"TimeoutSecondsPath":         "a task timeout read from the input",
	"HeartbeatSeconds":           "task heartbeats",
	"HeartbeatSecondsPath":       "task heartbeats",
	"ErrorPath":                  "a Fail error read from the input",
	"CausePath":                  "a Fail cause read from the input",
	"Iterator":                   "the legacy Map field; use ItemProcessor",
	"MaxConcurrencyPath":         "a Map concurrency read from the input",
	"ItemReader":                 "a Distributed Map reading from S3",
	"ItemBatcher":                "Map item batching",
	"ResultWriter":               "a Distributed Map writing to S3",
	"ToleratedFailurePercentage": "Distributed Map failure tolerance",
	"ToleratedFailureCount":      "Distributed Map failure tolerance",
	"Credentials":                "cross-account task credentials",
	"Assign":                     "variables",
	"Arguments":                  "JSONata",
	"Output":                     "JSONata",
	"QueryLanguage":              "JSONata",
	"JitterStrategy":             "retry jitter",
}

// serviceIntegration is the prefix of a Step Functions service integration Resource, such as
// arn:aws:states:::lambda:invoke; only plain function ARNs run here.
const serviceIntegration = "arn:aws:states:::"

type compiler struct {
	problems []string
}

func (c *compiler) addf(where, format string, args ...any) {
	c.problems = append(c.problems, where+": "+fmt.Sprintf(format, args...))
}

// refuse reports a field the interpreter does not know: one of the specification's it does not
// support, or one that is not ASL at all.
func (c *compiler) refuse(where, field, notAllowed string) {
	if why, ok := unsupported[field]; ok {
		c.addf(where, "%s (%s) is not supported by the local interpreter", field, why)
		return
	}
	c.addf(where, "%s", notAllowed)
}

// compileGraph compiles StartAt and States of a machine or a Map processor.
func (c *compiler) compileGraph(where string, m map[string]any, extra ...string) *graph {
	g := &graph{states: map[string]*state{}}
	known := append([]string{"StartAt", "States", "Comment"}, extra...)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(known, k) {
			c.refuse(where, k, fmt.Sprintf("unknown field %q", k))
		}
	}
	g.startAt, _ = m["StartAt"].(string)
	states, ok := m["States"].(map[string]any)
	if !ok || len(states) == 0 {
		c.addf(where, "States must be a non-empty object")
		return g
	}
	for _, name := range slices.Sorted(maps.Keys(states)) {
		sm, ok := states[name].(map[string]any)
		if !ok {
			c.addf(where+" state "+quote(name), "must be an object")
			continue
		}
		if len(name) > 80 {
			c.addf(where+" state "+quote(name), "name is longer than 80 characters")
		}
		g.states[name] = c.compileState(where+" state "+quote(name), name, sm)
	}
	if g.startAt == "" {
		c.addf(where, "StartAt is missing")
		return g
	}
	if _, ok := g.states[g.startAt]; !ok {
		c.addf(where, "StartAt %q names no state", g.startAt)
		return g
	}
	c.checkTransitions(where, g)
	return g
}

// checkTransitions proves every transition lands on a state of the same graph and that every
// state can be reached from StartAt.
func (c *compiler) checkTransitions(where string, g *graph) {
	reached := map[string]bool{}
	queue := []string{g.startAt}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if reached[name] {
			continue
		}
		reached[name] = true
		st := g.states[name]
		for _, t := range st.transitions() {
			if _, ok := g.states[t]; !ok {
				c.addf(where+" state "+quote(name), "transition to %q, which is not a state here", t)
				continue
			}
			queue = append(queue, t)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(g.states)) {
		if !reached[name] {
			c.addf(where+" state "+quote(name), "is not reachable from StartAt %q", g.startAt)
		}
	}
}

func (st *state) transitions() []string {
	var out []string
	if st.next != "" {
		out = append(out, st.next)
	}
	for _, r := range st.choices {
		out = append(out, r.next)
	}
	if st.dflt != "" {
		out = append(out, st.dflt)
	}
	for _, ct := range st.catch {
		if ct.next != "" {
			out = append(out, ct.next)
		}
	}
	return out
}

func (c *compiler) compileState(where, name string, m map[string]any) *state {
	st := &state{name: name}
	st.typ, _ = m["Type"].(string)
	fields, ok := allowed[st.typ]
	if !ok {
		if slices.Contains(unsupportedTypes, st.typ) {
			c.addf(where, "Type %s is not supported by the local interpreter (it runs Task, Pass, Choice, Succeed, Fail and Map)", st.typ)
		} else {
			c.addf(where, "Type %v is not a state type (Task, Pass, Choice, Succeed, Fail, Map)", m["Type"])
		}
		return st
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "Type" && k != "Comment" && !slices.Contains(fields, k) {
			c.refuse(where, k, fmt.Sprintf("field %q is not allowed in a %s state", k, st.typ))
		}
	}

	// Transitions: Choice, Succeed and Fail have their own rules; the rest need Next xor End.
	st.next, _ = m["Next"].(string)
	if v, ok := m["Next"]; ok && (st.next == "") {
		c.addf(where, "Next must be a state name, got %v", v)
	}
	if v, ok := m["End"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			c.addf(where, "End must be a boolean")
		}
		st.end = b
	}
	if slices.Contains(fields, "Next") && (st.next == "") == !st.end {
		c.addf(where, "needs exactly one of Next or End: true")
	}

	st.inputPath = c.optPath(where, m, "InputPath")
	st.outputPath = c.optPath(where, m, "OutputPath")
	st.resultPath = c.optPath(where, m, "ResultPath")
	st.parameters = c.payload(where, m, "Parameters", false)
	st.result, st.hasResult = m["Result"]

	switch st.typ {
	case "Task":
		st.resource, _ = m["Resource"].(string)
		switch {
		case st.resource == "":
			c.addf(where, "Resource is missing")
		case strings.HasPrefix(st.resource, serviceIntegration):
			c.addf(where, "Resource %s: service integrations are not supported by the local interpreter; name the Lambda function's ARN", st.resource)
		}
		st.timeout = c.seconds(where, m, "TimeoutSeconds")
	case "Choice":
		list, ok := m["Choices"].([]any)
		if !ok || len(list) == 0 {
			c.addf(where, "Choices must be a non-empty array")
		}
		for i, x := range list {
			r, err := compileRule(x, true)
			if err != nil {
				c.addf(where, "Choices[%d]: %v", i, err)
				continue
			}
			st.choices = append(st.choices, r)
		}
		if v, ok := m["Default"]; ok {
			if st.dflt, _ = v.(string); st.dflt == "" {
				c.addf(where, "Default must be a state name")
			}
		}
	case "Fail":
		st.errName, _ = m["Error"].(string)
		st.cause, _ = m["Cause"].(string)
	case "Map":
		st.itemsPath = &path{src: "$"}
		if v, ok := m["ItemsPath"]; ok {
			s, _ := v.(string)
			p, err := parsePath(s, noContext)
			if err != nil {
				c.addf(where, "ItemsPath: %v", err)
			} else {
				st.itemsPath = p
			}
		}
		st.parameters = c.payload(where, m, "ItemSelector", true)
		if proc, ok := m["ItemProcessor"].(map[string]any); ok {
			st.processor = c.compileProcessor(where+" ItemProcessor", proc)
		} else {
			c.addf(where, "ItemProcessor is missing")
		}
		if v, ok := m["MaxConcurrency"]; ok {
			f, isNum := number(v)
			if !isNum || f < 0 || f != float64(int(f)) {
				c.addf(where, "MaxConcurrency must be a non-negative integer, got %v", v)
			}
			st.maxConcurrency = int(f)
		}
	}
	if slices.Contains(fields, "Retry") {
		st.retry = c.retriers(where, m["Retry"])
		st.catch = c.catchers(where, m["Catch"])
	}
	return st
}

func (c *compiler) compileProcessor(where string, m map[string]any) *graph {
	if cfg, ok := m["ProcessorConfig"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(cfg)) {
			if k != "Mode" {
				c.addf(where, "ProcessorConfig.%s is not supported by the local interpreter", k)
			}
		}
		if mode, _ := cfg["Mode"].(string); mode != "" && mode != "INLINE" {
			c.addf(where, "ProcessorConfig.Mode %v is not supported by the local interpreter (it runs INLINE)", cfg["Mode"])
		}
	}
	return c.compileGraph(where, m, "ProcessorConfig")
}

func (c *compiler) optPath(where string, m map[string]any, key string) optPath {
	v, ok := m[key]
	if !ok {
		return optPath{p: &path{src: "$"}}
	}
	if v == nil {
		return optPath{null: true}
	}
	s, isStr := v.(string)
	if !isStr {
		c.addf(where, "%s must be a path string or null", key)
		return optPath{p: &path{src: "$"}}
	}
	p, err := parsePath(s, noContext)
	if err != nil {
		c.addf(where, "%s: %v", key, err)
		return optPath{p: &path{src: "$"}}
	}
	return optPath{p: p}
}

// payload compiles a payload template; item is true for a Map's ItemSelector, the one place
// the $$.Map.Item context paths are allowed.
func (c *compiler) payload(where string, m map[string]any, key string, item bool) *payload {
	v, ok := m[key]
	if !ok {
		return nil
	}
	p, err := compilePayload(v, item)
	if err != nil {
		c.addf(where, "%s: %v", key, err)
		return nil
	}
	return p
}

func (c *compiler) seconds(where string, m map[string]any, key string) time.Duration {
	v, ok := m[key]
	if !ok {
		return 0
	}
	f, isNum := number(v)
	if !isNum || f <= 0 || f != float64(int64(f)) {
		c.addf(where, "%s must be a positive integer, got %v", key, v)
		return 0
	}
	return time.Duration(f) * time.Second
}

func (c *compiler) errorEquals(where string, m map[string]any) []string {
	list, ok := m["ErrorEquals"].([]any)
	if !ok || len(list) == 0 {
		c.addf(where, "ErrorEquals must be a non-empty array of error names")
		return nil
	}
	var out []string
	for _, x := range list {
		s, ok := x.(string)
		if !ok || s == "" {
			c.addf(where, "ErrorEquals holds %v, which is not an error name", x)
			continue
		}
		out = append(out, s)
	}
	if slices.Contains(out, ErrAll) && len(out) > 1 {
		c.addf(where, "States.ALL must appear alone in ErrorEquals")
	}
	return out
}

func (c *compiler) retriers(where string, v any) []*retrier {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		c.addf(where, "Retry must be an array")
		return nil
	}
	var out []*retrier
	for i, x := range list {
		w := fmt.Sprintf("%s Retry[%d]", where, i)
		m, ok := x.(map[string]any)
		if !ok {
			c.addf(w, "must be an object")
			continue
		}
		r := &retrier{interval: 1, maxAttempts: 3, backoff: 2}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			val := m[k]
			f, isNum := number(val)
			switch k {
			case "ErrorEquals", "Comment":
			case "IntervalSeconds":
				if !isNum || f < 1 || f != float64(int(f)) {
					c.addf(w, "IntervalSeconds must be a positive integer, got %v", val)
				}
				r.interval = f
			case "MaxAttempts":
				if !isNum || f < 0 || f != float64(int(f)) {
					c.addf(w, "MaxAttempts must be a non-negative integer, got %v", val)
				}
				r.maxAttempts = int(f)
			case "BackoffRate":
				if !isNum || f < 1 {
					c.addf(w, "BackoffRate must be a number of at least 1.0, got %v", val)
				}
				r.backoff = f
			case "MaxDelaySeconds":
				if !isNum || f < 1 || f != float64(int(f)) {
					c.addf(w, "MaxDelaySeconds must be a positive integer, got %v", val)
				}
				r.maxDelay = f
			default:
				c.refuse(w, k, fmt.Sprintf("unknown field %q", k))
			}
		}
		r.errorEquals = c.errorEquals(w, m)
		if slices.Contains(r.errorEquals, ErrAll) && i != len(list)-1 {
			c.addf(w, "a retrier with States.ALL must be the last one")
		}
		out = append(out, r)
	}
	return out
}

func (c *compiler) catchers(where string, v any) []*catcher {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		c.addf(where, "Catch must be an array")
		return nil
	}
	var out []*catcher
	for i, x := range list {
		w := fmt.Sprintf("%s Catch[%d]", where, i)
		m, ok := x.(map[string]any)
		if !ok {
			c.addf(w, "must be an object")
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains([]string{"ErrorEquals", "ResultPath", "Next", "Comment"}, k) {
				c.refuse(w, k, fmt.Sprintf("unknown field %q", k))
			}
		}
		ct := &catcher{errorEquals: c.errorEquals(w, m), resultPath: c.optPath(w, m, "ResultPath")}
		if ct.next, _ = m["Next"].(string); ct.next == "" {
			c.addf(w, "Next is missing")
		}
		if slices.Contains(ct.errorEquals, ErrAll) && i != len(list)-1 {
			c.addf(w, "a catcher with States.ALL must be the last one")
		}
		out = append(out, ct)
	}
	return out
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
