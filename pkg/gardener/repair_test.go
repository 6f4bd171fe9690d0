package gardener

import (
	"strings"
	"testing"
)

// TestRevertConsequence: the revert's confirmation says what the revert undoes: a locator moved
// fails again, an added step is gone again, anything else fails where it failed.
func TestRevertConsequence(t *testing.T) {
	pre := []Step{{Kind: Goto, URL: "/login"}, {Kind: Fill, Locator: MustLocator("#password"), Value: "x"}, {Kind: Click, Locator: MustLocator("#go")}}
	moved := Step{Kind: Fill, Locator: MustLocator(`role=textbox[name="Password"]`), Value: "x"}
	dismiss := Step{Kind: Click, Locator: MustLocator(`role=button[name="Accept all"]`)}
	for _, c := range []struct {
		name string
		ops  []Op
		want string
	}{
		{"a locator moved", []Op{{Kind: OpReplace, Index: 1, Step: &moved}}, "the selector the repair fixed will fail again"},
		{"a step added", []Op{{Kind: OpInsert, Index: 1, Step: &dismiss}}, "the step the repair added will be gone again"},
		{"two steps added", []Op{{Kind: OpInsert, Index: 1, Step: &dismiss}, {Kind: OpInsert, Index: 2, Step: &dismiss}}, "the steps the repair added will be gone again"},
		{"a value changed too", []Op{{Kind: OpReplace, Index: 1, Step: &Step{Kind: Fill, Locator: moved.Locator, Value: "y"}}}, "the test will fail again where it failed before"},
		{"a step deleted", []Op{{Kind: OpDelete, Index: 2}}, "the test will fail again where it failed before"},
	} {
		r := Repair{PreSteps: pre, Verdict: Verdict{Ops: c.ops}}
		if got := r.RevertConsequence(); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want it to start %q", c.name, got, c.want)
		}
	}
}
