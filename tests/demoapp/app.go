// Package demoapp is the drift laboratory: a small plant shop, "Seedling Supply", with a
// baseline version every saved demo test passes on and named variants that drift (a test breaks
// at a locator and a correct repair exists), regress (the shop is broken and no repair may be
// made) or change nothing a test uses. The variant is switched on a live server; the app records
// which element each click and fill reached and which requests it served, so a test can prove a
// healed step hit the element the original step meant. Every asset is embedded: the app loads
// nothing from the network.
package demoapp

import (
	"embed"
	"io/fs"
	"net/http"
	"strconv"
	"sync"

	"github.com/driftgardener/gardener/tests/testkit/appkit"
)

//go:embed assets templates testdata/tests/*.json
var files embed.FS

// adminPrefix reserves the app's own endpoints (variant switching, the record); no page of the
// shop lives under it and requests to it are not recorded.
const adminPrefix = "/__"

// Cookie names.
const (
	sessionCookie = "ss_session" // set on login: the admin session
	cartCookie    = "ss_cart"    // set on the first add to cart: the visitor's cart
	consentCookie = "ss_consent" // set by the cookie banner of the cookie-banner variant
)

// The demo user.
const (
	demoUser        = "demo"
	demoPassword    = "demo123"
	demoDisplayName = "Demo User"
)

// App is one demo shop with its own data, variant and record; several can serve side by side.
type App struct {
	// Core is the variant served and the record: Variant, SetVariant, Events, ResetRecord.
	appkit.Core
	pages *templates

	mu       sync.Mutex
	products []Product
	nextID   int
	sessions map[string]string // session token → user
	carts    map[string]*cart  // cart token → cart
	checkout map[string]shipping
	orders   map[string]order
	tokens   int // issues session and cart tokens: deterministic, never random
	orderNo  int
}

// order is a placed order.
type order struct {
	Number   string
	Lines    []cartLine
	Totals   totals
	Shipping shipping
}

// New returns an App serving the baseline with the seed catalogue and an empty record.
func New() *App {
	a := &App{pages: mustTemplates()}
	a.Init(variants, appkit.MergeFillOnPage)
	a.resetData()
	return a
}

// Reset restores the seed catalogue and forgets sessions, carts and orders; the variant and the
// record are kept.
func (a *App) Reset() { a.resetData() }

func (a *App) resetData() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.products = seedProducts()
	a.nextID = len(a.products) + 1
	a.sessions = map[string]string{}
	a.carts = map[string]*cart{}
	a.checkout = map[string]shipping{}
	a.orders = map[string]order{}
	a.tokens = 0
	a.orderNo = 1000
}

// newToken issues the next session or cart token; the caller holds a.mu.
func (a *App) newToken(prefix string) string {
	a.tokens++
	return prefix + strconv.Itoa(a.tokens)
}

// Handler serves the shop, its JSON API, its assets and the admin endpoints under /__:
//
//	GET  /__variant            {"name": current variant}
//	POST /__variant?name=X     switch to variant X (400 naming the known ones if X is unknown); several
//	                           combine as name=a+b (or a%2Bb, a,b)
//	GET  /__variants           every variant with its kind, correct repair and breaks
//	GET  /__record             {"variant", "events": [Event...], "dropped"}
//	POST /__record             a JSON array of {type, key, value, page}: the page's own script
//	POST /__record/reset       empty the record
//	POST /__reset              restore the seed data (catalogue, sessions, carts, orders)
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	assets, _ := fs.Sub(files, "assets")
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })

	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/products", http.StatusSeeOther) })
	mux.HandleFunc("GET /login", a.loginPage)
	mux.HandleFunc("POST /login", a.login)
	mux.HandleFunc("POST /logout", a.logout)
	mux.HandleFunc("GET /dashboard", a.requireUser(a.dashboard))
	mux.HandleFunc("GET /products", a.productList)
	mux.HandleFunc("GET /products/new", a.requireUser(a.newProduct))
	mux.HandleFunc("GET /products/{id}", a.productDetail)
	mux.HandleFunc("GET /cart", a.cartPage)
	mux.HandleFunc("GET /checkout", a.checkoutMerged)
	mux.HandleFunc("POST /checkout", a.placeMerged)
	mux.HandleFunc("GET /checkout/shipping", a.shippingPage)
	mux.HandleFunc("POST /checkout/shipping", a.saveShipping)
	mux.HandleFunc("GET /checkout/payment", a.paymentPage)
	mux.HandleFunc("POST /checkout/payment", a.placePayment)
	mux.HandleFunc("GET /checkout/confirmation", a.confirmation)
	mux.HandleFunc("GET /preferences", a.preferencesPage)
	mux.HandleFunc("POST /preferences", a.savePreferences)

	mux.HandleFunc("POST /api/products", a.apiCreateProduct)
	mux.HandleFunc("DELETE /api/products/{id}", a.apiDeleteProduct)
	mux.HandleFunc("POST /api/cart", a.apiAddToCart)
	mux.HandleFunc("PUT /api/cart/{id}", a.apiSetQuantity)
	mux.HandleFunc("GET /api/quote", a.apiQuote)

	return a.Core.Handler(mux, appkit.Admin{Record: a.record, Reset: a.Reset, Keep: keepRequest, Fields: true})
}
