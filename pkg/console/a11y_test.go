package console_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// pages are the console's pages as a reviewer reaches them, by the name their screenshots take.
func pages(w *world) []struct{ name, path string } {
	return []struct{ name, path string }{
		{"projects", "/console"},
		{"radar", "/console/projects/shop"},
		{"tests", "/console/projects/shop/tests"},
		{"tests-needs-review", "/console/projects/shop/tests?review=1"},
		{"test-auto-repaired", "/console/tests/revert-me"},
		{"test-triage", "/console/tests/at-risk"},
		{"run", "/console/runs/" + w.failedRun},
		{"run-control", "/console/runs/" + w.control},
		{"settings", "/console/projects/shop/settings"},
		{"not-found", "/console/tests/secret"},
	}
}

// TestAccessible runs axe-core (the copy the runner's a11yAudit step uses) on every page at
// 1280 and 390 px wide, the review dialog open too, and fails on any serious or critical
// violation. With CONSOLE_SCREENSHOTS set to a directory (make screenshots), it also writes a
// full-page PNG of each page at each width there.
func TestAccessible(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	shots := os.Getenv("CONSOLE_SCREENSHOTS")
	if shots != "" {
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shoot := func(tb *tab, name string, width int) {
		if shots == "" {
			return
		}
		png := value(tb, chromedp.FullScreenshot(100))
		if err := os.WriteFile(filepath.Join(shots, fmt.Sprintf("%s-%d.png", name, width)), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Layout a page must keep at each width: a settings checkbox sits on its label's line (its
	// middle where the label's text is, before the text), and the run page's step records carry
	// their own numbers only.
	layout := func(tb *tab, name string, width int) {
		switch name {
		case "settings":
			off := value(tb, chromedp.Evaluate[[]float64](`[...document.querySelectorAll("fieldset label")].map(l => {
				const box = l.querySelector("input").getBoundingClientRect(), r = document.createRange();
				r.selectNodeContents(l.lastChild); const text = r.getClientRects()[0];
				return Math.abs((box.top + box.bottom) / 2 - (text.top + text.bottom) / 2) + (box.right > text.left ? 1000 : 0); })`))
			if len(off) != 2 {
				t.Fatalf("the settings page has %d labelled checkboxes, want 2", len(off))
			}
			for i, o := range off {
				if o > 3 {
					t.Errorf("at %d px, settings checkbox %d is %.0f px off its label's line (1000 more: not before the text)", width, i+1, o)
				}
			}
		case "run":
			if got := value(tb, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("ol.records")).listStyleType`)); got != "none" {
				t.Errorf("the run page's step records are numbered by the list too (list-style %s) as well as by their own numbers", got)
			}
		}
	}
	// Each page is loaded once and audited at both widths, which keeps axe-core loaded.
	widths := []int{1280, 390}
	at := func(tb *tab, width int) { tb.do(chromedp.EmulateViewport(int64(width), 900)) }
	both := func(tb *tab, name, what string) {
		for _, width := range widths {
			at(tb, width)
			tb.audit(fmt.Sprintf("%s at %d px", what, width))
			if width < 640 {
				if over := value(tb, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`)); over > 0 {
					t.Errorf("%s at %d px scrolls sideways by %d px", what, width, over)
				}
			}
			layout(tb, name, width)
			shoot(tb, name, width)
		}
	}
	signedOut := newTab(t, srv.URL, widths[0])
	signedOut.open("/console/signin")
	both(signedOut, "signin", "the sign-in page")

	tb := newTab(t, srv.URL, widths[0])
	tb.signIn("/console", "ann@example.com", "shop")
	for _, p := range pages(w) {
		at(tb, widths[0])
		tb.open(p.path)
		// Every diff entry open, as a reviewer reads them.
		value(tb, chromedp.Evaluate[bool](`document.querySelectorAll("details").forEach(d => d.open = true), true`))
		both(tb, p.name, p.path)
	}
	at(tb, widths[0])
	tb.open("/console/tests/review-me")
	tb.do(clickAction(`button[data-opens="review-dialog"]`))
	both(tb, "review-dialog", "the review dialog")

	// The confirmation approving an UNVERIFIED fix that deletes a step asks for.
	at(tb, widths[0])
	tb.open("/console/projects/shop")
	tb.click(`#proposal-` + w.proposals["chat-me"] + ` form[action$="/approve"] button`)
	if got := tb.text("h1"); got != "Confirm the approval" {
		t.Errorf("approving the chat edit led to %q, want the confirmation", got)
	}
	both(tb, "confirm-approval", "the approval's confirmation")

	// Every page names the console's icon, so no browser asks for a /favicon.ico that is not there.
	if _, asked := w.asked.Load("/favicon.ico"); asked {
		t.Error("a page made the browser ask for /favicon.ico")
	}
	if _, asked := w.asked.Load("/console/assets/favicon.svg"); !asked {
		t.Error("no page made the browser load the console's icon")
	}
}

// TestNothingInjectedRuns: a test name and a page's text with markup in them (in the queue,
// the diff, the triggers, the error, the tests list and the test page) render as text, and a
// javascript: URL in a trigger is not a link. The pages' CSP is bypassed in these tabs, so
// this is the escaping alone.
func TestNothingInjectedRuns(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	tb := newTab(t, srv.URL, 1280)
	tb.signIn("/console", "ann@example.com", "shop")
	for _, path := range []string{"/console/projects/shop", "/console/projects/shop/tests", "/console/tests/hostile"} {
		tb.open(path)
		value(tb, chromedp.Evaluate[bool](`document.querySelectorAll("details").forEach(d => d.open = true), true`))
		if got := value(tb, chromedp.Evaluate[string](`String(window.__xss)`)); got != "undefined" {
			t.Errorf("%s: injected script ran (window.__xss = %s)", path, got)
		}
		if n := value(tb, chromedp.Evaluate[int](`document.querySelectorAll("main script, main img, main b, a[href^='javascript']").length`)); n != 0 {
			t.Errorf("%s: %d injected element(s) or javascript: link(s) in the page", path, n)
		}
		text := value(tb, chromedp.Evaluate[string](`document.querySelector("main").textContent`))
		if !strings.Contains(text, `<script>window.__xss="name"</script>`) {
			t.Errorf("%s does not show the hostile test name as text", path)
		}
		if path == "/console/projects/shop" && !strings.Contains(text, xssText) {
			t.Errorf("%s does not show the hostile page text in the diff as text", path)
		}
	}
}
