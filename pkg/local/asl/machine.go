package asl

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"strings"
	"time"
)

// Invoker runs a Task's resource: a Lambda handler, or a local stand-in for a service
// integration. Its input and output are JSON, as on the wire.
type Invoker func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)

// Resolver maps a Task's Resource to an Invoker. For the Lambda service integration
// (arn:aws:states:::lambda:invoke) it is asked for Parameters.FunctionName instead, and the
// interpreter applies the integration's Payload convention itself.
type Resolver func(resource string) (Invoker, error)

// LambdaInvoke is the Resource of the optimised Lambda service integration.
const LambdaInvoke = "arn:aws:states:::lambda:invoke"

// MaxPayload is Step Functions' limit on a state's input or output (256 KiB).
const MaxPayload = 256 * 1024

// MaxHistory is Step Functions' limit on an execution's history events; past it the execution
// fails, which also ends a definition that loops forever.
const MaxHistory = 25000

// Config is what a Machine needs from its surroundings. Zero values work except Resolve,
// which a machine with Task states needs.
type Config struct {
	// Name is the state machine's name; it defaults to "local".
	Name string
	// ARN is $$.StateMachine.Id; it defaults to a local ARN built from Name.
	ARN string
	// Resolve finds the Invoker for each Task resource.
	Resolve Resolver
	// Sleep waits for Wait states and retry intervals; tests pass one that returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for timestamps and Wait until a timestamp.
	Now func() time.Time
}

// Machine is a validated state machine definition ready to run any number of executions,
// concurrently if need be.
type Machine struct {
	cfg     Config
	root    *graph
	timeout time.Duration
}

// Parse decodes and validates a definition. Every problem found is reported in one
// *DefinitionError, each naming its state.
func Parse(definition []byte, cfg Config) (*Machine, error) {
	v, err := decodeValue(definition)
	if err != nil {
		return nil, fmt.Errorf("state machine definition is not JSON: %w", err)
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("state machine definition must be a JSON object, got a JSON %s", typeName(v))
	}
	c := &compiler{}
	root := c.compileGraph("machine", top, "TimeoutSeconds", "Version")
	timeout := c.seconds("machine", top, "TimeoutSeconds")
	if len(c.problems) > 0 {
		return nil, &DefinitionError{Problems: c.problems}
	}
	if cfg.Name == "" {
		cfg.Name = "local"
	}
	if cfg.ARN == "" {
		cfg.ARN = "arn:aws:states:local:000000000000:stateMachine:" + cfg.Name
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Machine{cfg: cfg, root: root, timeout: timeout}, nil
}

// ARN is the machine's $$.StateMachine.Id.
func (m *Machine) ARN() string { return m.cfg.ARN }

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Status is how an execution ended.
type Status string

// Execution statuses, as Step Functions names them.
const (
	StatusSucceeded Status = "SUCCEEDED"
	StatusFailed    Status = "FAILED"
	StatusTimedOut  Status = "TIMED_OUT"
	StatusAborted   Status = "ABORTED"
)

// Execution is a finished run of a Machine.
type Execution struct {
	ID        string // the execution ARN, $$.Execution.Id
	Name      string
	Status    Status
	Input     json.RawMessage
	Output    json.RawMessage // set when Status is SUCCEEDED
	Failure   *Failure        // set otherwise
	StartTime time.Time
	StopTime  time.Time
	History   []Event
}

// Run executes the machine on input to the end and returns the execution. The error is
// non-nil only when the input is not a JSON value; a failed execution is reported in its
// Status and Failure.
func (m *Machine) Run(ctx context.Context, name string, input json.RawMessage) (*Execution, error) {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	in, err := decodeValue(input)
	if err != nil {
		return nil, fmt.Errorf("execution input is not JSON: %w", err)
	}
	if name == "" {
		name = newUUID()
	}
	arn := executionARN(m.cfg.ARN, name)
	r := &run{m: m, exec: &Execution{ID: arn, Name: name, Input: input, StartTime: m.cfg.Now()}}
	r.ctxBase = map[string]any{
		"Execution": map[string]any{
			"Id": arn, "Name": name, "Input": in,
			"StartTime": r.exec.StartTime.UTC().Format(time.RFC3339Nano),
			"RoleArn":   "arn:aws:iam::000000000000:role/local",
		},
		"StateMachine": map[string]any{"Id": m.cfg.ARN, "Name": m.cfg.Name},
	}
	r.record(Event{Type: EventExecutionStarted, Input: input})

	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if m.timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, m.timeout)
	}
	defer cancel()

	var out any
	var f *Failure
	if len(input) > MaxPayload {
		f = fail(ErrDataLimitExceeded, "the execution input is %d bytes, over the %d byte limit", len(input), MaxPayload)
	} else {
		out, f = r.runGraph(runCtx, m.root, in, frame{})
	}
	e := r.exec
	e.StopTime = m.cfg.Now()
	switch {
	case f == nil:
		e.Status, e.Output = StatusSucceeded, mustEncode(out)
		r.record(Event{Type: EventExecutionSucceeded, Output: e.Output})
	case f.aborted && ctx.Err() == nil && runCtx.Err() == context.DeadlineExceeded:
		e.Status, e.Failure = StatusTimedOut, &Failure{Name: ErrTimeout, Cause: fmt.Sprintf("the execution ran longer than TimeoutSeconds (%s)", m.timeout)}
		r.record(Event{Type: EventExecutionTimedOut, Error: ErrTimeout, Cause: e.Failure.Cause})
	case f.aborted:
		e.Status, e.Failure = StatusAborted, &Failure{Name: "States.Aborted", Cause: context.Cause(runCtx).Error()}
		r.record(Event{Type: EventExecutionAborted, Cause: e.Failure.Cause})
	default:
		e.Status, e.Failure = StatusFailed, &Failure{Name: f.Name, Cause: f.Cause}
		r.record(Event{Type: EventExecutionFailed, Error: f.Name, Cause: f.Cause})
	}
	return e, nil
}

func executionARN(machineARN, name string) string {
	if before, after, ok := strings.Cut(machineARN, ":stateMachine:"); ok {
		return before + ":execution:" + after + ":" + name
	}
	return machineARN + ":" + name
}

// retryDelay is IntervalSeconds × BackoffRate^attempt, capped by MaxDelaySeconds, and drawn
// uniformly below that with JitterStrategy FULL.
func (rt *retrier) retryDelay(attempt int) time.Duration {
	d := rt.interval * math.Pow(rt.backoff, float64(attempt))
	if rt.maxDelay > 0 && d > rt.maxDelay {
		d = rt.maxDelay
	}
	if rt.jitter {
		d *= mrand.Float64()
	}
	// A large BackoffRate without MaxDelaySeconds overflows a Duration: wait the longest one.
	if d*float64(time.Second) >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(d * float64(time.Second))
}
