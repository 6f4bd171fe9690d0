package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// DecodeTest decodes a test record the way every read does, for a test that hands it a record
// read before the test was saved again.
func DecodeTest(ctx context.Context, s *Store, it map[string]types.AttributeValue) (gardener.Test, error) {
	var t gardener.Test
	_, err := s.decodeDoc(ctx, it, &t)
	return t, err
}
