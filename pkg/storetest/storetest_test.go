package storetest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"testing"
)

// dynamoItemLimit is DynamoDB's item size limit, 400 KB.
const dynamoItemLimit = 400 * 1024

// TestBigStepsExceedAnItemCompressed keeps the big-record cases honest: their steps, and so a
// repair's pre-repair snapshot of them, must not fit in one DynamoDB item even compressed, or a
// driver that never splits a record would pass them.
func TestBigStepsExceedAnItemCompressed(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		n    int
	}{{1, bigStepCount + 100}, {2, bigStepCount}, {3, bigStepCount}} {
		raw, err := json.Marshal(BigSteps(c.seed, c.n))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(raw); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if buf.Len() <= dynamoItemLimit {
			t.Errorf("BigSteps(%d, %d): %d bytes of JSON compress to %d, which fits in one %d-byte item", c.seed, c.n, len(raw), buf.Len(), dynamoItemLimit)
		}
	}
}
