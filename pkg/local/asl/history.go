package asl

import (
	"encoding/json"
	"time"
)

// EventType names a history event.
type EventType string

// History event types. They follow Step Functions' history where it has an equivalent;
// RetryScheduled and ErrorCaught make visible what AWS leaves implicit.
const (
	EventExecutionStarted   EventType = "ExecutionStarted"
	EventExecutionSucceeded EventType = "ExecutionSucceeded"
	EventExecutionFailed    EventType = "ExecutionFailed"
	EventExecutionAborted   EventType = "ExecutionAborted"
	EventStateEntered       EventType = "StateEntered"
	EventStateExited        EventType = "StateExited"
	EventTaskScheduled      EventType = "TaskScheduled"
	EventTaskSucceeded      EventType = "TaskSucceeded"
	EventTaskFailed         EventType = "TaskFailed"
	EventTaskTimedOut       EventType = "TaskTimedOut"
	EventRetryScheduled     EventType = "RetryScheduled"
	EventErrorCaught        EventType = "ErrorCaught"
	EventIterationStarted   EventType = "MapIterationStarted"
	EventIterationSucceeded EventType = "MapIterationSucceeded"
	EventIterationFailed    EventType = "MapIterationFailed"
)

// Event is one entry of an execution's history.
type Event struct {
	Seq       int
	Time      time.Time
	Type      EventType
	State     string // the state's name; empty for execution events
	StateType string
	// Scope locates a state inside Map iterations, e.g. "Tests[2]" or "Tests[2]/Inner[0]";
	// it is empty at the top level.
	Scope    string
	Resource string // for task events: the Task's Resource
	Input    json.RawMessage
	Output   json.RawMessage
	Error    string
	Cause    string
	Attempt  int           // retries so far, for task and retry events
	Delay    time.Duration // for RetryScheduled
	Next     string        // the state an ErrorCaught or a state's exit goes to
}

func (r *run) record(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.Seq = len(r.exec.History) + 1
	e.Time = r.m.cfg.Now()
	r.exec.History = append(r.exec.History, e)
}

func (r *run) historyLen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.exec.History)
}

// Path lists the top-level states the execution entered, in order: the route it took.
func (e *Execution) Path() []string {
	var out []string
	for _, ev := range e.History {
		if ev.Type == EventStateEntered && ev.Scope == "" {
			out = append(out, ev.State)
		}
	}
	return out
}

// Events returns the history events of one type.
func (e *Execution) Events(t EventType) []Event {
	var out []Event
	for _, ev := range e.History {
		if ev.Type == t {
			out = append(out, ev)
		}
	}
	return out
}
