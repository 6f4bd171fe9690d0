package gardener

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// LambdaUse is what one function of an execution used: how often it was invoked and the
// duration Lambda bills for those invocations (rounded up to the millisecond, each), at the
// memory size and architecture the template configures for it.
type LambdaUse struct {
	Function     string `json:"function"`
	Architecture string `json:"architecture"` // arm64 or x86_64
	MemoryMB     int    `json:"memoryMB"`
	Invocations  int    `json:"invocations"`
	BilledMillis int64  `json:"billedMs"`
}

// GBSeconds is the compute Lambda bills for the use: memory in GB times billed seconds.
func (l LambdaUse) GBSeconds() float64 {
	return float64(l.MemoryMB) / 1024 * float64(l.BilledMillis) / 1000
}

// RepairUsage is what a repair measured while it ran: the state transitions Step Functions bills a
// standard workflow for (each state entered, and each retry), the Lambda invocations and their
// billed time, the DynamoDB request units the store's calls consumed (on-demand), and the model
// tokens the Converse responses reported.
type RepairUsage struct {
	Transitions  int         `json:"transitions"`
	Lambda       []LambdaUse `json:"lambda,omitempty"`
	WriteUnits   float64     `json:"writeUnits"`
	ReadUnits    float64     `json:"readUnits"`
	Model        string      `json:"model,omitempty"`
	ModelCalls   int         `json:"modelCalls"`
	InputTokens  int         `json:"inputTokens"`
	OutputTokens int         `json:"outputTokens"`
}

// Invocations is the number of Lambda invocations the usage counts.
func (u RepairUsage) Invocations() int {
	n := 0
	for _, l := range u.Lambda {
		n += l.Invocations
	}
	return n
}

// GBSeconds is the Lambda compute the usage counts, over all its functions.
func (u RepairUsage) GBSeconds() float64 {
	s := 0.0
	for _, l := range u.Lambda {
		s += l.GBSeconds()
	}
	return s
}

// TokenPrice is a model's on-demand price in USD per 1,000 tokens.
type TokenPrice struct {
	InputPer1K  float64 `json:"inputPer1K"`
	OutputPer1K float64 `json:"outputPer1K"`
}

// Prices are the list prices a cost is computed at, with the day they were read and where.
type Prices struct {
	Region string `json:"region"`
	// AsOf is the day the prices were read from their sources (docs/cost.md names them).
	AsOf string `json:"asOf"`
	// TransitionPer1K is Step Functions' price per 1,000 state transitions (standard workflows).
	TransitionPer1K float64 `json:"transitionPer1K"`
	// LambdaRequestPerMillion is Lambda's price per million requests, any architecture.
	LambdaRequestPerMillion float64 `json:"lambdaRequestPerMillion"`
	// LambdaGBSecond is Lambda's price per GB-second by architecture (the first tier).
	LambdaGBSecond map[string]float64 `json:"lambdaGBSecond"`
	// WriteUnitPerMillion and ReadUnitPerMillion are DynamoDB on-demand request unit prices.
	WriteUnitPerMillion float64 `json:"writeUnitPerMillion"`
	ReadUnitPerMillion  float64 `json:"readUnitPerMillion"`
	// Models are Bedrock on-demand token prices by model id (without the "bedrock:" prefix).
	Models map[string]TokenPrice `json:"models"`
}

// ListPrices are the published us-east-1 list prices a repair's cost is computed at. They are
// data, stated once here; docs/cost.md says where each was read and on which day.
var ListPrices = Prices{
	Region:                  "us-east-1",
	AsOf:                    "2026-12-02",
	TransitionPer1K:         0.025,
	LambdaRequestPerMillion: 0.20,
	LambdaGBSecond:          map[string]float64{"x86_64": 0.0000166667, "arm64": 0.0000133334},
	WriteUnitPerMillion:     0.625,
	ReadUnitPerMillion:      0.125,
	Models: map[string]TokenPrice{
		"anthropic.claude-3-5-sonnet-20240620-v1:0": {InputPer1K: 0.003, OutputPer1K: 0.015},
	},
}

// CostPart is one component of a repair's cost: what was measured and what it costs.
type CostPart struct {
	// Component is one of transitions, lambda-requests, lambda-compute, dynamodb-writes,
	// dynamodb-reads, model-input, model-output.
	Component string  `json:"component"`
	Quantity  float64 `json:"quantity"`
	Unit      string  `json:"unit"`
	USD       float64 `json:"usd"`
}

// Cost is a repair's cost: each component beside the quantity measured, and their total.
type Cost struct {
	Parts []CostPart `json:"parts"`
	USD   float64    `json:"usd"`
	// Region and AsOf name the prices it was computed at.
	Region string `json:"region"`
	AsOf   string `json:"asOf"`
	// Unpriced says what was measured but has no list price here (a model with no published
	// token price, an architecture Lambda does not bill), so a reader knows the total leaves it out.
	Unpriced []string `json:"unpriced,omitempty"`
}

// Cost computes what u costs at p. Every component is listed, a zero one too, so a reader sees
// what was measured as well as what it cost.
func (p Prices) Cost(u RepairUsage) Cost {
	c := Cost{Region: p.Region, AsOf: p.AsOf}
	add := func(component string, q float64, unit string, usd float64) {
		c.Parts = append(c.Parts, CostPart{Component: component, Quantity: q, Unit: unit, USD: usd})
		c.USD += usd
	}
	add("transitions", float64(u.Transitions), "state transitions", float64(u.Transitions)/1000*p.TransitionPer1K)
	add("lambda-requests", float64(u.Invocations()), "invocations", float64(u.Invocations())/1e6*p.LambdaRequestPerMillion)
	compute := 0.0
	for _, l := range u.Lambda {
		price, ok := p.LambdaGBSecond[l.Architecture]
		if !ok {
			c.Unpriced = append(c.Unpriced, fmt.Sprintf("Lambda compute of %s on architecture %q", l.Function, l.Architecture))
			continue
		}
		compute += l.GBSeconds() * price
	}
	add("lambda-compute", u.GBSeconds(), "GB-seconds", compute)
	add("dynamodb-writes", u.WriteUnits, "write request units", u.WriteUnits/1e6*p.WriteUnitPerMillion)
	add("dynamodb-reads", u.ReadUnits, "read request units", u.ReadUnits/1e6*p.ReadUnitPerMillion)
	tp, priced := p.Models[strings.TrimPrefix(u.Model, bedrockPrefix)]
	if !priced && u.InputTokens+u.OutputTokens > 0 {
		c.Unpriced = append(c.Unpriced, fmt.Sprintf("the tokens of model %s", u.Model))
	}
	add("model-input", float64(u.InputTokens), "input tokens", float64(u.InputTokens)/1000*tp.InputPer1K)
	add("model-output", float64(u.OutputTokens), "output tokens", float64(u.OutputTokens)/1000*tp.OutputPer1K)
	return c
}

// bedrockPrefix is how a model spec names a Bedrock model: bedrock:MODEL_ID.
const bedrockPrefix = "bedrock:"

// FormatUSD writes an amount small enough to be a fraction of a cent readably: to four
// significant figures, never in exponent form.
func FormatUSD(v float64) string {
	if v == 0 {
		return "$0"
	}
	digits := max(2, 3-int(math.Floor(math.Log10(math.Abs(v)))))
	return "$" + strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.*f", digits, v), "0"), ".")
}

// Summary is the cost in one line for people: the total and the measured quantities beside it.
func (r RepairCost) Summary() string {
	u := r.Usage
	return fmt.Sprintf("%s at %s list prices of %s: %d state transitions, %d Lambda invocations (%.3f GB-s), %.1f DynamoDB write / %.1f read units, tokens in/out %d/%d",
		FormatUSD(r.Cost.USD), r.Cost.Region, r.Cost.AsOf, u.Transitions, u.Invocations(), u.GBSeconds(), u.WriteUnits, u.ReadUnits, u.InputTokens, u.OutputTokens)
}

// RepairCost is the cost of one repair of a run, recorded with it: one execution of the repair
// state machine, or one repair `gardener repair` ran in process (Execution empty).
type RepairCost struct {
	RunID     string      `json:"runId"`
	ProjectID string      `json:"projectId"`
	TestID    string      `json:"testId"`
	Execution string      `json:"execution,omitempty"`
	At        time.Time   `json:"at"`
	Usage     RepairUsage `json:"usage"`
	Cost      Cost        `json:"cost"`
}

// CostStore keeps the cost of each repair of a run.
type CostStore interface {
	// PutRepairCost records a repair's cost; a second record of the same run and execution
	// replaces the first.
	PutRepairCost(ctx context.Context, c RepairCost) error
	// RepairCosts lists a run's repair costs, newest first.
	RepairCosts(ctx context.Context, runID string) ([]RepairCost, error)
	// AddRepairUsage adds c.Usage (RepairUsage.Plus) to the record of c.RunID and c.Execution,
	// creating it with c's project, test and time when there is none: what each Lambda
	// invocation of an execution on AWS used, measured by the invocation itself. Invocations
	// adding at once (a Map's iterations) all count: the add is atomic. The record's Cost is
	// left for the reader to compute from its usage.
	AddRepairUsage(ctx context.Context, c RepairCost) error
}

// Meter counts what a repair uses while it runs. The adapters that do the work find it in the
// context (MeterOf) and add what they measured; a nil Meter counts nothing, so code that runs
// outside a repair needs no check. It is safe for concurrent use (a Map state's iterations).
type Meter struct {
	mu sync.Mutex
	u  RepairUsage
}

type meterKey struct{}

// WithMeter returns ctx carrying m.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// MeterOf returns the meter ctx carries, or nil.
func MeterOf(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}

// Transitions adds n state transitions.
func (m *Meter) Transitions(n int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.u.Transitions += n
	m.mu.Unlock()
}

// Invoked adds one invocation of function, billed for d rounded up to the millisecond at its
// memory size and architecture.
func (m *Meter) Invoked(function, architecture string, memoryMB int, d time.Duration) {
	if m == nil {
		return
	}
	billed := int64((d + time.Millisecond - 1) / time.Millisecond)
	m.mu.Lock()
	defer m.mu.Unlock()
	i := slices.IndexFunc(m.u.Lambda, func(l LambdaUse) bool { return l.Function == function })
	if i < 0 {
		m.u.Lambda = append(m.u.Lambda, LambdaUse{Function: function, Architecture: architecture, MemoryMB: memoryMB})
		i = len(m.u.Lambda) - 1
	}
	m.u.Lambda[i].Invocations++
	m.u.Lambda[i].BilledMillis += billed
}

// Wrote adds write request units.
func (m *Meter) Wrote(units float64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.u.WriteUnits += units
	m.mu.Unlock()
}

// Read adds read request units.
func (m *Meter) Read(units float64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.u.ReadUnits += units
	m.mu.Unlock()
}

// Model adds what one model call reported it used.
func (m *Meter) Model(u Usage) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.u.Model == "" {
		m.u.Model = u.Model
	}
	m.u.ModelCalls += u.Calls
	m.u.InputTokens += u.InputTokens
	m.u.OutputTokens += u.OutputTokens
}

// Usage is what the meter counted so far.
func (m *Meter) Usage() RepairUsage {
	if m == nil {
		return RepairUsage{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.u
	u.Lambda = slices.Clone(m.u.Lambda)
	slices.SortFunc(u.Lambda, func(a, b LambdaUse) int { return strings.Compare(a.Function, b.Function) })
	return u
}

// WriteUnits is what DynamoDB bills on demand for writing an item of size bytes: one write
// request unit per KB or part of one (twice that in a transaction). The embedded store, which has
// no bill of its own, counts its writes by it.
func WriteUnits(size int, transactional bool) float64 {
	u := math.Ceil(float64(max(size, 1)) / 1024)
	if transactional {
		u *= 2
	}
	return u
}

// ReadUnits is what DynamoDB bills on demand for a strongly consistent read of size bytes: one
// read request unit per 4 KB or part of one.
func ReadUnits(size int) float64 {
	return math.Ceil(float64(max(size, 1)) / 4096)
}

// Plus is u with what one Lambda invocation of the same execution used added: its request
// units, tokens and model calls, and its functions' invocations and billed time. Transitions
// are the execution's count so far, read from its history by each invocation, so the larger
// count is kept rather than a sum (the last invocation's count is the execution's).
func (u RepairUsage) Plus(v RepairUsage) RepairUsage {
	out := u
	out.Transitions = max(u.Transitions, v.Transitions)
	out.WriteUnits += v.WriteUnits
	out.ReadUnits += v.ReadUnits
	if out.Model == "" {
		out.Model = v.Model
	}
	out.ModelCalls += v.ModelCalls
	out.InputTokens += v.InputTokens
	out.OutputTokens += v.OutputTokens
	out.Lambda = slices.Clone(u.Lambda)
	for _, l := range v.Lambda {
		i := slices.IndexFunc(out.Lambda, func(x LambdaUse) bool { return x.Function == l.Function })
		if i < 0 {
			out.Lambda = append(out.Lambda, l)
			continue
		}
		out.Lambda[i].Invocations += l.Invocations
		out.Lambda[i].BilledMillis += l.BilledMillis
	}
	slices.SortFunc(out.Lambda, func(a, b LambdaUse) int { return strings.Compare(a.Function, b.Function) })
	return out
}

// HistoryEvent is one event of a state machine execution's history, as far as counting its
// transitions needs: its type, and the type of the event it follows (AWS's previousEventId;
// empty where the history has no such link).
type HistoryEvent struct {
	Type     string
	Previous string
}

// Transitions is what Step Functions bills a standard workflow's execution for, counted from
// its history: a transition each time a state is entered (in a Map's iterations too), and each
// retry as one more. Both histories are read by it: the local interpreter's, whose entries are
// StateEntered and whose retries are RetryScheduled, and AWS's, whose entries are named by the
// state's type (TaskStateEntered, ChoiceStateEntered …) and whose retry is a task scheduled again
// right after its failure or time-out (LambdaFunctionScheduled following LambdaFunctionFailed).
func Transitions(events []HistoryEvent) int {
	n := 0
	for _, e := range events {
		switch {
		case strings.HasSuffix(e.Type, "StateEntered"), e.Type == "RetryScheduled":
			n++
		case strings.HasSuffix(e.Type, "Scheduled") && (strings.HasSuffix(e.Previous, "Failed") || strings.HasSuffix(e.Previous, "TimedOut")):
			n++
		}
	}
	return n
}
