package asltest_test

import (
	"testing"

	"github.com/driftgardener/gardener/pkg/local/asltest"
)

func TestValidateDefinition(t *testing.T) {
	asltest.ValidateDefinition(t, "inline.asl.json", []byte(`{"StartAt":"A","States":{"A":{"Type":"Pass","End":true}}}`))
}

// TestValidateRejects checks the helper reports a definition the tools reject, through a
// recorder standing in for the test.
func TestValidateRejects(t *testing.T) {
	rec := &recorder{TB: t}
	asltest.ValidateDefinition(rec, "broken.asl.json", []byte(`{"StartAt":"Missing","States":{"A":{"Type":"Pass","End":true}}}`))
	if rec.errors < 2 {
		t.Errorf("%d tool failures reported, want one from each tool", rec.errors)
	}
}

// recorder counts failures instead of failing; a skip (tools absent) still skips the test.
type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Errorf(string, ...any) { r.errors++ }
