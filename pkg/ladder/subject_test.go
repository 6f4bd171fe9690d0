package ladder

import (
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestMovedCheckKeepsItsSubjectByTheLocateEngine: a check moved because its element was renamed
// (id and label both changed, as drift does) still reads what it read, since the locate engine
// picks its element for the recorded one among everything the proof touched; moved to another
// field, it does not.
func TestMovedCheckKeepsItsSubjectByTheLocateEngine(t *testing.T) {
	field := func(id, label, name string, y float64) *gardener.Fingerprint {
		return &gardener.Fingerprint{Tag: "input", ID: id, Name: id, Type: "text", Role: "textbox", Label: label, AccessibleName: label,
			XPath: "/html/body/main/form/input[" + name + "]", IdxPath: "/html/body/main/form/input[" + name + "]",
			Location: gardener.Rect{X: 40, Y: y, Width: 240, Height: 32}, Area: 240 * 32, Shape: 7.5, NeighborText: []string{label}}
	}
	recorded := field("username", "Username", "1", 120)
	renamed := field("user-email", "Email or username", "1", 120)
	password := field("pw", "Password", "2", 170)
	proof := gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{
		{Path: "2", Kind: gardener.Fill, Element: renamed, Passed: true},
		{Path: "3", Kind: gardener.Fill, Element: password, Passed: true},
		{Path: "8", Kind: gardener.Assert, Element: renamed, Passed: true},
	}}
	before := gardener.Step{Kind: gardener.Assert, Subject: gardener.SubjectValue, Locator: gardener.MustLocator("label=Username"), Condition: gardener.Equals, Expected: "demo"}
	after := before
	after.Locator = gardener.MustLocator(`role=textbox[name="Email or username"]`)
	if !sameSubject(before, after, gardener.StepRecord{Element: recorded}, gardener.StepRecord{Element: renamed}, proof) {
		t.Errorf("a check moved with its renamed element should keep its subject")
	}
	moved := before
	moved.Locator = gardener.MustLocator("label=Password")
	if sameSubject(before, moved, gardener.StepRecord{Element: recorded}, gardener.StepRecord{Element: password}, proof) {
		t.Errorf("a check moved to another field must not keep its subject")
	}
	if sameSubject(before, after, gardener.StepRecord{}, gardener.StepRecord{Element: renamed}, proof) {
		t.Errorf("a moved check with no recorded element cannot show it reads the same thing")
	}
}
