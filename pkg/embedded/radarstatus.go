package embedded

import (
	"context"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// bRadarStatus keeps each project's last sweep and last staging pass: project id \x00 "sweep"
// or "pass" → summary.
var bRadarStatus = []byte("radarstatus")

// PutSweepSummary records the project's last sweep, unless a newer one is stored.
func (s *Store) PutSweepSummary(ctx context.Context, sw gardener.SweepSummary) error {
	if err := need("sweep summary: project id", sw.ProjectID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		return putNewer(tx, key(sw.ProjectID, "sweep"), sw, sw.At, func(o gardener.SweepSummary) time.Time { return o.At })
	})
}

// SweepSummary reads the project's last sweep.
func (s *Store) SweepSummary(ctx context.Context, projectID string) (sw gardener.SweepSummary, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		sw, err = get[gardener.SweepSummary](tx, bRadarStatus, key(projectID, "sweep"), "last sweep of project", projectID)
		return err
	})
	return sw, err
}

// PutPassSummary records the project's last staging pass, unless a newer one is stored.
func (s *Store) PutPassSummary(ctx context.Context, p gardener.PassSummary) error {
	if err := need("staging pass summary: project id", p.ProjectID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		return putNewer(tx, key(p.ProjectID, "pass"), p, p.At, func(o gardener.PassSummary) time.Time { return o.At })
	})
}

// PassSummary reads the project's last staging pass.
func (s *Store) PassSummary(ctx context.Context, projectID string) (p gardener.PassSummary, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		p, err = get[gardener.PassSummary](tx, bRadarStatus, key(projectID, "pass"), "last staging pass of project", projectID)
		return err
	})
	return p, err
}

// putNewer writes v under k unless the stored record is newer than at; a stored record that
// does not decode is replaced.
func putNewer[T any](tx *bolt.Tx, k []byte, v T, at time.Time, atOf func(T) time.Time) error {
	if old, err := get[T](tx, bRadarStatus, k, "", ""); err == nil && atOf(old).After(at) {
		return nil
	}
	return put(tx, bRadarStatus, k, v)
}

// suiteCursorKey is the suite plan's cursor, beside the radar's records under an empty project
// id, which no project has.
var suiteCursorKey = key("", "suitecursor")

// PutSuiteCursor records where the suite plan stopped reading, unless a newer cursor is stored.
func (s *Store) PutSuiteCursor(ctx context.Context, c gardener.SuiteCursor) error {
	return s.update(ctx, func(tx *bolt.Tx) error {
		return putNewer(tx, suiteCursorKey, c, c.At, func(o gardener.SuiteCursor) time.Time { return o.At })
	})
}

// SuiteCursor reads where the suite plan stopped reading.
func (s *Store) SuiteCursor(ctx context.Context) (c gardener.SuiteCursor, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		c, err = get[gardener.SuiteCursor](tx, bRadarStatus, suiteCursorKey, "suite plan cursor", "")
		return err
	})
	return c, err
}
