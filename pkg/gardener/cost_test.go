package gardener

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"
)

// TestCostByHand: each component of a repair's cost against figures worked out by hand at the
// list prices (us-east-1).
func TestCostByHand(t *testing.T) {
	u := RepairUsage{
		Transitions: 12,
		Lambda: []LambdaUse{
			{Function: "SelfHealFunction", Architecture: "arm64", MemoryMB: 2048, Invocations: 3, BilledMillis: 1500},
			{Function: "PersistFunction", Architecture: "x86_64", MemoryMB: 512, Invocations: 1, BilledMillis: 200},
		},
		WriteUnits: 10, ReadUnits: 8,
		Model: "bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0", InputTokens: 2000, OutputTokens: 500,
	}
	c := ListPrices.Cost(u)
	want := map[string][2]float64{ // component: quantity, USD
		"transitions":     {12, 12.0 / 1000 * 0.025},                // 0.0003
		"lambda-requests": {4, 4.0 / 1e6 * 0.20},                    // 0.0000008
		"lambda-compute":  {3.1, 3*0.0000133334 + 0.1*0.0000166667}, // 2 GB × 1.5 s arm64 + 0.5 GB × 0.2 s x86_64
		"dynamodb-writes": {10, 10.0 / 1e6 * 0.625},
		"dynamodb-reads":  {8, 8.0 / 1e6 * 0.125},
		"model-input":     {2000, 2 * 0.003},
		"model-output":    {500, 0.5 * 0.015},
	}
	if len(c.Parts) != len(want) {
		t.Fatalf("parts %+v; want the %d components", c.Parts, len(want))
	}
	for _, p := range c.Parts {
		w, ok := want[p.Component]
		if !ok || math.Abs(p.Quantity-w[0]) > 1e-9 || math.Abs(p.USD-w[1]) > 1e-12 {
			t.Errorf("%s: %v %s for $%.12f; want %v for $%.12f", p.Component, p.Quantity, p.Unit, p.USD, w[0], w[1])
		}
	}
	const total = 0.0003 + 0.0000008 + 0.0000400002 + 0.00000166667 + 0.00000625 + 0.000001 + 0.006 + 0.0075
	if math.Abs(c.USD-total) > 1e-12 || len(c.Unpriced) != 0 {
		t.Errorf("total $%.12f (unpriced %v); want $%.12f", c.USD, c.Unpriced, total)
	}
	if got := FormatUSD(c.USD); got != "$0.01385" {
		t.Errorf("FormatUSD(%v) = %s; want $0.01385", c.USD, got)
	}
}

// TestCostNamesWhatHasNoPrice: tokens of a model with no list price, and an architecture Lambda
// does not bill, are said to be left out of the total, not priced at zero in silence.
func TestCostNamesWhatHasNoPrice(t *testing.T) {
	c := ListPrices.Cost(RepairUsage{Model: "bedrock:anthropic.other-v9", InputTokens: 10,
		Lambda: []LambdaUse{{Function: "F", Architecture: "sparc", MemoryMB: 128, Invocations: 1, BilledMillis: 5}}})
	if len(c.Unpriced) != 2 {
		t.Errorf("unpriced %v; want the model's tokens and the architecture named", c.Unpriced)
	}
	if c.USD != 1.0/1e6*0.20 {
		t.Errorf("total $%v; want the one request alone", c.USD)
	}
	if c := ListPrices.Cost(RepairUsage{Model: "builtin"}); len(c.Unpriced) != 0 || c.USD != 0 {
		t.Errorf("a repair that used nothing: %+v; want $0 and nothing unpriced", c)
	}
}

// TestMeterCounts: a meter sums what concurrent adapters report; Lambda bills each invocation
// rounded up to the millisecond; request units round up per KB written and per 4 KB read.
func TestMeterCounts(t *testing.T) {
	m := &Meter{}
	ctx := WithMeter(context.Background(), m)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			MeterOf(ctx).Transitions(2)
			MeterOf(ctx).Invoked("F", "arm64", 1024, 1000100*time.Nanosecond) // 1.0001 ms: billed 2 ms
			MeterOf(ctx).Wrote(WriteUnits(1025, false))
			MeterOf(ctx).Read(ReadUnits(4097))
			MeterOf(ctx).Model(Usage{Model: "bedrock:m", Calls: 1, InputTokens: 3, OutputTokens: 1})
		}()
	}
	wg.Wait()
	u := m.Usage()
	if u.Transitions != 20 || u.Invocations() != 10 || u.Lambda[0].BilledMillis != 20 || u.WriteUnits != 20 || u.ReadUnits != 20 ||
		u.ModelCalls != 10 || u.InputTokens != 30 || u.OutputTokens != 10 || u.Model != "bedrock:m" {
		t.Errorf("usage %+v", u)
	}
	if WriteUnits(1024, false) != 1 || WriteUnits(0, true) != 2 || ReadUnits(4096) != 1 {
		t.Error("request units do not round up per KB written and per 4 KB read")
	}
	var none *Meter // outside a repair nothing is counted, and nothing fails
	none.Transitions(1)
	if MeterOf(context.Background()) != nil || none.Usage().Transitions != 0 {
		t.Error("a context without a meter counted")
	}
}

// TestTransitionsOfBothHistories: one count for the local interpreter's history and for AWS's,
// each entry of a state and each retry once. The AWS history is the shape GetExecutionHistory
// gives a Lambda task that failed once, was retried and then caught, and a Map of two items.
func TestTransitionsOfBothHistories(t *testing.T) {
	local := []HistoryEvent{{Type: "ExecutionStarted"}, {Type: "StateEntered"}, {Type: "TaskScheduled"}, {Type: "TaskFailed"},
		{Type: "RetryScheduled"}, {Type: "TaskScheduled"}, {Type: "TaskSucceeded"}, {Type: "StateExited"}, {Type: "StateEntered"}, {Type: "ExecutionSucceeded"}}
	if n := Transitions(local); n != 3 {
		t.Errorf("local history: %d transitions; want 3 (two states, one retry)", n)
	}
	aws := []HistoryEvent{{Type: "ExecutionStarted"},
		{Type: "TaskStateEntered", Previous: "ExecutionStarted"},
		{Type: "LambdaFunctionScheduled", Previous: "TaskStateEntered"},
		{Type: "LambdaFunctionStarted", Previous: "LambdaFunctionScheduled"},
		{Type: "LambdaFunctionFailed", Previous: "LambdaFunctionStarted"},
		{Type: "LambdaFunctionScheduled", Previous: "LambdaFunctionFailed"}, // the retry
		{Type: "LambdaFunctionStarted", Previous: "LambdaFunctionScheduled"},
		{Type: "LambdaFunctionTimedOut", Previous: "LambdaFunctionStarted"},
		{Type: "TaskStateExited", Previous: "LambdaFunctionTimedOut"}, // caught: no retry left
		{Type: "MapStateEntered", Previous: "TaskStateExited"},
		{Type: "MapIterationStarted", Previous: "MapStateEntered"},
		{Type: "PassStateEntered", Previous: "MapIterationStarted"},
		{Type: "MapIterationStarted", Previous: "MapStateEntered"},
		{Type: "PassStateEntered", Previous: "MapIterationStarted"},
		{Type: "MapStateExited", Previous: "PassStateEntered"},
		{Type: "FailStateEntered", Previous: "MapStateExited"},
		{Type: "ExecutionFailed", Previous: "FailStateEntered"}}
	if n := Transitions(aws); n != 6 {
		t.Errorf("AWS history: %d transitions; want 6 (Task, its retry, Map, two iterations' Pass, Fail)", n)
	}
}

// TestUsagePlus: an invocation's usage adds to its execution's; the transitions are each
// invocation's count of the history so far, so the larger is kept.
func TestUsagePlus(t *testing.T) {
	a := RepairUsage{Transitions: 5, WriteUnits: 1, ReadUnits: 2, ModelCalls: 1, InputTokens: 10, OutputTokens: 1,
		Lambda: []LambdaUse{{Function: "SelfHealFunction", Architecture: "arm64", MemoryMB: 2048, Invocations: 1, BilledMillis: 100}}}
	b := RepairUsage{Transitions: 3, WriteUnits: 0.5, Model: "m", ModelCalls: 2, InputTokens: 5, OutputTokens: 2,
		Lambda: []LambdaUse{{Function: "SelfHealFunction", Architecture: "arm64", MemoryMB: 2048, Invocations: 1, BilledMillis: 7},
			{Function: "PersistFunction", Architecture: "arm64", MemoryMB: 512, Invocations: 1, BilledMillis: 3}}}
	got := a.Plus(b)
	if got.Transitions != 5 || got.WriteUnits != 1.5 || got.ReadUnits != 2 || got.Model != "m" || got.ModelCalls != 3 || got.InputTokens != 15 || got.OutputTokens != 3 {
		t.Errorf("sum %+v", got)
	}
	if len(got.Lambda) != 2 || got.Lambda[0].Function != "PersistFunction" || got.Lambda[1].Invocations != 2 || got.Lambda[1].BilledMillis != 107 {
		t.Errorf("functions %+v; want PersistFunction once and SelfHealFunction twice for 107 ms", got.Lambda)
	}
	if a.Lambda[0].Invocations != 1 {
		t.Error("Plus changed its receiver's functions")
	}
}
