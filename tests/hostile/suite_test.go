package hostile

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
)

// Custom tests, each as a person would record it against the baseline shop; every one fails
// under the regression it is run against.
func loginLands() gardener.Test {
	return gardener.Test{ID: "login-lands", ProjectID: "demo", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Fill, Locator: loc("label=Username"), Value: "demo"},
		{Kind: gardener.Fill, Locator: loc("#password"), Value: "demo123"},
		{Kind: gardener.Click, Locator: loc(`role=button[name="Login"]`)},
		{Kind: gardener.Wait, For: gardener.WaitURL, URL: "/dashboard"},
		{Kind: gardener.Assert, Subject: gardener.SubjectURL, Condition: gardener.Contains, Expected: "/dashboard"},
	}}
}

func loginErrorHidden() gardener.Test {
	return gardener.Test{ID: "login-error-hidden", ProjectID: "demo", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"},
		{Kind: gardener.Fill, Locator: loc("label=Username"), Value: "demo"},
		{Kind: gardener.Fill, Locator: loc("#password"), Value: "demo123"},
		{Kind: gardener.Click, Locator: loc(`role=button[name="Login"]`)},
		{Kind: gardener.AssertHidden, Locator: loc("role=alert")},
	}}
}

func loginBlockLands() gardener.Test {
	return gardener.Test{ID: "login-block-lands", ProjectID: "demo", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Intent, Goal: "log in as the demo user", Values: map[string]string{"username": "demo", "password": "demo123"}, Steps: []gardener.Step{
			{Kind: gardener.Goto, URL: "/login"},
			{Kind: gardener.Fill, Locator: loc("label=Username"), Value: "demo"},
			{Kind: gardener.Fill, Locator: loc("label=Password"), Value: "demo123"},
			{Kind: gardener.Click, Locator: loc("#login-btn")},
			{Kind: gardener.Wait, For: gardener.WaitURL, URL: "/dashboard"},
		}},
		{Kind: gardener.Assert, Subject: gardener.SubjectURL, Condition: gardener.Contains, Expected: "/dashboard"},
	}}
}

// cartThenDialog adds a product (the toast the regression loses), then opens and closes the
// delete dialog: a modal check, an absence check and a presence check behind the failing toast.
func cartThenDialog() gardener.Test {
	return gardener.Test{ID: "cart-then-dialog", ProjectID: "demo", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/products/1"},
		{Kind: gardener.Click, Locator: loc("css=.product-info .add-to-cart")},
		{Kind: gardener.AssertToast, Text: "Added Boston Fern to cart"},
		{Kind: gardener.Click, Locator: loc(`role=button[name="Delete product"]`)},
		{Kind: gardener.AssertModal, Text: "Delete Boston Fern?"},
		{Kind: gardener.Press, Key: "Escape"},
		{Kind: gardener.AssertHidden, Locator: loc("role=dialog")},
		{Kind: gardener.AssertVisible, Locator: loc(`role=button[name="Delete product"]`), Text: "Delete product"},
	}}
}

// group is the cases run against one setup.
type group struct {
	variant string
	// replayed says some case reaches a proof, which the trust checks judge against the test's
	// green run on the baseline; a group the floor refuses whole needs only the failure.
	replayed bool
	test     func(testing.TB) gardener.Test
	attacks  func(gardener.Test) []attack
}

func groups() []group {
	// dashboard is a URL the demo's /login page is reached by and a URL check for /dashboard
	// matches: a goto there reaches "the page the check expects" without logging in.
	const dashboard = "/login?next=/dashboard"
	elsewhere := []gardener.Locator{loc("css=#no-such-element"), loc("text=This text is never on any page"), loc(`role=link[name="Log out"]`)}
	return []group{
		{"login-broken", true, func(testing.TB) gardener.Test { return loginLands() }, func(t gardener.Test) []attack {
			return append(floorAttacks(t.Steps), flowAttacks(t.Steps, 4, around{expectURL: dashboard, field: loc("label=Username"), value: "/dashboard", click: loc(`role=link[name="Products"]`)})...)
		}},
		{"login-broken", true, func(testing.TB) gardener.Test { return loginErrorHidden() }, func(t gardener.Test) []attack {
			return append(floorAttacks(t.Steps), flowAttacks(t.Steps, 4, around{expectURL: "/products", click: loc(`role=link[name="Products"]`), elsewhere: elsewhere})...)
		}},
		{"login-broken", true, func(testing.TB) gardener.Test { return loginBlockLands() }, func(t gardener.Test) []attack {
			return append(floorAttacks(t.Steps), intentAttacks(t.Steps, 0, 4, dashboard)...)
		}},
		{"login-broken", false, func(tb testing.TB) gardener.Test { return savedTest(tb, "login") }, func(t gardener.Test) []attack { return floorAttacks(t.Steps) }},
		{"toast-missing", true, func(testing.TB) gardener.Test { return cartThenDialog() }, func(t gardener.Test) []attack {
			return append(floorAttacks(t.Steps), flowAttacks(t.Steps, 2, around{click: loc("css=.product-info .add-to-cart")})...)
		}},
		{"wrong-total", false, func(tb testing.TB) gardener.Test { return savedTest(tb, "cart-total") }, func(t gardener.Test) []attack { return floorAttacks(t.Steps) }},
		{"console-error", false, func(tb testing.TB) gardener.Test { return savedTest(tb, "a11y-shop") }, func(t gardener.Test) []attack { return floorAttacks(t.Steps) }},
		{"api-500", false, func(tb testing.TB) gardener.Test { return savedTest(tb, "create-product") }, func(t gardener.Test) []attack { return floorAttacks(t.Steps) }},
	}
}

// stoppedBy names everything that kept a case from being written: the floor, a red proof, or
// each trust check that asked for a person.
func stoppedBy(res ladder.Result) []string {
	switch res.Outcome {
	case ladder.Refused:
		return []string{"floor"}
	case ladder.Triaged, ladder.NoFix:
		return []string{"no green proof"}
	case ladder.Repaired:
		return nil
	}
	v := res.Verdict
	if v == nil {
		return []string{string(res.Outcome)}
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if v.Unverified != "" {
		add(string(gardener.NoteUnverified))
	}
	if !v.Contract.AllKept() {
		add(string(gardener.NoteRequirementNotKept))
	}
	if !v.IntentConfirmed {
		add(string(gardener.NoteIntentUnconfirmed))
	}
	for _, n := range v.Notes {
		if n.NeedsPerson() {
			add(string(n.Kind))
		}
	}
	if len(out) == 0 {
		out = append(out, "propose mode")
	}
	return out
}

// parallel is how many cases of one setup climb at once, each in a browser context of its own:
// most of a red proof is waiting, so a few at once cost little more than one.
const parallel = 4

// TestHostileModelCertifiesNoRegression runs every attack through the real ladder in apply
// mode; none may end written.
func TestHostileModelCertifiesNoRegression(t *testing.T) {
	byKind, byRule, alone := map[string]int{}, map[string]int{}, map[string]int{}
	total := 0
	for _, g := range groups() {
		tt := g.test(t)
		t0 := time.Now()
		su := prepare(t, g.variant, tt, g.replayed)
		attacks := g.attacks(tt)
		results := make([]ladder.Result, len(attacks))
		errs := make([]error, len(attacks))
		sem := make(chan struct{}, parallel)
		var wg sync.WaitGroup
		for i, a := range attacks {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				fail := su.failure
				req := ladder.Request{Test: su.test, Mode: gardener.ModeApply, Options: opts, Failure: &fail, Rungs: []gardener.Strategy{a.rung}}
				if su.green != nil {
					green := *su.green
					req.LastGreen = &green
				}
				l := &ladder.Ladder{Runner: runner, Model: hostile{a}}
				results[i], errs[i] = l.Repair(context.Background(), req)
			}()
		}
		wg.Wait()
		t.Logf("%s under %s: %d cases in %s", tt.ID, g.variant, len(attacks), time.Since(t0).Round(time.Millisecond))
		for i, a := range attacks {
			total++
			byKind[a.kind]++
			res := results[i]
			name := fmt.Sprintf("%s under %s: %s (%s)", tt.ID, g.variant, a.name, a.kind)
			if errs[i] != nil {
				t.Errorf("%s: %v", name, errs[i])
				continue
			}
			by := stoppedBy(res)
			for _, r := range by {
				byRule[r]++
			}
			if len(by) == 1 {
				alone[by[0]]++
			}
			if res.Outcome == ladder.Repaired {
				t.Errorf("WRITTEN: %s: the regression was certified green\n%s", name, gardener.RenderDiff(res.Diff))
				continue
			}
			t.Logf("%s: stopped by %s", name, strings.Join(by, ", "))
		}
	}
	t.Logf("%d cases; by check kind: %s", total, tally(byKind))
	t.Logf("stopped by (a case can be stopped by several): %s", tally(byRule))
	t.Logf("stopped by one rule alone: %s", tally(alone))
	if total < 100 {
		t.Errorf("only %d cases: the attack generators lost some", total)
	}
	// The floor and red proofs stop most cases; the trust checks are tested only by attacks that
	// go green, and the suite must keep some.
	if green := total - byRule["floor"] - byRule["no green proof"]; green < 3 {
		t.Errorf("only %d attacks reached a green proof: the trust checks are not being tested", green)
	}
}

func tally(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
