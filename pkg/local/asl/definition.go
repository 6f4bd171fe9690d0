package asl

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// DefinitionError lists every problem found in a state machine definition, each naming the
// state (and the Map or Parallel state around it) where it is.
type DefinitionError struct {
	Problems []string
}

func (e *DefinitionError) Error() string {
	return "invalid state machine definition:\n  " + strings.Join(e.Problems, "\n  ")
}

// graph is a compiled set of states: the machine itself, a Map processor or a Parallel branch.
type graph struct {
	startAt string
	states  map[string]*state
}

type state struct {
	name, typ string
	next      string
	end       bool

	inputPath, outputPath, resultPath optPath
	parameters, resultSelector        *payload
	result                            any
	hasResult                         bool

	resource    string
	timeout     time.Duration
	timeoutPath *path
	retry       []*retrier
	catch       []*catcher

	choices []*rule
	dflt    string

	seconds       time.Duration
	hasSeconds    bool
	secondsPath   *path
	timestamp     time.Time
	hasTimestamp  bool
	timestampPath *path

	errName, cause       string
	errorPath, causePath *payload

	itemsPath      *path
	processor      *graph
	maxConcurrency int
	maxConcPath    *path
	branches       []*graph
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
	jitter      bool
}

type catcher struct {
	errorEquals []string
	resultPath  optPath
	next        string
}

// allowed lists the fields each state type may have besides Type and Comment.
var allowed = map[string][]string{
	"Task":     {"Next", "End", "InputPath", "OutputPath", "Parameters", "ResultSelector", "ResultPath", "Retry", "Catch", "Resource", "TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds", "HeartbeatSecondsPath"},
	"Pass":     {"Next", "End", "InputPath", "OutputPath", "Parameters", "ResultPath", "Result"},
	"Choice":   {"InputPath", "OutputPath", "Choices", "Default"},
	"Wait":     {"Next", "End", "InputPath", "OutputPath", "Seconds", "SecondsPath", "Timestamp", "TimestampPath"},
	"Succeed":  {"InputPath", "OutputPath"},
	"Fail":     {"Error", "Cause", "ErrorPath", "CausePath"},
	"Map":      {"Next", "End", "InputPath", "OutputPath", "ItemsPath", "ItemSelector", "Parameters", "ResultSelector", "ResultPath", "Retry", "Catch", "Iterator", "ItemProcessor", "MaxConcurrency", "MaxConcurrencyPath"},
	"Parallel": {"Next", "End", "InputPath", "OutputPath", "Parameters", "ResultSelector", "ResultPath", "Retry", "Catch", "Branches"},
}

// unsupported are spec fields this interpreter refuses rather than silently ignores.
var unsupported = map[string]string{
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
}

type compiler struct {
	problems []string
}

func (c *compiler) addf(where, format string, args ...any) {
	c.problems = append(c.problems, where+": "+fmt.Sprintf(format, args...))
}

// compileGraph compiles StartAt and States of a machine, Map processor or Parallel branch.
func (c *compiler) compileGraph(where string, m map[string]any, extra ...string) *graph {
	g := &graph{states: map[string]*state{}}
	known := append([]string{"StartAt", "States", "Comment"}, extra...)
	for _, k := range sortedKeys(m) {
		if !contains(known, k) {
			if why, ok := unsupported[k]; ok && !(k == "QueryLanguage" && m[k] == "JSONPath") {
				c.addf(where, "%s (%s) is not supported by the local interpreter", k, why)
			} else if !ok {
				c.addf(where, "unknown field %q", k)
			}
		}
	}
	g.startAt, _ = m["StartAt"].(string)
	states, ok := m["States"].(map[string]any)
	if !ok || len(states) == 0 {
		c.addf(where, "States must be a non-empty object")
		return g
	}
	for _, name := range sortedKeys(states) {
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
	var unreached []string
	for name := range g.states {
		if !reached[name] {
			unreached = append(unreached, name)
		}
	}
	sort.Strings(unreached)
	for _, name := range unreached {
		c.addf(where+" state "+quote(name), "is not reachable from StartAt %q", g.startAt)
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
		c.addf(where, "Type %v is not a state type (Task, Pass, Choice, Wait, Succeed, Fail, Map, Parallel)", m["Type"])
		return st
	}
	for _, k := range sortedKeys(m) {
		if k == "Type" || k == "Comment" || contains(fields, k) {
			continue
		}
		if why, ok := unsupported[k]; ok {
			c.addf(where, "%s (%s) is not supported by the local interpreter", k, why)
		} else {
			c.addf(where, "field %q is not allowed in a %s state", k, st.typ)
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
	if contains(fields, "Next") && (st.next == "") == !st.end {
		c.addf(where, "needs exactly one of Next or End: true")
	}

	st.inputPath = c.optPath(where, m, "InputPath", false)
	st.outputPath = c.optPath(where, m, "OutputPath", false)
	st.resultPath = c.optPath(where, m, "ResultPath", true)
	st.parameters = c.payload(where, m, "Parameters")
	st.resultSelector = c.payload(where, m, "ResultSelector")
	st.result, st.hasResult = m["Result"]

	switch st.typ {
	case "Task":
		st.resource, _ = m["Resource"].(string)
		if st.resource == "" {
			c.addf(where, "Resource is missing")
		}
		st.timeout = c.seconds(where, m, "TimeoutSeconds")
		st.timeoutPath = c.pathField(where, m, "TimeoutSecondsPath")
		if st.timeout > 0 && st.timeoutPath != nil {
			c.addf(where, "TimeoutSeconds and TimeoutSecondsPath are exclusive")
		}
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
	case "Wait":
		n := 0
		if v, ok := m["Seconds"]; ok {
			n++
			f, isNum := number(v)
			if !isNum || f < 0 || f != float64(int64(f)) {
				c.addf(where, "Seconds must be a non-negative integer, got %v", v)
			}
			st.seconds, st.hasSeconds = time.Duration(f*float64(time.Second)), true
		}
		if v, ok := m["Timestamp"]; ok {
			n++
			t, isTime := timestamp(v)
			if !isTime {
				c.addf(where, "Timestamp must be an RFC 3339 timestamp, got %v", v)
			}
			st.timestamp, st.hasTimestamp = t, true
		}
		if st.secondsPath = c.pathField(where, m, "SecondsPath"); st.secondsPath != nil {
			n++
		}
		if st.timestampPath = c.pathField(where, m, "TimestampPath"); st.timestampPath != nil {
			n++
		}
		if n != 1 {
			c.addf(where, "needs exactly one of Seconds, SecondsPath, Timestamp or TimestampPath")
		}
	case "Fail":
		st.errName, _ = m["Error"].(string)
		st.cause, _ = m["Cause"].(string)
		st.errorPath = c.expr(where, m, "ErrorPath")
		st.causePath = c.expr(where, m, "CausePath")
		if st.errName != "" && st.errorPath != nil || st.cause != "" && st.causePath != nil {
			c.addf(where, "Error/ErrorPath and Cause/CausePath are each exclusive")
		}
	case "Map":
		if p := c.pathField(where, m, "ItemsPath"); p != nil {
			st.itemsPath = p
		} else {
			st.itemsPath = &path{src: "$"}
		}
		sel := c.payload(where, m, "ItemSelector")
		if sel != nil && st.parameters != nil {
			c.addf(where, "ItemSelector and Parameters are exclusive (Parameters is the legacy name)")
		}
		if sel != nil {
			st.parameters = sel
		}
		proc, hasProc := m["ItemProcessor"].(map[string]any)
		iter, hasIter := m["Iterator"].(map[string]any)
		switch {
		case hasProc && hasIter:
			c.addf(where, "ItemProcessor and Iterator are exclusive (Iterator is the legacy name)")
		case hasProc:
			st.processor = c.compileProcessor(where+" ItemProcessor", proc)
		case hasIter:
			st.processor = c.compileGraph(where+" Iterator", iter)
		default:
			c.addf(where, "ItemProcessor (or Iterator) is missing")
		}
		if v, ok := m["MaxConcurrency"]; ok {
			f, isNum := number(v)
			if !isNum || f < 0 || f != float64(int(f)) {
				c.addf(where, "MaxConcurrency must be a non-negative integer, got %v", v)
			}
			st.maxConcurrency = int(f)
		}
		st.maxConcPath = c.pathField(where, m, "MaxConcurrencyPath")
	case "Parallel":
		list, ok := m["Branches"].([]any)
		if !ok || len(list) == 0 {
			c.addf(where, "Branches must be a non-empty array")
		}
		for i, b := range list {
			bm, ok := b.(map[string]any)
			if !ok {
				c.addf(where, "Branches[%d] must be an object", i)
				continue
			}
			st.branches = append(st.branches, c.compileGraph(fmt.Sprintf("%s Branches[%d]", where, i), bm))
		}
	}
	if contains(fields, "Retry") {
		st.retry = c.retriers(where, m["Retry"])
		st.catch = c.catchers(where, m["Catch"])
	}
	return st
}

func (c *compiler) compileProcessor(where string, m map[string]any) *graph {
	if cfg, ok := m["ProcessorConfig"].(map[string]any); ok {
		// Both modes run inline here: DISTRIBUTED only changes how AWS schedules child executions.
		if mode, _ := cfg["Mode"].(string); mode != "" && mode != "INLINE" && mode != "DISTRIBUTED" {
			c.addf(where, "ProcessorConfig.Mode %q is neither INLINE nor DISTRIBUTED", mode)
		}
	}
	return c.compileGraph(where, m, "ProcessorConfig")
}

func (c *compiler) optPath(where string, m map[string]any, key string, reference bool) optPath {
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
	p, err := parsePath(s, !reference)
	if err != nil {
		c.addf(where, "%s: %v", key, err)
		return optPath{p: &path{src: "$"}}
	}
	if reference && !p.reference() {
		c.addf(where, "%s %q must be a reference path (no wildcard, no $$)", key, s)
	}
	return optPath{p: p}
}

func (c *compiler) pathField(where string, m map[string]any, key string) *path {
	v, ok := m[key]
	if !ok {
		return nil
	}
	s, _ := v.(string)
	p, err := parsePath(s, true)
	if err != nil {
		c.addf(where, "%s: %v", key, err)
		return nil
	}
	return p
}

func (c *compiler) expr(where string, m map[string]any, key string) *payload {
	v, ok := m[key]
	if !ok {
		return nil
	}
	p, err := compileExpr(v)
	if err != nil {
		c.addf(where, "%s: %v", key, err)
		return nil
	}
	return p
}

func (c *compiler) payload(where string, m map[string]any, key string) *payload {
	v, ok := m[key]
	if !ok {
		return nil
	}
	p, err := compilePayload(v)
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
	if contains(out, ErrAll) && len(out) > 1 {
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
		for _, k := range sortedKeys(m) {
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
			case "JitterStrategy":
				switch val {
				case "FULL":
					r.jitter = true
				case "NONE":
				default:
					c.addf(w, "JitterStrategy must be FULL or NONE, got %v", val)
				}
			default:
				c.addf(w, "unknown field %q", k)
			}
		}
		r.errorEquals = c.errorEquals(w, m)
		if contains(r.errorEquals, ErrAll) && i != len(list)-1 {
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
		for _, k := range sortedKeys(m) {
			if !contains([]string{"ErrorEquals", "ResultPath", "Next", "Comment"}, k) {
				c.addf(w, "unknown field %q", k)
			}
		}
		ct := &catcher{errorEquals: c.errorEquals(w, m), resultPath: c.optPath(w, m, "ResultPath", true)}
		if ct.next, _ = m["Next"].(string); ct.next == "" {
			c.addf(w, "Next is missing")
		}
		if contains(ct.errorEquals, ErrAll) && i != len(list)-1 {
			c.addf(w, "a catcher with States.ALL must be the last one")
		}
		out = append(out, ct)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
