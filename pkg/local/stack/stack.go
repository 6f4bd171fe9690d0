// Package stack is Drift Gardener's AWS stack on one machine. It reads template.yaml for all of
// its wiring — each state machine's definition and substitutions, each function's logical id,
// the EventBridge rule patterns, the schedule, the HttpApi routes — builds each function through
// the constructor its Lambda's main builds it with (handler.Functions), runs the same ASL files
// in the in-process interpreter, calls the same handlers through aws-lambda-go's handler wrapper
// (the JSON round trip of Lambda), matches rules on an in-process bus, fires the schedule from a
// local timer, serves the review API's router on localhost, and logs what would go to SNS.
package stack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/asl"
	"github.com/driftgardener/gardener/pkg/local/eventbus"
	"github.com/driftgardener/gardener/pkg/local/template"
)

// EventSource is the source of the events the gardener itself puts on the bus.
const EventSource = "drift-gardener"

// Config is what a local stack runs with. New fills in the services' notifier, event bus and
// starter with the stack's own, and the repair machine from the template; the caller gives the
// store, the runner and the models.
type Config struct {
	Template string
	Services handler.Services
	// Parameters override the template's parameter defaults.
	Parameters map[string]string
	Log        *slog.Logger
	// OnNotify is called with every message published to the auto-repair topic.
	OnNotify func(Message)
	// Ledger keeps the executions beyond this process (the embedded store); nil keeps them in
	// memory, so a restart forgets them.
	Ledger Ledger
}

// Ledger keeps the stack's executions and their status, so that they outlive the process: a
// restarted stack answers for the executions of the one before, and a start under the name of
// one it finds is answered as Step Functions answers it, with that execution, never a second
// run under the same name (whose events would go to the same log).
type Ledger interface {
	// PutMachineExecution records an execution or its new state.
	PutMachineExecution(ctx context.Context, x gardener.MachineExecution) error
	// MachineExecution reads one; a *gardener.NotFoundError when there is none.
	MachineExecution(ctx context.Context, id string) (gardener.MachineExecution, error)
	// MachineExecutions lists them all.
	MachineExecutions(ctx context.Context) ([]gardener.MachineExecution, error)
}

// Message is one SNS publish, as the local stack logs it.
type Message struct {
	Subject string          `json:"subject"`
	Body    json.RawMessage `json:"body"`
	At      time.Time       `json:"at"`
}

// Stack is a running local stack.
type Stack struct {
	cfg       Config
	tpl       *template.Template
	services  handler.Services
	invokers  map[string]asl.Invoker
	api       *handler.API
	machines  map[string]*asl.Machine
	Bus       *eventbus.Bus
	Scheduler *eventbus.Scheduler
	log       *slog.Logger

	mu         sync.Mutex
	executions map[string]*execution
	messages   []Message
	wg         sync.WaitGroup
}

type execution struct {
	arn, name, machine string
	input              json.RawMessage
	done               bool
	result             *asl.Execution
}

// New builds the stack from the template: one invoker per function, one machine per state
// machine, a bus rule per EventBridge event, a schedule per Schedule event.
func New(cfg Config) (*Stack, error) {
	tpl, err := template.Load(cfg.Template, cfg.Parameters)
	if err != nil {
		return nil, err
	}
	s := &Stack{cfg: cfg, tpl: tpl, invokers: map[string]asl.Invoker{}, machines: map[string]*asl.Machine{}, executions: map[string]*execution{}, log: cfg.Log}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.Bus = eventbus.New(cfg.Services.Now)
	s.Scheduler = eventbus.NewScheduler(cfg.Services.Now)
	s.services = cfg.Services
	s.services.Notifier, s.services.Events, s.services.Starter = s, s, s
	if s.services.ConsoleAuth == nil {
		// The local console signs people in with development identities, as the local API
		// takes development tokens.
		if s.services.ConsoleAuth, err = console.DevAuth(); err != nil {
			return nil, err
		}
	}
	if s.services.RepairMachine == "" {
		// The API function names the machine it starts in its environment, as in AWS.
		if f, ok := tpl.Functions["ApiFunction"]; ok {
			switch v := f.Environment["REPAIR_STATE_MACHINE_ARN"].(type) {
			case string:
				s.services.RepairMachine = v
			case map[string]any:
				if id, ok := v["Ref"].(string); ok {
					if sm, ok := tpl.StateMachines[id]; ok {
						s.services.RepairMachine = sm.ARN()
					}
				}
			}
		}
	}
	if s.services.Log == nil {
		s.services.Log = s.log
	}
	if err := s.wireFunctions(); err != nil {
		return nil, err
	}
	if err := s.wireMachines(); err != nil {
		return nil, err
	}
	if err := s.endInterrupted(); err != nil {
		return nil, err
	}
	return s, nil
}

// interruptedCause is why an execution a stopped process was running reads as ABORTED.
const interruptedCause = "the local stack stopped while this execution ran (its process ended); it was not resumed: ask again to start a new attempt"

// endInterrupted marks ABORTED the executions the ledger has as running: the store is this
// process's alone (bbolt locks its file), so the process that ran them is gone, and nothing of
// it will append to their logs again. A request asked again starts a new attempt under a new
// name, with a log of its own (see gardening's manual start, which supersedes an ended claim).
func (s *Stack) endInterrupted() error {
	if s.cfg.Ledger == nil {
		return nil
	}
	ctx := context.Background()
	xs, err := s.cfg.Ledger.MachineExecutions(ctx)
	if err != nil {
		return fmt.Errorf("local stack: reading the executions of the last run: %w", err)
	}
	for _, x := range xs {
		if x.Status != string(asl.StatusRunning) {
			continue
		}
		x.Status, x.Cause, x.Stopped = string(asl.StatusAborted), interruptedCause, s.now()
		if err := s.cfg.Ledger.PutMachineExecution(ctx, x); err != nil {
			return fmt.Errorf("local stack: ending execution %s of the last run: %w", x.Name, err)
		}
		s.log.Warn("execution interrupted", "machine", x.Machine, "execution", x.Name, "cause", interruptedCause)
	}
	return nil
}

// Template is the template the stack was built from.
func (s *Stack) Template() *template.Template { return s.tpl }

// wireFunctions builds each function of the template the way its Lambda does and wraps its
// handler in aws-lambda-go's handler, so every call makes the JSON round trip it makes in Lambda,
// each call with a response of its own (handler.JSONHandler): calls run at once here, as they
// do in Lambda in instances of their own.
// It refuses a template function that handler.Functions does not know and one that cannot be
// built, as its cold start would fail; the functions the template's routes go to must serve
// HTTP.
func (s *Stack) wireFunctions() error {
	byID := map[string]handler.Function{}
	for _, f := range handler.Functions {
		byID[f.ID] = f
	}
	var missing []string
	for _, id := range slices.Sorted(maps.Keys(s.tpl.Functions)) {
		fn, ok := byID[id]
		if !ok {
			missing = append(missing, id)
			continue
		}
		h, err := fn.Build(s.services)
		if err != nil {
			return fmt.Errorf("local stack: %w", err)
		}
		if api, ok := h.(*handler.API); ok {
			s.api = api
		}
		// A task of the repair machine is invoked with its payload enveloped beside its
		// execution's id; handler.Task takes the envelope off as it does in Lambda.
		var wrapped = handler.JSONHandler(h)
		if _, api := h.(*handler.API); !api {
			wrapped = handler.Task(wrapped, s.services, handler.Billing{})
		}
		name := id
		f := s.tpl.Functions[id]
		arch := "x86_64" // Lambda's default
		if n := len(f.Architectures); n > 0 {
			arch = f.Architectures[n-1]
		}
		s.invokers[id] = func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			// Each invocation is billed for its time at the function's memory size, failed or not.
			start := time.Now()
			out, err := wrapped.Invoke(ctx, in)
			gardener.MeterOf(ctx).Invoked(name, arch, f.MemorySize, time.Since(start))
			if err != nil {
				s.log.Info("function error", "function", name, "error", err.Error(), "type", fmt.Sprintf("%T", err))
				return nil, err
			}
			return out, nil
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("local stack: no handler for the template's functions %s", strings.Join(missing, ", "))
	}
	for _, r := range s.tpl.Routes {
		if r.Function != handler.ApiFunction.ID {
			return fmt.Errorf("local stack: the route %s %s goes to %s, which is not the review API", r.Method, r.Path, r.Function)
		}
	}
	for id, f := range s.tpl.Functions {
		for _, ev := range f.Events {
			if ev.Type != "Schedule" && ev.Type != "ScheduleV2" {
				continue
			}
			inv := s.invokers[id]
			if err := s.Scheduler.Add(id+"."+ev.Name, ev.Schedule, func(ctx context.Context, event json.RawMessage) error {
				_, err := inv(ctx, event)
				return err
			}); err != nil {
				return fmt.Errorf("local stack: schedule of %s: %w", id, err)
			}
		}
	}
	return nil
}

func (s *Stack) wireMachines() error {
	for id, sm := range s.tpl.StateMachines {
		def, err := s.tpl.Definition(id)
		if err != nil {
			return err
		}
		m, err := asl.Parse(def, asl.Config{Name: id, ARN: sm.ARN(), Now: s.services.Now, Resolve: s.resolve})
		if err != nil {
			return fmt.Errorf("local stack: state machine %s: %w", id, err)
		}
		s.machines[id] = m
		machine := id
		target := func(ctx context.Context, event json.RawMessage) error {
			_, err := s.start(ctx, machine, "", event)
			return err
		}
		for _, ev := range sm.Events {
			switch ev.Type {
			case "EventBridgeRule":
				if err := s.Bus.AddRule(id+"."+ev.Name, ev.Pattern, target); err != nil {
					return fmt.Errorf("local stack: rule %s of %s: %w", ev.Name, id, err)
				}
			case "Schedule", "ScheduleV2":
				if err := s.Scheduler.Add(id+"."+ev.Name, ev.Schedule, target); err != nil {
					return fmt.Errorf("local stack: schedule %s of %s: %w", ev.Name, id, err)
				}
			}
		}
	}
	return nil
}

// resolve maps a Task's Resource (a function ARN after substitution) to its invoker.
func (s *Stack) resolve(resource string) (asl.Invoker, error) {
	id, ok := template.FunctionFromARN(resource)
	if !ok {
		return nil, fmt.Errorf("resource %s is not a function of the template", resource)
	}
	inv, ok := s.invokers[id]
	if !ok {
		return nil, fmt.Errorf("no function %s", id)
	}
	return inv, nil
}

// Invoke calls one function by logical id with a JSON payload, as `sam local invoke` does.
func (s *Stack) Invoke(ctx context.Context, function string, payload []byte) (json.RawMessage, error) {
	inv, ok := s.invokers[function]
	if !ok {
		return nil, fmt.Errorf("no function %s in the template", function)
	}
	return inv(ctx, payload)
}

// Publish implements handler.Notifier: the local stand-in for the SNS topic logs the message.
func (s *Stack) Publish(_ context.Context, subject string, message any) error {
	b, err := json.Marshal(message)
	if err != nil {
		return fmt.Errorf("local sns: %w", err)
	}
	m := Message{Subject: subject, Body: b, At: s.now()}
	s.mu.Lock()
	s.messages = append(s.messages, m)
	s.mu.Unlock()
	s.log.Info("sns publish", "subject", subject, "message", string(b))
	if s.cfg.OnNotify != nil {
		s.cfg.OnNotify(m)
	}
	return nil
}

// Messages returns what was published so far.
func (s *Stack) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// PutEvent implements handler.Publisher on the in-process bus.
func (s *Stack) PutEvent(ctx context.Context, detailType string, detail any) error {
	b, err := json.Marshal(detail)
	if err != nil {
		return fmt.Errorf("local events: %w", err)
	}
	_, err = s.Bus.Put(ctx, eventbus.Entry{Source: EventSource, DetailType: detailType, Detail: b})
	return err
}

// Start implements handler.Starter: it starts an execution in the background. A second start
// with the same name and input returns the same execution; with another input it is refused,
// as Step Functions refuses it.
func (s *Stack) Start(ctx context.Context, machine, name string, input any) (string, error) {
	b, err := json.Marshal(input)
	if err != nil {
		return "", fmt.Errorf("local states: %w", err)
	}
	id := machine
	if i := strings.LastIndex(machine, ":"); i >= 0 {
		id = machine[i+1:]
	}
	return s.start(ctx, id, name, b)
}

// ExecutionExistsError is a start under a name already used with another input.
type ExecutionExistsError struct{ Name string }

func (e *ExecutionExistsError) Error() string {
	return fmt.Sprintf("execution %s already exists with another input", e.Name)
}

func (s *Stack) start(ctx context.Context, machine, name string, input json.RawMessage) (string, error) {
	m, ok := s.machines[machine]
	if !ok {
		return "", fmt.Errorf("no state machine %s in the template", machine)
	}
	if name == "" {
		name = fmt.Sprintf("%s-%d", strings.ToLower(machine), s.now().UnixNano())
	}
	arn := strings.Replace(m.ARN(), ":stateMachine:", ":execution:", 1) + ":" + name
	s.mu.Lock()
	defer s.mu.Unlock()
	if prior, ok := s.executions[arn]; ok {
		if string(prior.input) != string(input) {
			return "", &ExecutionExistsError{Name: name}
		}
		return arn, nil
	}
	rec := gardener.MachineExecution{ID: arn, Name: name, Machine: machine, Input: input, Status: string(asl.StatusRunning), Started: s.now()}
	if s.cfg.Ledger != nil {
		// An execution of an earlier process under this name: the same answer as for one of
		// this process, and it is not run again.
		prior, err := s.cfg.Ledger.MachineExecution(ctx, arn)
		switch {
		case err == nil && string(prior.Input) != string(input):
			return "", &ExecutionExistsError{Name: name}
		case err == nil:
			return arn, nil
		case !errors.Is(err, gardener.ErrNotFound):
			return "", fmt.Errorf("local states: execution %s: %w", name, err)
		}
		// Recorded before it runs: a crash from here on leaves it RUNNING, which the next
		// process ends (endInterrupted) rather than running it again.
		if err := s.cfg.Ledger.PutMachineExecution(ctx, rec); err != nil {
			return "", fmt.Errorf("local states: recording execution %s: %w", name, err)
		}
	}
	ex := &execution{arn: arn, name: name, machine: machine, input: input}
	s.executions[arn] = ex
	s.log.Info("execution started", "machine", machine, "execution", name)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		// An execution outlives the request that started it, as in Step Functions. What it
		// uses is measured while it runs: its functions' invocations, their store calls and
		// their model calls find the meter in the context they are invoked with.
		meter := &gardener.Meter{}
		res, err := m.Run(gardener.WithMeter(context.Background(), meter), name, input)
		if res != nil {
			meter.Transitions(res.Transitions())
		}
		s.recordCost(machine, name, input, meter.Usage())
		s.mu.Lock()
		ex.done, ex.result = true, res
		s.mu.Unlock()
		s.record(rec, res, err)
		switch {
		case err != nil:
			s.log.Error("execution", "machine", machine, "execution", name, "error", err.Error())
		case res.Status != asl.StatusSucceeded:
			s.log.Warn("execution ended", "machine", machine, "execution", name, "status", res.Status, "error", res.Failure.Name, "cause", res.Failure.Cause)
		default:
			s.log.Info("execution ended", "machine", machine, "execution", name, "status", res.Status)
		}
	}()
	return arn, nil
}

// recordCost records what an execution of the repair machine used with the run it repaired,
// through the application layer every door reads it from. It is recorded before the execution
// reads as ended, so whoever sees it end finds its cost.
func (s *Stack) recordCost(machine, name string, input json.RawMessage, u gardener.RepairUsage) {
	if s.machines[machine] == nil || s.machines[machine].ARN() != s.services.RepairMachine || s.services.Store == nil {
		return
	}
	app, err := gardening.New(gardening.Deps{Store: s.services.Store, Now: s.services.Now, Log: s.log})
	if err == nil {
		_, err = app.RecordExecutionCost(context.Background(), name, input, u)
	}
	if err != nil {
		s.log.Error("recording the cost of an execution", "machine", machine, "execution", name, "error", err.Error())
	}
}

// record writes how an execution ended to the ledger.
func (s *Stack) record(rec gardener.MachineExecution, res *asl.Execution, err error) {
	if s.cfg.Ledger == nil {
		return
	}
	rec.Stopped = s.now()
	switch {
	case err != nil:
		rec.Status, rec.Cause = string(asl.StatusFailed), err.Error()
	default:
		rec.Status, rec.Output = string(res.Status), res.Output
		if res.Failure != nil {
			rec.Cause = res.Failure.Name + ": " + res.Failure.Cause
		}
	}
	// The execution outlived the request that started it; so does its record.
	if err := s.cfg.Ledger.PutMachineExecution(context.Background(), rec); err != nil {
		s.log.Error("recording the end of an execution", "machine", rec.Machine, "execution", rec.Name, "error", err.Error())
	}
}

// Describe implements handler.Starter: an execution of this process, or one the ledger keeps
// of an earlier one.
func (s *Stack) Describe(ctx context.Context, executionID string) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ex, ok := s.executions[executionID]
	if !ok && s.cfg.Ledger != nil {
		x, err := s.cfg.Ledger.MachineExecution(ctx, executionID)
		if errors.Is(err, gardener.ErrNotFound) {
			return "", "", &gardener.NotFoundError{Entity: "execution", ID: executionID}
		}
		if err != nil {
			return "", "", fmt.Errorf("local states: execution %s: %w", executionID, err)
		}
		return x.Status, string(x.Output), nil
	}
	if !ok {
		return "", "", &gardener.NotFoundError{Entity: "execution", ID: executionID}
	}
	if !ex.done || ex.result == nil {
		return string(asl.StatusRunning), "", nil
	}
	return string(ex.result.Status), string(ex.result.Output), nil
}

// Executions returns the finished executions of a machine, oldest first.
func (s *Stack) Executions(machine string) []*asl.Execution {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*asl.Execution
	for _, ex := range s.executions {
		if ex.machine == machine && ex.done && ex.result != nil {
			out = append(out, ex.result)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartTime.Before(out[j].StartTime) })
	return out
}

// Wait blocks until every execution started so far (and any they started) has ended.
func (s *Stack) Wait() { s.wg.Wait() }

func (s *Stack) now() time.Time {
	if s.services.Now != nil {
		return s.services.Now()
	}
	return time.Now()
}
