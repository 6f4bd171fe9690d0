package embedded

import (
	"context"
	"errors"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/driftgardener/gardener/pkg/gardener"
)

var (
	// bExecutions keeps the executions the API started: id → record.
	bExecutions = []byte("executions")
	// bClaims keeps the manual ladder's claims: run id \x00 asker → claim.
	bClaims = []byte("executionclaims")
)

// PutExecution records an execution the API started.
func (s *Store) PutExecution(ctx context.Context, x gardener.Execution) error {
	if err := need("execution id", x.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		if tx.Bucket(bExecutions).Get([]byte(x.ID)) != nil {
			return &gardener.ConflictError{Entity: "execution", ID: x.ID, Reason: "recorded already"}
		}
		return put(tx, bExecutions, []byte(x.ID), x)
	})
}

// Execution reads an execution's record.
func (s *Store) Execution(ctx context.Context, id string) (x gardener.Execution, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		x, err = get[gardener.Execution](tx, bExecutions, []byte(id), "execution", id)
		return err
	})
	return x, err
}

// RunExecutions lists a run's executions, newest first. It scans the bucket: a run has few,
// and one machine keeps few in all.
func (s *Store) RunExecutions(ctx context.Context, runID string) (out []gardener.Execution, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		out, err = scan(tx, bExecutions, nil, "execution",
			func(x gardener.Execution) bool { return x.RunID == runID },
			func(o owner) bool { return o.RunID == runID })
		return err
	})
	slices.SortFunc(out, func(a, b gardener.Execution) int { return gardener.NewestFirst(a.At, a.ID, b.At, b.ID) })
	return out, err
}

// ClaimExecution takes the (run, asker) claim in one transaction, which bbolt serialises with
// every other writer: the check and the write cannot interleave with another starter's.
func (s *Store) ClaimExecution(ctx context.Context, c gardener.ExecutionClaim, supersede string) (held gardener.ExecutionClaim, err error) {
	if err := need("claim run id", c.RunID); err != nil {
		return held, err
	}
	if err := need("claim execution name", c.Name); err != nil {
		return held, err
	}
	k := key(c.RunID, c.By)
	id := c.RunID + "/" + c.By
	err = s.update(ctx, func(tx *bolt.Tx) error {
		prior, err := get[gardener.ExecutionClaim](tx, bClaims, k, "execution claim", id)
		switch {
		case errors.Is(err, gardener.ErrNotFound):
		case err != nil:
			return err
		case prior.Name != supersede || supersede == "":
			held = prior
			return &gardener.ConflictError{Entity: "execution claim", ID: id, Reason: "held by execution " + prior.Name}
		}
		held = c
		return put(tx, bClaims, k, c)
	})
	return held, err
}

// bMachineExecutions keeps the executions the in-process interpreter ran: id → record.
var bMachineExecutions = []byte("machineexecutions")

// PutMachineExecution records an execution of the local stack's interpreter, or its new state:
// the record of an id replaces the one before.
func (s *Store) PutMachineExecution(ctx context.Context, x gardener.MachineExecution) error {
	if err := need("machine execution id", x.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		return put(tx, bMachineExecutions, []byte(x.ID), x)
	})
}

// MachineExecution reads the record of an execution of the local stack's interpreter.
func (s *Store) MachineExecution(ctx context.Context, id string) (x gardener.MachineExecution, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		x, err = get[gardener.MachineExecution](tx, bMachineExecutions, []byte(id), "machine execution", id)
		return err
	})
	return x, err
}

// MachineExecutions lists every execution of the local stack's interpreter, in id order.
func (s *Store) MachineExecutions(ctx context.Context) (out []gardener.MachineExecution, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		out, err = scan[gardener.MachineExecution](tx, bMachineExecutions, nil, "machine execution", nil, nil)
		return err
	})
	return out, err
}
