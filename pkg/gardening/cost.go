package gardening

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// RecordCost computes what a repair of run used at the list prices and records it with the
// run, under execution (the repair state machine's execution; empty for a repair made in this
// process). The store's own writes for the record are not the repair's and are not counted.
func (s *Service) RecordCost(ctx context.Context, run gardener.Run, execution string, u gardener.RepairUsage) (gardener.RepairCost, error) {
	c := gardener.RepairCost{RunID: run.ID, ProjectID: run.ProjectID, TestID: run.TestID, Execution: execution, At: s.now(),
		Usage: u, Cost: gardener.ListPrices.Cost(u)}
	if err := s.d.Store.PutRepairCost(gardener.WithMeter(ctx, nil), c); err != nil {
		return c, fmt.Errorf("recording the cost of the repair of run %s: %w", run.ID, err)
	}
	return c, nil
}

// RecordExecutionCost records the cost of one execution of the repair state machine, found by
// its input (the run it repairs). An input that names no run (not the repair machine's) records
// nothing.
func (s *Service) RecordExecutionCost(ctx context.Context, execution string, input json.RawMessage, u gardener.RepairUsage) (*gardener.RepairCost, error) {
	var in RepairInput
	if err := json.Unmarshal(input, &in); err != nil || in.Detail.RunID == "" {
		return nil, nil
	}
	d := in.Detail
	c, err := s.RecordCost(ctx, gardener.Run{ID: d.RunID, ProjectID: d.ProjectID, TestID: d.TestID}, execution, u)
	return &c, err
}

// AddExecutionUsage adds what one Lambda invocation of an execution of the repair state machine
// used to the execution's cost record, found by the execution's input (the run it repairs):
// what a function on AWS records as its invocation ends, where only it can measure its time,
// its store calls and its model calls. The transitions are counted from the execution's history
// as the invocation read it (so far: the record keeps the largest count, the last
// invocation's). An input that names no run (not the repair machine's) records nothing. The
// store's own writes for the record are not the repair's and are not counted.
func (s *Service) AddExecutionUsage(ctx context.Context, execution string, input json.RawMessage, history []gardener.HistoryEvent, u gardener.RepairUsage) error {
	u.Transitions = gardener.Transitions(history)
	var in RepairInput
	if err := json.Unmarshal(input, &in); err != nil || in.Detail.RunID == "" {
		return nil
	}
	return s.AddRunUsage(ctx, execution, in.Detail, u)
}

// AddRunUsage adds what one Lambda invocation of an execution of the repair state machine used
// to the cost record of the run it repairs, when the invocation knows the run without the
// execution's history (the gate the machine passes every task after Eligibility): u's
// transitions, usually none, are kept only if larger than the record's. A run with no id
// records nothing.
func (s *Service) AddRunUsage(ctx context.Context, execution string, run RunFailed, u gardener.RepairUsage) error {
	if run.RunID == "" {
		return nil
	}
	c := gardener.RepairCost{RunID: run.RunID, ProjectID: run.ProjectID, TestID: run.TestID, Execution: execution, At: s.now(), Usage: u}
	if err := s.d.Store.AddRepairUsage(gardener.WithMeter(ctx, nil), c); err != nil {
		return fmt.Errorf("adding to the cost of the repair of run %s: %w", run.RunID, err)
	}
	return nil
}

// RepairCosts lists what each repair of a run cost, newest first: what the run page, the API
// and MCP show with the run.
func (s *Service) RepairCosts(ctx context.Context, runID string) ([]gardener.RepairCost, error) {
	cs, err := s.d.Store.RepairCosts(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("costs of the repairs of run %s: %w", runID, err)
	}
	if cs == nil {
		cs = []gardener.RepairCost{}
	}
	for i, c := range cs {
		if c.Cost.AsOf == "" {
			// A record its invocations added to holds the usage alone: priced here, by
			// the one cost model, as every other record was when it was stored.
			cs[i].Cost = gardener.ListPrices.Cost(c.Usage)
		}
	}
	return cs, nil
}
