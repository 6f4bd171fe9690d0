package embedded

import (
	"context"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// tally is what one transaction read and wrote, counted in DynamoDB's on-demand request units
// (this store has no bill of its own): each item written at a write unit per KB, each item
// read at a read unit per 4 KB, a listing by the bytes it returned as one query. It is counted
// only for a call whose context carries a gardener.Meter, which gets the tally once the
// transaction is over (a rolled-back write still cost its units, as a failed conditional write
// does in DynamoDB).
type tally struct {
	mu          sync.Mutex
	write, read float64
}

// tallies finds the tally of a live transaction: the helpers that read and write are handed
// the transaction alone. A transaction's pointer is unique while it lives.
var tallies sync.Map // *bolt.Tx → *tally

func tallyOf(tx *bolt.Tx) *tally {
	t, _ := tallies.Load(tx)
	tl, _ := t.(*tally)
	return tl
}

func (t *tally) wrote(size int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.write += gardener.WriteUnits(size, false)
	t.mu.Unlock()
}

func (t *tally) readBytes(size int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.read += gardener.ReadUnits(size)
	t.mu.Unlock()
}

// metered runs fn with a tally for its transaction when ctx carries a meter.
func metered(ctx context.Context, run func(func(*bolt.Tx) error) error, fn func(*bolt.Tx) error) error {
	m := gardener.MeterOf(ctx)
	if m == nil {
		return run(fn)
	}
	t := &tally{}
	err := run(func(tx *bolt.Tx) error {
		tallies.Store(tx, t)
		defer tallies.Delete(tx)
		return fn(tx)
	})
	m.Wrote(t.write)
	m.Read(t.read)
	return err
}

// getRaw reads one item, counting it.
func getRaw(tx *bolt.Tx, bucket, k []byte) []byte {
	raw := tx.Bucket(bucket).Get(k)
	tallyOf(tx).readBytes(len(raw))
	return raw
}

// putRaw writes one item, counting it.
func putRaw(tx *bolt.Tx, bucket, k, v []byte) error {
	tallyOf(tx).wrote(len(k) + len(v))
	return tx.Bucket(bucket).Put(k, v)
}

// del deletes one item, counting it as DynamoDB counts a delete: a write of at least one unit.
func del(tx *bolt.Tx, bucket, k []byte) error {
	tallyOf(tx).wrote(len(k))
	return tx.Bucket(bucket).Delete(k)
}
