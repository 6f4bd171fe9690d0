package console_test

import (
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestRunPageShowsTheRepairsCost: the run page lists what each repair of the run used, each
// component beside what it was measured at, and the total at the list prices it names.
func TestRunPageShowsTheRepairsCost(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	status, body, _ := ann.do("GET", "/console/runs/"+w.failedRun, nil, nil)
	if status != 200 {
		t.Fatalf("the run page: %d", status)
	}
	costs, err := w.store.RepairCosts(t.Context(), w.failedRun)
	if err != nil || len(costs) != 1 {
		t.Fatalf("the seeded cost: %+v, %v", costs, err)
	}
	for _, want := range []string{
		"Cost of its repairs", "Execution auto-" + w.failedRun,
		gardener.FormatUSD(costs[0].Cost.USD) + "</strong> at the us-east-1 list prices of " + gardener.ListPrices.AsOf,
		`<tr data-part="transitions"><th scope="row">transitions</th><td>14 state transitions</td>`,
		`<td>3 invocations</td>`, `<td>23 write request units</td>`, `<td>41.5 read request units</td>`,
		`<td>2310 input tokens</td>`, `<td>164 output tokens</td>`,
		"SelfHealFunction ×1, 4210 ms at 2048 MB arm64",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the run page does not say %q", want)
		}
	}
	if _, body, _ := ann.do("GET", "/console/runs/"+w.control, nil, nil); !strings.Contains(body, "No repair of this run has recorded its cost yet.") {
		t.Error("a run no repair measured does not say it has no cost")
	}
}
