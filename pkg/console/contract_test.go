package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestReviewListsEachRequirement: a proven fix's row lists each requirement of its contract with
// the repaired action that keeps it (spec 002's review page), a value entered masked, and each
// requirement not kept marked so, with no action beside it.
func TestReviewListsEachRequirement(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	status, page, _ := ann.do("GET", "/console/projects/shop", nil, nil)
	if status != http.StatusOK {
		t.Fatalf("GET the radar page: %d", status)
	}
	kept := row(t, page, w.proposals["approve-me"])
	for _, want := range []string{"Contract: 2 of 2 kept", "kept step 2 enters [value redacted", "kept step 3 sends POST /api/checkout: click css=#pay"} {
		if !strings.Contains(kept, want) {
			t.Errorf("the proven fix's row lacks %q:\n%s", want, kept)
		}
	}
	held := row(t, page, w.proposals["dismiss-me"])
	if !strings.Contains(held, "NOT KEPT step 3 sends POST /api/checkout") || strings.Contains(held, "POST /api/checkout: click") {
		t.Errorf("the held row should list step 3's request NOT KEPT, with no action keeping it:\n%s", held)
	}
	for _, r := range []string{kept, held} {
		if strings.Contains(r, "SAVE10") {
			t.Errorf("a row shows the value a step types:\n%s", r)
		}
	}
}

// TestApprovalNamesTheOtherTests: a row whose fix heals a locator other tests use names them
// and offers to carry the fix to them; approving without it says which tests were left as they
// are (the proposal, and with it the list, is gone afterwards).
func TestApprovalNamesTheOtherTests(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	_, page, _ := ann.do("GET", "/console/projects/shop", nil, nil)
	r := row(t, page, w.proposals["approve-me"])
	for _, want := range []string{"Other tests use the locator this fix heals:", "Check out as a guest (step 3)", "Approving alone leaves them as they are", "Also carry the fix to them"} {
		if !strings.Contains(r, want) {
			t.Errorf("the row lacks %q:\n%s", want, r)
		}
	}
	if strings.Contains(r, "Not yours") {
		t.Errorf("the row names another project's test:\n%s", r)
	}
	tok := ann.csrf("/console/projects/shop")
	status, _, h := ann.do("POST", "/console/proposals/"+url.PathEscape(w.proposals["approve-me"])+"/approve", url.Values{"csrf": {tok}}, nil)
	loc := h.Get("Location")
	if status != http.StatusSeeOther || !strings.Contains(loc, "done=approved-others") || !strings.Contains(loc, "left=dismiss-me") {
		t.Fatalf("approve: %d to %q, want a redirect naming the tests left as they are", status, loc)
	}
	_, page, _ = ann.do("GET", strings.TrimPrefix(loc, srv.URL), nil, nil)
	if got := words(page); !strings.Contains(got, "Other tests use the locator it healed") || !strings.Contains(got, "Left as they are: ") || !strings.Contains(got, "dismiss-me") {
		t.Errorf("the page after approving does not name the tests left as they are:\n%s", got)
	}
}

// TestApprovalCarriesTheFix: ticking "Also carry the fix to them" asks the approval to
// propagate, and the page after it says what became of each other test (here left as it is:
// the seeded app's origin does not answer, so no copy replays green).
func TestApprovalCarriesTheFix(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	tok := ann.csrf("/console/projects/shop")
	status, _, h := ann.do("POST", "/console/proposals/"+url.PathEscape(w.proposals["approve-me"])+"/approve", url.Values{"csrf": {tok}, "propagate": {"yes"}}, nil)
	loc := h.Get("Location")
	if status != http.StatusSeeOther || !strings.Contains(loc, "done=propagate") || !strings.Contains(loc, "dismiss-me") {
		t.Fatalf("approve with propagate: %d to %q, want a redirect saying what carrying the fix did to dismiss-me", status, loc)
	}
}
