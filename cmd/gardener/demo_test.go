package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestDemo runs `gardener demo` — the whole scenario on the local stack — and holds it to every
// outcome the demo checks (auto-repairs proven green, the regression triaged with nothing
// written, the proposing gardener writing nothing, proposals staged, approved, dismissed and
// gone stale, a revert that restores the pre-repair steps exactly) and to the story it tells.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: the demo takes minutes; run without -short")
	}
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("SKIP: no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	t.Parallel()
	var summary, out bytes.Buffer
	// The test shares two cores with the other browser packages of `go test ./...`, where a
	// step on a loaded machine needs more room than the demo's own default gives it. With
	// --json the story is told on stderr and stdout holds the summary alone.
	logPath := filepath.Join(t.TempDir(), "demo.log")
	code := dispatch([]string{"demo", "-v", "-step-timeout", "3s", "--json", "--log", logPath}, strings.NewReader(""), &summary, &out)
	text := out.String()
	t.Log(text)
	if code != 0 {
		t.Fatalf("gardener demo exited %d", code)
	}
	checkDemoLog(t, logPath, text)
	var sum demoSummary
	if err := json.Unmarshal(summary.Bytes(), &sum); err != nil {
		t.Fatalf("--json printed %q: %v", summary.String(), err)
	}
	if !sum.Passed || len(sum.Failed) != 0 || sum.Runs == 0 || sum.Counts["repairs"] == 0 || sum.Counts["reverted"] != 1 {
		t.Errorf("summary %+v", sum)
	}
	for _, want := range []string{
		"== 1. Baseline", "== 2. The app drifts", "repaired", "== 3. The next scheduled run", "triage cart-total: app-bug",
		"== 4. The project switches to proposing", "   queue: ", "== 5.", "staged prop-",
		"approved prop-", "dismissed prop-", "the row is stale", "reverted run-", "== 8. Summary", "every demo check passed",
		"Review console: http://127.0.0.1:",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the demo never says %q", want)
		}
	}
}

// TestDemoCallDecodes: an answer of the wanted status that does not have the shape the demo
// reads is an error naming the request, not zero values; an answer of another status is a
// failed check, whatever its body.
func TestDemoCallDecodes(t *testing.T) {
	ln, err := listenLoopback("--listen", "127.0.0.1:0")
	noErr(t, err)
	api := serveLoopback(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good":
			fmt.Fprint(w, `{"autoRepair":true}`)
		case "/reshaped":
			fmt.Fprint(w, `{"autoRepair":"yes"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer api.Close()
	var out bytes.Buffer
	d := &demo{ctx: context.Background(), out: &out, marks: marksFor(false), api: api}

	var p gardener.Project
	if err := d.call("GET", "/good", nil, http.StatusOK, &p); err != nil || !p.AutoRepair || len(d.fails) != 0 {
		t.Fatalf("a good answer: %+v, %v, fails %q", p, err, d.fails)
	}
	err = d.call("GET", "/reshaped", nil, http.StatusOK, &gardener.Project{})
	if err == nil || !strings.Contains(err.Error(), "GET /reshaped: decoding the answer") {
		t.Errorf("an answer of another shape: error %v, want one naming the request and the decoding", err)
	}
	if err := d.call("GET", "/gone", nil, http.StatusOK, &gardener.Project{}); err != nil {
		t.Errorf("an answer of another status: error %v, want a failed check", err)
	}
	if len(d.fails) != 1 || !strings.Contains(d.fails[0], "GET /gone answered 404, want 200") {
		t.Errorf("failed checks %q, want the 404 alone", d.fails)
	}
}
