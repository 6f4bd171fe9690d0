package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
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
