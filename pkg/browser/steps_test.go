package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// stepCase is a test of a few steps after opening the fixture dashboard: it passes, or fails
// at the given step with the given kind and a message containing the given text.
type stepCase struct {
	name     string
	steps    string // JSON steps after a goto to start (default /dashboard.html)
	start    string
	failAt   string // "" when the run must pass; else the failing step's path
	kind     gardener.ErrorKind
	cause    gardener.FailureCause // the failure's cause, when it narrows kind
	message  string                // a part of the failure message
	observed string                // a part of the last step's observed value
	// element is a part of the XPath of the element the failing step recorded having found.
	element string
}

func runCases(t *testing.T, cases []stepCase) {
	r := needBrowser(t)
	srv := fixture(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			start := c.start
			if start == "" {
				start = "/dashboard.html"
			}
			js := fmt.Sprintf(`[{"kind":"goto","url":%q},%s]`, start, c.steps)
			rep := replayOK(t, r, srv.URL, steps(t, js), gardener.ReplayOptions{})
			res := rep.Result
			if c.failAt == "" {
				if !res.Passed {
					t.Fatalf("run failed at step %s (%s): %s", res.FailedStep, res.ErrorKind, res.Message)
				}
				if res.FailedIndex != -1 {
					t.Errorf("FailedIndex = %d on a passing run, want -1", res.FailedIndex)
				}
			} else {
				if res.Passed {
					t.Fatalf("run passed, want a failure at step %s (%s)", c.failAt, c.kind)
				}
				if res.FailedStep != c.failAt || res.ErrorKind != c.kind {
					t.Fatalf("failed at step %s with %s (%s), want step %s with %s", res.FailedStep, res.ErrorKind, res.Message, c.failAt, c.kind)
				}
				if res.Cause != c.cause {
					t.Errorf("failure cause %q, want %q", res.Cause, c.cause)
				}
				if !strings.Contains(res.Message, c.message) {
					t.Errorf("message %q does not contain %q", res.Message, c.message)
				}
				if !strings.HasPrefix(res.Message, "step "+c.failAt+" (") {
					t.Errorf("message %q does not name the step first", res.Message)
				}
				if c.element != "" {
					if el := res.Element(res.FailedStep); el == nil || !strings.Contains(el.XPath, c.element) {
						t.Errorf("the failing step recorded element %+v, want one at %s", el, c.element)
					}
				}
				if rep.Snapshot == nil || len(rep.Snapshot.Candidates) == 0 {
					t.Errorf("a failing run carries no snapshot with candidates")
				}
			}
			if c.observed != "" {
				last := res.Steps[len(res.Steps)-1]
				if !strings.Contains(last.Observed, c.observed) {
					t.Errorf("step %s observed %q, want it to contain %q", last.Path, last.Observed, c.observed)
				}
			}
		})
	}
}

func TestActions(t *testing.T) {
	t.Parallel()
	runCases(t, []stepCase{
		{name: "goto relative", steps: `{"kind":"assert","assert":"title","condition":"contains","expected":"Dashboard"}`},
		{name: "goto another port is blocked", steps: `{"kind":"goto","url":"http://127.0.0.1:1/"}`, failAt: "2", kind: gardener.ErrNavigationBlocked, message: "not in the allowed origins"},
		{name: "goto HTTP 404", steps: `{"kind":"goto","url":"/missing-page"}`, failAt: "2", kind: gardener.ErrHTTP, message: "answered HTTP 404"},
		{name: "click", steps: `{"kind":"click","locator":"#covered"},{"kind":"assert","assert":"text","locator":"#result","condition":"equals","expected":"covered clicked"}`},
		{name: "click missing element", steps: `{"kind":"click","locator":"#nope","timeoutMs":300}`, failAt: "2", kind: gardener.ErrElementNotFound, message: "no element matches css=#nope after 300ms"},
		{name: "click ambiguous", steps: `{"kind":"click","locator":".item","timeoutMs":800}`, failAt: "2", kind: gardener.ErrAmbiguousElement, message: "2 visible elements match css=.item"},
		{name: "click disabled", steps: `{"kind":"click","locator":"#disabled","timeoutMs":300}`, failAt: "2", kind: gardener.ErrTimeout, message: "still disabled"},
		{name: "click covered", steps: `{"kind":"click","locator":"#show-overlay"},{"kind":"click","locator":"#covered","timeoutMs":300}`, failAt: "3", kind: gardener.ErrTimeout, message: "covered by div#overlay", element: "button"},
		{name: "click hidden", steps: `{"kind":"click","locator":"#modal","timeoutMs":300}`, failAt: "2", kind: gardener.ErrElementNotFound, cause: gardener.CauseHidden, message: "none is visible"},
		{name: "click waits for a late element", steps: `{"kind":"click","locator":"#later"},{"kind":"click","locator":"#late"}`},
		{name: "bad css", steps: `{"kind":"click","locator":"css=a:nope(1)"}`, failAt: "2", kind: gardener.ErrBadStep, message: "cannot be used"},
		{name: "fill", steps: `{"kind":"fill","locator":"#search","value":"pears"},{"kind":"assert","assert":"value","locator":"#search","condition":"equals","expected":"pears"}`},
		{name: "fill replaces and clears", steps: `{"kind":"fill","locator":"#search","value":"pears"},{"kind":"fill","locator":"#search","value":""},{"kind":"assert","assert":"value","locator":"#search","condition":"equals","expected":""}`},
		{name: "fill date", steps: `{"kind":"fill","locator":"label=Delivery date","value":"2026-01-31"},{"kind":"assert","assert":"value","locator":"#when","condition":"equals","expected":"2026-01-31"}`},
		{name: "fill not editable", steps: `{"kind":"fill","locator":"#save","value":"x"}`, failAt: "2", kind: gardener.ErrBadStep, message: "cannot be filled"},
		{name: "select by label", steps: `{"kind":"select","locator":"label=Country","value":"France"},{"kind":"assert","assert":"value","locator":"#country","condition":"equals","expected":"fr"}`},
		{name: "select missing option", steps: `{"kind":"select","locator":"#country","value":"Spain","timeoutMs":300}`, failAt: "2", kind: gardener.ErrElementNotFound, message: `no option matching the value [value redacted, 5 chars]`},
		{name: "check and uncheck", steps: `{"kind":"check","locator":"label=I accept the terms"},{"kind":"assert","assert":"value","locator":"#terms","condition":"equals","expected":"on"},{"kind":"uncheck","locator":"#terms"},{"kind":"check","locator":"#terms"},{"kind":"check","locator":"#terms"}`},
		{name: "check not a checkbox", steps: `{"kind":"check","locator":"#save"}`, failAt: "2", kind: gardener.ErrBadStep, message: "not a checkbox"},
		{name: "press enter in a field", steps: `{"kind":"fill","locator":"#search","value":"kiwi"},{"kind":"press","locator":"#search","key":"Enter"},{"kind":"assert","assert":"text","locator":"#result","condition":"equals","expected":"Results for kiwi"}`},
		// What a page's key handler reads: chromedp's keys, with the key code of a modifier
		// as a real keyboard reports it (17 for either Control), the modifiers held, and the
		// typed text only from keys pressed without Control, Alt or Meta.
		{name: "press keys as a page reads them", start: "/keys.html", steps: `{"kind":"press","locator":"#keys","key":"Control+Shift+K"},{"kind":"press","locator":"#keys","key":"Alt+x"},{"kind":"press","locator":"#keys","key":"Meta+Space"},{"kind":"press","locator":"#keys","key":"a"},{"kind":"press","locator":"#keys","key":"+"},{"kind":"press","locator":"#keys","key":"Escape"},` +
			`{"kind":"assert","assert":"text","locator":"#key-log","condition":"equals","expected":"Control/ControlLeft/17/CS Shift/ShiftLeft/16/CS K/KeyK/75/CS Alt/AltLeft/18/A x/KeyX/88/A Meta/MetaLeft/91/M  /Space/32/M a/KeyA/65/ +/Equal/187/ Escape/Escape/27/"},{"kind":"assert","assert":"value","locator":"#keys","condition":"equals","expected":"a+"}`},
		{name: "press unknown key", steps: `{"kind":"press","key":"Hyper+Q"}`, failAt: "2", kind: gardener.ErrBadStep, message: "not a modifier"},
		{name: "hover", steps: `{"kind":"hover","locator":"text=More"},{"kind":"assertVisible","locator":"text=Archive"}`},
		{name: "hover nothing", steps: `{"kind":"hover","locator":"text=Nowhere","timeoutMs":300}`, failAt: "2", kind: gardener.ErrElementNotFound},
	})
}

func TestChecks(t *testing.T) {
	t.Parallel()
	runCases(t, []stepCase{
		{name: "assert url", steps: `{"kind":"assert","assert":"url","condition":"matches","expected":"/dashboard\\.html$"}`},
		{name: "assert url fails", steps: `{"kind":"assert","assert":"url","condition":"contains","expected":"/orders","timeoutMs":300}`, failAt: "2", kind: gardener.ErrAssertionFailed, message: `expected it to contain "/orders"`},
		{name: "assert title fails", steps: `{"kind":"assert","assert":"title","condition":"equals","expected":"Login","timeoutMs":300}`, failAt: "2", kind: gardener.ErrAssertionFailed, observed: "Dashboard"},
		{name: "assert text", steps: `{"kind":"assert","assert":"text","locator":"#total","condition":"equals","expected":"42.50"}`},
		{name: "assert text fails", steps: `{"kind":"assert","assert":"text","locator":"#total","condition":"equals","expected":"40.00","timeoutMs":300}`, failAt: "2", kind: gardener.ErrAssertionFailed, message: `text is "42.50"`, observed: "42.50"},
		{name: "assert text missing element", steps: `{"kind":"assert","assert":"text","locator":"#totl","condition":"equals","expected":"1","timeoutMs":300}`, failAt: "2", kind: gardener.ErrElementNotFound},
		{name: "assert variable", steps: `{"kind":"extract","locator":"#total","variable":"total"},{"kind":"assert","assert":"variable","actual":"${total} EUR","condition":"equals","expected":"42.50 EUR"}`},
		{name: "assert variable fails", steps: `{"kind":"extract","locator":"#total","variable":"total"},{"kind":"assert","assert":"variable","actual":"${total}","condition":"equals","expected":"41"}`, failAt: "3", kind: gardener.ErrAssertionFailed},
		{name: "unknown variable", steps: `{"kind":"assert","assert":"variable","actual":"${nope}","condition":"equals","expected":"1"}`, failAt: "2", kind: gardener.ErrBadStep, message: "${nope} is not set"},
		{name: "assertVisible with text", steps: `{"kind":"assertVisible","locator":"role=heading[name=\"Orders\"]","text":"Orders"}`},
		{name: "assertVisible fails", steps: `{"kind":"assertVisible","locator":"#modal","timeoutMs":300}`, failAt: "2", kind: gardener.ErrAssertionFailed, message: "is not visible"},
		{name: "assertVisible wrong text", steps: `{"kind":"assertVisible","locator":"#total","text":"99","timeoutMs":300}`, failAt: "2", kind: gardener.ErrAssertionFailed, message: `not text "99"`},
		{name: "assertHidden", steps: `{"kind":"assertHidden","locator":"#modal"}`},
		{name: "assertHidden fails", steps: `{"kind":"assertHidden","locator":"#save","timeoutMs":300}`, failAt: "2", kind: gardener.ErrAssertionFailed, message: "still visible"},
		{name: "assertToast after it vanished", steps: `{"kind":"click","locator":"#save"},{"kind":"wait","for":"time","ms":500},{"kind":"assertToast","text":"order saved"}`},
		{name: "assertToast fails", steps: `{"kind":"click","locator":"#covered"},{"kind":"assertToast","text":"Saved","timeoutMs":300}`, failAt: "3", kind: gardener.ErrAssertionFailed, message: `no toast with text "Saved"`},
		{name: "assertModal", steps: `{"kind":"click","locator":"text=Delete order"},{"kind":"assertModal","text":"Really delete?"},{"kind":"click","locator":"role=button[name=\"Confirm\"]"},{"kind":"assertHidden","locator":"role=dialog"}`},
		{name: "assertModal fails", steps: `{"kind":"assertModal","timeoutMs":300}`, failAt: "2", kind: gardener.ErrAssertionFailed, message: "no modal appeared"},
		{name: "assertModal by aria-label", start: "/dialogs.html", steps: `{"kind":"click","locator":"#open-named"},{"kind":"assertModal","text":"remove the product"}`},
		{name: "assertModal by title", start: "/dialogs.html", steps: `{"kind":"click","locator":"#open-titled"},{"kind":"assertModal","text":"Share this list"}`},
		{name: "assertModal by aria-labelledby", start: "/dialogs.html", steps: `{"kind":"click","locator":"#open-labelled"},{"kind":"assertModal","locator":"role=dialog","text":"Rename the list"}`},
		{name: "assertModal by name fails", start: "/dialogs.html", steps: `{"kind":"click","locator":"#open-named"},{"kind":"assertModal","text":"Delete everything","timeoutMs":300}`, failAt: "3", kind: gardener.ErrAssertionFailed, message: `saw "Remove the product — This cannot be undone. OK"`},
		{name: "assertValidationError", start: "/login.html", steps: `{"kind":"fill","locator":"label=Email","value":"nope"},{"kind":"click","locator":"testid=login-submit"},{"kind":"assertValidationError","locator":"label=Email","text":"valid email"}`},
		{name: "assertValidationError native", start: "/login.html", steps: `{"kind":"assertValidationError","locator":"#email","text":"fill out this field"}`},
		{name: "assertValidationError fails", start: "/login.html", steps: `{"kind":"assertValidationError","locator":"#password","timeoutMs":300}`, failAt: "2", kind: gardener.ErrAssertionFailed, message: "shows no validation error"},
		{name: "assertConsole match", steps: `{"kind":"click","locator":"#log-error"},{"kind":"assertConsole","level":"error","pattern":"payment failed","expect":"match"}`},
		{name: "assertConsole uncaught exception", steps: `{"kind":"click","locator":"#throw"},{"kind":"assertConsole","level":"error","pattern":"kaboom","expect":"match"}`},
		{name: "assertConsole noMatch fails", steps: `{"kind":"click","locator":"#log-error"},{"kind":"assertConsole","level":"error","pattern":"code \\d+","expect":"noMatch"}`, failAt: "3", kind: gardener.ErrAssertionFailed, observed: "payment failed"},
		{name: "assertConsole noMatch", steps: `{"kind":"assertConsole","level":"error","pattern":".","expect":"noMatch"}`},
		{name: "assertRequest", steps: `{"kind":"click","locator":"#post"},{"kind":"assertRequest","method":"POST","urlPattern":"/api/orders$","status":201}`, observed: "→ 201"},
		{name: "assertRequest wrong status", steps: `{"kind":"click","locator":"#fail"},{"kind":"assertRequest","method":"GET","urlPattern":"/api/broken","status":200,"timeoutMs":300}`, failAt: "3", kind: gardener.ErrAssertionFailed, message: "→ 500"},
		{name: "a11yAudit scoped passes", steps: `{"kind":"a11yAudit","scope":"#good-a11y","threshold":"minor"}`, observed: "no violations"},
		{name: "a11yAudit threshold fails", steps: `{"kind":"a11yAudit","scope":"#bad-a11y","threshold":"serious"}`, failAt: "2", kind: gardener.ErrAssertionFailed, message: "image-alt (critical)"},
		{name: "a11yAudit rules", steps: `{"kind":"a11yAudit","scope":"#bad-a11y","rules":["label"],"threshold":"minor"}`, failAt: "2", kind: gardener.ErrAssertionFailed, message: "label (critical)"},
		{name: "a11yAudit unknown rule", steps: `{"kind":"a11yAudit","rules":["no-such-rule"],"threshold":"minor"}`, failAt: "2", kind: gardener.ErrBadStep, message: "axe-core refused the audit"},
		{name: "a11yAudit report only", steps: `{"kind":"a11yAudit","scope":"#bad-a11y","reportOnly":true}`, observed: "image-alt (critical) ×1"},
		{name: "wait element", steps: `{"kind":"click","locator":"#later"},{"kind":"wait","for":"element","locator":"#late"}`},
		{name: "wait element hidden fails", steps: `{"kind":"wait","for":"element","locator":"#save","state":"hidden","timeoutMs":300}`, failAt: "2", kind: gardener.ErrTimeout},
		{name: "wait element attached", steps: `{"kind":"wait","for":"element","locator":"#modal","state":"attached"}`},
		{name: "wait time beyond the step's timeout", steps: `{"kind":"wait","for":"time","ms":2000,"timeoutMs":200}`, failAt: "2", kind: gardener.ErrTimeout, message: "ran out before the 2000ms wait ended"},
		{name: "wait url fails", steps: `{"kind":"wait","for":"url","url":"/orders/*","timeoutMs":300}`, failAt: "2", kind: gardener.ErrAssertionFailed, message: "did not reach"},
		{name: "screenshot", steps: `{"kind":"screenshot","name":"total.png","locator":"#total"}`, observed: "total.png ("},
		{name: "extract attribute", steps: `{"kind":"extract","locator":"#save","attribute":"title","variable":"t"},{"kind":"assert","assert":"variable","actual":"${t}","condition":"equals","expected":"Save the order"}`},
		{name: "extract missing attribute", steps: `{"kind":"extract","locator":"#save","attribute":"data-x","variable":"t"}`, failAt: "2", kind: gardener.ErrElementNotFound, message: `no attribute "data-x"`},
		{name: "intent block", steps: `{"kind":"intent","goal":"search for a fruit","values":{"fruit":"fig"},"steps":[{"kind":"fill","locator":"#search","value":"${fruit}"},{"kind":"press","locator":"#search","key":"Enter"}]},{"kind":"assert","assert":"text","locator":"#result","condition":"contains","expected":"fig"}`},
		{name: "intent block fails inside", steps: `{"kind":"intent","goal":"open the menu","steps":[{"kind":"hover","locator":"text=More"},{"kind":"click","locator":"text=Archiv3","timeoutMs":300}]}`, failAt: "2.2", kind: gardener.ErrElementNotFound, message: "text=Archiv3"},
	})
}
