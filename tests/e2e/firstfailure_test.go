package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/tend"
)

// firstFailure is a test's first failure on a shop whose store has no green run of it: the
// test fails under variant, and the failure is tended as a scheduled run's is.
func firstFailure(t *testing.T, variant string, tt gardener.Test) (*shop, tend.Tended) {
	t.Helper()
	s := newShop(t, builtinModel(), true)
	ctx := context.Background()
	if tt.Version == 0 {
		tt = s.Test(tt.ID)
	} else if err := s.Store.CreateTest(ctx, tt); err != nil {
		t.Fatal(err)
	}
	if err := s.App.SetVariant(variant); err != nil {
		t.Fatal(err)
	}
	rep, _ := s.Replay(tt)
	if rep.Result.Passed {
		t.Fatalf("%s passes under %s", tt.ID, variant)
	}
	return s, s.TendFailure(tt, rep, false)
}

// cannotTell checks the answer to a failure with no green run that no repair explains: no
// verdict, nothing written, no triage issue and no notification.
func cannotTell(t *testing.T, s *shop, id string, got tend.Tended) {
	t.Helper()
	want := "no green run of version 1 of test " + id + " is recorded: the gardener cannot tell drift from a bug"
	if got.Persisted.Outcome != ladder.Triaged || got.Result.Reason != want {
		t.Errorf("%s: outcome %s (%s), want triaged: %s", id, got.Persisted.Outcome, got.Result.Reason, want)
	}
	if got.Persisted.Triage != nil {
		t.Errorf("%s: a triage issue was filed on no evidence: %+v", id, got.Persisted.Triage)
	}
	if n, ok := gardening.NotificationOf(got.Decision, got.Persisted); ok {
		t.Errorf("%s: people were alerted on no evidence: %+v", id, n)
	}
	if v := s.Test(id).Version; v != 1 {
		t.Errorf("%s was written (version %d)", id, v)
	}
	if d := got.Result.Diagnosis; d != nil && d.Classification == gardener.AppBug {
		t.Errorf("%s: diagnosed as an app bug with no green run to compare with: %v", id, d.Evidence)
	}
}

// TestFirstFailureWithNoGreenRun: a test that has never had a green run recorded fails for the
// first time on the shop. Its locator's words are the evidence left (issue 29): the password
// field's id renamed under its unchanged label is repaired on that first failure, onto the
// field the baseline filled; a toast that is gone (a regression), a field that is gone and a
// check of the renamed field are not repaired, and the gardener says it cannot tell drift from a bug, with no triage
// issue and no alert. Shares the package's browser; about 10 s of replays, run beside the rest.
func TestFirstFailureWithNoGreenRun(t *testing.T) {
	t.Parallel()
	t.Run("an id renamed under its label is repaired", func(t *testing.T) {
		t.Parallel()
		login := s0(t, "login")
		baseline := interactions(demo.Baseline(t, login).Events)
		s, got := firstFailure(t, "id-renamed", gardener.Test{ID: "login"})
		if got.Persisted.Outcome != ladder.Repaired {
			t.Fatalf("outcome %s (%s); rungs %+v", got.Persisted.Outcome, got.Result.Reason, got.Result.Rungs)
		}
		fixed := s.Test("login")
		if l := fixed.Steps[3].Locator; !stableHandle(l) || !strings.Contains(l.String(), "Password") {
			t.Errorf("step 4 moved to %s, want the field's stable handle (its label or its role and name)", l)
		}
		events, red := s.Witness.GreenRunOr(fixed, s.Replay)
		if red != nil {
			t.Fatalf("repaired but red: step %s: %s", red.FailedStep, red.Message)
		}
		sameElements(t, "login", baseline, interactions(events), nil, 0)
	})
	t.Run("a removed toast cannot be told from drift", func(t *testing.T) {
		t.Parallel()
		s, got := firstFailure(t, "toast-missing", gardener.Test{ID: "cart-total"})
		cannotTell(t, s, "cart-total", got)
	})
	t.Run("a removed field cannot be told from drift", func(t *testing.T) {
		t.Parallel()
		// A field the login form no longer has (it never had it: to the gardener, with no
		// green run, that is the same): nothing on the page is called by its words.
		pin := gardener.Test{ID: "login-with-pin", ProjectID: "demo", Name: "log in with a PIN", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
			{Kind: gardener.Goto, URL: "/login"},
			{Kind: gardener.Fill, Locator: gardener.MustLocator("label=Username"), Value: "demo"},
			{Kind: gardener.Fill, Locator: gardener.MustLocator("#pin-code"), Value: "4711"},
			{Kind: gardener.Click, Locator: gardener.MustLocator(`role=button[name="Login"]`)},
			{Kind: gardener.Assert, Subject: gardener.SubjectURL, Condition: gardener.Contains, Expected: "/dashboard"},
		}}
		s, got := firstFailure(t, "baseline", pin)
		cannotTell(t, s, pin.ID, got)
		if ev := strings.Join(got.Result.Diagnosis.Evidence, "; "); !strings.Contains(ev, `answers to the words "pin code"`) || !strings.Contains(ev, "no evidence of a bug") {
			t.Errorf("the diagnosis does not say why it cannot tell: %s", ev)
		}
	})
	t.Run("a check of a renamed element is not moved", func(t *testing.T) {
		t.Parallel()
		check := gardener.Test{ID: "password-shown", ProjectID: "demo", Name: "the login form asks for a password", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
			{Kind: gardener.Goto, URL: "/login"},
			{Kind: gardener.AssertVisible, Locator: gardener.MustLocator("#password")},
		}}
		s, got := firstFailure(t, "id-renamed", check)
		cannotTell(t, s, check.ID, got)
		for _, r := range got.Result.Rungs {
			for _, a := range r.Attempts {
				if len(a.Ops) > 0 {
					t.Errorf("%s proposed %v for a check with no green run", r.Rung, a.Ops)
				}
			}
		}
		if !strings.Contains(attempts(got.Result), "a check is not moved on its locator's words alone") {
			t.Errorf("the self-heal does not say why it left the check alone: %s", attempts(got.Result))
		}
	})
}

// stableHandle: a locator by what people read an element by, or its test id.
func stableHandle(l gardener.Locator) bool {
	switch l.Kind {
	case gardener.ByLabel, gardener.ByRole, gardener.ByPlaceholder, gardener.ByTestID:
		return true
	}
	return false
}

// s0 is a saved shop test as it ships.
func s0(t *testing.T, id string) gardener.Test {
	t.Helper()
	tests, err := demo.Tests()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if tt.ID == id {
			return tt
		}
	}
	t.Fatalf("no saved test %s", id)
	return gardener.Test{}
}

// attempts joins what every rung's attempts came to.
func attempts(r ladder.Result) string {
	var out []string
	for _, rg := range r.Rungs {
		for _, a := range rg.Attempts {
			out = append(out, string(rg.Rung)+": "+a.Outcome)
		}
	}
	return strings.Join(out, "; ")
}
