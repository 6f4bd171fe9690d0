package asl_test

import (
	"context"
	"encoding/json"
	"testing"
)

// TestTransitionsAsBilled: an execution counts the state transitions Step Functions bills a
// standard workflow for — each state entered, inside a Map's iterations too, and each retry —
// worked out by hand for two machines.
func TestTransitionsAsBilled(t *testing.T) {
	n := 0
	retried := load(t, "retry_catch.asl.json", handlers{"SuggestFixFunction": func(context.Context, map[string]any) (map[string]any, error) {
		if n++; n <= 2 {
			return nil, &ThrottlingError{Model: "claude"}
		}
		return map[string]any{"ops": n}, nil
	}}, &recorder{})
	ex, err := retried.Run(context.Background(), "", json.RawMessage(`{"test":"t1"}`))
	if err != nil {
		t.Fatal(err)
	}
	// SuggestFix, its two retries, Done.
	if got := ex.Transitions(); got != 4 {
		t.Errorf("a task retried twice: %d transitions, want 4", got)
	}
	mapped := load(t, "map.asl.json", handlers{"DryRunFunction": func(ctx context.Context, in struct {
		Index int `json:"index"`
	}) (map[string]any, error) {
		return map[string]any{"green": in.Index%2 == 0}, nil
	}}, &recorder{})
	ex, err = mapped.Run(context.Background(), "", json.RawMessage(`{"project":"p1","tests":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	// DryRuns, then per item DryRun, StillGreen and Green or Stage (5 × 3), then Summary.
	if got := ex.Transitions(); got != 17 {
		t.Errorf("a Map of five items: %d transitions, want 17", got)
	}
}
