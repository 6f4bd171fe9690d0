package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
)

// The drift cases below are small hand-written apps, not the demo shop, so the rules they prove
// are not tuned to it. Each serves its recorded page while drifted is false and the changed
// page once it is set; the test records a green run on the first, then repairs the failing run
// on the second and checks what the repair did.

// driftApp is one hand-written app: page renders a path for the baseline or the drift.
type driftApp struct {
	drifted atomic.Bool
	page    func(path string, drifted bool) (string, int)
}

func (a *driftApp) serve(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, status := a.page(r.URL.Path, a.drifted.Load())
		if status == 0 {
			status = http.StatusOK
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// repairCase records a green run of steps on the app, drifts it, and repairs the test with the
// built-in engine, as a repair that has no failing replay to start from does: the ladder
// reproduces the failure, and that reproduction is what shows the test fails on the drifted app.
func repairCase(t *testing.T, app *driftApp, js string) ladder.Result {
	t.Helper()
	base := app.serve(t)
	st, err := gardener.DecodeSteps([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	tt := gardener.Test{ID: strings.ReplaceAll(t.Name(), "/", "-"), ProjectID: "p", Version: 1, Steps: st}
	opts := gardener.ReplayOptions{BaseURL: base}
	ctx := context.Background()
	green, err := runner.Replay(ctx, tt, opts)
	if err != nil || !green.Result.Passed {
		t.Fatalf("the recorded test is not green on the baseline: %v %s", err, green.Result.Message)
	}
	app.drifted.Store(true)
	lad := &ladder.Ladder{Runner: runner, Model: builtin.Engine{}, Progress: func(e ladder.Event) { t.Logf("[%s %s] %s", e.Stage, e.Rung, e.Message) }}
	res, err := lad.Repair(ctx, ladder.Request{Test: tt, Mode: gardener.ModeApply, Options: opts, LastGreen: &green.Result, RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.FailedRun == nil || res.FailedRun.Passed {
		t.Fatalf("the test does not fail on the drifted app: outcome %s (%s)", res.Outcome, res.Reason)
	}
	return res
}

// wantGreen fails unless the repair ended on a green proof.
func wantGreen(t *testing.T, res ladder.Result) {
	t.Helper()
	if res.Proof == nil || (res.Outcome != ladder.Repaired && res.Outcome != ladder.Staged) {
		t.Fatalf("no green proof: %s (%s)", res.Outcome, res.Reason)
	}
}

// opsOf renders a repair's operations for messages and checks.
func opsOf(res ladder.Result) string {
	var b strings.Builder
	for _, r := range res.Rungs {
		for _, a := range r.Attempts {
			if a.Outcome == "green" {
				for _, op := range a.Ops {
					b.WriteString(op.String() + "\n")
				}
			}
		}
	}
	return b.String()
}

// confirmPage is a list with a destructive action that asks for confirmation in a dialog kept
// in the page and hidden by its styles until opened (as many dialog libraries do). The drift
// renames the action; its click still opens the dialog.
func confirmPage(noun, action, renamed, confirm string) func(string, bool) (string, int) {
	return func(path string, drifted bool) (string, int) {
		if path != "/" {
			return "not found", http.StatusNotFound
		}
		id, text := "delete-"+noun, action+" "+noun
		if drifted {
			id, text = "remove-"+noun+"-btn", renamed+" "+noun
		}
		return `<!doctype html><html><head><title>` + noun + `s</title><style>
.dlg{position:fixed;inset:30% 30%;background:#fff;border:1px solid #999;opacity:0;pointer-events:none;transition:none}
.dlg.open{opacity:1;pointer-events:auto}</style></head><body>
<main><h1>` + noun + ` INV-7</h1>
<button id="` + id + `" onclick="const d=document.getElementById('dlg');d.classList.add('open');d.removeAttribute('aria-hidden')">` + text + `</button>
<p id="status"></p></main>
<div id="dlg" class="dlg" role="dialog" aria-modal="true" aria-hidden="true"><p>Really ` + strings.ToLower(action) + ` this ` + noun + `?</p>
<button id="confirm" onclick="document.getElementById('status').textContent='` + noun + ` gone';document.getElementById('dlg').classList.remove('open')">` + confirm + `</button>
<button onclick="document.getElementById('dlg').classList.remove('open')">Cancel</button></div>
</body></html>`, 0
	}
}

// TestRepairRenamedActionThatOpensAConfirmation: the renamed action button is healed, not
// deleted: the still-hidden dialog's button, which the next step clicks, is no reason to
// abstain (it cannot be clicked before the dialog opens), even when it says what the action
// used to say. Two apps, two wordings.
func TestRepairRenamedActionThatOpensAConfirmation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ noun, action, renamed, confirm string }{
		{"Invoice", "Delete", "Remove", "Delete Invoice"},
		{"Project", "Archive", "Retire", "Archive Project"},
	} {
		t.Run(c.noun, func(t *testing.T) {
			t.Parallel()
			app := &driftApp{page: confirmPage(c.noun, c.action, c.renamed, c.confirm)}
			res := repairCase(t, app, `[{"kind":"goto","url":"/"},
				{"kind":"click","locator":"#delete-`+c.noun+`"},
				{"kind":"click","locator":"#confirm"},
				{"kind":"assert","assert":"text","locator":"#status","condition":"equals","expected":"`+c.noun+` gone"}]`)
			wantGreen(t, res)
			ops := opsOf(res)
			if strings.Contains(ops, "delete") || !strings.Contains(ops, "replace 1:") || !strings.Contains(ops, c.renamed) {
				t.Errorf("want step 2 (index 1) moved to the renamed %q button, got:\n%s", c.renamed, ops)
			}
		})
	}
}

// requiredPage is a form that gains a required control of the given markup; submitting without
// it the browser's own validation keeps the form from being sent, so the toast never comes.
func requiredPage(title, extra string) func(string, bool) (string, int) {
	return func(path string, drifted bool) (string, int) {
		if path != "/" {
			return "not found", http.StatusNotFound
		}
		more := ""
		if drifted {
			more = extra
		}
		return `<!doctype html><html><head><title>` + title + `</title></head><body><main>
<form id="f" onsubmit="event.preventDefault();document.getElementById('toast').textContent='` + title + ` saved'">
<label for="client">Client</label><input id="client" name="client" required>
` + more + `
<button id="save" type="submit">Save</button></form>
<div id="toast" role="status"></div></main></body></html>`, 0
	}
}

// TestRepairFormThatGainedARequiredControl: a form gains a required select, radio group, date
// or number; the run fails at the toast check after the submit. The rule fills the new control
// with a value of its type before the submit, and diagnosis never calls it an app bug.
func TestRepairFormThatGainedARequiredControl(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, title, extra, want string
	}{
		{"select", "Invoice", `<label for="terms">Payment terms</label><select id="terms" name="terms" required><option value="">Choose…</option><option value="net30">Net 30</option><option value="net60">Net 60</option></select>`, `select`},
		{"radio", "Booking", `<fieldset><legend>Room</legend><label><input type="radio" name="room" value="single" required> Single</label><label><input type="radio" name="room" value="double"> Double</label></fieldset>`, `check`},
		{"date and number", "Shipment", `<label for="ship">Ship on</label><input id="ship" type="date" min="2027-03-01" required><label for="qty">Boxes</label><input id="qty" type="number" min="2" required>`, `fill`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			app := &driftApp{page: requiredPage(c.title, c.extra)}
			res := repairCase(t, app, `[{"kind":"goto","url":"/"},
				{"kind":"fill","locator":"#client","value":"Acme"},
				{"kind":"click","locator":"#save"},
				{"kind":"assertToast","text":"`+c.title+` saved"}]`)
			if res.Diagnosis != nil && res.Diagnosis.Classification == gardener.AppBug {
				t.Errorf("diagnosed as an app bug: %v", res.Diagnosis.Evidence)
			}
			wantGreen(t, res)
			if ops := opsOf(res); !strings.Contains(ops, "insert 2: "+c.want) {
				t.Errorf("want a %s inserted before the submit, got:\n%s", c.want, ops)
			}
		})
	}
}

// consentPage is a two-page flow that gains a consent overlay on every page load (the choice
// is not remembered): it covers the page until "Accept all" is clicked.
func consentPage(first, second, button, done string) func(string, bool) (string, int) {
	return func(path string, drifted bool) (string, int) {
		overlay := ""
		if drifted {
			overlay = `<div id="consent" class="consent-overlay" role="dialog" aria-modal="true" style="position:fixed;inset:0;background:rgba(0,0,0,.6)">
<div style="background:#fff;margin:20% auto;width:300px"><p>We use cookies.</p><button onclick="document.getElementById('consent').remove()">Accept all</button></div></div>`
		}
		switch path {
		case "/":
			return `<!doctype html><html><head><title>` + first + `</title></head><body><main><h1>` + first + `</h1><a id="next" href="/next">Continue to ` + second + `</a></main>` + overlay + `</body></html>`, 0
		case "/next":
			return `<!doctype html><html><head><title>` + second + `</title></head><body><main><h1>` + second + `</h1><button id="go" onclick="document.getElementById('out').textContent='` + done + `'">` + button + `</button><p id="out"></p></main>` + overlay + `</body></html>`, 0
		}
		return "not found", http.StatusNotFound
	}
}

// TestRepairConsentOverlayThatReturnsOnEveryPage: the first proof, with the overlay dismissed
// before the first click, goes red on the next page where the overlay is back; the proof's
// failure goes to the drift rules, which dismiss it there too. Two flows.
func TestRepairConsentOverlayThatReturnsOnEveryPage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ first, second, button, done string }{
		{"Cart", "Checkout", "Place order", "Order placed"},
		{"Articles", "Subscribe", "Sign me up", "Subscribed"},
	} {
		t.Run(c.first, func(t *testing.T) {
			t.Parallel()
			app := &driftApp{page: consentPage(c.first, c.second, c.button, c.done)}
			res := repairCase(t, app, `[{"kind":"goto","url":"/"},
				{"kind":"click","locator":"#next"},
				{"kind":"click","locator":"#go"},
				{"kind":"assert","assert":"text","locator":"#out","condition":"equals","expected":"`+c.done+`"}]`)
			wantGreen(t, res)
			if ops := opsOf(res); strings.Count(ops, "insert") != 2 || !strings.Contains(ops, "Accept all") {
				t.Errorf("want the overlay dismissed on both pages, got:\n%s", ops)
			}
		})
	}
}
