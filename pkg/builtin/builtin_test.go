package builtin

import (
	"context"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

func button(id, text, xpath string, y float64) gardener.Fingerprint {
	return gardener.Fingerprint{
		Tag: "button", ID: id, XPath: xpath, IdxPath: xpath, IsButton: true, Type: "submit",
		Role: "button", AccessibleName: text, VisibleText: []string{text},
		Location: gardener.Rect{X: 40, Y: y, Width: 120, Height: 36}, Area: 120 * 36, Shape: 120.0 / 36,
	}
}

func clickRecord(path string, el gardener.Fingerprint) gardener.StepRecord {
	return gardener.StepRecord{Path: path, Kind: gardener.Click, Element: &el, Passed: true}
}

func clickStep(t *testing.T, loc string) gardener.Step {
	t.Helper()
	l, err := gardener.ParseLocator(loc)
	if err != nil {
		t.Fatal(err)
	}
	return gardener.Step{Kind: gardener.Click, Locator: l}
}

func ask(t *testing.T, index int, step gardener.Step, green []gardener.StepRecord, page []gardener.Fingerprint) gardener.LocatorAsk {
	t.Helper()
	rec := green[index].Element
	return gardener.LocatorAsk{
		Failure: gardener.Failure{
			Result:    gardener.RunResult{FailedStep: green[index].Path, FailedIndex: index, ErrorKind: gardener.ErrElementNotFound},
			LastGreen: &gardener.RunResult{Passed: true, Steps: green},
			Snapshot:  page,
		},
		Index: index, Inner: -1, Step: step, Recorded: rec,
	}
}

// A "Continue" button that vanished when two form pages merged must not be healed onto the
// merged form's "Place order": that is the next step's element, and clicking it early skips
// whatever the test does in between.
func TestFixLocatorRefusesALaterStepsElement(t *testing.T) {
	cont := button("continue", "Continue", "/html/body/main/form[1]/button", 300)
	place := button("place-order", "Place order", "/html/body/main/form[2]/button", 300)
	green := []gardener.StepRecord{clickRecord("1", cont), clickRecord("2", place)}
	merged := place
	merged.XPath, merged.IdxPath = "/html/body/main/form/button", "/html/body/main/form/button"
	merged.Location.Y = 520
	a := ask(t, 0, clickStep(t, "#continue"), green, []gardener.Fingerprint{merged})
	ans, err := Engine{}.FixLocator(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Locator.IsZero() {
		t.Fatalf("healed step 1 onto %s, the element step 2 acts on", ans.Locator)
	}
	// The locate engine may already find "Place order" too unlike "Continue"; one that never
	// abstains shows that the guard refuses it on its own.
	ans, err = Engine{Locate: similo.Engine{Threshold: similo.NeverAbstain}}.FixLocator(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Locator.IsZero() {
		t.Fatalf("healed step 1 onto %s, the element step 2 acts on", ans.Locator)
	}
	if !strings.Contains(ans.Reason, "step 2 acts on") {
		t.Fatalf("reason %q does not name step 2", ans.Reason)
	}
}

// An earlier step's element is no reason to abstain: the login button on another page looks like
// the product form's submit button, and the flow has long since clicked it. The same button clicked
// twice (steps 2 and 3 both save the form) is one element, not two.
func TestFixLocatorIgnoresEarlierStepsAndTheSameElement(t *testing.T) {
	login := button("login-btn", "Save", "/html/body/div/form/button", 300)
	save := button("", "Save", "/html/body/main/form/button", 300)
	save.FormID = "product-form"
	green := []gardener.StepRecord{clickRecord("1", login), clickRecord("2", save), clickRecord("3", save)}
	wrapped := save
	wrapped.XPath, wrapped.IdxPath = "/html/body/main/form/div/button", "/html/body/main/form/div/button"
	a := ask(t, 1, clickStep(t, "xpath=//form/button"), green, []gardener.Fingerprint{wrapped})
	ans, err := Engine{}.FixLocator(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Locator.IsZero() {
		t.Fatalf("no locator for the wrapped save button: %s", ans.Reason)
	}
}

// A button a cookie banner covers is found by its old locator: another name for the same button
// is covered just the same, so self-heal abstains and the banner is left to the drift rules.
func TestFixLocatorAbstainsWhenTheLocatorStillFindsItsElement(t *testing.T) {
	add := button("add-to-cart", "Add to cart", "/html/body/main/div/button", 300)
	green := []gardener.StepRecord{clickRecord("1", add)}
	now := add
	now.XPath, now.IdxPath = "/html/body/div/main/div/button", "/html/body/div/main/div/button"
	a := ask(t, 0, clickStep(t, "css=.product-info .add-to-cart"), green, []gardener.Fingerprint{now})
	a.Result.ErrorKind = gardener.ErrTimeout
	a.Result.Steps = []gardener.StepRecord{{Path: "1", Kind: gardener.Click, Element: &now}}
	ans, err := Engine{}.FixLocator(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Locator.IsZero() || !strings.Contains(ans.Reason, "still finds") {
		t.Fatalf("answer %s (%s), want an abstention", ans.Locator, ans.Reason)
	}
	// The same page, but the failing step found nothing: the moved button is healed.
	a.Result.Steps = []gardener.StepRecord{{Path: "1", Kind: gardener.Click}}
	if ans, _ = (Engine{}).FixLocator(context.Background(), a); ans.Locator.IsZero() {
		t.Fatalf("no locator for a button the step no longer finds: %s", ans.Reason)
	}
}

// A "Cancel" moved into a closed menu is still matched by its locator, only hidden: the closest
// visible button that says other words (the dialog's "Delete") is another control, and the heal
// abstains so the drift rules can open the menu. With nothing hidden left (the button renamed),
// the same closest element is healed onto as before.
func TestFixLocatorAbstainsWhenTheElementIsOnlyOutOfSight(t *testing.T) {
	cancel := button("", "Cancel", "/html/body/dialog/div/button[2]", 320)
	del := button("", "Delete", "/html/body/dialog/div/button[1]", 320)
	green := []gardener.StepRecord{clickRecord("1", gardener.Fingerprint{Tag: "BUTTON", AccessibleName: "Delete Ada", XPath: "/html/body/main/table/tbody/tr[1]/td[3]/button"}), clickRecord("2", cancel)}
	a := ask(t, 1, clickStep(t, `role=button[name="Cancel"]`), green, []gardener.Fingerprint{del})
	a.Result.Steps = []gardener.StepRecord{{Path: "1", Kind: gardener.Click, Passed: true}, {Path: "2", Kind: gardener.Click, Hidden: 1}}
	e := Engine{Locate: similo.Engine{Threshold: similo.NeverAbstain}}
	ans, err := e.FixLocator(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Locator.IsZero() || !strings.Contains(ans.Reason, "hidden") {
		t.Fatalf("healed the hidden Cancel onto %s (%s)", ans.Locator, ans.Reason)
	}
	a.Result.Steps[1].Hidden = 0
	if ans, _ = e.FixLocator(context.Background(), a); ans.Locator.IsZero() {
		t.Fatalf("with nothing hidden the closest element is healed onto as before: %s", ans.Reason)
	}
}
