package storetest

import (
	"reflect"
	"sync"
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
	{name: "InvocationsAddToAnExecutionsCostAtOnce", run: func(t *testing.T, f *fixture) {
		// What each Lambda invocation of an execution used is added to its record as it ends;
		// a Map's iterations end at once, and every one of them must count.
		const n = 8
		one := func(i int) gardener.RepairCost {
			return gardener.RepairCost{RunID: "r-add", ProjectID: "p-queue", TestID: "t-login", Execution: "exec-1", At: epoch.Add(time.Duration(i) * time.Second),
				Usage: gardener.RepairUsage{Transitions: i + 1, WriteUnits: 1.5, ReadUnits: 0.5, Model: "m-1", ModelCalls: 1, InputTokens: 100, OutputTokens: 10,
					Lambda: []gardener.LambdaUse{{Function: "SelfHealFunction", Architecture: "arm64", MemoryMB: 2048, Invocations: 1, BilledMillis: 7}}}}
		}
		var wg sync.WaitGroup
		errs := make(chan error, n)
		if f.opts.UpdateNotIsolated != "" {
			t.Logf("adding one at a time: %s", f.opts.UpdateNotIsolated)
		}
		for i := range n {
			wg.Add(1)
			go func() { defer wg.Done(); errs <- f.store.AddRepairUsage(f.ctx, one(i)) }()
			if f.opts.UpdateNotIsolated != "" {
				wg.Wait()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("add: %v", err)
			}
		}
		extra := one(0)
		extra.Usage.Lambda = []gardener.LambdaUse{{Function: "PersistFunction", Architecture: "x86_64", MemoryMB: 512, Invocations: 1, BilledMillis: 3}}
		if err := f.store.AddRepairUsage(f.ctx, extra); err != nil {
			t.Fatal(err)
		}
		got, err := f.store.RepairCosts(f.ctx, "r-add")
		if err != nil || len(got) != 1 {
			t.Fatalf("costs of r-add: %+v, %v; want one record", got, err)
		}
		u := got[0].Usage
		want := gardener.RepairUsage{Transitions: n, WriteUnits: 1.5 * (n + 1), ReadUnits: 0.5 * (n + 1), Model: "m-1", ModelCalls: n + 1, InputTokens: 100 * (n + 1), OutputTokens: 10 * (n + 1),
			Lambda: []gardener.LambdaUse{{Function: "PersistFunction", Architecture: "x86_64", MemoryMB: 512, Invocations: 1, BilledMillis: 3},
				{Function: "SelfHealFunction", Architecture: "arm64", MemoryMB: 2048, Invocations: n, BilledMillis: 7 * n}}}
		if !reflect.DeepEqual(u, want) {
			t.Errorf("after %d invocations at once and one more, the record's usage is\n%+v; want\n%+v", n, u, want)
		}
		if g := got[0]; g.RunID != "r-add" || g.Execution != "exec-1" || g.TestID != "t-login" || g.ProjectID != "p-queue" || g.At.IsZero() {
			t.Errorf("the record reads %+v; want run r-add, execution exec-1, its test, project and time", g)
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
