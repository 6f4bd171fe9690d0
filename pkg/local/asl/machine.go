package asl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// Invoker runs a Task's resource: a Lambda handler, or a local stand-in for a service
// integration. Its input and output are JSON, as on the wire.
type Invoker func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)

// Resolver maps a Task's Resource, a Lambda function ARN, to an Invoker.
type Resolver func(resource string) (Invoker, error)

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
	// ARN is the state machine's ARN; it defaults to a local ARN built from Name.
	ARN string
	// Resolve finds the Invoker for each Task resource.
	Resolve Resolver
	// Sleep waits out retry intervals; tests pass one that returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for the history's timestamps.
	Now func() time.Time
}

// Machine is a validated state machine definition ready to run any number of executions,
// concurrently if need be.
type Machine struct {
	cfg  Config
	root *graph
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
	for _, k := range []string{"TimeoutSeconds", "Version"} {
		if _, ok := top[k]; ok {
			c.addf("machine", "%s is not supported by the local interpreter", k)
		}
	}
	root := c.compileGraph("machine", top, "TimeoutSeconds", "Version")
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
	return &Machine{cfg: cfg, root: root}, nil
}

// ARN is the state machine's ARN.
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

// Status is how an execution ended, or StatusRunning while it runs.
type Status string

// Execution statuses, as Step Functions names them.
const (
	StatusRunning   Status = "RUNNING"
	StatusSucceeded Status = "SUCCEEDED"
	StatusFailed    Status = "FAILED"
	StatusAborted   Status = "ABORTED"
)

// Execution is a finished run of a Machine.
type Execution struct {
	ID        string // the execution ARN
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
	r.record(Event{Type: EventExecutionStarted, Input: input})

	var out any
	var f *Failure
	if len(input) > MaxPayload {
		f = fail(ErrDataLimitExceeded, "the execution input is %d bytes, over the %d byte limit", len(input), MaxPayload)
	} else {
		out, f = r.runGraph(ctx, m.root, in, frame{})
	}
	e := r.exec
	e.StopTime = m.cfg.Now()
	switch {
	case f == nil:
		e.Status, e.Output = StatusSucceeded, mustEncode(out)
		r.record(Event{Type: EventExecutionSucceeded, Output: e.Output})
	case f.aborted:
		e.Status, e.Failure = StatusAborted, &Failure{Name: "States.Aborted", Cause: context.Cause(ctx).Error()}
		r.record(Event{Type: EventExecutionAborted, Cause: e.Failure.Cause})
	default:
		e.Status, e.Failure = StatusFailed, &Failure{Name: f.Name, Cause: f.Cause}
		r.record(Event{Type: EventExecutionFailed, Error: f.Name, Cause: f.Cause})
	}
	return e, nil
}

// newUUID returns a random version 4 UUID, the name of an execution started without one.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:]) // documented never to fail
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func executionARN(machineARN, name string) string {
	if before, after, ok := strings.Cut(machineARN, ":stateMachine:"); ok {
		return before + ":execution:" + after + ":" + name
	}
	return machineARN + ":" + name
}

// retryDelay is IntervalSeconds × BackoffRate^attempt, capped by MaxDelaySeconds.
func (rt *retrier) retryDelay(attempt int) time.Duration {
	d := rt.interval * math.Pow(rt.backoff, float64(attempt))
	if rt.maxDelay > 0 && d > rt.maxDelay {
		d = rt.maxDelay
	}
	// A large BackoffRate without MaxDelaySeconds overflows a Duration: wait the longest one.
	if d*float64(time.Second) >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(d * float64(time.Second))
}
