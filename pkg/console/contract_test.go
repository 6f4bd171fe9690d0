package console_test

import (
	"net/http"
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
