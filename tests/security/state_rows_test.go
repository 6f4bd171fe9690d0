package security_test

import (
	"context"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Issue 31, 4, 5 and 8: the sign-in, the lifecycle's answers and the plan, at the doors the
// suite's drivers reach. (The probe run, the executions after a restart or a kill -9 and the
// stale temporary files are rows of door_rows_test.go.)
func init() {
	table = append(table, stateRows...)
}

// badgedRepair writes an auto-repair of test t1 (badged Auto-repaired), the one the probes mark.
func badgedRepair(ctx context.Context, s gardener.Store) (gardener.Repair, error) {
	pre := []gardener.Step{{Kind: gardener.Goto, URL: "/"}}
	r := gardener.Repair{ID: "rp-probe", ProjectID: projectID, TestID: testID, PreSteps: pre, FromVersion: 1, ToVersion: 2, At: time.Unix(1e9, 0), Auto: true, Badge: true}
	_, err := s.WriteRepair(ctx, gardener.WriteRepair{Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/login"}}, Repair: r})
	return r, err
}

var stateRows = []row{
	// Sign-in is guarded by where the browser says the form came from, as every console form is
	// (issue 31, 4): a page on another port of this machine can set the sign-in cookie itself.
	{"a sign-in posted from another port of this machine", console, ask{method: "POST", path: "/console/signin", header: map[string]string{"Origin": "http://127.0.0.1:1"}},
		want{status: 403, says: []string{"did not come from the console"}}},
	{"a sign-in posted from a cross-site page", console, ask{method: "POST", path: "/console/signin", header: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		want{status: 403, says: []string{"did not come from the console"}}},
	// A model setting is checked against what the deployment allows when it is saved (issue 31, 8).
	{"a project's members choose a Bedrock model the deployment does not allow", api, ask{method: "PUT", path: "/projects/alpha/settings", body: `{"model":"bedrock:anthropic.other-v9"}`},
		want{status: 400, says: []string{"ModelId (BEDROCK_MODEL_ID)", "anthropic.allowed-v1"}}},
	// Lifecycle answers as documented (issue 31, 5): mark-reviewed acts only on a repair still
	// badged; the rule is the domain's (gardener.Repair.Reviewed), which every door's store asks.
	{"a repair marked reviewed twice", storeDoor, ask{store: func(ctx context.Context, s gardener.Store) (string, error) {
		r, err := badgedRepair(ctx, s)
		if err != nil {
			return "", err
		}
		if _, err := s.MarkReviewed(ctx, r.ID, caller); err != nil {
			return "", err
		}
		_, err = s.MarkReviewed(ctx, r.ID, "eve@example.com")
		return "second mark: " + errText(err), nil
	}}, want{says: []string{"second mark: ", "was reviewed already by " + caller}}},
	{"a reverted repair marked reviewed", storeDoor, ask{store: func(ctx context.Context, s gardener.Store) (string, error) {
		r, err := badgedRepair(ctx, s)
		if err != nil {
			return "", err
		}
		if _, err := s.RevertRepair(ctx, gardener.RevertRepair{RepairID: r.ID, By: caller, At: time.Unix(1e9+60, 0)}); err != nil {
			return "", err
		}
		_, err = s.MarkReviewed(ctx, r.ID, caller)
		return "mark after revert: " + errText(err), nil
	}}, want{says: []string{"mark after revert: ", "was reverted by " + caller}}},

	// The same rule answered at the API's door: 409 with the reason, as docs/api.md says.
	{"a repair marked reviewed twice through the API", api, ask{method: "POST", path: "/repairs/rp-probe/reviewed", body: `{}`,
		seed:   func(ctx context.Context, s gardener.Store) error { _, err := badgedRepair(ctx, s); return err },
		before: []ask{{method: "POST", path: "/repairs/rp-probe/reviewed", body: `{}`}}},
		want{status: 409, says: []string{"was reviewed already by " + caller}}},
	{"a reverted repair marked reviewed through the API", api, ask{method: "POST", path: "/repairs/rp-probe/reviewed", body: `{}`,
		seed: func(ctx context.Context, s gardener.Store) error {
			r, err := badgedRepair(ctx, s)
			if err == nil {
				_, err = s.RevertRepair(ctx, gardener.RevertRepair{RepairID: r.ID, By: caller, At: time.Unix(1e9+60, 0)})
			}
			return err
		}},
		want{status: 409, says: []string{"was reverted by " + caller}}},

	// The plan is the deployment's (issue 31, 8): a member's token does not set it.
	{"a member changes the project's plan", api, ask{method: "PUT", path: "/projects/alpha", body: `{"plan":"free"}`},
		want{status: 403, says: []string{"members cannot change it", "Plan parameter"}}},
}

func errText(err error) string {
	if err == nil {
		return "accepted"
	}
	return err.Error()
}
