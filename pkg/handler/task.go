package handler

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// ExecutionHistory reads a state machine execution's history: its input and its events, as far
// as counting its transitions needs (pkg/sfn on AWS).
type ExecutionHistory interface {
	History(ctx context.Context, executionID string) (json.RawMessage, []gardener.HistoryEvent, error)
}

// Billing is how Lambda bills one function's invocations: its memory size and architecture.
type Billing struct {
	Function     string
	Architecture string // arm64 or x86_64
	MemoryMB     int
}

// JSONHandler is aws-lambda-go's handler of h, the JSON round trip of Lambda, with a response of
// each invocation's own. The handler lambda.NewHandler builds answers Invoke with the bytes of a
// pooled buffer it has already handed back for its next invocation to write over: sound where
// one invocation runs at a time and its answer is sent before the next starts (a Lambda
// instance), not where several run at once on one handler (the local stack's Map, Lambda's
// managed instances), where one invocation's answer was read, and stored, as another's.
// Building the handler for each invocation gives each its own buffer, for a few reflect calls.
func JSONHandler(h any) lambda.Handler { return ownResponse{h} }

type ownResponse struct{ h any }

func (o ownResponse) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	return lambda.NewHandler(o.h).Invoke(ctx, payload)
}

// taskEnvelope is how the repair state machine invokes its tasks: the task's payload beside the
// id (ARN) of the execution it works for, from the context object ($$.Execution.Id), so the
// invocation knows whose cost it adds to, and, for every task after Eligibility, the execution's
// gate (Eligibility's admission: the run, project and test the repair is of), so it knows the
// cost record's key without reading the execution's history. Eligibility's payload is the
// execution's input itself.
type taskEnvelope struct {
	Payload   json.RawMessage `json:"payload"`
	Execution string          `json:"execution"`
	Gate      *Gate           `json:"gate,omitempty"`
}

// unwrap returns the payload and execution of an enveloped event; ok is false for any other
// event, which is the function's own payload.
func unwrap(event []byte) (env taskEnvelope, ok bool) {
	if t := bytes.TrimSpace(event); len(t) == 0 || t[0] != '{' {
		return env, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(event, &fields) != nil || fields["payload"] == nil || fields["execution"] == nil {
		return env, false
	}
	if _, gate := fields["gate"]; len(fields) != 2 && (len(fields) != 3 || !gate) {
		return env, false
	}
	if json.Unmarshal(event, &env) != nil || !strings.HasPrefix(env.Execution, "arn:") {
		return env, false
	}
	return env, true
}

// closingTasks are the repair machine's tasks after which, for the result given, no other task
// of the execution runs (statemachines/repair.asl.json; TestClosingTasksMatchTheMachine checks
// them against it): only such an invocation reads the execution's history to count its
// transitions, which is one read an execution where every task used to read it. A task missing
// here never ends an execution. A failed invocation that Step Functions retries reads it too:
// an extra read, never a wrong count (the record keeps the largest).
var closingTasks = map[string]func(out []byte, err error) bool{
	// Not eligible ends in NotEligible; a failure in EligibilityFailed.
	EligibilityFunction.ID: func(out []byte, err error) bool {
		var g struct {
			Eligible bool `json:"eligible"`
		}
		return err != nil || json.Unmarshal(out, &g) != nil || !g.Eligible
	},
	// A failure ends in PersistFailed; a write goes on to Propagate.
	PersistFunction.ID: func(_ []byte, err error) bool { return err != nil },
	// Nothing to notify ends in Done; a failure in TriageFailed.
	TriageFunction.ID: func(out []byte, err error) bool {
		var r struct {
			Notify bool `json:"notify"`
		}
		return err != nil || json.Unmarshal(out, &r) != nil || !r.Notify
	},
	// Done follows, failed or not.
	NotifyFunction.ID: func([]byte, error) bool { return true },
}

// Task wraps a function's Lambda handler h. An event enveloped with the execution it works for
// is unwrapped and h gets its payload. When s has the executions' History (in Lambda, where
// nothing outside the invocation can measure it) the invocation also runs with a
// gardener.Meter in its context and, as it ends, adds what it used to the execution's cost
// record through the application layer: one request, its own time rounded up to the
// millisecond at b's memory and architecture, the DynamoDB request units its store calls
// consumed and the tokens its model calls reported. The record is the run's the envelope's gate
// names (Eligibility's: the run its payload, the execution's input, names). Only the invocation
// that ends the execution (closingTasks), or one that cannot tell the run otherwise, reads the
// execution's history, to count its transitions so far and add them too. The recording's own
// calls come after the handler's time is taken and are not counted. A failed record is logged
// and does not fail the task: the repair matters more than its bill. Without History (the
// local stack, whose executions meter themselves) only the envelope is taken off.
func Task(h lambda.Handler, s Services, b Billing) lambda.Handler {
	var app *gardening.Service
	if s.History != nil && s.Store != nil {
		app, _ = gardening.New(gardening.Deps{Store: s.Store, Now: s.Now, Log: s.Log})
	}
	return task{h: h, app: app, history: s.History, bill: b, log: s.base().log()}
}

type task struct {
	h       lambda.Handler
	app     *gardening.Service
	history ExecutionHistory
	bill    Billing
	log     *slog.Logger
}

func (t task) Invoke(ctx context.Context, event []byte) ([]byte, error) {
	env, ok := unwrap(event)
	if !ok {
		return t.h.Invoke(ctx, event)
	}
	if t.app == nil || gardener.MeterOf(ctx) != nil {
		return t.h.Invoke(ctx, env.Payload)
	}
	m := &gardener.Meter{}
	start := time.Now()
	out, err := t.h.Invoke(gardener.WithMeter(ctx, m), env.Payload)
	// Billed failed or not.
	m.Invoked(t.bill.Function, t.bill.Architecture, t.bill.MemoryMB, time.Since(start))
	closes := closingTasks[t.bill.Function]
	if rerr := t.record(ctx, env, closes != nil && closes(out, err), m.Usage()); rerr != nil {
		t.log.Error("recording the cost of an invocation", "function", t.bill.Function, "execution", env.Execution, "error", rerr.Error())
	}
	return out, err
}

// record adds an invocation's usage to its execution's record, named as the local stack names
// it: by the execution's name, the last part of its ARN. It reads the execution's history only
// when the invocation closes the execution or its run is not known without it.
func (t task) record(ctx context.Context, env taskEnvelope, closing bool, u gardener.RepairUsage) error {
	ctx = gardener.WithMeter(ctx, nil)
	name := env.Execution[strings.LastIndex(env.Execution, ":")+1:]
	run, known := gardening.RunFailed{}, false
	if g := env.Gate; g != nil && g.RunID != "" {
		run, known = gardening.RunFailed{RunID: g.RunID, ProjectID: g.ProjectID, TestID: g.TestID}, true
	} else if in := (gardening.RepairInput{}); json.Unmarshal(env.Payload, &in) == nil && in.Detail.RunID != "" {
		run, known = in.Detail, true
	}
	if known && !closing {
		return t.app.AddRunUsage(ctx, name, run, u)
	}
	input, events, err := t.history.History(ctx, env.Execution)
	if err != nil {
		return err
	}
	return t.app.AddExecutionUsage(ctx, name, input, events, u)
}
