package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestApproveNamesOrCarriesToOtherTests: approve names the other tests that use the locator the
// fix healed and leaves them; approve --propagate replays each with the heal (here against an
// app that is not there, so the other test is left as it is, with why). Both print no value a
// test types (reviewDoor checks it).
func TestApproveNamesOrCarriesToOtherTests(t *testing.T) {
	t.Parallel()
	door := func(t *testing.T) reviewDoor {
		dir := t.TempDir()
		store, err := embedded.Open(filepath.Join(dir, "gardener.db"))
		noErr(t, err)
		seedReview(t, store)
		// checkout clicks the very button prop-signin heals in signin.
		noErr(t, store.CreateTest(context.Background(), gardener.Test{ID: "checkout", ProjectID: "shop", Name: "Check out", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
			{Kind: gardener.Goto, URL: "/cart"},
			{Kind: gardener.Fill, Locator: gardener.MustLocator("label=Password"), Value: reviewTyped},
			{Kind: gardener.Click, Locator: gardener.MustLocator("#go")},
		}}))
		noErr(t, store.Close())
		return reviewDoor{name: "state", args: []string{"--state", dir}, by: localUser()}
	}
	d := door(t)
	code, out, errb := d.run(t, "", "approve", "prop-signin")
	if code != exitOK || !strings.Contains(out, "1 other test uses the locator it healed, left as before") || !strings.Contains(out, "checkout: step 3 uses css=#go") {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errb)
	}
	d = door(t)
	code, out, errb = d.run(t, "", "approve", "prop-signin", "--propagate")
	if code != exitOK || !strings.Contains(out, "carried to the other tests that use it") || !strings.Contains(out, "checkout: left as it is: not green with the healed locator") {
		t.Fatalf("approve --propagate: exit %d\n%s%s", code, out, errb)
	}
	if code, _, errb = (reviewDoor{}).run(t, "", "approve", "prop-search", "--propagate", "--base-url", "http://127.0.0.1:9", "--api", "http://127.0.0.1:9", "--token-env", "REVIEW_TOKEN_SHOP"); code != exitBadInput || !strings.Contains(errb, "--base-url and --step-timeout are for the local state") {
		t.Errorf("--base-url with --api: exit %d %s", code, errb)
	}
}
