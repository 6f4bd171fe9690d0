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
