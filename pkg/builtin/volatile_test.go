package builtin

import (
	"context"
	"slices"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

func navLink(text, href, xpath string, x float64, classes ...string) gardener.Fingerprint {
	return gardener.Fingerprint{
		Tag: "a", Href: href, ClassList: classes, XPath: xpath, IdxPath: xpath,
		AccessibleName: text, VisibleText: []string{text},
		Location: gardener.Rect{X: x, Y: 12, Width: 80, Height: 24}, Area: 80 * 24, Shape: 80.0 / 24,
	}
}

// The cart link's class was renamed, and its name carries the cart's count: "Cart (2)" on the
// green run, "Cart (3)" now. The heal writes the part of the name that stays, which lasts, not
// the name with today's count in it, which fails on the next run with another quantity; the
// renamed class, lasting too, is among the alternatives.
func TestFixLocatorPrefersALastingFormToANameWithACount(t *testing.T) {
	recorded := navLink("Cart (2)", "/cart", "/html/body/nav/div/a[3]", 300, "cart-link")
	green := []gardener.StepRecord{clickRecord("1", recorded)}
	page := []gardener.Fingerprint{
		navLink("Products", "/products", "/html/body/nav/div/a[1]", 100, "nav-item"),
		navLink("Orders", "/orders", "/html/body/nav/div/a[2]", 200, "nav-item"),
		navLink("Cart (3)", "/cart", "/html/body/nav/div/a[3]", 300, "basket-link"),
	}
	ans, err := Engine{}.FixLocator(context.Background(), ask(t, 0, clickStep(t, "css=.nav-links .cart-link"), green, page))
	if err != nil {
		t.Fatal(err)
	}
	if got := ans.Locator.String(); got != `role=link[name*="Cart"]` {
		t.Fatalf("healed onto %q (alternatives %v), want role=link[name*=\"Cart\"] (%s)", got, ans.Alternatives, ans.Reason)
	}
	if !slices.Contains(ans.Alternatives, gardener.MustLocator("css=a.basket-link")) {
		t.Errorf("alternatives %v: want the renamed class among them", ans.Alternatives)
	}
	if gardener.Volatility(ans.Locator) != "" {
		t.Fatalf("%s flagged volatile", ans.Locator)
	}
	// The volatile forms are still offered, after the lasting one.
	var volatile int
	for _, l := range ans.Alternatives {
		if gardener.Volatility(l) != "" {
			volatile++
		}
	}
	if volatile == 0 {
		t.Errorf("alternatives %v: want the name with the count among them, after the class", ans.Alternatives)
	}
}

// When the only forms that name the element carry live data — the part of its name that stays,
// "Cart", is also in another link's name — the heal still writes one (the element is found),
// and the verdict's volatile-locator note is what holds it for a person (pkg/ladder's
// TestVolatileLocatorNoteClassesTheStepReview).
func TestFixLocatorWritesAVolatileNameWhenNothingElseNamesTheElement(t *testing.T) {
	recorded := navLink("Cart (2)", "/cart", "/html/body/nav/div/a[3]", 300)
	recorded.ID = "cart"
	green := []gardener.StepRecord{clickRecord("1", recorded)}
	page := []gardener.Fingerprint{
		navLink("Products", "/products", "/html/body/nav/div/a[1]", 100),
		navLink("Orders", "/orders", "/html/body/nav/div/a[2]", 200),
		navLink("Cart (3)", "/cart", "/html/body/nav/div/a[3]", 300),
		navLink("Cart settings", "/settings/cart", "/html/body/footer/a[1]", 300),
	}
	ans, err := Engine{}.FixLocator(context.Background(), ask(t, 0, clickStep(t, "#cart"), green, page))
	if err != nil {
		t.Fatal(err)
	}
	if got := ans.Locator.String(); got != `role=link[name="Cart (3)"]` {
		t.Fatalf("healed onto %q (%s), want the link by its name", got, ans.Reason)
	}
	if gardener.Volatility(ans.Locator) == "" {
		t.Fatalf("%s not flagged volatile", ans.Locator)
	}
}
