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

// legacyJSONPage gives arrays a toJSON of their own, as old libraries did (Prototype.js): every
// array the gardener's page runtime answers with then reaches the runner as a string, and the
// answer cannot be read.
const legacyJSONPage = `<!doctype html><html><head><script>Array.prototype.toJSON = function () { return "[" + this.length + " items]"; };</script></head>
<body><button id="go">Go</button></body></html>`

// TestRuntimeFailureIsTheGardeners: a step whose runtime answer cannot be read fails at once as
// the gardener's own failure (runtime-error), saying so, with its locator matching the button.
// It polled on, spent the step's time and failed as "no element matches", which the ladder
// takes for drift.
func TestRuntimeFailureIsTheGardeners(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, legacyJSONPage) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	st := steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"#go","timeoutMs":8000}]`)
	started := time.Now()
	res := replayOK(t, r, srv.URL, st, gardener.ReplayOptions{}).Result
	took := time.Since(started)
	if res.Passed {
		t.Fatal("the run passed; the page no longer breaks the runtime's answers, so this test proves nothing")
	}
	if res.ErrorKind != gardener.ErrRuntime || res.FailedStep != "2" {
		t.Fatalf("failed at step %s with %s (%s), want step 2 with %s", res.FailedStep, res.ErrorKind, res.Message, gardener.ErrRuntime)
	}
	if !strings.Contains(res.Message, "the gardener's page runtime failed on this page, not the test") || strings.Contains(res.Message, "no element matches") {
		t.Errorf("message %q does not name the gardener's runtime as what failed", res.Message)
	}
	if took >= 8*time.Second {
		t.Errorf("the run took %s: it waited out the step's limit on a failure no wait mends", took)
	}
}
