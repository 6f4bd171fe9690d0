package builtin

import (
	"context"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestPickRecordedOption: a select step whose option label changed ("Cardiology" became "Heart
// (Cardiology)") picks the option the last green run picked, by its value, when the select
// still offers it; an option that is gone, a step that named the value itself, a failure that
// found no select and a test without a green run are left to the other rules.
func TestPickRecordedOption(t *testing.T) {
	steps, err := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/book"},{"kind":"select","locator":"#dept","value":"Cardiology"}]`))
	if err != nil {
		t.Fatal(err)
	}
	sel := func(options ...string) *gardener.Fingerprint {
		return &gardener.Fingerprint{Tag: "SELECT", ID: "dept", Name: "dept", Role: "combobox", Label: "Department", Options: options}
	}
	green := &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{{Path: "1", Passed: true}, {Path: "2", Passed: true, Element: sel("cardiology", "dermatology"), Values: []string{"cardiology", "Cardiology"}}}}
	ask := func(value string, found *gardener.Fingerprint, lastGreen *gardener.RunResult) gardener.OpsAsk {
		tt := gardener.Test{ID: "t", Version: 1, Steps: steps}
		tt.Steps = append([]gardener.Step(nil), steps...)
		tt.Steps[1].Value = value
		return gardener.OpsAsk{Failure: gardener.Failure{Test: tt, LastGreen: lastGreen, Result: gardener.RunResult{
			FailedIndex: 1, FailedStep: "2", ErrorKind: gardener.ErrElementNotFound,
			Steps: []gardener.StepRecord{{Path: "1", Passed: true}, {Path: "2", Element: found}},
		}}}
	}
	ans, err := Engine{}.SuggestOps(context.Background(), ask("Cardiology", sel("cardiology", "dermatology"), green))
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Ops) != 1 || ans.Ops[0].Kind != gardener.OpReplace || ans.Ops[0].Step.Value != "cardiology" || ans.Ops[0].Step.Locator != steps[1].Locator {
		t.Fatalf("want step 2 to pick the value cardiology on the same select, got %v (%s)", ans.Ops, ans.Reason)
	}
	for _, c := range []struct {
		name      string
		value     string
		found     *gardener.Fingerprint
		lastGreen *gardener.RunResult
	}{
		{"the option is gone", "Cardiology", sel("dermatology", "neurology"), green},
		{"the step named the value", "cardiology", sel("dermatology"), green},
		{"no select found", "Cardiology", nil, green},
		{"no green run", "Cardiology", sel("cardiology", "dermatology"), nil},
	} {
		if ops, why := pickRecordedOption(nil, ask(c.value, c.found, c.lastGreen)); ops != nil {
			t.Errorf("%s: got %v (%s), want no op", c.name, ops, why)
		}
	}
}
