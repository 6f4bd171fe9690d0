package builtin

import (
	"context"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// toastFailure is a run that fails at a toast check after a submit: the check found no toast,
// and the flow is on another page than on the last green run.
func toastFailure(t *testing.T, lg *gardener.RunResult, now []gardener.Request, page []gardener.Fingerprint) gardener.DiagnoseAsk {
	t.Helper()
	steps := []gardener.Step{
		{Kind: gardener.Goto, URL: "/invoices/new"},
		clickStep(t, "#save"),
		{Kind: gardener.AssertToast, Text: "Invoice saved"},
	}
	return gardener.DiagnoseAsk{Failure: gardener.Failure{
		Test: gardener.Test{ID: "t", Steps: steps},
		Result: gardener.RunResult{FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrAssertionFailed, Message: `no toast "Invoice saved"`, Requests: now,
			Steps: []gardener.StepRecord{{Path: "1", Passed: true}, {Path: "2", Passed: true}, {Path: "3"}}},
		LastGreen: lg,
		PageURL:   "http://app.test/invoices/new",
		Snapshot:  page,
		PageText:  "New invoice Client Save",
	}}
}

func greenRun(requests ...gardener.Request) *gardener.RunResult {
	return &gardener.RunResult{Passed: true, Requests: requests, Steps: []gardener.StepRecord{
		{Path: "1", URLBefore: "about:blank", Passed: true},
		{Path: "2", URLBefore: "http://app.test/invoices/new", Passed: true},
		{Path: "3", URLBefore: "http://app.test/invoices/7", Passed: true},
	}}
}

// TestDiagnoseFailedRequestsTheGreenRunHadToo: an analytics call that fails on every run, the
// green ones included, is not evidence; a failure the green run did not have still is.
func TestDiagnoseFailedRequestsTheGreenRunHadToo(t *testing.T) {
	analytics := gardener.Request{Method: "POST", URL: "http://metrics.test/collect?t=1", Failed: "net::ERR_CONNECTION_REFUSED"}
	again := analytics
	again.URL = "http://metrics.test/collect?t=2"
	broken := gardener.Request{Method: "POST", URL: "http://app.test/api/invoices", Status: 503}
	e := Engine{}

	d, err := e.Diagnose(context.Background(), toastFailure(t, greenRun(analytics), []gardener.Request{again}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if d.Classification == gardener.Environment || d.Classification == gardener.AppBug {
		t.Errorf("the always-failing analytics call made it %s: %v", d.Classification, d.Evidence)
	}

	d, _ = e.Diagnose(context.Background(), toastFailure(t, greenRun(analytics), []gardener.Request{again, broken}, nil))
	if d.Classification != gardener.AppBug || !strings.Contains(strings.Join(d.Evidence, ";"), "503") {
		t.Errorf("a new 503 is an app bug, got %s: %v", d.Classification, d.Evidence)
	}
	d, _ = e.Diagnose(context.Background(), toastFailure(t, greenRun(), []gardener.Request{again}, nil))
	if d.Classification != gardener.Environment {
		t.Errorf("a network failure the green run did not have is the environment's, got %s: %v", d.Classification, d.Evidence)
	}
}

// TestDiagnoseWeakSignsAreNotAnAppBug: a check that found nothing and a flow on another page are
// what a newly required field produces too. With the field on the page the rules fill it (drift
// with a repair); without any rule that fits it is left unclassified, never an app bug. A check
// that read its element and found another value still is one.
func TestDiagnoseWeakSignsAreNotAnAppBug(t *testing.T) {
	e := Engine{}
	terms := gardener.Fingerprint{Tag: "SELECT", ID: "terms", Name: "terms", Label: "Payment terms", XPath: "/html/body/form/select", Required: true, Invalid: true, Options: []string{"net30", "net60"}, Location: gardener.Rect{X: 10, Y: 10, Width: 100, Height: 20}}
	save := button("save", "Save", "/html/body/form/button", 60)

	d, _ := e.Diagnose(context.Background(), toastFailure(t, greenRun(), nil, []gardener.Fingerprint{terms, save}))
	if d.Classification != gardener.TestDrift || len(d.Ops) != 1 || d.Ops[0].Step.Kind != gardener.Select || d.Ops[0].Step.Value != "net30" || d.Ops[0].Index != 1 {
		t.Errorf("want drift with a select of net30 before the submit, got %s %v: %v", d.Classification, d.Ops, d.Evidence)
	}

	d, _ = e.Diagnose(context.Background(), toastFailure(t, greenRun(), nil, []gardener.Fingerprint{save}))
	if d.Classification != gardener.Unknown || len(d.Ops) != 0 {
		t.Errorf("a missing toast on another page alone is no app bug and no drift, got %s %v: %v", d.Classification, d.Ops, d.Evidence)
	}

	ask := toastFailure(t, greenRun(), nil, []gardener.Fingerprint{save})
	total := gardener.Fingerprint{Tag: "SPAN", ID: "total", VisibleText: []string{"$33.20"}}
	ask.Test.Steps[2] = gardener.Step{Kind: gardener.Assert, Subject: gardener.SubjectText, Locator: gardener.Locator{Kind: gardener.ByCSS, Value: "#total"}, Condition: gardener.Equals, Expected: "$42.95"}
	ask.Result.Steps[2].Element = &total
	if d, _ = e.Diagnose(context.Background(), ask); d.Classification != gardener.AppBug {
		t.Errorf("a check that read its element and found another value is an app bug, got %s: %v", d.Classification, d.Evidence)
	}
	ask.Result.Steps[2].Element, ask.Result.Steps[2].Observed = nil, "$33.20"
	if d, _ = e.Diagnose(context.Background(), ask); d.Classification != gardener.AppBug {
		t.Errorf("a check that read its element and found another value is an app bug, got %s: %v", d.Classification, d.Evidence)
	}
}

// TestRequiredValuesFitTheControl: each control type gets a value of its type, inside its range.
func TestRequiredValuesFitTheControl(t *testing.T) {
	cases := []struct {
		fp   gardener.Fingerprint
		kind gardener.StepKind
		want string
	}{
		{gardener.Fingerprint{Tag: "SELECT", Options: []string{"-- choose --", "eu", "us"}}, gardener.Select, "eu"},
		{gardener.Fingerprint{Tag: "SELECT", Label: "Payment terms net60", Options: []string{"net30", "net60"}}, gardener.Select, "net60"},
		{gardener.Fingerprint{Tag: "SELECT"}, "", ""},
		{gardener.Fingerprint{Tag: "INPUT", Type: "radio"}, gardener.Check, ""},
		{gardener.Fingerprint{Tag: "INPUT", Type: "checkbox"}, gardener.Check, ""},
		{gardener.Fingerprint{Tag: "INPUT", Type: "date", Min: "2027-03-01"}, gardener.Fill, "2027-03-01"},
		{gardener.Fingerprint{Tag: "INPUT", Type: "date", Max: "2025-12-31"}, gardener.Fill, "2025-12-31"},
		{gardener.Fingerprint{Tag: "INPUT", Type: "number", Min: "2"}, gardener.Fill, "2"},
		{gardener.Fingerprint{Tag: "INPUT", Type: "number"}, gardener.Fill, "1"},
		{gardener.Fingerprint{Tag: "INPUT", Type: "email"}, gardener.Fill, "gardener@example.com"},
		{gardener.Fingerprint{Tag: "INPUT", Type: "time"}, gardener.Fill, "09:30"},
		{gardener.Fingerprint{Tag: "TEXTAREA", Label: "Reason for the change"}, gardener.Fill, "Entered by Drift Gardener for an automated test."},
		{gardener.Fingerprint{Tag: "INPUT", Label: "Postcode"}, gardener.Fill, "12345"},
		{gardener.Fingerprint{Tag: "INPUT", Type: "file"}, "", ""},
	}
	for _, c := range cases {
		if kind, v := valueFor(c.fp); kind != c.kind || v != c.want {
			t.Errorf("%s type=%q label=%q: got %s %q, want %s %q", c.fp.Tag, c.fp.Type, c.fp.Label, kind, v, c.kind, c.want)
		}
	}
}

// TestDiagnoseAFailedCheckAloneIsNotAnAppBug: a wait for a page never reached (it records the
// URL it saw), a URL check, a presence check that found nothing visible, another toast and a
// request refused with another status are each what a form that now needs another field
// produces; none alone makes an app bug, whatever the runner recorded as observed.
func TestDiagnoseAFailedCheckAloneIsNotAnAppBug(t *testing.T) {
	e := Engine{}
	save := button("save", "Save", "/html/body/form/button", 60)
	cases := []struct {
		name     string
		step     gardener.Step
		observed string
	}{
		{"wait for url", gardener.Step{Kind: gardener.Wait, For: gardener.WaitURL, URL: "/invoices/7"}, "http://app.test/invoices/new"},
		{"url check", gardener.Step{Kind: gardener.Assert, Subject: gardener.SubjectURL, Condition: gardener.Contains, Expected: "/invoices/7"}, "http://app.test/invoices/new"},
		{"presence", gardener.Step{Kind: gardener.AssertVisible, Locator: gardener.Locator{Kind: gardener.ByCSS, Value: "#saved"}}, "1 match, 0 visible, 0 shown: nothing"},
		{"another toast", gardener.Step{Kind: gardener.AssertToast, Text: "Invoice saved"}, "Phone is required"},
		{"another status", gardener.Step{Kind: gardener.AssertRequest, Method: "POST", URLPattern: "/api/invoices$", Status: 201}, "POST http://app.test/api/invoices → 422"},
	}
	for _, c := range cases {
		ask := toastFailure(t, greenRun(), nil, []gardener.Fingerprint{save})
		ask.Test.Steps[2] = c.step
		ask.Result.Steps[2].Observed = c.observed
		d, err := e.Diagnose(context.Background(), ask)
		if err != nil {
			t.Fatal(err)
		}
		if d.Classification == gardener.AppBug {
			t.Errorf("%s: a failed check alone made it an app bug: %v", c.name, d.Evidence)
		}
	}
}

// TestDiagnoseTheBrowsersOwnTimeoutIsEnvironment: a step that timed out because the browser did
// not answer (CauseBrowserSlow) is the machine's failure, not the app's and not drift; the same
// timeout on the page's account is not classified so.
func TestDiagnoseTheBrowsersOwnTimeoutIsEnvironment(t *testing.T) {
	for _, c := range []struct {
		cause gardener.FailureCause
		want  bool
	}{{gardener.CauseBrowserSlow, true}, {"", false}} {
		ask := toastFailure(t, greenRun(), nil, nil)
		ask.Result.ErrorKind, ask.Result.Cause, ask.Result.Message = gardener.ErrTimeout, c.cause, "no answer to the click in time"
		d, err := Engine{}.Diagnose(context.Background(), ask)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Classification == gardener.Environment; got != c.want {
			t.Errorf("cause %q: classified %q (%v), want environment: %v", c.cause, d.Classification, d.Evidence, c.want)
		}
	}
}
