package browser

import (
	"context"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestSet: a set step does what the control it finds needs — types into a text field, a text
// area and an editable element, picks a select's option by value and then by label, checks a
// checkbox by a word or its own value and unchecks it, checks a radio button by its value — and
// refuses what it cannot set: a button, a value that says neither checked nor unchecked (masked,
// as every typed value), a radio button to uncheck.
func TestSet(t *testing.T) {
	t.Parallel()
	const start = "/controls.html"
	runCases(t, []stepCase{
		{name: "text field", start: start, steps: `{"kind":"set","locator":"label=Nickname","value":"ada"},{"kind":"assert","assert":"value","locator":"#nick","condition":"equals","expected":"ada"}`},
		{name: "text area", start: start, steps: `{"kind":"set","locator":"label=About","value":"two\nlines"},{"kind":"assert","assert":"value","locator":"#about","condition":"equals","expected":"two\nlines"}`},
		{name: "editable element", start: start, steps: `{"kind":"set","locator":"role=textbox[name=\"Bio\"]","value":"gardener"},{"kind":"assert","assert":"text","locator":"#bio","condition":"equals","expected":"gardener"}`},
		{name: "select by value", start: start, steps: `{"kind":"set","locator":"label=Plan","value":"pro"},{"kind":"assert","assert":"value","locator":"#plan","condition":"equals","expected":"pro"}`},
		{name: "select by label", start: start, steps: `{"kind":"set","locator":"#plan","value":"Basic"},{"kind":"assert","assert":"value","locator":"#plan","condition":"equals","expected":"basic"}`},
		{name: "checkbox", start: start, steps: `{"kind":"set","locator":"label=Newsletter","value":"true"},{"kind":"assert","assert":"value","locator":"css=#news:checked","condition":"equals","expected":"on"},` +
			`{"kind":"set","locator":"#news","value":"off"},{"kind":"assertHidden","locator":"css=#news:checked"},{"kind":"set","locator":"#news","value":"on"},{"kind":"assertVisible","locator":"css=#news:checked"}`},
		{name: "checkbox by its own value", start: start, steps: `{"kind":"set","locator":"#gift","value":"wrap"},{"kind":"assertVisible","locator":"css=#gift:checked"},{"kind":"set","locator":"#gift","value":"unchecked"},{"kind":"assertHidden","locator":"css=#gift:checked"}`},
		{name: "radio by its value", start: start, steps: `{"kind":"set","locator":"#fast","value":"fast"},{"kind":"assertVisible","locator":"css=#fast:checked"},{"kind":"assertHidden","locator":"css=#slow:checked"}`},
		{name: "radio unchecked", start: start, steps: `{"kind":"set","locator":"#slow","value":"false"}`, failAt: "2", kind: gardener.ErrBadStep, message: "radio button, which cannot be unchecked"},
		{name: "checkbox value that says nothing", start: start, steps: `{"kind":"set","locator":"#news","value":"secret1"}`, failAt: "2", kind: gardener.ErrBadStep, message: "the value [value redacted, 7 chars] does not say whether the checkbox css=#news is to be checked"},
		{name: "a button", start: start, steps: `{"kind":"set","locator":"#go","value":"x","timeoutMs":500}`, failAt: "2", kind: gardener.ErrBadStep, message: "has no value to set"},
		{name: "fill still refuses a select", start: start, steps: `{"kind":"fill","locator":"#plan","value":"pro"}`, failAt: "2", kind: gardener.ErrBadStep, message: "cannot be filled"},
	})
}

// TestDoubleClick: clicks 2 is one gesture of two clicks, which the page sees as two clicks and
// a dblclick; a plain click fires no dblclick.
func TestDoubleClick(t *testing.T) {
	t.Parallel()
	runCases(t, []stepCase{
		{name: "double", start: "/controls.html", steps: `{"kind":"click","locator":"#tile","clicks":2},{"kind":"assert","assert":"text","locator":"#tile-log","condition":"equals","expected":"clicks 2, double 1"}`},
		{name: "single", start: "/controls.html", steps: `{"kind":"click","locator":"#tile"},{"kind":"assert","assert":"text","locator":"#tile-log","condition":"equals","expected":"clicks 1, double 0"}`},
	})
}

// TestAnyRole: role=*[name=…] finds an element by its accessible name whatever its role — an
// aria-label, a label, in a shadow root too — and of a cell and the link inside it, both named
// by the link's text, finds the link; role=*[name*=…] by a part of that name.
func TestAnyRole(t *testing.T) {
	t.Parallel()
	const start = "/controls.html"
	runCases(t, []stepCase{
		{name: "by aria-label", start: start, steps: `{"kind":"click","locator":"role=*[name=\"Close\"]"}`},
		{name: "a field by its label", start: start, steps: `{"kind":"fill","locator":"role=*[name=\"Nickname\"]","value":"x"},{"kind":"assert","assert":"value","locator":"#nick","condition":"equals","expected":"x"}`},
		{name: "in a shadow root", start: start, steps: `{"kind":"set","locator":"role=*[name=\"Inner name\"]","value":"y"},{"kind":"click","locator":"role=*[name=\"Save inner\"]"},{"kind":"assert","assert":"value","locator":"css=#inner","condition":"equals","expected":"y"}`},
		{name: "the innermost", start: start, steps: `{"kind":"click","locator":"role=*[name=\"Lavender\"]"},{"kind":"wait","for":"url","url":"#lavender"}`},
		{name: "no such name", start: start, steps: `{"kind":"click","locator":"role=*[name=\"Nobody\"]","timeoutMs":300}`, failAt: "2", kind: gardener.ErrElementNotFound},
		// name*= takes a name holding the text, case aside; name= still wants it whole.
		{name: "part of a name", start: start, steps: `{"kind":"click","locator":"role=*[name*=\"AVEND\"]"},{"kind":"wait","for":"url","url":"#lavender"}`},
		{name: "part is not whole", start: start, steps: `{"kind":"click","locator":"role=*[name=\"avend\"]","timeoutMs":300}`, failAt: "2", kind: gardener.ErrElementNotFound},
	})
}

// TestViewport: a test's viewport lays its pages out at that size from its first step; a test
// without one replays at the runner's, and the size does not outlive the replay that set it.
func TestViewport(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := fixture(t)
	st := steps(t, `[{"kind":"goto","url":"/controls.html"},{"kind":"extract","locator":"#vw","variable":"size"}]`)
	size := func(vp gardener.Viewport) string {
		rep, err := r.Replay(context.Background(), gardener.Test{ID: t.Name(), Version: 1, Viewport: vp, Steps: st}, gardener.ReplayOptions{BaseURL: srv.URL})
		if err != nil || !rep.Result.Passed {
			t.Fatalf("replay at %v: %v %s", vp, err, rep.Result.Message)
		}
		return rep.Result.Steps[1].Observed
	}
	if got := size(gardener.Viewport{Width: 390, Height: 700}); got != "390x700" {
		t.Errorf("at 390x700 the page reads %q", got)
	}
	if got := size(gardener.Viewport{}); got == "390x700" || !strings.Contains(got, "x") {
		t.Errorf("without a viewport the page reads %q: the last replay's size stayed", got)
	}
}
