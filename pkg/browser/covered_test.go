package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// coveredPage has a form under a consent overlay whose root holds a dialog box (the spot the
// pointer reaches) with the overlay's own button, and an iframe with a button under a banner
// of the top page.
const coveredPage = `<!doctype html><html><head><title>Covered</title></head><body>
<main><form><label for="email">Email</label><input id="email"><button id="send" type="button">Send</button></form>
<iframe id="pay" src="/frame" style="width:300px;height:120px"></iframe></main>
<div id="gdpr-7" style="position:fixed;inset:0;z-index:10;background:rgba(0,0,0,.4)">
  <div class="box" style="position:absolute;inset:0;background:#fff;opacity:.9"><p>We value your privacy.</p><button type="button" onclick="document.getElementById('gdpr-7').remove()">Accept all</button></div>
</div>
</body></html>`

const coveredFrame = `<!doctype html><html><body><button id="pay-now">Pay now</button></body></html>`

// TestCoveredByIsReported: a step whose element is covered fails with the covering layer in the
// run result as a fingerprint (the overlay's root, which holds the overlay's own button, not
// just the box the pointer reached), also for an element in an iframe under the top page's
// overlay; once the overlay is dismissed the same steps pass and the field stays empty, as it
// does for a failure of another kind.
func TestCoveredByIsReported(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, coveredPage) })
	mux.HandleFunc("/frame", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, coveredFrame) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	cases := []struct {
		name  string
		steps string
		cover bool
		pass  bool
	}{
		{name: "fill under an overlay", steps: `{"kind":"fill","locator":"label=Email","value":"a@b.c","timeoutMs":300}`, cover: true},
		{name: "click in a frame under an overlay", steps: `{"kind":"click","locator":"frame=#pay >> #pay-now","timeoutMs":300}`, cover: true},
		// The same steps pass once the overlay is gone; they get the runner's time, since a step
		// that must pass can take more than 300ms on a loaded machine.
		{name: "dismissed first", steps: `{"kind":"click","locator":"text=Accept all"},{"kind":"fill","locator":"label=Email","value":"a@b.c"},{"kind":"click","locator":"frame=#pay >> #pay-now"}`, pass: true},
		{name: "not found", steps: `{"kind":"click","locator":"text=Accept all"},{"kind":"click","locator":"#gone","timeoutMs":300}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rep := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/"},`+c.steps+`]`), gardener.ReplayOptions{})
			res := rep.Result
			if c.pass && !res.Passed {
				t.Fatalf("run failed at step %s: %s", res.FailedStep, res.Message)
			}
			if !c.cover {
				if res.CoveredBy != nil {
					t.Fatalf("CoveredBy = %+v on a run that failed with %s (%s)", res.CoveredBy, res.ErrorKind, res.Message)
				}
				return
			}
			if res.Passed || res.ErrorKind != gardener.ErrTimeout {
				t.Fatalf("run passed=%v with %s (%s), want a covered step", res.Passed, res.ErrorKind, res.Message)
			}
			cv := res.CoveredBy
			if cv == nil {
				t.Fatalf("no CoveredBy on a covered step: %s", res.Message)
			}
			if cv.ID != "gdpr-7" || cv.Frame != "" || !strings.HasPrefix(cv.XPath, "/html[1]/body[1]/div") {
				t.Errorf("CoveredBy = id %q frame %q at %s, want the overlay's root div#gdpr-7 of the top page", cv.ID, cv.Frame, cv.XPath)
			}
			var button *gardener.Fingerprint
			for i, fp := range rep.Snapshot.Candidates {
				if fp.AccessibleName == "Accept all" {
					button = &rep.Snapshot.Candidates[i]
				}
			}
			if button == nil || !strings.HasPrefix(button.XPath, cv.XPath+"/") {
				t.Errorf("the overlay's button %+v is not under the covering element %s", button, cv.XPath)
			}
		})
	}
}
