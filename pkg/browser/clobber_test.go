package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// clobberedPage is a table whose rows each carry a form with a hidden control named "id" (and
// one named "title"), as server-rendered row actions commonly do: the form's id and title
// properties are those controls, not strings.
const clobberedPage = `<!doctype html><html><head><title>Rows</title></head><body><main>
<table><tbody>
<tr data-id="r1"><td>R-1</td><td><form method="post" action="/act"><input type="hidden" name="id" value="r1"><input type="hidden" name="title" value="t"><button type="submit" class="act">Remove</button></form></td></tr>
<tr data-id="r2"><td>R-2</td><td><form id="f2" method="post" action="/act"><input type="hidden" name="id" value="r2"><button type="submit" class="act">Remove</button></form></td></tr>
</tbody></table></main></body></html>`

// TestClobberedFormIsFound: a click on a button inside a form that has a control named "id"
// passes and records the element (its id, its form's id, its id path) as strings. Reading the
// form's id property answered the control, the fingerprint did not decode, and the step waited
// out its limit to fail as "no element matches" although the locator matched one button.
func TestClobberedFormIsFound(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, clobberedPage) })
	mux.HandleFunc("/act", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `<p role="status">Removed</p>`) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	cases := []struct{ name, locator, formID string }{
		{"form without an id", `xpath=//tr[@data-id='r1']//button`, ""},
		{"form with an id", `xpath=//tr[@data-id='r2']//button`, "f2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st := steps(t, fmt.Sprintf(`[{"kind":"goto","url":"/"},{"kind":"click","locator":%q,"timeoutMs":2000}]`, c.locator))
			res := replayOK(t, r, srv.URL, st, gardener.ReplayOptions{}).Result
			if !res.Passed {
				t.Fatalf("run failed at step %s: %s", res.FailedStep, res.Message)
			}
			el := res.Steps[1].Element
			if el == nil {
				t.Fatal("the click recorded no element")
			}
			if el.ID != "" || el.FormID != c.formID || el.Tag != "BUTTON" {
				t.Errorf("recorded id %q form id %q tag %q, want id \"\" form id %q on a BUTTON", el.ID, el.FormID, el.Tag, c.formID)
			}
			if c.formID != "" && el.IdxPath != "//*[@id='f2']/button[1]" {
				t.Errorf("id path %q, want //*[@id='f2']/button[1]", el.IdxPath)
			}
		})
	}
}
