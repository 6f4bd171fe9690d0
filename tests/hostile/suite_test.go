package hostile

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// redProof finds the last red proof of a climb: the step of the candidate it failed at (as a
// path, "4" or "3.2"), the message, and that step of the candidate.
func redProof(base gardener.Test, res ladder.Result) (path, msg string, step gardener.Step, ok bool) {
	for i := len(res.Rungs) - 1; i >= 0; i-- {
		at := res.Rungs[i].Attempts
		for j := len(at) - 1; j >= 0; j-- {
			rest, red := strings.CutPrefix(at[j].Outcome, "red at step ")
			if !red {
				continue
			}
			path, msg, _ = strings.Cut(rest, ": ")
			cand, err := gardener.Apply(base, base.Version, at[j].Ops)
			if err != nil || len(at[j].Ops) == 0 {
				// A re-derived intent block's attempt carries no ops: its steps outside the
				// block are the test's own.
				cand = base
			}
			step, ok = stepAt(cand.Steps, path)
			return path, msg, step, ok
		}
	}
	return "", "", gardener.Step{}, false
}

// stepAt finds a step by its path as a person counts it: "4", or "3.2" inside a block.
func stepAt(steps []gardener.Step, path string) (gardener.Step, bool) {
	head, rest, inner := strings.Cut(path, ".")
	i, err := strconv.Atoi(head)
	if err != nil || i < 1 || i > len(steps) {
		return gardener.Step{}, false
	}
	if !inner {
		return steps[i-1], true
	}
	return stepAt(steps[i-1].Steps, rest)
}

// weakRed says why a climb ended red for a reason that proves nothing about the rules: its last
// proof failed at a step that is no check because the browser did not finish the step in time
// (a click, a fill or a navigation on a loaded machine), or at no step the candidate has; ""
// when the climb did not end red, or ended red at a check (the regression seen) or at an action
// whose element is not there (the attack's own step failing).
func weakRed(base gardener.Test, res ladder.Result) string {
	if res.Outcome != ladder.Triaged && res.Outcome != ladder.NoFix {
		return ""
	}
	path, msg, step, found := redProof(base, res)
	switch {
	case path == "":
		return ""
	case !found:
		return fmt.Sprintf("its proof went red at step %s, which the candidate does not have (%s)", path, msg)
	case !step.IsCheck() && (strings.Contains(msg, " in time") || strings.Contains(msg, "did not load within")):
		return fmt.Sprintf("its proof went red at step %s, a %s and no check, which did not finish in time (%s)", path, step.Kind, msg)
	}
	return ""
}

// rule is what stopped a case, for the report: the floor, a red proof at a check (by the check's
// kind), or the trust checks that held a green proof for a person.
func rule(base gardener.Test, res ladder.Result) string {
	switch res.Outcome {
	case ladder.Refused:
		return "floor"
	case ladder.Triaged, ladder.NoFix:
		if _, _, step, ok := redProof(base, res); ok {
			return "red proof at " + checkKind(step)
		}
		return "no candidate"
	}
	by := stoppedBy(res)
	slices.Sort(by)
	return strings.Join(by, "+")
}

// TestHostileModelCertifiesNoRegression runs the attacks through the real ladder in apply mode
// (the fixed sample, or with -hostile.all every attack); none may end written, and each must be
// stopped by a rule: refused by the floor, held for a person by a trust check, or red — at a
// check (the regression seen) or at an action of the attack that finds no element. A case whose
// proof went red because an action did not finish in time (a replay on a loaded machine) is
// climbed again, up to climbsPerCase times, and fails if it never ends otherwise: it proved
// nothing. The setups climb at once, each on its own demo app, their cases bounded together by
// climbs.
func TestHostileModelCertifiesNoRegression(t *testing.T) {
	var mu sync.Mutex
	got := map[string]string{}
	byKind, byRule, alone, kindRule := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	total := 0
	var retried atomic.Int64
	seen := map[string]bool{}
	t.Run("setups", func(t *testing.T) {
		for _, g := range groups() {
			tt := g.test(t)
			attacks := g.attacks(tt)
			if !*all {
				attacks = sample(attacks, seen)
			}
			t.Run(tt.ID+" under "+g.variant, func(t *testing.T) {
				t.Parallel()
				t0 := time.Now()
				su := prepare(t, g.variant, tt, g.replayed)
				names := make([]string, len(attacks))
				for i, a := range attacks {
					names[i] = fmt.Sprintf("%s under %s: %s (%s)", tt.ID, g.variant, a.name, a.kind)
				}
				results := make([]ladder.Result, len(attacks))
				errs := make([]error, len(attacks))
				var wg sync.WaitGroup
				for i, a := range attacks {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var tries int
						results[i], tries, errs[i] = climbShared(su, a)
						retried.Add(int64(tries - 1))
					}()
				}
				wg.Wait()
				t.Logf("%d cases in %s", len(attacks), time.Since(t0).Round(time.Millisecond))
				mu.Lock()
				defer mu.Unlock()
				for i, a := range attacks {
					total++
					byKind[a.kind]++
					res, name := results[i], names[i]
					if errs[i] != nil {
						t.Errorf("%s: %v", name, errs[i])
						continue
					}
					if _, dup := got[name]; dup {
						t.Errorf("two cases are named %q", name)
					}
					r := rule(su.test, res)
					got[name] = r
					by := stoppedBy(res)
					for _, r := range by {
						byRule[r]++
					}
					if len(by) == 1 {
						alone[by[0]]++
					}
					kindRule[a.kind+" / "+r]++
					if res.Outcome == ladder.Repaired {
						t.Errorf("WRITTEN: %s: the regression was certified green\n%s", name, gardener.RenderDiff(res.Diff))
						continue
					}
					if weak := weakRed(su.test, res); weak != "" {
						t.Errorf("%s: stopped by no rule in %d climbs: %s", name, climbsPerCase, weak)
						continue
					}
					t.Logf("%s: stopped by %s", name, r)
				}
			})
		}
	})
	t.Logf("%d cases; by check kind: %s", total, tally(byKind))
	t.Logf("by the rule that stopped them: %s", tally(countRules(got)))
	t.Logf("by check kind and rule: %s", tally(kindRule))
	t.Logf("stopped by (a case can be stopped by several): %s", tally(byRule))
	t.Logf("stopped by one rule alone: %s", tally(alone))
	t.Logf("%d case(s) climbed again after a red proof at an unexpected step", retried.Load())
	if total < 100 {
		t.Errorf("only %d cases: the attack generators lost some", total)
	}
	// The floor and red proofs stop most cases; the trust checks are tested only by attacks that
	// go green, and the suite must keep some.
	if green := total - byRule["floor"] - byRule["no green proof"]; green < 3 {
		t.Errorf("only %d attacks reached a green proof: the trust checks are not being tested", green)
	}
}

// climbsPerCase is how often a case is climbed while its proof goes red only because the browser
// did not finish a step in time; a loaded two-core machine does that now and then, never three
// times over for a rule that holds.
const climbsPerCase = 3

// climbed are the climbs made, by setup and by what the attack proposes: a named test and the
// suite's sample that climb the same attack against the same setup climb it once.
var (
	climbedMu sync.Mutex
	climbed   = map[string]*climbing{}
)

// climbing is a climb being made; done is closed when res, tries and err are set.
type climbing struct {
	done  chan struct{}
	res   ladder.Result
	tries int
	err   error
}

// climbShared climbs a against su, up to climbsPerCase times while its proof goes red only
// because an action did not finish in time, once for the package: it returns the last climb's
// result and how many climbs were made. A climb takes a place among the climbs.
func climbShared(su setup, a attack) (ladder.Result, int, error) {
	proposal, err := json.Marshal(struct {
		Rung    gardener.Strategy
		Ops     []gardener.Op
		Locator gardener.Locator
		Intent  []gardener.Step
	}{a.rung, a.ops, a.locator, a.intent})
	if err != nil {
		return ladder.Result{}, 0, fmt.Errorf("naming the attack %q: %w", a.name, err)
	}
	key := su.key + " " + string(proposal)
	climbedMu.Lock()
	c, ok := climbed[key]
	if !ok {
		c = &climbing{done: make(chan struct{})}
		climbed[key] = c
	}
	climbedMu.Unlock()
	if !ok {
		climbs <- struct{}{}
		c.res, c.err = climb(su, a)
		for c.tries = 1; c.tries < climbsPerCase && c.err == nil && weakRed(su.test, c.res) != ""; c.tries++ {
			c.res, c.err = climb(su, a)
		}
		<-climbs
		close(c.done)
	}
	<-c.done
	return c.res, c.tries, c.err
}

// climb runs one attack through the ladder in apply mode.
func climb(su setup, a attack) (ladder.Result, error) {
	fail := su.failure
	req := ladder.Request{Test: su.test, Mode: gardener.ModeApply, Options: su.opts, Failure: &fail, Rungs: []gardener.Strategy{a.rung}}
	if su.green != nil {
		green := *su.green
		req.LastGreen = &green
	}
	l := &ladder.Ladder{Runner: runner, Model: hostile{a}}
	return l.Repair(context.Background(), req)
}

// countRules counts the cases by what stopped them, a red proof whatever check it failed at.
func countRules(got map[string]string) map[string]int {
	out := map[string]int{}
	for _, r := range got {
		if strings.HasPrefix(r, "red proof") {
			r = "red proof"
		}
		out[r]++
	}
	return out
}

func tally(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// TestSampleCoversEveryAttack: the sample make test climbs keeps every attack the floor judges,
// every kind of attack that climbs to a proof, and at least one of those against every check
// they target; and it is smaller than the whole, or it saves nothing.
func TestSampleCoversEveryAttack(t *testing.T) {
	seen := map[string]bool{}
	kinds, sampled := map[string]bool{}, map[string]bool{}
	whole, kept := 0, 0
	for _, g := range groups() {
		tt := g.test(t)
		attacks := g.attacks(tt)
		picked := sample(attacks, seen)
		inSample := map[string]bool{}
		for _, a := range picked {
			inSample[a.name] = true
			if !a.floor {
				sampled[a.name] = true
			}
		}
		proofs, proofsKept := 0, 0
		for _, a := range attacks {
			if a.floor {
				if !inSample[a.name] {
					t.Errorf("%s: the floor attack %q is not in the sample", tt.ID, a.name)
				}
				continue
			}
			whole++
			proofs++
			kinds[a.name] = true
			if inSample[a.name] {
				proofsKept++
			}
		}
		kept += proofsKept
		if proofs > 0 && proofsKept == 0 {
			t.Errorf("%s under %s: none of its %d attacks that climb is in the sample", tt.ID, g.variant, proofs)
		}
	}
	for k := range kinds {
		if !sampled[k] {
			t.Errorf("no attack %q is in the sample", k)
		}
	}
	if kept >= whole {
		t.Errorf("the sample climbs %d of %d attacks", kept, whole)
	}
	t.Logf("the sample climbs %d of the %d attacks that reach a proof, %d kinds", kept, whole, len(kinds))
}
