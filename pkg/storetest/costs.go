package storetest

import (
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// costCases: a repair's cost is recorded with its run, one record per execution, and the
// store's calls made for a repair count the request units they consumed.
var costCases = []testCase{
	{name: "RepairCostsRecordedByRun", run: func(t *testing.T, f *fixture) {
		u := gardener.RepairUsage{Transitions: 9, WriteUnits: 4, ReadUnits: 2.5, InputTokens: 100, OutputTokens: 20,
			Lambda: []gardener.LambdaUse{{Function: "SelfHealFunction", Architecture: "arm64", MemoryMB: 2048, Invocations: 1, BilledMillis: 900}}}
		cost := func(run, execution string, at time.Time) gardener.RepairCost {
			return gardener.RepairCost{RunID: run, ProjectID: "p-queue", TestID: "t-login", Execution: execution, At: at, Usage: u, Cost: gardener.ListPrices.Cost(u)}
		}
		first, second, other := cost("r-1", "manual-a", epoch), cost("r-1", "manual-b", epoch.Add(time.Minute)), cost("r-2", "", epoch)
		for _, c := range []gardener.RepairCost{first, second, other} {
			if err := f.store.PutRepairCost(f.ctx, c); err != nil {
				t.Fatalf("put the cost of %s/%s: %v", c.RunID, c.Execution, err)
			}
		}
		got, err := f.store.RepairCosts(f.ctx, "r-1")
		if err != nil || len(got) != 2 || got[0].Execution != "manual-b" || got[1].Execution != "manual-a" {
			t.Fatalf("costs of r-1: %+v, %v; want manual-b then manual-a", got, err)
		}
		if g := got[1]; g.Usage.Transitions != 9 || g.Usage.Lambda[0].BilledMillis != 900 || g.Cost.USD != first.Cost.USD || !g.At.Equal(epoch) {
			t.Errorf("the cost of r-1/manual-a reads back %+v; want %+v", g, first)
		}
		again := first
		again.Usage.Transitions = 11
		if err := f.store.PutRepairCost(f.ctx, again); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.store.RepairCosts(f.ctx, "r-1"); len(got) != 2 || got[1].Usage.Transitions != 11 {
			t.Errorf("a second record of one execution: %+v; want it to replace the first", got)
		}
		if got, err := f.store.RepairCosts(f.ctx, "r-none"); err != nil || len(got) != 0 {
			t.Errorf("costs of a run never repaired: %+v, %v; want none", got, err)
		}
	}},
	{name: "MeteredCallsCountRequestUnits", run: func(t *testing.T, f *fixture) {
		if f.opts.NoCapacity != "" {
			t.Skipf("SKIP: %s", f.opts.NoCapacity)
		}
		m := &gardener.Meter{}
		ctx := gardener.WithMeter(f.ctx, m)
		if err := f.store.CreateTest(ctx, loginTest("t-metered", "p-queue")); err != nil {
			t.Fatal(err)
		}
		wrote := m.Usage().WriteUnits
		if wrote < 1 {
			t.Fatalf("creating a test counted %v write units; want one or more", wrote)
		}
		if _, err := f.store.Test(ctx, "t-metered"); err != nil {
			t.Fatal(err)
		}
		if u := m.Usage(); u.ReadUnits <= 0 || u.WriteUnits != wrote {
			t.Errorf("reading the test counted %v read units (writes %v, were %v); want some read units and no write", u.ReadUnits, u.WriteUnits, wrote)
		}
		before := m.Usage()
		if _, err := f.store.Test(f.ctx, "t-metered"); err != nil {
			t.Fatal(err)
		}
		if u := m.Usage(); u.ReadUnits != before.ReadUnits || u.WriteUnits != before.WriteUnits {
			t.Error("a call without the meter in its context was counted")
		}
	}},
}
