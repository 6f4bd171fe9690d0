package builtin

import (
	"context"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestGoneNamesTheClosestCandidate: an element the last green run recorded, gone with the locate
// engine abstaining, is still an app bug; when the engine's best candidate came near the
// confidence a match needs, the evidence names it (as the page shows it, never by a value the
// test types) with its confidence and says it was not close enough, where it said "nothing
// similar on the page". With nothing near, it still says that.
func TestGoneNamesTheClosestCandidate(t *testing.T) {
	fill := gardener.Step{Kind: gardener.Fill, Locator: gardener.MustLocator("label=Name"), Value: "Ada Lovelace"}
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/order"}, fill, clickStep(t, `role=button[name="Submit order"]`)}
	recorded := button("submit-order", "Submit order", "/html/body/form/button", 200)
	green := &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{{Path: "1", Passed: true},
		{Path: "2", Kind: gardener.Fill, Values: []string{"Ada Lovelace"}, Passed: true}, clickRecord("3", recorded)}}
	help := button("help", "Help", "/html/body/nav/a", 10)
	diag := func(page ...gardener.Fingerprint) gardener.Diagnosis {
		t.Helper()
		d, err := Engine{}.Diagnose(context.Background(), gardener.DiagnoseAsk{Failure: gardener.Failure{
			Test:      gardener.Test{ID: "t", Steps: steps},
			Result:    gardener.RunResult{FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound, Steps: []gardener.StepRecord{{Path: "1", Passed: true}, {Path: "2", Passed: true}, {Path: "3"}}},
			LastGreen: green,
			Snapshot:  page,
		}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	near := button("confirm", "Confirm order", "/html/body/main/div/button", 420)
	d := diag(near, help)
	text := strings.Join(d.Evidence, "; ")
	if d.Classification != gardener.AppBug {
		t.Fatalf("the recorded element gone, nothing taken for it: %s (%s), want an app bug as before", d.Classification, text)
	}
	for _, want := range []string{`the closest element on the page, button (name "Confirm order", id "confirm"), has a confidence of 0.3`, "under the 0.56 a match needs", "not close enough"} {
		if !strings.Contains(text, want) {
			t.Errorf("evidence %q does not say %q", text, want)
		}
	}
	if strings.Contains(text, "nothing similar") {
		t.Errorf("evidence %q says nothing similar is on the page beside naming the closest element", text)
	}

	// The page names the near control by what the test typed: the name is left out.
	echoes := near
	echoes.AccessibleName, echoes.VisibleText, echoes.ID = "Confirm order", []string{"Confirm order"}, "confirm-ada-lovelace"
	if got := describeMasked(echoes, gardener.TypedBy(gardener.Test{Steps: steps}, green)); strings.Contains(strings.ToLower(got), "ada") || !strings.Contains(got, "Confirm order") {
		t.Errorf("described as %q: want the name shown and the id holding a typed value left out", got)
	}

	if text := strings.Join(diag(help).Evidence, "; "); !strings.Contains(text, "gone with nothing similar on the page") {
		t.Errorf("with nothing near, evidence %q", text)
	}
}
