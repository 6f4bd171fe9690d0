package handler_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/handler"
)

// TestEventsFromTheBusKeepTheIDRule: an event whose ids break the id rule (a NUL byte, a
// slash, 200 KB) is refused by the function it reaches, naming the field, before anything is
// read or written under that id.
func TestEventsFromTheBusKeepTheIDRule(t *testing.T) {
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	deps := handler.StoreDeps{Store: store}
	admit, err := handler.NewEligibility(deps)
	if err != nil {
		t.Fatal(err)
	}
	selectFor, err := handler.NewStagingSelect(deps)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := handler.NewSuitePlan(handler.ReplayDeps{StoreDeps: deps})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name, field string
		call        func() error
	}{
		{"run failed, NUL in the run id", "runId", func() error {
			_, err := admit(ctx, handler.RepairInput{Detail: handler.RunFailed{RunID: "r1\x00other", TestID: "t1", ProjectID: "p"}})
			return err
		}},
		{"run failed, slash in the test id", "testId", func() error {
			_, err := admit(ctx, handler.RepairInput{Detail: handler.RunFailed{RunID: "r1", TestID: "../t1", ProjectID: "p"}})
			return err
		}},
		{"run failed, 200 KB project id", "projectId", func() error {
			_, err := admit(ctx, handler.RepairInput{Detail: handler.RunFailed{RunID: "r1", TestID: "t1", ProjectID: strings.Repeat("p", 200<<10)}})
			return err
		}},
		{"sweep, control character in the project id", "projectId", func() error {
			_, err := selectFor(ctx, handler.SweepInput{ProjectID: "p\n1"})
			return err
		}},
		{"run passed, NUL in the test id", "testId", func() error {
			var ev handler.SuiteEvent
			ev.Detail.TestID, ev.Detail.ProjectID, ev.Detail.RunID = "t1\x00", "p", "ci-1"
			_, err := plan(ctx, ev)
			return err
		}},
	} {
		err := c.call()
		if err == nil || !strings.Contains(err.Error(), `"`+c.field+`"`) {
			t.Errorf("%s: %v, want a refusal naming %q", c.name, err, c.field)
		}
	}
}
