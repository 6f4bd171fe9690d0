package dynamo

import (
	"context"
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
