package gardening

import (
	"errors"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestCheckIDAsNamesTheDoorsArgument: an id a door names its own way is checked with the bound
// of the API field it stands for, and the refusal names the door's name.
func TestCheckIDAsNamesTheDoorsArgument(t *testing.T) {
	long := strings.Repeat("a", 200)
	var idErr *gardener.IDError
	if err := CheckIDAs("TEST", "testId", long); !errors.As(err, &idErr) || idErr.Field != "TEST" || !strings.Contains(err.Error(), "at most 128") {
		t.Errorf("a 200-byte TEST: %v; want a refusal naming TEST, at most 128", err)
	}
	if err := CheckIDAs("PROPOSAL", "proposalId", long); err != nil {
		t.Errorf("a 200-byte PROPOSAL (a minted id, bound 512): %v", err)
	}
	if err := CheckIDAs("--project", "projectId", "al\x00pha"); !errors.As(err, &idErr) || idErr.Field != "--project" {
		t.Errorf("a NUL in --project: %v; want a refusal naming --project", err)
	}
}
