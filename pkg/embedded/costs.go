package embedded

import (
	"context"
	"errors"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// bCosts keeps the cost of each repair of a run: run id \x00 execution → record.
var bCosts = []byte("repaircosts")

func init() { buckets = append(buckets, bCosts) }

// PutRepairCost records a repair's cost under its run and execution.
func (s *Store) PutRepairCost(ctx context.Context, c gardener.RepairCost) error {
	if err := need("repair cost run id", c.RunID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error { return put(tx, bCosts, key(c.RunID, c.Execution), c) })
}

// RepairCosts lists a run's repair costs, newest first.
func (s *Store) RepairCosts(ctx context.Context, runID string) (out []gardener.RepairCost, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		out, err = scan[gardener.RepairCost](tx, bCosts, key(runID, ""), "repair cost", nil, nil)
		return err
	})
	slices.SortFunc(out, func(a, b gardener.RepairCost) int { return gardener.NewestFirst(a.At, a.Execution, b.At, b.Execution) })
	return out, err
}

// AddRepairUsage adds c's usage to the record of its run and execution in one transaction, so
// invocations adding at once all count.
func (s *Store) AddRepairUsage(ctx context.Context, c gardener.RepairCost) error {
	if err := need("repair cost run id", c.RunID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		k := key(c.RunID, c.Execution)
		was, err := get[gardener.RepairCost](tx, bCosts, k, "repair cost", c.RunID+"/"+c.Execution)
		var nf *gardener.NotFoundError
		switch {
		case errors.As(err, &nf):
			c.Cost = gardener.Cost{}
			return put(tx, bCosts, k, c)
		case err != nil:
			return err
		}
		was.Usage, was.Cost = was.Usage.Plus(c.Usage), gardener.Cost{}
		return put(tx, bCosts, k, was)
	})
}
