package demoapp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// visit drives one App over HTTP to the page a case looks at and returns its body.
type visit func(c *client) string

// anon visits a page as an anonymous visitor.
func anon(path string) visit {
	return func(c *client) string {
		_, _, body := c.get(path)
		return body
	}
}

func loggedIn(path string) visit {
	return func(c *client) string {
		c.login()
		_, _, body := c.get(path)
		return body
	}
}

// withCart adds Boston Fern ×1 and Lavender ×2 to the cart first.
func withCart(path string) visit {
	return func(c *client) string {
		c.postJSON("/api/cart", `{"productId":1,"qty":1}`)
		c.postJSON("/api/cart", `{"productId":3,"qty":2}`)
		_, _, body := c.get(path)
		return body
	}
}

// TestVariantPages proves each variant serves the difference it describes and the baseline does
// not: what a variant's page contains and what it lost.
func TestVariantPages(t *testing.T) {
	cases := []struct {
		variant string
		visit   visit
		has     []string // in the variant's page, not in the baseline's
		lacks   []string // in the baseline's page, not in the variant's
	}{
		{vButtonWrapper, loggedIn("/products/new"), []string{`<div class="form-actions">`}, nil},
		{vIDRenamed, anon("/login"), []string{`id="current-password"`, `for="current-password"`}, []string{`id="password"`}},
		{vClassesRenamed, anon("/products"), []string{`class="menu"`, `class="menu-cart"`, `class="masthead"`}, []string{`class="nav-links"`, `class="cart-link"`}},
		{vButtonText, anon("/login"), []string{`>Sign in</button>`}, []string{`>Login</button>`}},
		{vLabelRenamed, anon("/login"), []string{`>Email or username</label>`}, []string{`>Username</label>`}},
		{vRequiredField, withCart("/checkout/shipping"), []string{`id="ship-phone"`, `>Phone</label>`}, nil},
		{vMoved, anon("/products/1"), []string{`<aside class="purchase-bar"`}, nil},
		{vCookieBanner, anon("/products"), []string{`id="cookie-banner"`, `<div class="page" inert>`, `Accept cookies`}, nil},
		{vCheckoutMerged, withCart("/checkout/shipping"), []string{`id="checkout-form"`, `data-quote`}, []string{`Continue to payment`, `id="shipping-form"`}},
		{vNeutral, loggedIn("/dashboard"), []string{`Seasonal tips`}, nil},
		{vNeutral, anon("/products"), []string{`class="care-note"`}, nil},
		{vConsoleError, anon("/products"), []string{`/assets/stock-widget.js`}, nil},
		{vValidationGone, loggedIn("/products/new"), nil, []string{`data-validate`}},
		{vWrongTotal, withCart("/cart"), []string{`id="cart-total" data-testid="cart-total">$33.20<`}, []string{`$42.95`}},
	}
	for _, tc := range cases {
		t.Run(tc.variant, func(t *testing.T) {
			base := tc.visit(newClient(t, New()))
			app := New()
			if err := app.SetVariant(tc.variant); err != nil {
				t.Fatal(err)
			}
			got := tc.visit(newClient(t, app))
			for _, s := range tc.has {
				if !strings.Contains(got, s) {
					t.Errorf("variant page lacks %q", s)
				}
				if strings.Contains(base, s) {
					t.Errorf("baseline page already has %q", s)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(got, s) {
					t.Errorf("variant page still has %q", s)
				}
				if !strings.Contains(base, s) {
					t.Errorf("baseline page lacks %q", s)
				}
			}
		})
	}
}

// TestElementKeysStable: every element key the baseline pages carry is carried by each drift
// variant's pages too, so the record names the same element however a variant moved it.
func TestElementKeysStable(t *testing.T) {
	pages := []visit{anon("/login"), anon("/products"), anon("/products/1"), loggedIn("/dashboard"), loggedIn("/products/new"), withCart("/cart"), withCart("/checkout/shipping")}
	keys := func(app *App) map[string]bool {
		out := map[string]bool{}
		for _, p := range pages {
			body := p(newClient(t, app))
			for _, part := range strings.Split(body, `data-demo-key="`)[1:] {
				out[part[:strings.IndexByte(part, '"')]] = true
			}
		}
		return out
	}
	base := keys(New())
	if len(base) < 30 {
		t.Fatalf("the baseline pages carry %d element keys; want every interactive element keyed", len(base))
	}
	for _, v := range Variants() {
		if v.Kind != Drift || v.Name == vCheckoutMerged {
			continue // the merged checkout has no continue button by design
		}
		app := New()
		if err := app.SetVariant(v.Name); err != nil {
			t.Fatal(err)
		}
		got := keys(app)
		for k := range base {
			if !got[k] {
				t.Errorf("variant %s lost element key %q", v.Name, k)
			}
		}
	}
}

func TestLogin(t *testing.T) {
	cases := []struct {
		variant, user, password string
		wantPath                string
		wantAlert               bool
	}{
		{BaselineName, demoUser, demoPassword, "/dashboard", false},
		{BaselineName, demoUser, "wrong", "/login", true},
		{BaselineName, "", "", "/login", true},
		{vLoginBroken, demoUser, demoPassword, "/login", true},
	}
	for _, tc := range cases {
		t.Run(tc.variant+"/"+tc.password, func(t *testing.T) {
			app := New()
			if err := app.SetVariant(tc.variant); err != nil {
				t.Fatal(err)
			}
			c := newClient(t, app)
			status, at, body := c.postForm("/login", url.Values{"username": {tc.user}, "password": {tc.password}})
			if status != http.StatusOK || at != tc.wantPath {
				t.Fatalf("login ended with %d on %s, want 200 on %s", status, at, tc.wantPath)
			}
			if got := strings.Contains(body, `role="alert"`) && strings.Contains(body, "Invalid username or password."); got != tc.wantAlert {
				t.Errorf("error alert shown = %v, want %v", got, tc.wantAlert)
			}
			if tc.wantPath == "/dashboard" && !strings.Contains(body, "Welcome, Demo User") {
				t.Error("the dashboard does not welcome the demo user")
			}
		})
	}
	t.Run("pages that need a session send visitors to /login", func(t *testing.T) {
		c := newClient(t, New())
		for _, p := range []string{"/dashboard", "/products/new"} {
			if _, at, _ := c.get(p); at != "/login" {
				t.Errorf("GET %s without a session ended on %s, want /login", p, at)
			}
		}
		if status, _, _ := c.postJSON("/api/products", `{}`); status != http.StatusUnauthorized {
			t.Errorf("POST /api/products without a session = %d, want 401", status)
		}
	})
}

func TestCreateProduct(t *testing.T) {
	const good = `{"name":"Monstera Deliciosa","sku":"MONS-001","price":"32.00","category":"indoor","description":"","featured":true}`
	cases := []struct {
		variant, body string
		status        int
		want          string
	}{
		{BaselineName, good, http.StatusCreated, `"message":"Product created"`},
		{vToastMissing, good, http.StatusCreated, `"name":"Monstera Deliciosa"`},
		{vAPI500, good, http.StatusInternalServerError, `"error":"internal error`},
		{BaselineName, `{"name":"","sku":"","price":"","category":"indoor","description":"","featured":false}`, http.StatusUnprocessableEntity, `"name":"is required"`},
		{BaselineName, `{"name":"X","sku":"X","price":"12.345","category":"indoor","description":"","featured":false}`, http.StatusUnprocessableEntity, `"price":"price \"12.345\" is not an amount`},
		{BaselineName, `{"name":"X","sku":"X","price":"1","category":"trees","description":"","featured":false}`, http.StatusUnprocessableEntity, `is not a category`},
		{BaselineName, `{"name":"X","colour":"red"}`, http.StatusBadRequest, `unknown field`},
		{BaselineName, `not json`, http.StatusBadRequest, `body is not the expected JSON`},
	}
	for _, tc := range cases {
		t.Run(tc.variant+"/"+tc.want, func(t *testing.T) {
			app := New()
			if err := app.SetVariant(tc.variant); err != nil {
				t.Fatal(err)
			}
			c := newClient(t, app)
			c.login()
			status, _, body := c.postJSON("/api/products", tc.body)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("POST /api/products = %d %s; want %d with %s", status, body, tc.status, tc.want)
			}
			if tc.variant == vToastMissing && strings.Contains(body, "message") {
				t.Errorf("toast-missing still answers a toast message: %s", body)
			}
			if status == http.StatusCreated {
				if _, _, page := c.get("/products/8"); !strings.Contains(page, "<h1 id=\"product-name\">Monstera Deliciosa</h1>") {
					t.Error("the created product has no page at /products/8")
				}
			}
		})
	}
}

func TestCartTotals(t *testing.T) {
	cases := []struct {
		variant                   string
		subtotal, shipping, total string
	}{
		{BaselineName, "$38.00", "$4.95", "$42.95"},
		{vWrongTotal, "$28.25", "$4.95", "$33.20"},
	}
	for _, tc := range cases {
		t.Run(tc.variant, func(t *testing.T) {
			app := New()
			if err := app.SetVariant(tc.variant); err != nil {
				t.Fatal(err)
			}
			c := newClient(t, app)
			if status, _, body := c.postJSON("/api/cart", `{"productId":1,"qty":1}`); status != http.StatusOK || !strings.Contains(body, `"message":"Added Boston Fern to cart"`) {
				t.Fatalf("adding Boston Fern = %d %s", status, body)
			}
			_, _, body := c.postJSON("/api/cart", `{"productId":3,"qty":2}`)
			for _, want := range []string{`"count":3`, `"total":"` + tc.total + `"`, `"message":"Added 2 × Lavender to cart"`} {
				if !strings.Contains(body, want) {
					t.Errorf("adding 2 × Lavender answered %s, want %s in it", body, want)
				}
			}
			_, _, page := c.get("/cart")
			for id, want := range map[string]string{"cart-subtotal": tc.subtotal, "cart-shipping": tc.shipping, "cart-total": tc.total} {
				if !strings.Contains(page, `id="`+id+`"`) || !strings.Contains(page, ">"+want+"<") {
					t.Errorf("cart page: %s is not %s", id, want)
				}
			}
			if !strings.Contains(page, `data-count="3"`) {
				t.Error("the cart count in the navigation is not 3")
			}
		})
	}
	t.Run("bad input", func(t *testing.T) {
		c := newClient(t, New())
		for body, want := range map[string]int{
			`{"productId":4,"qty":1}`:  http.StatusConflict, // Olive Tree is out of stock
			`{"productId":99,"qty":1}`: http.StatusNotFound,
			`{"productId":1,"qty":11}`: http.StatusBadRequest,
			`{"productId":1,"qty":0}`:  http.StatusBadRequest,
			`[1]`:                      http.StatusBadRequest,
		} {
			if status, _, resp := c.postJSON("/api/cart", body); status != want {
				t.Errorf("POST /api/cart %s = %d %s, want %d", body, status, resp, want)
			}
		}
	})
}

func TestCheckout(t *testing.T) {
	ship := url.Values{"name": {"Ada Lovelace"}, "address": {"12 Analytical Street"}, "city": {"London"}, "postcode": {"N1 9GU"}, "delivery": {"express"}}
	pay := url.Values{"card": {"4242 4242 4242 4242"}, "expiry": {"12/30"}, "terms": {"accepted"}}
	merge := func(vs ...url.Values) url.Values {
		out := url.Values{}
		for _, v := range vs {
			for k, x := range v {
				out[k] = x
			}
		}
		return out
	}
	t.Run("two pages", func(t *testing.T) {
		c := newClient(t, New())
		c.postJSON("/api/cart", `{"productId":6,"qty":1}`)
		if _, at, body := c.postForm("/checkout/shipping", url.Values{"name": {"Ada"}}); at != "/checkout/shipping" || !strings.Contains(body, `aria-describedby="ship-address-error"`) || !strings.Contains(body, "Address is required") {
			t.Fatalf("incomplete shipping ended on %s without the address error tied to its field", at)
		}
		_, at, body := c.postForm("/checkout/shipping", ship)
		if at != "/checkout/payment" || !strings.Contains(body, `data-testid="checkout-total">$16.20<`) {
			t.Fatalf("shipping ended on %s; want /checkout/payment with total $16.20", at)
		}
		_, at, body = c.postForm("/checkout/payment", pay)
		if at != "/checkout/confirmation" || !strings.Contains(body, `data-testid="order-number">SS-1001<`) || !strings.Contains(body, "Thank you for your order") {
			t.Fatalf("payment ended on %s without order SS-1001", at)
		}
		if _, _, cart := c.get("/cart"); !strings.Contains(cart, "Your cart is empty") {
			t.Error("the cart is not empty after the order")
		}
	})
	t.Run("required phone", func(t *testing.T) {
		app := New()
		if err := app.SetVariant(vRequiredField); err != nil {
			t.Fatal(err)
		}
		c := newClient(t, app)
		c.postJSON("/api/cart", `{"productId":6,"qty":1}`)
		if _, at, body := c.postForm("/checkout/shipping", ship); at != "/checkout/shipping" || !strings.Contains(body, "Phone is required") {
			t.Fatalf("shipping without a phone ended on %s, want the phone error", at)
		}
		if _, at, _ := c.postForm("/checkout/shipping", merge(ship, url.Values{"phone": {"020 7946 0000"}})); at != "/checkout/payment" {
			t.Fatalf("shipping with a phone ended on %s, want /checkout/payment", at)
		}
	})
	t.Run("merged", func(t *testing.T) {
		app := New()
		if err := app.SetVariant(vCheckoutMerged); err != nil {
			t.Fatal(err)
		}
		c := newClient(t, app)
		c.postJSON("/api/cart", `{"productId":6,"qty":1}`)
		if _, at, _ := c.get("/checkout/shipping"); at != "/checkout" {
			t.Fatalf("/checkout/shipping ended on %s, want /checkout", at)
		}
		if _, _, q := c.get("/api/quote?delivery=express"); !strings.Contains(q, `"total":"$16.20"`) {
			t.Errorf("express quote = %s, want total $16.20", q)
		}
		if _, at, body := c.postForm("/checkout", merge(ship, pay)); at != "/checkout/confirmation" || !strings.Contains(body, "$16.20") {
			t.Fatalf("one-page checkout ended on %s, want the confirmation with $16.20", at)
		}
	})
}

func TestNotFound(t *testing.T) {
	c := newClient(t, New())
	for _, p := range []string{"/products/99", "/products/fern", "/checkout/confirmation?order=SS-1"} {
		if status, _, body := c.get(p); status != http.StatusNotFound || !strings.Contains(body, "Page not found") {
			t.Errorf("GET %s = %d, want the 404 page", p, status)
		}
	}
}

// TestPreferences: the preferences page offers one control of each kind and shows back what a
// submit sent; an unknown choice is refused.
func TestPreferences(t *testing.T) {
	c := newClient(t, New())
	_, _, body := c.get("/preferences")
	for _, want := range []string{`type="radio" id="pref-weekly"`, `<select id="pref-climate"`, `id="pref-reminders" name="reminders" type="checkbox"`, `<textarea id="pref-notes"`, `contenteditable="true"`, `data-favourite="Lavender"`, `<title>Preferences · Seedling Supply</title>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the preferences page lacks %s", want)
		}
	}
	status, _, body := c.postForm("/preferences", url.Values{"name": {"Ada"}, "newsletter": {"weekly"}, "climate": {"arid"}, "reminders": {"on"}, "notes": {"two\nlines"}, "signature": {"Yours, Ada"}, "favourite": {"Rosemary"}})
	if status != http.StatusOK {
		t.Fatalf("POST /preferences = %d", status)
	}
	for _, want := range []string{`<title>Preferences saved · Seedling Supply</title>`, `id="saved-name">Display name: Ada<`, `id="saved-newsletter">Newsletter: weekly<`, `id="saved-climate">Climate: arid<`, `id="saved-reminders">Watering reminders: on<`, `id="saved-signature">Card signature: Yours, Ada<`, `id="saved-favourite">Favourite plant: Rosemary<`} {
		if !strings.Contains(body, want) {
			t.Errorf("the saved page lacks %s", want)
		}
	}
	if status, _, _ := c.postForm("/preferences", url.Values{"newsletter": {"daily"}, "climate": {"arid"}}); status != http.StatusBadRequest {
		t.Errorf("an unknown newsletter: %d, want 400", status)
	}
}
