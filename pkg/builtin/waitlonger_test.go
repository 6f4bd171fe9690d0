package builtin

import (
	"context"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestWaitLongerWhileThePageIsBusy: a step that found nothing while a progress bar still showed
// gets a longer time limit and nothing else; without a busy indicator the rule stays out, and a
// step that already has the longer limit is not given it again.
func TestWaitLongerWhileThePageIsBusy(t *testing.T) {
	steps, err := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/reports"},
		{"kind":"assert","assert":"text","locator":"#total","condition":"equals","expected":"$240.00"}]`))
	if err != nil {
		t.Fatal(err)
	}
	ask := func(snap []gardener.Fingerprint, limit int) gardener.OpsAsk {
		tt := gardener.Test{ID: "t", Version: 1, Steps: steps}
		tt.Steps[1].TimeoutMs = limit
		return gardener.OpsAsk{Failure: gardener.Failure{Test: tt, Snapshot: snap, Result: gardener.RunResult{
			FailedIndex: 1, FailedStep: "2", ErrorKind: gardener.ErrElementNotFound,
			Steps: []gardener.StepRecord{{Path: "1", Passed: true, Millis: 800}, {Path: "2", Millis: 3000}},
		}}}
	}
	spinner := []gardener.Fingerprint{{Tag: "DIV", Role: "progressbar", AccessibleName: "Loading reports"}, {Tag: "H1", VisibleText: []string{"Reports"}}}
	ans, err := Engine{}.SuggestOps(context.Background(), ask(spinner, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Ops) != 1 || ans.Ops[0].Kind != gardener.OpReplace || ans.Ops[0].Step.TimeoutMs != 12000 {
		t.Fatalf("want step 2 given 12 s, got %v (%s)", ans.Ops, ans.Reason)
	}
	if got, want := ans.Ops[0].Step.Locator, steps[1].Locator; got != want || ans.Ops[0].Step.Expected != "$240.00" {
		t.Errorf("the step changed beyond its limit: %s", ans.Ops[0].Step)
	}
	if ops, _ := waitLonger(nil, ask(spinner[1:], 0)); ops != nil {
		t.Errorf("no busy indicator, yet %v", ops)
	}
	if ops, _ := waitLonger(nil, ask(spinner, 12000)); ops != nil {
		t.Errorf("the limit is already long, yet %v", ops)
	}
}
