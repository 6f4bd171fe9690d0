package handler

import (
	"context"
	"encoding/json"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// outcomeOfOutput is the repair's outcome as the repair machine's output says it: the Done
// state's output carries what persist or triage wrote (persisted.persisted.outcome), and the
// NotEligible state's output is the gate itself. "" for any other output (a machine that failed,
// or one that is not the repair machine).
func outcomeOfOutput(output string) string {
	var out struct {
		Eligible  *bool `json:"eligible"`
		Persisted *struct {
			Persisted struct {
				Outcome string `json:"outcome"`
			} `json:"persisted"`
		} `json:"persisted"`
	}
	if output == "" || json.Unmarshal([]byte(output), &out) != nil {
		return ""
	}
	switch {
	case out.Persisted != nil:
		return out.Persisted.Persisted.Outcome
	case out.Eligible != nil && !*out.Eligible:
		return "not-eligible"
	}
	return ""
}

// executionOutcome is the outcome GET /executions/{id} reports beside the machine's status: from
// the output once the execution ended, else from its event log, where the outcome is appended
// before the machine's last state (the notification) runs. "" while the repair is undecided.
func (a *API) executionOutcome(ctx context.Context, id, output string) (string, error) {
	if o := outcomeOfOutput(output); o != "" {
		return o, nil
	}
	x, err := a.Store.Execution(ctx, id)
	if err != nil {
		return "", err
	}
	name := x.Name
	if name == "" {
		name = id // a record written before executions kept their name
	}
	for after := 0; ; {
		evs, err := a.Store.Events(ctx, name, after, gardener.MaxEventPage)
		if _, failure := gardener.SplitCorrupt(err); failure != nil {
			return "", failure
		}
		if o := gardener.RepairOutcome(x.TestID, evs); o != "" || len(evs) < gardener.MaxEventPage {
			return o, nil
		}
		after = evs[len(evs)-1].Seq
	}
}
