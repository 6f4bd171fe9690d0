package dynamo

import (
	"bytes"
	"compress/gzip"
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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

// PutRawTest stores body as the document of test id in project as it is, bypassing the
// encoder, so that the conformance suite can plant a record that does not decode.
func PutRawTest(ctx context.Context, s *Store, id, project string, body []byte) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(body); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	it := testItem(gardener.Test{ID: id, ProjectID: project, Version: 1})
	it["doc"] = avB(buf.Bytes())
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it})
	return err
}
