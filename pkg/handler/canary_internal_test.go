package handler

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/tests/canary"
)

// TestServerTextCarriesNoTypedValue: what the server writes of a repair for people — its log
// line per event, the events it stores for whoever follows an execution, and the SNS
// notification of a staged fix and of a triaged failure — carries no value the test types.
func TestServerTextCarriesNoTypedValue(t *testing.T) {
	f := canary.Climb(t)
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var log bytes.Buffer
	d := StoreDeps{Base: Base{Log: slog.New(slog.NewJSONHandler(&log, nil))}, Store: store}
	ctx := context.Background()
	record := d.recorder(ctx, "exec-canary", "run-held")
	for _, e := range f.Events {
		record(e)
	}
	canary.Absent(t, "the server's log", log.String())
	stored, err := store.Events(ctx, "exec-canary", 0, gardener.MaxEventPage)
	if err != nil || len(stored) == 0 {
		t.Fatalf("stored events: %d, %v", len(stored), err)
	}
	canary.AbsentJSON(t, "the events an execution's follower reads", stored)

	staged, _ := gardening.NotificationOf(tend.Decision{ProjectID: "shop", TestID: f.Test.ID, Verdict: f.Held.Verdict},
		tend.Persisted{Outcome: f.Held.Outcome, Reason: f.Held.Reason, Staged: &gardener.Staged{Proposal: gardener.Proposal{ID: "p-canary"}}})
	canary.AbsentJSON(t, "the notification of a staged fix", staged)
	triaged, _ := gardening.NotificationOf(tend.Decision{ProjectID: "shop", TestID: f.Test.ID},
		tend.Persisted{Outcome: f.Triaged.Outcome, Reason: f.Triaged.Reason, Triage: f.Triaged.Triage})
	canary.AbsentJSON(t, "the notification of a triaged failure", triaged)
}
