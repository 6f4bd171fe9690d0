package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// PutExecution records an execution the API started, listed under its run in GSI1.
func (s *Store) PutExecution(ctx context.Context, x gardener.Execution) error {
	if err := need("execution id", x.ID); err != nil {
		return err
	}
	it := key("X#"+x.ID, "EXECUTION")
	it["GSI1PK"] = avS("R#" + x.RunID + "#EXECUTIONS")
	it["GSI1SK"] = avS(timeKey(x.At) + "#" + x.ID)
	err := s.putDoc(ctx, it, x, "attribute_not_exists(PK)", nil)
	if conditionFailed(err) {
		return &gardener.ConflictError{Entity: "execution", ID: x.ID, Reason: "recorded already"}
	}
	return err
}

// Execution reads an execution's record.
func (s *Store) Execution(ctx context.Context, id string) (x gardener.Execution, err error) {
	_, err = s.getDoc(ctx, "X#"+id, "EXECUTION", "execution", id, &x)
	return x, err
}

// RunExecutions lists a run's executions, newest first.
func (s *Store) RunExecutions(ctx context.Context, runID string) ([]gardener.Execution, error) {
	items, err := s.queryIndex(ctx, "GSI1", "R#"+runID+"#EXECUTIONS", "", true)
	if err != nil {
		return nil, err
	}
	out := []gardener.Execution{}
	for _, it := range items {
		if strings.Contains(getS(it, "SK"), "#CHUNK#") {
			continue
		}
		var x gardener.Execution
		if _, err := s.decodeDoc(ctx, it, &x); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// ClaimExecution takes the (run, asker) claim with one conditional put on its item: DynamoDB
// evaluates the condition and writes the item as one operation, so of racing starters exactly
// one wins. The claim's name is kept beside the body, where the condition can read it.
func (s *Store) ClaimExecution(ctx context.Context, c gardener.ExecutionClaim, supersede string) (gardener.ExecutionClaim, error) {
	if err := need("claim run id", c.RunID); err != nil {
		return gardener.ExecutionClaim{}, err
	}
	if err := need("claim execution name", c.Name); err != nil {
		return gardener.ExecutionClaim{}, err
	}
	pk, sk, id := "R#"+c.RunID, "CLAIM#"+c.By, c.RunID+"/"+c.By
	cond, values := "attribute_not_exists(PK)", item{}
	if supersede != "" {
		cond, values = cond+" OR claimName = :prev", item{":prev": avS(supersede)}
	}
	it := key(pk, sk)
	it["claimName"] = avS(c.Name)
	err := s.putDoc(ctx, it, c, cond, values)
	if err == nil {
		return c, nil
	}
	if !conditionFailed(err) {
		return gardener.ExecutionClaim{}, fmt.Errorf("claim execution of run %s for %s: %w", c.RunID, c.By, err)
	}
	var held gardener.ExecutionClaim
	if _, err := s.getDoc(ctx, pk, sk, "execution claim", id, &held); err != nil {
		return gardener.ExecutionClaim{}, fmt.Errorf("claim execution of run %s for %s: reading the claim that holds it: %w", c.RunID, c.By, err)
	}
	return held, &gardener.ConflictError{Entity: "execution claim", ID: id, Reason: "held by execution " + held.Name}
}

// PutRepairCost records a repair's cost under its run, one item per execution: a second record
// of the same execution replaces the first.
func (s *Store) PutRepairCost(ctx context.Context, c gardener.RepairCost) error {
	if err := need("repair cost run id", c.RunID); err != nil {
		return err
	}
	it := key("R#"+c.RunID, "COST#"+c.Execution)
	it["GSI1PK"] = avS("R#" + c.RunID + "#COSTS")
	it["GSI1SK"] = avS(timeKey(c.At) + "#" + c.Execution)
	return s.putDoc(ctx, it, c, "", nil)
}

// RepairCosts lists a run's repair costs, newest first.
func (s *Store) RepairCosts(ctx context.Context, runID string) ([]gardener.RepairCost, error) {
	items, err := s.queryIndex(ctx, "GSI1", "R#"+runID+"#COSTS", "", true)
	if err != nil {
		return nil, err
	}
	out := []gardener.RepairCost{}
	for _, it := range items {
		if strings.Contains(getS(it, "SK"), "#CHUNK#") {
			continue
		}
		if strings.HasPrefix(getS(it, "SK"), usagePrefix) {
			out = append(out, usageRecord(it))
			continue
		}
		var c gardener.RepairCost
		if _, err := s.decodeDoc(ctx, it, &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
