package handler

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestClosingTasksMatchTheMachine: closingTasks says, for each task of the repair machine, when
// no other task follows it; the machine says it too. For each Task state it follows the states
// that come next on success (through Choice and Pass states: a Choice right after the task on a
// boolean of its result is taken both ways) and on a caught failure, and checks that the
// function's entry answers as the machine routes: absent when another task always follows,
// true on a failure that ends the execution, and on each result that ends it, false on each
// that reaches another task.
func TestClosingTasksMatchTheMachine(t *testing.T) {
	b, err := os.ReadFile("../../statemachines/repair.asl.json")
	if err != nil {
		t.Fatal(err)
	}
	type choice struct {
		Variable      string
		BooleanEquals *bool
		Next          string
	}
	type state struct {
		Type       string
		Resource   string
		Next       string
		End        bool
		ResultPath string
		Choices    []choice
		Default    string
		Catch      []struct{ Next string }
	}
	var def struct{ States map[string]state }
	if err := json.Unmarshal(b, &def); err != nil {
		t.Fatal(err)
	}
	// ends reports whether, from state name on, the execution can end before another task.
	var ends func(name string, seen map[string]bool) bool
	ends = func(name string, seen map[string]bool) bool {
		if seen[name] {
			return false
		}
		seen[name] = true
		st := def.States[name]
		switch st.Type {
		case "Succeed", "Fail":
			return true
		case "Task":
			return false
		case "Pass":
			return st.End || ends(st.Next, seen)
		case "Choice":
			for _, c := range st.Choices {
				if ends(c.Next, seen) {
					return true
				}
			}
			return ends(st.Default, seen)
		}
		t.Fatalf("state %s of type %s", name, st.Type)
		return false
	}
	failure := errors.New("the handler failed")
	tasks := 0
	for name, st := range def.States {
		if st.Type != "Task" {
			continue
		}
		tasks++
		fn := strings.TrimSuffix(strings.TrimPrefix(st.Resource, "${"), "Arn}")
		closes, listed := closingTasks[fn]
		onError := false
		for _, c := range st.Catch {
			onError = onError || ends(c.Next, map[string]bool{})
		}
		// The results a task can give, and whether each ends the execution.
		type outcome struct {
			out  string
			ends bool
		}
		var outcomes []outcome
		next := def.States[st.Next]
		if st.End {
			outcomes = append(outcomes, outcome{`{}`, true})
		} else if next.Type == "Choice" && len(next.Choices) == 1 && next.Choices[0].BooleanEquals != nil &&
			strings.HasPrefix(next.Choices[0].Variable, st.ResultPath+".") && !strings.Contains(strings.TrimPrefix(next.Choices[0].Variable, st.ResultPath+"."), ".") {
			c := next.Choices[0]
			field := strings.TrimPrefix(c.Variable, st.ResultPath+".")
			for _, v := range []bool{true, false} {
				out, _ := json.Marshal(map[string]bool{field: v})
				to := next.Default
				if v == *c.BooleanEquals {
					to = c.Next
				}
				outcomes = append(outcomes, outcome{string(out), ends(to, map[string]bool{})})
			}
		} else {
			outcomes = append(outcomes, outcome{`{}`, ends(st.Next, map[string]bool{})})
		}
		endsAtAll := onError
		for _, o := range outcomes {
			endsAtAll = endsAtAll || o.ends
		}
		if !listed {
			if endsAtAll {
				t.Errorf("task %s (%s) can end the execution, and closingTasks does not list it: no invocation would count its transitions", name, fn)
			}
			continue
		}
		if !endsAtAll {
			t.Errorf("task %s (%s) never ends the execution, and closingTasks lists it: it would read the history for nothing", name, fn)
		}
		if got := closes(nil, failure); got != onError {
			t.Errorf("task %s (%s) on a failure: closes %v; the machine %s", name, fn, got, map[bool]string{true: "ends", false: "goes on to a task"}[onError])
		}
		for _, o := range outcomes {
			if got := closes([]byte(o.out), nil); got != o.ends {
				t.Errorf("task %s (%s) answering %s: closes %v; the machine %s", name, fn, o.out, got, map[bool]string{true: "ends", false: "goes on to a task"}[o.ends])
			}
		}
	}
	if tasks == 0 {
		t.Fatal("the repair machine has no tasks")
	}
}

// TestUnwrapTakesTheGate: an envelope is the payload and the execution, and the gate beside them
// for the tasks after Eligibility; anything else is the function's own payload.
func TestUnwrapTakesTheGate(t *testing.T) {
	arn := `"arn:aws:states:us-east-1:123456789012:execution:Repair:x"`
	for _, c := range []struct {
		event string
		ok    bool
		run   string
	}{
		{`{"payload":{"a":1},"execution":` + arn + `}`, true, ""},
		{`{"payload":{"a":1},"execution":` + arn + `,"gate":{"runId":"r1","testId":"t1"}}`, true, "r1"},
		{`{"payload":{"a":1},"execution":` + arn + `,"other":{}}`, false, ""},
		{`{"payload":{"a":1},"execution":` + arn + `,"gate":{},"other":{}}`, false, ""},
		{`{"payload":{"a":1},"execution":"not-an-arn","gate":{}}`, false, ""},
		{`{"payload":{"a":1}}`, false, ""},
	} {
		env, ok := unwrap([]byte(c.event))
		if ok != c.ok {
			t.Errorf("%s: enveloped %v, want %v", c.event, ok, c.ok)
			continue
		}
		if run := ""; ok {
			if env.Gate != nil {
				run = env.Gate.RunID
			}
			if run != c.run || string(env.Payload) != `{"a":1}` {
				t.Errorf("%s: payload %s, gate's run %q; want {\"a\":1} and %q", c.event, env.Payload, run, c.run)
			}
		}
	}
}
