package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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

// coveredSite serves coveredPage at / and its frame, besides what mux already serves.
func coveredSite(t *testing.T, mux *http.ServeMux) *httptest.Server {
	t.Helper()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, coveredPage) })
	mux.HandleFunc("/frame", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, coveredFrame) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestCoveredByIsReported: a step whose element is covered fails with the covering layer in the
// run result as a fingerprint (the overlay's root, which holds the overlay's own button, not
// just the box the pointer reached), also for an element in an iframe under the top page's
// overlay; once the overlay is dismissed the same steps pass and the field stays empty, as it
// does for a failure of another kind.
func TestCoveredByIsReported(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := coveredSite(t, http.NewServeMux())

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

// TestSnapshotSaysWhatIsCovered: a step whose element is not found on a page an overlay
// covers leaves a snapshot whose controls under the overlay say so, and the overlay's own
// button does not; with the overlay dismissed nothing is covered.
func TestSnapshotSaysWhatIsCovered(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := coveredSite(t, http.NewServeMux())
	for _, c := range []struct {
		name, steps string
		covered     bool
	}{
		{"under the overlay", `{"kind":"click","locator":"#renamed","timeoutMs":300}`, true},
		{"overlay dismissed", `{"kind":"click","locator":"text=Accept all"},{"kind":"click","locator":"#renamed","timeoutMs":300}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rep := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/"},`+c.steps+`]`), gardener.ReplayOptions{})
			if rep.Result.Passed || rep.Result.ErrorKind != gardener.ErrElementNotFound || rep.Snapshot == nil {
				t.Fatalf("want element-not-found with a snapshot, got passed=%v %s: %s", rep.Result.Passed, rep.Result.ErrorKind, rep.Result.Message)
			}
			got := map[string]bool{}
			for _, fp := range rep.Snapshot.Candidates {
				switch {
				case fp.ID == "email", fp.ID == "send":
					got[fp.ID] = fp.Covered
				case fp.AccessibleName == "Accept all" && fp.Covered:
					t.Errorf("the overlay's own button is marked covered")
				}
			}
			if len(got) != 2 || got["email"] != c.covered || got["send"] != c.covered {
				t.Errorf("covered: %v, want email and send %v", got, c.covered)
			}
		})
	}
}

// TestQuietFailEndsACoveredStep: a reproduction's step whose element sits under an overlay that
// stays (the page quiet) ends long before its limit, still reporting the element it found and
// what covers it, which the drift rules need to dismiss the overlay; an overlay that counts
// down while the page changes and then goes is waited for, and so is a small layer (a toast) a
// timer takes away with nothing changing meanwhile. The covered element used to count as
// a match for the quiet watch, so every covered step of a repair's replays waited its whole
// limit.
func TestQuietFailEndsACoveredStep(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/leaving", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, strings.Replace(coveredPage, "</body>", `<script>let n = 0; const t = setInterval(() => { document.querySelector("#gdpr-7 p").textContent = "Closing in " + (15 - ++n); if (n === 15) { clearInterval(t); document.getElementById("gdpr-7").remove() } }, 100)</script></body>`, 1))
	})
	// A toast over the field that a timer takes away, with nothing changing meanwhile.
	mux.HandleFunc("/toast", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><body><main><form><label for="email">Email</label><input id="email"></form></main>
<div id="toast" role="status" style="position:fixed;top:0;left:0;width:400px;height:60px;z-index:10;background:#ffd">Saved</div>
<script>setTimeout(() => document.getElementById("toast").remove(), 2000)</script></body></html>`)
	})
	srv := coveredSite(t, mux)
	const timeout = 8 * time.Second
	ro := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{1: {}}}

	t.Run("overlay stays", func(t *testing.T) {
		t.Parallel()
		res := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/"},{"kind":"fill","locator":"label=Email","value":"a@b.c"}]`), ro).Result
		if res.Passed || res.ErrorKind != gardener.ErrTimeout {
			t.Fatalf("want a covered step, got passed=%v %s: %s", res.Passed, res.ErrorKind, res.Message)
		}
		if ms := res.Steps[1].Millis; ms > int64(timeout/time.Millisecond)/2 {
			t.Errorf("the covered step took %dms of its %s on a quiet page", ms, timeout)
		}
		if !strings.Contains(res.Message, "covered by") || !strings.Contains(res.Message, "quiet") {
			t.Errorf("the message does not say what covers the element and that the page was quiet: %s", res.Message)
		}
		if res.CoveredBy == nil || res.CoveredBy.ID != "gdpr-7" {
			t.Errorf("CoveredBy = %+v, want the overlay div#gdpr-7", res.CoveredBy)
		}
		if el := res.Steps[1].Element; el == nil || el.ID != "email" {
			t.Errorf("the covered step recorded element %+v, want input#email", el)
		}
	})
	t.Run("a toast goes by itself", func(t *testing.T) {
		t.Parallel()
		res := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/toast"},{"kind":"fill","locator":"label=Email","value":"a@b.c"}]`), ro).Result
		if !res.Passed {
			t.Errorf("the step under a toast a timer takes away was given up on: %s", res.Message)
		}
	})
	t.Run("overlay leaves", func(t *testing.T) {
		t.Parallel()
		res := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/leaving"},{"kind":"fill","locator":"label=Email","value":"a@b.c"}]`), ro).Result
		if !res.Passed {
			t.Errorf("the step under an overlay that goes while the page changes was given up on: %s", res.Message)
		}
	})
}
