package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestFingerprintRecordsAChoicesValue: a checked radio button's record carries its group's name
// and its value attribute, what its form sends, which names the choice when its label and id
// change; a checkbox without a value attribute records none (its form sends the default "on").
func TestFingerprintRecordsAChoicesValue(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><body><form><fieldset><legend>Time</legend>
<input type="radio" name="slot" id="s1" value="09:00"><label for="s1">9 in the morning</label>
<input type="radio" name="slot" id="s2" value="10:30"><label for="s2">Half past ten</label></fieldset>
<input type="checkbox" id="ok" name="ok"><label for="ok">I agree</label></form></body></html>`)
	}))
	t.Cleanup(srv.Close)
	res := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/"},{"kind":"check","locator":"label=Half past ten"},{"kind":"check","locator":"label=I agree"}]`), gardener.ReplayOptions{}).Result
	if !res.Passed {
		t.Fatalf("run failed at step %s: %s", res.FailedStep, res.Message)
	}
	if el := res.Steps[1].Element; el == nil || el.Name != "slot" || el.Value != "10:30" {
		t.Errorf("the radio button's record = %+v, want name slot and value 10:30", el)
	}
	if el := res.Steps[2].Element; el == nil || el.Value != "" {
		t.Errorf("the checkbox without a value attribute recorded %+v, want no value", el)
	}
}
