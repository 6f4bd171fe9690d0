package radar_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/driftgardener/gardener/pkg/radar"
)

// TestStagingCapIsTheMachines: the staging pass's cap is written twice, in Select (code) and in
// the staging machine's Cap state (ASL), because each enforces it on its own; the two must be
// the same number, and the machine's Map must dry-run only the first batch of that size.
func TestStagingCapIsTheMachines(t *testing.T) {
	b, err := os.ReadFile("../../statemachines/staging.asl.json")
	if err != nil {
		t.Fatal(err)
	}
	var def struct {
		States map[string]struct {
			Parameters map[string]string `json:"Parameters"`
			ItemsPath  string            `json:"ItemsPath"`
		} `json:"States"`
	}
	if err := json.Unmarshal(b, &def); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("States.ArrayPartition($.selection.items, %d)", radar.MaxDryRuns)
	if got := def.States["Cap"].Parameters["batches.$"]; got != want {
		t.Errorf("the staging machine's Cap partitions as %q, want %q (radar.MaxDryRuns)", got, want)
	}
	if got := def.States["DryRuns"].ItemsPath; got != "$.cap.batches[0]" {
		t.Errorf("the staging machine's Map dry-runs %q, want only the first batch $.cap.batches[0]", got)
	}
}
