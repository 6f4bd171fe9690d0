package browser

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// demoStepTimeout is what a failing demo test waits at its failing step: short, because the
// matrix fails about thirty times, yet long enough for a passing step on a loaded machine.
const demoStepTimeout = 4 * time.Second

// TestDemoAppVariants replays the saved demo tests against the demo app: on the neutral variant
// every test passes. That each one passes on the baseline is checked by tests/e2e
// (TestSavedTestsPassOnTheBaseline), whose green runs those replays are, and that each drift
// and regression variant makes the tests its Breaks names fail at the step it names by
// tests/e2e too, which replays exactly those tests before repairing them. Here both run with
// GARDENER_FULL_MATRIX=1, together with the other tests of each variant (about 145 more
// replays). Each replay has a demo app of its own, on the variant, so that the replays of a
// variant run side by side instead of one after another on one app reset between them.
func TestDemoAppVariants(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	fullMatrix := os.Getenv("GARDENER_FULL_MATRIX") == "1"
	saved, err := demoapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range demoapp.Variants() {
		if !fullMatrix && v.Kind != demoapp.Neutral {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			for _, test := range saved {
				if _, breaks := v.Breaks[test.ID]; !breaks && !fullMatrix && v.Kind != demoapp.Baseline && v.Kind != demoapp.Neutral {
					continue
				}
				t.Run(test.ID, func(t *testing.T) {
					t.Parallel()
					app := demoapp.New()
					if err := app.SetVariant(v.Name); err != nil {
						t.Fatal(err)
					}
					srv := httptest.NewServer(app.Handler())
					defer srv.Close()
					rep, err := r.Replay(context.Background(), test, gardener.ReplayOptions{BaseURL: srv.URL, StepTimeout: demoStepTimeout})
					if err != nil {
						t.Fatalf("%s: %v", test.ID, err)
					}
					res := rep.Result
					t.Logf("%s: passed=%v step=%s kind=%s %dms", test.ID, res.Passed, res.FailedStep, res.ErrorKind, res.Millis)
					want, breaks := v.Breaks[test.ID]
					switch {
					case !breaks && !res.Passed:
						t.Errorf("%s failed at step %s (%s), want a pass: %s", test.ID, res.FailedStep, res.ErrorKind, res.Message)
					case breaks && res.Passed:
						t.Errorf("%s passed, want a failure at step %s", test.ID, want)
					case breaks && res.FailedStep != want:
						t.Errorf("%s failed at step %s, want step %s: %s", test.ID, res.FailedStep, want, res.Message)
					case breaks && res.ErrorKind == gardener.ErrBrowserCrash:
						t.Errorf("%s failed with a browser crash: %s", test.ID, res.Message)
					}
				})
			}
		})
	}
}

// TestDemoAppStepsFail falsifies one step of a saved demo test for every step kind, assert
// subject and wait target, and replays the test up to that step on the baseline: the run must
// fail at that step, with the error kind and words a person would expect. TestDemoAppVariants
// shows the same steps unchanged passing (on the neutral variant, whose changes no saved test
// touches), so together they show every step kind passing and failing as it should on the demo
// app itself, not only on the fixture pages.
func TestDemoAppStepsFail(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	saved, err := demoapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]gardener.Test{}
	for _, tt := range saved {
		byID[tt.ID] = tt
	}
	loc := gardener.MustLocator
	cases := []struct {
		name       string
		test, path string
		change     func(*gardener.Step)
		kind       gardener.ErrorKind
		message    string
	}{
		{"goto", "login", "1", func(s *gardener.Step) { s.URL = "/no-such-page" }, gardener.ErrHTTP, "answered HTTP 404"},
		{"assert title", "login", "2", func(s *gardener.Step) { s.Expected = "Sign up · Seedling Supply" }, gardener.ErrAssertionFailed, `title is "Login · Seedling Supply"`},
		{"fill", "login", "3", func(s *gardener.Step) { s.Locator = loc("label=Nickname") }, gardener.ErrElementNotFound, "no element matches label=Nickname"},
		{"wait url", "login", "6", func(s *gardener.Step) { s.URL = "/admin" }, gardener.ErrAssertionFailed, `did not reach "/admin"`},
		{"assertConsole", "login", "9", func(s *gardener.Step) { s.Expect = gardener.ExpectMatch }, gardener.ErrAssertionFailed, `no error message matching "."`},
		{"click", "product-detail", "2", func(s *gardener.Step) { s.Locator = loc("text=Giant Sequoia") }, gardener.ErrElementNotFound, "no element matches text=Giant Sequoia"},
		{"assert url", "product-detail", "3", func(s *gardener.Step) { s.Expected = "/products/2$" }, gardener.ErrAssertionFailed, "/products/1"},
		{"assert text", "product-detail", "4", func(s *gardener.Step) { s.Expected = "$19.50" }, gardener.ErrAssertionFailed, `text is "$18.50"`},
		{"hover", "product-detail", "5", func(s *gardener.Step) { s.Locator = loc("css=.shipping-tips") }, gardener.ErrElementNotFound, "no element matches css=.shipping-tips"},
		{"assertVisible", "product-detail", "6", func(s *gardener.Step) { s.Text = "Free shipping on every order" }, gardener.ErrAssertionFailed, `not text "Free shipping on every order"`},
		{"assertModal", "product-detail", "8", func(s *gardener.Step) { s.Text = "Delete Lavender?" }, gardener.ErrAssertionFailed, `no modal with text "Delete Lavender?"`},
		{"assertHidden", "product-detail", "10", func(s *gardener.Step) { s.Locator = loc(`role=button[name="Delete product"]`) }, gardener.ErrAssertionFailed, "still visible"},
		{"screenshot", "product-detail", "11", func(s *gardener.Step) { s.Locator = loc("css=#no-such-element") }, gardener.ErrElementNotFound, "no element matches css=#no-such-element"},
		{"press", "login-invalid", "4", func(s *gardener.Step) { s.Locator = loc("label=Passcode") }, gardener.ErrElementNotFound, "no element matches label=Passcode"},
		{"assert value", "login-invalid", "8", func(s *gardener.Step) { s.Expected = "admin" }, gardener.ErrAssertionFailed, `value is [value redacted, 4 chars]`},
		{"check", "product-search", "3", func(s *gardener.Step) { s.Locator = loc("label=Out of stock only") }, gardener.ErrElementNotFound, "no element matches label=Out of stock only"},
		{"select", "product-search", "4", func(s *gardener.Step) { s.Value = "Underwater" }, gardener.ErrElementNotFound, `has no option matching the value [value redacted, 10 chars]`},
		{"uncheck", "product-search", "7", func(s *gardener.Step) { s.Locator = loc("label=Hide sold out") }, gardener.ErrElementNotFound, "no element matches label=Hide sold out"},
		{"assertToast", "cart-total", "3", func(s *gardener.Step) { s.Text = "Added Boston Fern to wishlist" }, gardener.ErrAssertionFailed, `no toast with text "Added Boston Fern to wishlist"`},
		{"assertRequest", "cart-total", "11", func(s *gardener.Step) { s.Status = 201 }, gardener.ErrAssertionFailed, "→ 200"},
		{"assertValidationError", "create-product", "5", func(s *gardener.Step) { s.Text = "Name is too long" }, gardener.ErrAssertionFailed, `no validation error with text "Name is too long"`},
		{"wait element", "checkout", "3", func(s *gardener.Step) { s.Locator = loc(`css=#cart-count[data-count="2"]`) }, gardener.ErrElementNotFound, `no element matches css=#cart-count[data-count="2"]`},
		{"extract", "checkout", "20", func(s *gardener.Step) { s.Locator = loc("testid=order-id") }, gardener.ErrElementNotFound, "no element matches testid=order-id"},
		{"assert variable", "checkout", "21", func(s *gardener.Step) { s.Expected = "^XX-[0-9]+$" }, gardener.ErrAssertionFailed, `variable is "SS-`},
		// The baseline passes every rule the saved audits name; the one rule it breaks is axe's
		// experimental p-as-heading, which reads the product page's large bold price as a
		// paragraph posing as a heading. An audit that adds it must fail on the violation.
		{"a11yAudit", "a11y-shop", "5", func(s *gardener.Step) { s.Rules = []string{"p-as-heading"} }, gardener.ErrAssertionFailed, "p-as-heading (serious)"},
		{"intent", "dashboard-nav", "1.4", func(s *gardener.Step) { s.Locator = loc("text=Log me in") }, gardener.ErrElementNotFound, "no element matches text=Log me in"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			test, ok := byID[c.test]
			if !ok {
				t.Fatalf("no saved test %s", c.test)
			}
			var top, inner int
			if n, _ := fmt.Sscanf(c.path, "%d.%d", &top, &inner); n == 0 {
				t.Fatalf("bad path %q", c.path)
			}
			// The test up to the falsified step, which is a copy: the saved test stays as it is.
			test.Steps = slices.Clone(test.Steps[:top])
			target := &test.Steps[top-1]
			if inner > 0 {
				target.Steps = slices.Clone(target.Steps)
				target = &target.Steps[inner-1]
			}
			original := target.String()
			c.change(target)
			if target.String() == original {
				t.Fatalf("the change left step %s as it was: %s", c.path, original)
			}
			if target.Kind != gardener.A11yAudit && target.Kind != gardener.Goto {
				// A falsified step fails by waiting out its time; audits and page loads fail
				// on what they find, and must not be cut short.
				target.TimeoutMs = 500
			}
			srv := httptest.NewServer(demoapp.New().Handler())
			defer srv.Close()
			rep, err := r.Replay(context.Background(), test, gardener.ReplayOptions{BaseURL: srv.URL, StepTimeout: demoStepTimeout})
			if err != nil {
				t.Fatal(err)
			}
			res := rep.Result
			if res.Passed {
				t.Fatalf("%s passed with step %s changed to %s", c.test, c.path, target)
			}
			if res.FailedStep != c.path || res.ErrorKind != c.kind {
				t.Fatalf("%s failed at step %s with %s (%s), want step %s with %s", c.test, res.FailedStep, res.ErrorKind, res.Message, c.path, c.kind)
			}
			if !strings.Contains(res.Message, c.message) {
				t.Errorf("message %q does not contain %q", res.Message, c.message)
			}
		})
	}
}

// TestRunRecord checks what a green run records on the demo app's saved login test, step by step
// (the URLs around each step, the element it targeted, the values it entered, the requests it
// sent, what a check read) and as a whole (requests, navigations, console, final URL), and that
// the app itself saw the fills and the click reach the elements the run recorded.
func TestRunRecord(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	saved, err := demoapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	var login gardener.Test
	for _, tt := range saved {
		if tt.ID == "login" {
			login = tt
		}
	}
	app := demoapp.New()
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()
	rep, err := r.Replay(context.Background(), login, gardener.ReplayOptions{BaseURL: srv.URL, StepTimeout: demoStepTimeout})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Result
	if !res.Passed || len(res.Steps) != len(login.Steps) {
		t.Fatalf("the login test did not pass whole: %d records, %s", len(res.Steps), res.Message)
	}
	loginURL, dashURL := srv.URL+"/login", srv.URL+"/dashboard"
	hasRequest := func(reqs []gardener.Request, method, url string, status int) bool {
		return slices.ContainsFunc(reqs, func(q gardener.Request) bool { return q.Method == method && q.URL == url && q.Status == status })
	}
	elementID := func(rec gardener.StepRecord) string {
		if rec.Element == nil {
			return ""
		}
		return rec.Element.ID
	}
	step := func(n int) gardener.StepRecord { return res.Steps[n-1] }
	checks := []struct {
		what string
		ok   bool
	}{
		{"goto: the URL loaded, and the page after it", slices.Equal(step(1).Values, []string{loginURL}) && step(1).URLAfter == loginURL && hasRequest(step(1).Requests, "GET", loginURL, 200)},
		{"assert title: what it read", step(2).Observed == "Login · Seedling Supply"},
		{"fill: the field and the value", elementID(step(3)) == "username" && slices.Equal(step(3).Values, []string{"demo"}) && step(3).URLBefore == loginURL && step(3).URLAfter == loginURL},
		{"fill: the password field", elementID(step(4)) == "password" && slices.Equal(step(4).Values, []string{"demo123"})},
		{"click: the button, the page before and after, the requests it sent", elementID(step(5)) == "login-btn" && step(5).Element.AccessibleName == "Login" &&
			step(5).URLBefore == loginURL && step(5).URLAfter == dashURL && hasRequest(step(5).Requests, "POST", loginURL, 303) && hasRequest(step(5).Requests, "GET", dashURL, 200)},
		{"wait url: the URL it saw", step(6).Observed == dashURL},
		{"assert text: what it read", step(8).Observed == "Welcome, Demo User"},
		{"the run: navigations in order", len(res.Navigations) >= 2 && res.Navigations[len(res.Navigations)-2] == loginURL && res.Navigations[len(res.Navigations)-1] == dashURL},
		{"the run: its requests and final URL", hasRequest(res.Requests, "POST", loginURL, 303) && res.FinalURL == dashURL && res.FailedIndex == -1},
		{"the run: no console error", !slices.ContainsFunc(res.Console, func(m gardener.ConsoleMessage) bool { return m.Level == "error" })},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: not as recorded\n%+v", c.what, res)
		}
	}
	// The page reports element events with beacons, which may land just after the replay.
	want := []demoapp.Event{{Type: demoapp.EventFill, Key: "login-username", Value: "demo"}, {Type: demoapp.EventFill, Key: "login-password", Value: "demo123"}, {Type: demoapp.EventClick, Key: "login-submit"}}
	seen := func() bool {
		events := app.Events()
		for _, w := range want {
			if !slices.ContainsFunc(events, func(e demoapp.Event) bool { return e.Type == w.Type && e.Key == w.Key && e.Value == w.Value }) {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(5 * time.Second); !seen() && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if !seen() {
		t.Errorf("the app did not record the fills and the click of the run: %+v", app.Events())
	}
}
