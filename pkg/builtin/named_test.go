package builtin

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

func TestLocatorWords(t *testing.T) {
	for _, c := range []struct {
		loc  string
		want []string
	}{
		{"#password", []string{"password"}},
		{"css=#login-btn", []string{"login"}},
		{"css=form#login .field > input#loginEmail", []string{"login", "email"}},
		{"css=.nav-links .cart-link", []string{"cart"}},
		{`css=input[name="user_email"]`, []string{"user", "email"}},
		{`css=button[type=submit]`, nil},
		{`css=[data-testid='save-settings']`, []string{"save", "settings"}},
		{`css=input:not(#other)[placeholder="Search products"]`, []string{"search", "products"}},
		{"css=#ember1234", nil},
		{"css=#a, #b", nil},
		{"text=Add to cart", []string{"add", "to", "cart"}},
		{`role=button[name="Delete Ada Lovelace"]`, []string{"delete", "ada", "lovelace"}},
		{"label=Card number", []string{"card", "number"}},
		{"testid=settings-save", []string{"settings", "save"}},
		{"xpath=//form[@id='product-form']/button[@type='submit']", nil},
		{"xpath=//input[@name='q']", []string{"q"}},
		{`xpath=//div[@id="x"]//a[contains(@class, 'next-page')]`, []string{"next", "page"}},
		{"xpath=//button[normalize-space()='Sign in']", []string{"sign", "in"}},
		{"frame=#payment-frame >> #card-number", []string{"card", "number"}},
	} {
		l, err := gardener.ParseLocator(c.loc)
		if err != nil {
			t.Fatalf("%s: %v", c.loc, err)
		}
		if got := locatorWords(l); !slices.Equal(got, c.want) {
			t.Errorf("%s: words %q, want %q", c.loc, got, c.want)
		}
	}
}

func field(id, name, label, typ, xpath string) gardener.Fingerprint {
	return gardener.Fingerprint{Tag: "INPUT", ID: id, Name: name, Label: label, AccessibleName: label, Type: typ, Role: "textbox", XPath: xpath,
		Location: gardener.Rect{X: 40, Y: 100, Width: 200, Height: 30}, Area: 6000, Shape: 200.0 / 30}
}

func step(t *testing.T, kind gardener.StepKind, loc string) gardener.Step {
	t.Helper()
	s := clickStep(t, loc)
	s.Kind = kind
	if kind == gardener.Fill {
		s.Value = "secret-typed"
	}
	return s
}

// noGreen is the locator ask of a test's first failure: no green run recorded anything.
func noGreen(steps []gardener.Step, fi int, page []gardener.Fingerprint) gardener.LocatorAsk {
	path := strconv.Itoa(fi + 1)
	return gardener.LocatorAsk{
		Failure: gardener.Failure{
			Test:     gardener.Test{ID: "t", Steps: steps},
			Result:   gardener.RunResult{FailedStep: path, FailedIndex: fi, ErrorKind: gardener.ErrElementNotFound},
			Snapshot: page,
		},
		Index: fi, Inner: -1, Step: steps[fi],
	}
}

// TestFixLocatorFromTheLocatorsWords: with no green run, a fill whose id was renamed moves to
// the one field that still answers to the id's words, by that field's stable handle; a field
// whose words only some of the locator's are, a paragraph that says the word, and a button
// named by it are not fields it could fill.
func TestFixLocatorFromTheLocatorsWords(t *testing.T) {
	user := field("username", "username", "Username", "text", "/html/body/form/input[1]")
	pw := field("current-password", "password", "Password", "password", "/html/body/form/input[2]")
	hint := gardener.Fingerprint{Tag: "P", VisibleText: []string{"Forgot", "your", "password?"}, XPath: "/html/body/p"}
	reset := button("reset", "Reset password", "/html/body/a", 300)
	steps := []gardener.Step{step(t, gardener.Fill, "#username"), step(t, gardener.Fill, "#password"), clickStep(t, "#login")}
	ans, err := Engine{}.FixLocator(context.Background(), noGreen(steps, 1, []gardener.Fingerprint{user, hint, pw, reset}))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Locator.Kind != gardener.ByRole && ans.Locator.Kind != gardener.ByLabel || !strings.Contains(ans.Locator.String(), "Password") {
		t.Fatalf("locator %s (%s), want the password field by its label or role and name", ans.Locator, ans.Reason)
	}
	if !strings.Contains(ans.Reason, `answers to the words "password"`) || strings.Contains(ans.Reason, "secret-typed") {
		t.Errorf("reason %q", ans.Reason)
	}
}

// TestFixLocatorFromWordsGuards: two fields that answer to the words are a guess; a check is
// never moved without a green run; a field another step already names is not this step's;
// and a page with none says so.
func TestFixLocatorFromWordsGuards(t *testing.T) {
	pw := field("new-password", "password", "Password", "password", "/html/body/form/input[1]")
	again := field("confirm-password", "password2", "Confirm password", "password", "/html/body/form/input[2]")
	for _, c := range []struct {
		name  string
		steps []gardener.Step
		fi    int
		page  []gardener.Fingerprint
		why   string
	}{
		{"two fields answer", []gardener.Step{step(t, gardener.Fill, "#password")}, 0, []gardener.Fingerprint{pw, again}, "2 elements on the page that can take step 1 answer"},
		{"a check", []gardener.Step{step(t, gardener.AssertVisible, "#password")}, 0, []gardener.Fingerprint{pw}, "a check is not moved on its locator's words alone"},
		{"another step's field", []gardener.Step{step(t, gardener.Fill, "label=Password"), step(t, gardener.Fill, "#password-input")}, 1, []gardener.Fingerprint{pw},
			"is the one step 1 uses"},
		{"no field answers", []gardener.Step{step(t, gardener.Fill, "#passcode")}, 0, []gardener.Fingerprint{pw}, `answers to the words "passcode"`},
		{"a button is no field", []gardener.Step{step(t, gardener.Fill, "#reset")}, 0, []gardener.Fingerprint{button("reset-2", "Reset", "/html/body/button", 10)}, "no element on the page that can take step 1"},
		{"a longer name is another name", []gardener.Step{clickStep(t, `role=button[name="Delete"]`)}, 0, []gardener.Fingerprint{button("remove-account", "Delete account", "/html/body/button", 10)}, `answers to the words "delete"`},
		{"words from two names", []gardener.Step{step(t, gardener.Fill, "#user-email")}, 0, []gardener.Fingerprint{field("email", "user", "Email", "email", "/html/body/input")}, `answers to the words "user email"`},
		{"out of sight", []gardener.Step{step(t, gardener.Fill, "#password")}, 0, []gardener.Fingerprint{pw}, "out of sight, not renamed"},
	} {
		a := noGreen(c.steps, c.fi, c.page)
		if c.name == "out of sight" {
			a.Result.Steps = []gardener.StepRecord{{Path: "1", Kind: gardener.Fill, Hidden: 1}}
		}
		ans, err := Engine{}.FixLocator(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		if !ans.Locator.IsZero() || !strings.Contains(ans.Reason, c.why) {
			t.Errorf("%s: locator %s (%s), want none because %q", c.name, ans.Locator, ans.Reason, c.why)
		}
	}
}

// TestNamedByOneNameOfTheElement: the words are found in one name of the element: exactly, in
// a name people read (in any order), or inside one of its identifiers for a locator of
// identifiers; a control's role may have changed.
func TestNamedByOneNameOfTheElement(t *testing.T) {
	link := gardener.Fingerprint{Tag: "A", Href: "/login", Role: "link", AccessibleName: "Sign in", VisibleText: []string{"Sign", "in"}, XPath: "/html/body/a"}
	save := button("save-btn-x", "Save settings", "/html/body/button", 10)
	pw := field("current-password", "password", "Current password", "password", "/html/body/input")
	for _, c := range []struct {
		s    gardener.Step
		page []gardener.Fingerprint
		want bool
	}{
		{clickStep(t, `role=button[name="Sign in"]`), []gardener.Fingerprint{link}, true},
		{clickStep(t, "testid=settings-save"), []gardener.Fingerprint{save}, true},
		{clickStep(t, "text=Save"), []gardener.Fingerprint{save}, false},
		{step(t, gardener.Fill, "#password"), []gardener.Fingerprint{pw}, true},
		{step(t, gardener.Fill, "label=Password"), []gardener.Fingerprint{pw}, false},
	} {
		if got := namedBy(c.page, c.s).unique() == 0; got != c.want {
			t.Errorf("%s on %s: found %v, want %v", c.s.Target(), describe(c.page[0]), got, c.want)
		}
	}
}

// TestDiagnoseWithNoGreenRun: an element that is not found, with no green run to say what it
// was, is never an app bug: one the locator's words still name is drift, with the locator's
// replacement; one they do not is left for a person. With a green run, an element gone with
// nothing similar still is one.
func TestDiagnoseWithNoGreenRun(t *testing.T) {
	pw := field("current-password", "password", "Password", "password", "/html/body/form/input[1]")
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, step(t, gardener.Fill, "#password"), clickStep(t, "#login")}
	diag := func(lg *gardener.RunResult, s gardener.Step) gardener.Diagnosis {
		t.Helper()
		st := append([]gardener.Step(nil), steps...)
		st[1] = s
		a := noGreen(st, 1, []gardener.Fingerprint{pw, button("login", "Log in", "/html/body/form/button", 200)})
		a.LastGreen = lg
		d, err := Engine{}.Diagnose(context.Background(), gardener.DiagnoseAsk{Failure: a.Failure})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := diag(nil, steps[1])
	if d.Classification != gardener.TestDrift || len(d.Ops) != 1 || d.Ops[0].Index != 1 || !strings.Contains(d.Ops[0].Step.Locator.String(), "Password") {
		t.Errorf("renamed id under its label: %s %v: %v", d.Classification, d.Ops, d.Evidence)
	}
	d = diag(nil, step(t, gardener.Fill, "#passcode"))
	if d.Classification == gardener.AppBug || !strings.Contains(strings.Join(d.Evidence, "; "), "no evidence of a bug") {
		t.Errorf("no element answers, no green run: %s: %v", d.Classification, d.Evidence)
	}
	gone := &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{{Path: "1", Passed: true}, {Path: "2", Kind: gardener.Fill, Passed: true,
		Element: &gardener.Fingerprint{Tag: "INPUT", ID: "passcode", Type: "text", XPath: "/html/body/div/input", Label: "Passcode"}}}}
	d = diag(gone, step(t, gardener.Fill, "#passcode"))
	if d.Classification != gardener.AppBug || !strings.Contains(strings.Join(d.Evidence, "; "), "gone with nothing similar") {
		t.Errorf("recorded element gone: %s: %v", d.Classification, d.Evidence)
	}

	// The same element still matched by its locator but hidden (moved into a closed menu, or
	// not shown by a defect) is not gone: no app bug on that alone.
	st := append([]gardener.Step(nil), steps...)
	st[1] = step(t, gardener.Fill, "#passcode")
	a := noGreen(st, 1, []gardener.Fingerprint{button("login", "Log in", "/html/body/form/button", 200)})
	a.LastGreen = gone
	a.Result.Cause = gardener.CauseHidden
	d, err := Engine{}.Diagnose(context.Background(), gardener.DiagnoseAsk{Failure: a.Failure})
	if err != nil {
		t.Fatal(err)
	}
	if d.Classification == gardener.AppBug || !strings.Contains(strings.Join(d.Evidence, "; "), "still on the page but hidden") {
		t.Errorf("recorded element hidden: %s: %v", d.Classification, d.Evidence)
	}
}
