package builtin

import (
	"context"
	"strconv"
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

// TestDiagnoseAChoiceThatIsGone: a select that no longer offers the option the last green run
// picked, and a radio group that no longer offers the recorded choice (a sibling looking like it
// in its place), are app bugs as an element gone is; a relabelled option or choice still
// offered is not. Both were taken for drift (no evidence) and filed as test drift.
func TestDiagnoseAChoiceThatIsGone(t *testing.T) {
	steps, err := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/book"},{"kind":"select","locator":"#dept","value":"Cardiology"},{"kind":"check","locator":"label=10:30 am"}]`))
	if err != nil {
		t.Fatal(err)
	}
	sel := func(options ...string) *gardener.Fingerprint {
		return &gardener.Fingerprint{Tag: "SELECT", ID: "dept", Name: "dept", Role: "combobox", Label: "Department", Options: options}
	}
	radio := func(id, label, value string, y float64) gardener.Fingerprint {
		return gardener.Fingerprint{Tag: "INPUT", ID: id, Name: "slot", Type: "radio", Value: value, Role: "radio", Label: label, AccessibleName: label,
			XPath: "/html[1]/body[1]/form[1]/div[" + strconv.Itoa(int(y/20)) + "]/input[1]", Location: gardener.Rect{X: 10, Y: y, Width: 13, Height: 13}, NeighborText: []string{"Time", "10:30 am"}}
	}
	recorded := radio("slot-1030", "10:30 am", "10:30", 40)
	green := &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{
		{Path: "1", Passed: true},
		{Path: "2", Passed: true, Element: sel("cardiology", "dermatology"), Values: []string{"cardiology", "Cardiology"}},
		{Path: "3", Passed: true, Element: &recorded},
	}}
	ask := func(fi int, found *gardener.Fingerprint, page []gardener.Fingerprint) gardener.DiagnoseAsk {
		recs := []gardener.StepRecord{{Path: "1", Passed: true}, {Path: "2", Passed: fi != 1}, {Path: "3"}}
		recs[fi].Element = found
		return gardener.DiagnoseAsk{Failure: gardener.Failure{
			Test:      gardener.Test{ID: "t", Version: 1, Steps: steps},
			Result:    gardener.RunResult{FailedStep: strconv.Itoa(fi + 1), FailedIndex: fi, ErrorKind: gardener.ErrElementNotFound, Steps: recs[:fi+1]},
			LastGreen: green,
			Snapshot:  page,
		}}
	}
	stayed := []gardener.Fingerprint{radio("slot-0900", "09:00 am", "09:00", 20), radio("slot-1400", "02:00 pm", "14:00", 40)}
	relabelled := []gardener.Fingerprint{radio("t-0900", "09:00", "09:00", 20), radio("t-1030", "10:30", "10:30", 40)}
	for _, c := range []struct {
		name string
		ask  gardener.DiagnoseAsk
		bug  bool
	}{
		{"the option is gone", ask(1, sel("dermatology", "neurology"), []gardener.Fingerprint{*sel("dermatology", "neurology")}), true},
		{"the option is relabelled", ask(1, sel("cardiology", "dermatology"), []gardener.Fingerprint{*sel("cardiology", "dermatology")}), false},
		{"the choice is gone", ask(2, nil, stayed), true},
		{"the choice is relabelled", ask(2, nil, relabelled), false},
	} {
		d, err := Engine{}.Diagnose(context.Background(), c.ask)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Classification == gardener.AppBug; got != c.bug {
			t.Errorf("%s: %s (%v), want app bug %v", c.name, d.Classification, d.Evidence, c.bug)
		}
	}
}
