package demoapp

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"log"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// templates holds one parsed template set per page, each with the shared layout and partials.
type templates struct {
	byName map[string]*template.Template
}

var funcs = template.FuncMap{
	// dict builds the argument of a partial from key/value pairs.
	"dict": func(kv ...any) (map[string]any, error) {
		if len(kv)%2 != 0 {
			return nil, fmt.Errorf("dict: odd number of arguments (%d)", len(kv))
		}
		m := make(map[string]any, len(kv)/2)
		for i := 0; i < len(kv); i += 2 {
			k, ok := kv[i].(string)
			if !ok {
				return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
			}
			m[k] = kv[i+1]
		}
		return m, nil
	},
	"categoryLabel": categoryLabel,
}

func mustTemplates() *templates {
	t, err := parseTemplates()
	if err != nil {
		// The templates are embedded and fixed at build time; the package tests parse them, so
		// this only fires on a broken build.
		log.Panicf("demoapp: %v", err)
	}
	return t
}

func parseTemplates() (*templates, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, fmt.Errorf("parsing the layout: %w", err)
	}
	names, err := fs.Glob(files, "templates/page_*.html")
	if err != nil {
		return nil, err
	}
	t := &templates{byName: map[string]*template.Template{}}
	for _, n := range names {
		c, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if _, err := c.ParseFS(files, n); err != nil {
			return nil, fmt.Errorf("parsing %s: %w", n, err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(path.Base(n), "page_"), ".html")
		t.byName[name] = c
	}
	return t, nil
}

// page is what every template receives.
type page struct {
	Title      string
	Variant    string
	User       string // the logged-in user's display name; empty for a visitor
	CartCount  int
	Shop       bool // a shop page: where the cookie banner of its variant appears
	BannerOpen bool
	Error      string            // a message for the whole form
	Errors     map[string]string // field id → validation message rendered by the server
	Form       map[string]string // field id → value to show again
	Data       any
}

// V reports whether the variant being served is name.
func (p page) V(name string) bool { return includes(p.Variant, name) }

// renamedClasses is the design-system rename of the classes-renamed variant.
var renamedClasses = map[string]string{
	"site-header": "masthead",
	"nav-links":   "menu",
	"cart-link":   "menu-cart",
	"btn":         "button",
	"btn-primary": "button-primary",
	"btn-danger":  "button-danger",
	"btn-link":    "button-link",
	"btn-small":   "button-small",
}

// C returns the class name the variant uses for a baseline class.
func (p page) C(class string) string {
	if includes(p.Variant, vClassesRenamed) {
		if r, ok := renamedClasses[class]; ok {
			return r
		}
	}
	return class
}

// render fills in what every page shows and writes the named page.
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	t, ok := a.pages.byName[name]
	if !ok {
		http.Error(w, "no template for page "+name, http.StatusInternalServerError)
		return
	}
	p.Variant = a.variantOf(r)
	if a.user(r) != "" {
		p.User = demoDisplayName
	}
	if c := a.cartOf(r); c != nil {
		a.mu.Lock()
		p.CartCount = c.count()
		a.mu.Unlock()
	}
	if p.Shop && includes(p.Variant, vCookieBanner) {
		ck, err := r.Cookie(consentCookie)
		p.BannerOpen = err != nil || ck.Value == ""
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", p); err != nil {
		http.Error(w, fmt.Sprintf("rendering page %s: %v", name, err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// variantOf is the variant a request is served with: read once, so that a switch in the middle
// of a request never mixes two variants in one page.
func (a *App) variantOf(r *http.Request) string { return a.VariantOf(r) }

func (a *App) user(r *http.Request) string {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[ck.Value]
}

func (a *App) requireUser(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.user(r) == "" {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		h(w, r)
	}
}

// cartOf returns the request's cart, or nil when it has none yet.
func (a *App) cartOf(r *http.Request) *cart {
	ck, err := r.Cookie(cartCookie)
	if err != nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.carts[ck.Value]
}

// cartToken returns the request's cart token, issuing a cart and its cookie when it has none.
func (a *App) cartToken(w http.ResponseWriter, r *http.Request) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ck, err := r.Cookie(cartCookie); err == nil {
		if _, ok := a.carts[ck.Value]; ok {
			return ck.Value
		}
	}
	tok := a.newToken("c")
	a.carts[tok] = &cart{}
	http.SetCookie(w, &http.Cookie{Name: cartCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	return tok
}

// linesOf lists a cart's lines with their current products; the caller holds a.mu.
func (a *App) linesOf(c *cart) []cartLine {
	if c == nil {
		return nil
	}
	var lines []cartLine
	for _, id := range c.order {
		if p, ok := a.productByID(id); ok {
			lines = append(lines, cartLine{Product: p, Qty: c.qty[id]})
		}
	}
	return lines
}

// productByID finds a product; the caller holds a.mu.
func (a *App) productByID(id int) (Product, bool) {
	for _, p := range a.products {
		if p.ID == id {
			return p, true
		}
	}
	return Product{}, false
}

func (a *App) loginPage(w http.ResponseWriter, r *http.Request) {
	if a.user(r) != "" {
		http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
		return
	}
	a.render(w, r, http.StatusOK, "login", page{Title: "Login", Form: map[string]string{}})
}

func (a *App) login(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "login: unreadable form: "+err.Error(), http.StatusBadRequest)
		return
	}
	user, pass := r.PostForm.Get("username"), r.PostForm.Get("password")
	if user != demoUser || pass != demoPassword || includes(a.variantOf(r), vLoginBroken) {
		a.render(w, r, http.StatusOK, "login", page{Title: "Login", Error: "Invalid username or password.", Form: map[string]string{"username": user}})
		return
	}
	a.mu.Lock()
	tok := a.newToken("s")
	a.sessions[tok] = user
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
}

func (a *App) logout(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(sessionCookie); err == nil {
		a.mu.Lock()
		delete(a.sessions, ck.Value)
		a.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// dashboardData is what the dashboard shows.
type dashboardData struct {
	Products, Orders, OutOfStock int
}

func (a *App) dashboard(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	d := dashboardData{Products: len(a.products), Orders: len(a.orders)}
	for _, p := range a.products {
		if p.Stock == 0 {
			d.OutOfStock++
		}
	}
	a.mu.Unlock()
	a.render(w, r, http.StatusOK, "dashboard", page{Title: "Dashboard", Data: d})
}

// listData is what the product list shows.
type listData struct {
	Products   []Product
	Categories any
}

func (a *App) productList(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	ps := append([]Product(nil), a.products...)
	a.mu.Unlock()
	a.render(w, r, http.StatusOK, "products", page{Title: "Products", Shop: true, Data: listData{Products: ps, Categories: categories}})
}

func (a *App) newProduct(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "new", page{Title: "New product", Data: categories})
}

func (a *App) productDetail(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	a.mu.Lock()
	p, ok := a.productByID(id)
	a.mu.Unlock()
	if err != nil || !ok {
		a.render(w, r, http.StatusNotFound, "notfound", page{Title: "Not found", Data: r.URL.Path})
		return
	}
	a.render(w, r, http.StatusOK, "detail", page{Title: p.Name, Shop: true, Data: p})
}

// cartData is what the cart and checkout pages show.
type cartData struct {
	Lines    []cartLine
	Totals   totals
	Delivery string
	Ship     shipping
	Options  any
}

// cartView computes a request's cart as the pages show it.
func (a *App) cartView(r *http.Request, delivery string) cartData {
	c := a.cartOf(r)
	a.mu.Lock()
	defer a.mu.Unlock()
	lines := a.linesOf(c)
	return cartData{Lines: lines, Totals: computeTotals(lines, delivery, includes(a.variantOf(r), vWrongTotal)), Delivery: delivery, Options: deliveries}
}

func (a *App) cartPage(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "cart", page{Title: "Cart", Shop: true, Data: a.cartView(r, "standard")})
}

// shippingFields are the shipping form's fields: id, form name, label. Phone is only asked for
// by the required-field variant.
var shippingFields = []struct{ ID, Name, Label string }{
	{"ship-name", "name", "Full name"},
	{"ship-address", "address", "Address"},
	{"ship-city", "city", "City"},
	{"ship-postcode", "postcode", "Postcode"},
	{"ship-phone", "phone", "Phone"},
}

var paymentFields = []struct{ ID, Name, Label string }{
	{"card-number", "card", "Card number"},
	{"card-expiry", "expiry", "Expiry date"},
}

// readShipping validates the shipping fields of a posted form the way the page's script does.
func readShipping(r *http.Request, variant string) (shipping, map[string]string, map[string]string) {
	form, errs := map[string]string{}, map[string]string{}
	for _, f := range shippingFields {
		if f.Name == "phone" && !includes(variant, vRequiredField) {
			continue
		}
		v := strings.TrimSpace(r.PostForm.Get(f.Name))
		form[f.ID] = v
		if v == "" {
			errs[f.ID] = f.Label + " is required"
		}
	}
	d := r.PostForm.Get("delivery")
	if d != "express" {
		d = "standard"
	}
	form["ship-delivery"] = d
	s := shipping{Name: form["ship-name"], Address: form["ship-address"], City: form["ship-city"],
		Postcode: form["ship-postcode"], Phone: form["ship-phone"], Delivery: d}
	return s, form, errs
}

func readPayment(r *http.Request, form, errs map[string]string) {
	for _, f := range paymentFields {
		v := strings.TrimSpace(r.PostForm.Get(f.Name))
		form[f.ID] = v
		if v == "" {
			errs[f.ID] = f.Label + " is required"
		}
	}
	if r.PostForm.Get("terms") == "" {
		errs["terms"] = "Accept the terms to place your order"
	}
}

func (a *App) shippingPage(w http.ResponseWriter, r *http.Request) {
	if includes(a.variantOf(r), vCheckoutMerged) {
		http.Redirect(w, r, "/checkout", http.StatusSeeOther)
		return
	}
	d := a.cartView(r, "standard")
	form := map[string]string{}
	if c, err := r.Cookie(cartCookie); err == nil {
		a.mu.Lock()
		if s, ok := a.checkout[c.Value]; ok {
			d.Ship = s
		}
		a.mu.Unlock()
	}
	a.render(w, r, http.StatusOK, "shipping", page{Title: "Checkout: shipping", Shop: true, Data: d, Form: form})
}

func (a *App) saveShipping(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "shipping: unreadable form: "+err.Error(), http.StatusBadRequest)
		return
	}
	s, form, errs := readShipping(r, a.variantOf(r))
	if len(errs) > 0 {
		a.render(w, r, http.StatusOK, "shipping", page{Title: "Checkout: shipping", Shop: true, Data: a.cartView(r, s.Delivery), Form: form, Errors: errs})
		return
	}
	tok := a.cartToken(w, r)
	a.mu.Lock()
	a.checkout[tok] = s
	a.mu.Unlock()
	http.Redirect(w, r, "/checkout/payment", http.StatusSeeOther)
}

// savedShipping returns the shipping details stored for the request's cart.
func (a *App) savedShipping(r *http.Request) (shipping, bool) {
	c, err := r.Cookie(cartCookie)
	if err != nil {
		return shipping{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.checkout[c.Value]
	return s, ok
}

func (a *App) paymentPage(w http.ResponseWriter, r *http.Request) {
	s, ok := a.savedShipping(r)
	if !ok || includes(a.variantOf(r), vCheckoutMerged) {
		http.Redirect(w, r, "/checkout/shipping", http.StatusSeeOther)
		return
	}
	d := a.cartView(r, s.Delivery)
	d.Ship = s
	a.render(w, r, http.StatusOK, "payment", page{Title: "Checkout: payment", Shop: true, Data: d, Form: map[string]string{}})
}

func (a *App) placePayment(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "payment: unreadable form: "+err.Error(), http.StatusBadRequest)
		return
	}
	s, ok := a.savedShipping(r)
	if !ok {
		http.Redirect(w, r, "/checkout/shipping", http.StatusSeeOther)
		return
	}
	form, errs := map[string]string{}, map[string]string{}
	readPayment(r, form, errs)
	if len(errs) > 0 {
		d := a.cartView(r, s.Delivery)
		d.Ship = s
		a.render(w, r, http.StatusOK, "payment", page{Title: "Checkout: payment", Shop: true, Data: d, Form: form, Errors: errs})
		return
	}
	a.placeOrder(w, r, s)
}

func (a *App) checkoutMerged(w http.ResponseWriter, r *http.Request) {
	if !includes(a.variantOf(r), vCheckoutMerged) {
		http.Redirect(w, r, "/checkout/shipping", http.StatusSeeOther)
		return
	}
	a.render(w, r, http.StatusOK, "checkout", page{Title: "Checkout", Shop: true, Data: a.cartView(r, "standard"), Form: map[string]string{}})
}

func (a *App) placeMerged(w http.ResponseWriter, r *http.Request) {
	if !includes(a.variantOf(r), vCheckoutMerged) {
		http.Error(w, "checkout: this version of the shop checks out in two steps, at /checkout/shipping", http.StatusNotFound)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "checkout: unreadable form: "+err.Error(), http.StatusBadRequest)
		return
	}
	s, form, errs := readShipping(r, a.variantOf(r))
	readPayment(r, form, errs)
	if len(errs) > 0 {
		a.render(w, r, http.StatusOK, "checkout", page{Title: "Checkout", Shop: true, Data: a.cartView(r, s.Delivery), Form: form, Errors: errs})
		return
	}
	a.placeOrder(w, r, s)
}

// placeOrder turns the request's cart into an order and shows its confirmation.
func (a *App) placeOrder(w http.ResponseWriter, r *http.Request, s shipping) {
	wrong := includes(a.variantOf(r), vWrongTotal)
	c := a.cartOf(r)
	a.mu.Lock()
	lines := a.linesOf(c)
	if len(lines) == 0 {
		a.mu.Unlock()
		http.Redirect(w, r, "/cart", http.StatusSeeOther)
		return
	}
	a.orderNo++
	o := order{Number: "SS-" + strconv.Itoa(a.orderNo), Lines: lines, Totals: computeTotals(lines, s.Delivery, wrong), Shipping: s}
	a.orders[o.Number] = o
	*c = cart{}
	if ck, err := r.Cookie(cartCookie); err == nil {
		delete(a.checkout, ck.Value)
	}
	a.mu.Unlock()
	http.Redirect(w, r, "/checkout/confirmation?order="+o.Number, http.StatusSeeOther)
}

func (a *App) confirmation(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	o, ok := a.orders[r.URL.Query().Get("order")]
	a.mu.Unlock()
	if !ok {
		a.render(w, r, http.StatusNotFound, "notfound", page{Title: "Not found", Data: r.URL.RequestURI()})
		return
	}
	a.render(w, r, http.StatusOK, "confirmation", page{Title: "Order confirmed", Data: o})
}
