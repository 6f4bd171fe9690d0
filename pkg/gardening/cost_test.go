package gardening_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// TestExecutionUsageAddsUpAndIsPriced: what the invocations of one repair execution add is one
// record of the run its input names, with the transitions of the latest history read and the
// price the one cost model gives the sum; an input of another machine records nothing.
func TestExecutionUsageAddsUpAndIsPriced(t *testing.T) {
	store := openStore(t)
	app := newApp(t, gardening.Deps{Store: store})
	ctx := context.Background()
	input := json.RawMessage(`{"detail":{"runId":"r-1","projectId":"p-1","testId":"t-1"}}`)
	entered := func(n int) []gardener.HistoryEvent {
		evs := []gardener.HistoryEvent{{Type: "ExecutionStarted"}}
		for range n {
			evs = append(evs, gardener.HistoryEvent{Type: "TaskStateEntered"})
		}
		return evs
	}
	use := gardener.RepairUsage{WriteUnits: 2, InputTokens: 1000, Model: "bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0",
		Lambda: []gardener.LambdaUse{{Function: "SelfHealFunction", Architecture: "arm64", MemoryMB: 1024, Invocations: 1, BilledMillis: 1000}}}
	for _, n := range []int{1, 3} {
		if err := app.AddExecutionUsage(ctx, "exec-1", input, entered(n), use); err != nil {
			t.Fatal(err)
		}
	}
	if err := app.AddExecutionUsage(ctx, "exec-2", json.RawMessage(`{"detail":{"sweepId":"s"}}`), entered(2), use); err != nil {
		t.Fatal(err)
	}
	costs, err := app.RepairCosts(ctx, "r-1")
	if err != nil || len(costs) != 1 {
		t.Fatalf("costs of r-1: %+v, %v; want one record", costs, err)
	}
	c := costs[0]
	want := use.Plus(use)
	want.Transitions = 3
	if c.Usage.Transitions != 3 || c.Usage.WriteUnits != 4 || c.Usage.Invocations() != 2 || c.Execution != "exec-1" || c.TestID != "t-1" {
		t.Errorf("record %+v; want two invocations' use with the last history's 3 transitions", c)
	}
	if got, wantUSD := c.Cost.USD, gardener.ListPrices.Cost(want).USD; got != wantUSD || got <= 0 || c.Cost.AsOf == "" {
		t.Errorf("priced at %v (as of %q); want %v from the one cost model", got, c.Cost.AsOf, wantUSD)
	}
}
