package embedded

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// bEvents keeps each execution's events: execution \x00 seq (12 digits) → event.
var bEvents = []byte("events")

// eventKey sorts an execution's events by number.
func eventKey(execution string, seq int) []byte {
	return key(execution, fmt.Sprintf("%012d", seq))
}

// AppendEvent numbers e one past the execution's last event and stores it, in one transaction:
// bbolt serialises writers, so two appenders never take the same number.
func (s *Store) AppendEvent(ctx context.Context, execution string, e gardener.LadderEvent) (gardener.LadderEvent, error) {
	if err := need("event execution", execution); err != nil {
		return e, err
	}
	err := s.update(ctx, func(tx *bolt.Tx) error {
		e.Seq = 1
		prefix := key(execution, "")
		c := tx.Bucket(bEvents).Cursor()
		// The first key past the execution's events, then one back: its last event, if any.
		k, _ := c.Seek(append(key(execution), 0x01))
		if k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
		if k != nil && bytes.HasPrefix(k, prefix) {
			last, err := strconv.Atoi(string(k[len(prefix):]))
			if err != nil {
				return fmt.Errorf("embedded store: event key %q of execution %s: %w", k, execution, err)
			}
			e.Seq = last + 1
		}
		return put(tx, bEvents, eventKey(execution, e.Seq), e)
	})
	return e, err
}

// Events reads the execution's events numbered above after, in order, at most limit.
func (s *Store) Events(ctx context.Context, execution string, after, limit int) (out []gardener.LadderEvent, err error) {
	limit = gardener.EventPage(limit)
	err = s.view(ctx, func(tx *bolt.Tx) error {
		prefix := key(execution, "")
		var corrupt gardener.CorruptError
		c := tx.Bucket(bEvents).Cursor()
		for k, raw := c.Seek(eventKey(execution, max(after, 0)+1)); k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, raw = c.Next() {
			var e gardener.LadderEvent
			if err := json.Unmarshal(raw, &e); err != nil {
				corrupt.Add("event", execution+"/"+string(k[len(prefix):]), err)
				continue
			}
			out = append(out, e)
		}
		return corrupt.Err()
	})
	return out, err
}
