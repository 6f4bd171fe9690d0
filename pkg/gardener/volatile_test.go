package gardener

import (
	"os"
	"strings"
	"testing"
)

func TestVolatility(t *testing.T) {
	t.Parallel()
	cases := []struct {
		loc  string
		want string // a word the reason must hold; "" for a stable locator
	}{
		// Live data in a name, text or label.
		{`role=link[name="Cart (3)"]`, "count"},
		{`role=button[name="Inbox [12]"]`, "count"},
		{`role=link[name="Notifications 4 unread"]`, "count"},
		{`text=12 results`, "count"},
		{`role=button[name="Pay $120.00"]`, "price"},
		{`frame=#payment-frame >> role=button[name="Pay $120.00"]`, "price"},
		{`text=Total: 45,00 €`, "price"},
		{`label=Amount (EUR 30)`, "price"},
		{`text=Disk 83% full`, "percentage"},
		{`role=heading[name="Orders on 2026-12-02"]`, "date"},
		{`text=Due 12/02/2026`, "date"},
		{`role=link[name="Meeting Dec 2"]`, "date"},
		{`text=Updated 3 minutes ago`, "date"},
		{`role=button[name="Book 14:30"]`, "time"},
		{`xpath=//a[text()="Cart (2)"]`, "count"},
		// Generated parts of ids, classes and test ids.
		{`css=.css-1x2y3z`, "hash"},
		{`css=div.sc-aBcDe > button`, "hash"},
		{`css=#ember1234`, "digits"},
		{`css=#row-20871 .delete`, "digits"},
		{`testid=item-9f8e7d6c5b`, "hex"},
		{`css=.Button_root__3xKf9`, "hash"},
		{`css=.bdVaJa`, "hash-like"},
		{`css=a.cart-link_57ad5`, "hash suffix"},
		{`css=.btn_9c02e`, "hash"},
		{`css=[id=":r1:"]`, "generated id"},
		{`xpath=//div[@id='ember4567']/button`, "digits"},
		{`frame=#pay-5f3a9c2e1d >> label=Card number`, "frame"},
		// Stable forms, including names that carry digits a designer wrote.
		{`role=link[name="Cart"]`, ""},
		{`role=button[name="Delete INV-002"]`, ""},
		{`role=button[name="Step 2 of 3"]`, ""},
		{`text=Top 10 picks`, ""},
		{`label=Address line 2`, ""},
		{`placeholder=MM/YY`, ""},
		{`placeholder=e.g. FERN-001`, ""},
		{`css=.nav-links .cart-link`, ""},
		{`css=.col-md-6 h2`, ""},
		{`css=.btn_primary`, ""},
		{`css=.step_2 .icon_v2`, ""},
		{`css=#myShoppingCart`, ""},
		{`css=.product-info .add-to-cart`, ""},
		{`css=#cart-count[data-count="1"]`, ""},
		{`css=a[href="/billing"]`, ""},
		{`css=tbody > tr:nth-of-type(2) > td:nth-of-type(4) > button:nth-of-type(1)`, ""},
		{`testid=product-row-4`, ""},
		{`xpath=//form[@id='product-form']/button[@type='submit']`, ""},
		{`text=ada@crewdesk.test`, ""},
	}
	for _, c := range cases {
		l, err := ParseLocator(c.loc)
		if err != nil {
			t.Fatalf("%s: %v", c.loc, err)
		}
		got := Volatility(l)
		switch {
		case c.want == "" && got != "":
			t.Errorf("%s: flagged volatile (%s), want stable", c.loc, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: Volatility = %q, want a reason naming %q", c.loc, got, c.want)
		}
	}
}

// TestVolatilityOfSavedTests reads every locator of both example apps' saved tests: the only
// one flagged is the one that really names live data, the crewdesk payment button whose name
// carries the amount due.
func TestVolatilityOfSavedTests(t *testing.T) {
	t.Parallel()
	want := map[string]bool{`frame=#payment-frame >> role=button[name="Pay $120.00"]`: true}
	seen := 0
	for _, dir := range []string{"../../tests/demoapp/testdata/tests", "../../tests/spaapp/testdata/tests"} {
		tests, err := DecodeTestDir(os.DirFS(dir), ".")
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		var walk func(path string, steps []Step)
		walk = func(path string, steps []Step) {
			for _, s := range steps {
				walk(path, s.Steps)
				l := s.Target()
				if l.IsZero() {
					continue
				}
				seen++
				if why := Volatility(l); (why != "") != want[l.String()] {
					t.Errorf("%s: %s: Volatility = %q, want volatile %v", path, l, why, want[l.String()])
				}
			}
		}
		for _, tc := range tests {
			walk(dir+"/"+tc.ID, tc.Steps)
		}
	}
	if seen < 80 {
		t.Fatalf("read %d locators from the saved tests, want the ~90 they hold", seen)
	}
}

// TestWithoutLiveData: the stable part of a name loses every live number whole: a price with
// its cents, a count in brackets, a percentage, a date, a time.
func TestWithoutLiveData(t *testing.T) {
	for in, want := range map[string]string{
		"Delete Ada Lovelace · $12.40": "Delete Ada Lovelace ·",
		"Cart (3)":                     "Cart",
		"Pay 1,234.50 EUR now":         "Pay now",
		"Save 15% today":               "Save today",
		"Order of 2026-12-02 at 10:45": "Order of at",
		"Save changes":                 "Save changes",
	} {
		if got := WithoutLiveData(in); got != want {
			t.Errorf("WithoutLiveData(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLongestStablePart: the longest piece of a name between its live data, as written, and
// nothing for a name without live data or whose pieces hold no letter.
func TestLongestStablePart(t *testing.T) {
	for in, want := range map[string]string{
		"Delete Grace Hopper (5)":      "Delete Grace Hopper",
		"Delete Ada Lovelace · $12.40": "Delete Ada Lovelace",
		"Cart (3)":                     "Cart",
		"3 items in your basket":       "in your basket",
		"Order of 2026-12-02 at 10:45": "Order of",
		"Save changes":                 "",
		"(5)":                          "",
		"$12.40 · 15%":                 "",
		"Inbox (12) · Spam (3)":        "Inbox",
		"02:00 pm":                     "",
		"10:30 a.m.":                   "",
		"Doors open 9:15:00 PM":        "Doors open",
		"At 10:30 pmodern":             "pmodern",
	} {
		if got := LongestStablePart(in); got != want {
			t.Errorf("LongestStablePart(%q) = %q, want %q", in, got, want)
		}
	}
}
