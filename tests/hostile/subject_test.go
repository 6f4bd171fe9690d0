package hostile

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// subjectPage has what a loose check could mistake for its subject: a total in an <output>, an
// alert that is on the page from the start, a note in a dialog-less box. "Recalculate" does
// nothing; "Save" shows a real status message; "Open" shows no dialog.
const subjectPage = `<!doctype html><html><head><title>Order</title></head><body>
<p>Total: <output id="total">2630</output></p>
<p role="alert" id="banner">Saved earlier</p>
<p id="note">Delete this order?</p>
<button id="noop">Recalculate</button>
<button id="save">Save</button>
<div id="region" role="status" aria-live="polite"></div>
<script>
document.getElementById("save").addEventListener("click", function () {
  setTimeout(function () { document.getElementById("region").textContent = "Order 2630 saved"; }, 50);
});
</script>
</body></html>`

// A check must have its subject: a toast check passes only on a status message that appeared
// after the step it follows, a modal check only on a dialog.
func TestChecksNeedTheirSubject(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(subjectPage))
	}))
	t.Cleanup(srv.Close)
	// The clicks get more than the suite's 1.5s, which a click of a case running beside others
	// can take on a loaded machine; the checks keep their own 700ms.
	o := gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: []string{srv.URL}, StepTimeout: 10 * time.Second}
	click := func(id string) gardener.Step { return gardener.Step{Kind: gardener.Click, Locator: loc("#" + id)} }
	cases := []struct {
		name  string
		steps []gardener.Step
		pass  bool
	}{
		{"a total in an <output> is no toast", []gardener.Step{click("noop"), {Kind: gardener.AssertToast, Text: "2630"}}, false},
		{"an alert shown before the step is not the step's toast", []gardener.Step{click("noop"), {Kind: gardener.AssertToast, Text: "Saved"}}, false},
		{"a locator on an <output> finds no toast", []gardener.Step{click("noop"), {Kind: gardener.AssertToast, Locator: loc("#total"), Text: "2630"}}, false},
		{"a locator on an old alert finds no new toast", []gardener.Step{click("noop"), {Kind: gardener.AssertToast, Locator: loc("#banner"), Text: "Saved"}}, false},
		{"text in no dialog is no modal", []gardener.Step{click("noop"), {Kind: gardener.AssertModal, Locator: loc("#note"), Text: "Delete this order?"}}, false},
		{"a status message the step showed is its toast", []gardener.Step{click("save"), {Kind: gardener.AssertToast, Text: "2630"}}, true},
		{"a locator on that message finds it", []gardener.Step{click("save"), {Kind: gardener.AssertToast, Locator: loc("role=status"), Text: "saved"}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			steps := append([]gardener.Step{{Kind: gardener.Goto, URL: "/"}}, c.steps...)
			for i := range steps {
				if steps[i].IsCheck() {
					steps[i].TimeoutMs = 700
				}
			}
			climbs <- struct{}{}
			defer func() { <-climbs }()
			rep, err := runner.Replay(context.Background(), gardener.Test{ID: "subject", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps}, o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Result.Passed != c.pass {
				t.Errorf("passed %v, want %v (%s)", rep.Result.Passed, c.pass, rep.Result.Message)
			}
		})
	}
}
