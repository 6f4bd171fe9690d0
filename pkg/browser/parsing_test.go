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

// halfParsedSite answers a login whose error page holds a script in its head that takes three
// seconds: until it arrives the browser has the new document but has not parsed its body, where
// the error is. The Check button sends the browser there from a timer, as a page's own script would.
func halfParsedSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	mux.HandleFunc("/slow.js", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-stop:
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "window.loaded = true")
	})
	errorPage := `<!doctype html><html><head><script src="/slow.js"></script></head><body><p role="alert">Invalid username or password.</p><img src="data:,"><script>console.error("login refused")</script></body></html>`
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, errorPage) })
	mux.HandleFunc("GET /failed", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, errorPage) })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><body><form method="post" action="/login"><input name="user" aria-label="User"><button id="login">Login</button></form>
<button id="check" onclick="setTimeout(() => { location.href = '/failed' }, 300)">Check</button></body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestAbsenceIsNotProvenOnAHalfParsedPage: a check that passes for what is absent must not pass
// on a page the browser has not finished parsing. After a click whose page is still being parsed
// when the click's limit ends, the absence check used to pass on the empty body (a regression
// certified green on a loaded machine); after a script's navigation the same holds for a wait
// for an element to go, a check of no console error and an audit.
func TestAbsenceIsNotProvenOnAHalfParsedPage(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := halfParsedSite(t)
	t.Run("a click whose page is still parsing", func(t *testing.T) {
		t.Parallel()
		rep := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"#login","timeoutMs":1000},{"kind":"assertHidden","locator":"role=alert","timeoutMs":4500}]`), gardener.ReplayOptions{StepTimeout: 5 * time.Second})
		res := rep.Result
		if res.Passed || res.FailedStep != "3" || !strings.Contains(res.Message, "still visible") {
			t.Fatalf("passed=%v at step %s (%s), want the absence check to fail on the error the parsed page shows", res.Passed, res.FailedStep, res.Message)
		}
	})
	// The wait for the URL ends when the new document is committed, before it is parsed.
	for _, c := range []struct{ name, check, says string }{
		{"an absence check after a script's navigation", `{"kind":"assertHidden","locator":"role=alert","timeoutMs":4500}`, "still visible"},
		{"a wait for the error to be hidden", `{"kind":"wait","for":"element","locator":"role=alert","state":"hidden","timeoutMs":4500}`, "still visible"},
		{"a check of no console error", `{"kind":"assertConsole","level":"error","pattern":"refused","expect":"noMatch","timeoutMs":4500}`, "login refused"},
		{"an audit", `{"kind":"a11yAudit","rules":["image-alt"],"threshold":"minor","timeoutMs":4500}`, "image-alt"},
		// A limit that ends before the script arrives says so, not that the element is gone.
		{"an absence check with a short limit", `{"kind":"assertHidden","locator":"role=alert","timeoutMs":1500}`, "the page was still loading after 1.5s"},
		{"a wait for hidden with a short limit", `{"kind":"wait","for":"element","locator":"role=alert","state":"hidden","timeoutMs":1500}`, "the page was still loading after 1.5s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rep := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"#check"},{"kind":"wait","for":"url","url":"/failed"},`+c.check+`]`), gardener.ReplayOptions{StepTimeout: 5 * time.Second})
			res := rep.Result
			if res.Passed || res.FailedStep != "4" || !strings.Contains(res.Message, c.says) {
				t.Fatalf("passed=%v at step %s (%s), want step 4 to fail on what the parsed page shows (%s)", res.Passed, res.FailedStep, res.Message, c.says)
			}
		})
	}
}
