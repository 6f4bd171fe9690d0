package dynamo

import (
	"context"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// PutSweepSummary records the project's last sweep, unless a newer one is stored.
func (s *Store) PutSweepSummary(ctx context.Context, sw gardener.SweepSummary) error {
	if err := need("sweep summary: project id", sw.ProjectID); err != nil {
		return err
	}
	return s.putNewer(ctx, key("P#"+sw.ProjectID, "SWEEP"), sw, sw.At)
}

// SweepSummary reads the project's last sweep.
func (s *Store) SweepSummary(ctx context.Context, projectID string) (sw gardener.SweepSummary, err error) {
	_, err = s.getDoc(ctx, "P#"+projectID, "SWEEP", "last sweep of project", projectID, &sw)
	return sw, err
}

// PutPassSummary records the project's last staging pass, unless a newer one is stored.
func (s *Store) PutPassSummary(ctx context.Context, p gardener.PassSummary) error {
	if err := need("staging pass summary: project id", p.ProjectID); err != nil {
		return err
	}
	return s.putNewer(ctx, key("P#"+p.ProjectID, "PASS"), p, p.At)
}

// PassSummary reads the project's last staging pass.
func (s *Store) PassSummary(ctx context.Context, projectID string) (p gardener.PassSummary, err error) {
	_, err = s.getDoc(ctx, "P#"+projectID, "PASS", "last staging pass of project", projectID, &p)
	return p, err
}

// putNewer writes v as the record it, conditional on no newer one being stored: "atNanos"
// carries the record's time as a number the condition compares. A refused condition means a
// newer record won, which is what the caller wants kept.
func (s *Store) putNewer(ctx context.Context, it item, v any, at time.Time) error {
	n := &types.AttributeValueMemberN{Value: strconv.FormatInt(at.UnixNano(), 10)}
	it["atNanos"] = n
	err := s.putDoc(ctx, it, v, "attribute_not_exists(PK) OR attribute_not_exists(atNanos) OR atNanos <= :at", item{":at": n})
	if conditionFailed(err) {
		return nil
	}
	return err
}

// PutSuiteCursor records where the suite plan stopped reading, unless a newer cursor is stored.
func (s *Store) PutSuiteCursor(ctx context.Context, c gardener.SuiteCursor) error {
	return s.putNewer(ctx, key("SUITE", "CURSOR"), c, c.At)
}

// SuiteCursor reads where the suite plan stopped reading.
func (s *Store) SuiteCursor(ctx context.Context) (c gardener.SuiteCursor, err error) {
	_, err = s.getDoc(ctx, "SUITE", "CURSOR", "suite plan cursor", "", &c)
	return c, err
}
