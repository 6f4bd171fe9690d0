package demoapp

import "github.com/driftgardener/gardener/tests/testkit/appkit"

// Kind says what a variant is for in the drift laboratory.
type Kind = appkit.Kind

// Variant kinds.
const (
	Baseline   = appkit.Baseline
	Drift      = appkit.Drift
	Regression = appkit.Regression
	Neutral    = appkit.Neutral
)

// Variant is one version of the demo app. Its Breaks paths assume a runner that refuses to act
// on an element another element covers (the cookie banner).
type Variant = appkit.Variant

// BaselineName is the name of the variant a new App serves.
const BaselineName = appkit.BaselineName

// The variant names; templates and handlers compare against these.
const (
	vButtonWrapper   = "button-wrapper"
	vIDRenamed       = "id-renamed"
	vClassesRenamed  = "classes-renamed"
	vButtonText      = "button-text"
	vLabelRenamed    = "label-renamed"
	vRequiredField   = "required-field"
	vMoved           = "moved-button"
	vCookieBanner    = "cookie-banner"
	vCheckoutMerged  = "checkout-merged"
	vNeutral         = "neutral-tips"
	vLoginBroken     = "login-broken"
	vAPI500          = "api-500"
	vConsoleError    = "console-error"
	vToastMissing    = "toast-missing"
	vWrongTotal      = "wrong-total"
	vValidationGone  = "validation-missing"
	regressionReason = "No repair may be made: "
)

var variants = appkit.Catalogue{
	{
		Name:          BaselineName,
		Kind:          Baseline,
		Description:   "The shop as every saved test was recorded against it.",
		CorrectRepair: "None needed: every saved test passes.",
		Breaks:        map[string]string{},
	},
	{
		Name:        vButtonWrapper,
		Kind:        Drift,
		Description: `The "Save product" button on /products/new gained a wrapper: it now sits in <div class="form-actions"> instead of directly in the form.`,
		CorrectRepair: `Move the locator of the two clicks on the save button (create-product steps 4 and 12, ` +
			`xpath=//form[@id='product-form']/button[@type='submit']) to the same button inside its wrapper, ` +
			`e.g. role=button[name="Save product"] or #product-form button[type=submit].`,
		Breaks: map[string]string{"create-product": "4"},
	},
	{
		Name:        vIDRenamed,
		Kind:        Drift,
		Description: `The password field on /login is renamed from id="password" to id="current-password" (its label still names it).`,
		CorrectRepair: `Move the locator of the password fill (login step 4, #password) to the renamed field, ` +
			`e.g. #current-password or label=Password.`,
		Breaks: map[string]string{"login": "4"},
	},
	{
		Name:        vClassesRenamed,
		Kind:        Drift,
		Description: `A design-system rename: header, navigation and button classes change (.site-header→.masthead, .nav-links→.menu, .cart-link→.menu-cart, .btn→.button, .btn-primary→.button-primary).`,
		CorrectRepair: `Move the locator of the click on the cart link (cart-total step 8, css=.nav-links .cart-link) ` +
			`to the same link, e.g. css=.menu .menu-cart or nav a[href="/cart"].`,
		Breaks: map[string]string{"cart-total": "8"},
	},
	{
		Name:        vButtonText,
		Kind:        Drift,
		Description: `The login button's text changes from "Login" to "Sign in".`,
		CorrectRepair: `Move the locators of the clicks on the login button to the renamed button: login step 5 ` +
			`(role=button[name="Login"]) and dashboard-nav step 1.4 (text=Login, inside the intent block, ` +
			`which may also be re-derived from its goal), e.g. role=button[name="Sign in"] or #login-btn.`,
		Breaks: map[string]string{"login": "5", "dashboard-nav": "1.4"},
	},
	{
		Name:        vLabelRenamed,
		Kind:        Drift,
		Description: `The label of the username field on /login changes from "Username" to "Email or username".`,
		CorrectRepair: `Move every label=Username locator to the renamed label, e.g. label=Email or username or #username: ` +
			`login step 3, login-invalid steps 2 and 8, and step 1.2 of the login intent blocks of create-product ` +
			`and dashboard-nav. One heal, propagated to every test that uses the locator.`,
		Breaks: map[string]string{"login": "3", "login-invalid": "2", "create-product": "1.2", "dashboard-nav": "1.2"},
	},
	{
		Name:        vRequiredField,
		Kind:        Drift,
		Description: `The shipping form of the checkout grew a required "Phone" field; without it the form does not submit.`,
		CorrectRepair: `Insert a fill of the new field (label=Phone, any phone number) before the click on ` +
			`"Continue to payment" (checkout step 12), so the form submits and the payment page the test goes on ` +
			`with is reached. No existing step changes.`,
		Breaks: map[string]string{"checkout": "13"},
	},
	{
		Name:        vMoved,
		Kind:        Drift,
		Description: `On product pages the "Add to cart" button and quantity moved out of the product summary into a purchase bar (<aside class="purchase-bar">) below it.`,
		CorrectRepair: `Move the locator of the two clicks on the add-to-cart button (cart-total steps 2 and 6, ` +
			`css=.product-info .add-to-cart) to the moved button, e.g. css=.purchase-bar .add-to-cart, #add-to-cart ` +
			`or role=button[name="Add to cart"].`,
		Breaks: map[string]string{"cart-total": "2"},
	},
	{
		Name:        vCookieBanner,
		Kind:        Drift,
		Description: `Shop pages (/products, product pages, /cart, /checkout) open a cookie consent dialog that covers the page and makes it inert until "Accept cookies" is clicked; the choice is kept in a cookie.`,
		CorrectRepair: `Insert a click on role=button[name="Accept cookies"] after the test's first visit to a shop page ` +
			`(after step 1 of product-search, product-detail, cart-total and checkout, after step 4 of ` +
			`dashboard-nav); no existing step changes.`,
		Breaks: map[string]string{"product-search": "3", "product-detail": "2", "cart-total": "2", "checkout": "2", "dashboard-nav": "5"},
	},
	{
		Name:        vCheckoutMerged,
		Kind:        Drift,
		Description: `The two-page checkout (shipping, then payment) became one page, /checkout, with both sections and a single "Place order" button; /checkout/shipping redirects there.`,
		CorrectRepair: `Delete the click on "Continue to payment" (checkout step 12), which no longer exists; ` +
			`every other step, the checks included, passes unchanged on the merged page.`,
		Breaks: map[string]string{"checkout": "12"},
	},
	{
		Name:          vNeutral,
		Kind:          Neutral,
		Description:   `The dashboard gains a "Seasonal tips" panel and the products page a care note; no element a saved test uses changes.`,
		CorrectRepair: "None needed: every saved test passes; a repair here would be a false positive.",
		Breaks:        map[string]string{},
	},
	{
		Name:          vLoginBroken,
		Kind:          Regression,
		Description:   `Login is broken: correct credentials are refused and the browser stays on /login with "Invalid username or password".`,
		CorrectRepair: regressionReason + "the wait for /dashboard after logging in is a check; passing would need it deleted or rewritten.",
		Breaks:        map[string]string{"login": "6", "create-product": "1.5", "dashboard-nav": "1.5"},
	},
	{
		Name:          vAPI500,
		Kind:          Regression,
		Description:   `Creating a product fails: POST /api/products answers 500 and the form shows an error alert.`,
		CorrectRepair: regressionReason + `the "Product created" toast and the POST /api/products 201 request are checks.`,
		Breaks:        map[string]string{"create-product": "13"},
	},
	{
		Name:          vConsoleError,
		Kind:          Regression,
		Description:   `Shop pages (/products, product pages, /cart, /checkout) load a stock widget script that throws an uncaught TypeError; the pages still work.`,
		CorrectRepair: regressionReason + "the assertConsole checks that no error was logged would have to be deleted or loosened.",
		Breaks:        map[string]string{"product-search": "12", "dashboard-nav": "7", "a11y-shop": "3"},
	},
	{
		Name:          vToastMissing,
		Kind:          Regression,
		Description:   `Success toasts are never shown (product created, added to cart); the actions themselves still work.`,
		CorrectRepair: regressionReason + "assertToast is a check; the only way to pass is deleting it or changing the text it expects.",
		Breaks:        map[string]string{"create-product": "13", "cart-total": "3"},
	},
	{
		Name:          vWrongTotal,
		Kind:          Regression,
		Description:   `The cart subtotal ignores quantities (sums unit prices), so the cart total is wrong whenever a line has more than one item.`,
		CorrectRepair: regressionReason + `the cart total check (cart-total step 10, equals "$42.95") would have to change its expected value; no other element shows the right total.`,
		Breaks:        map[string]string{"cart-total": "10"},
	},
	{
		Name:          vValidationGone,
		Kind:          Regression,
		Description:   `The product form lost its client-side validation: an empty submit shows no error and is sent to the API, which refuses it with 422.`,
		CorrectRepair: regressionReason + `the validation error check (create-product step 5, "Name is required") would have to be deleted.`,
		Breaks:        map[string]string{"create-product": "5"},
	},
}

// Variants returns every variant, baseline first, then drifts, the neutral one and regressions.
// The slice and its maps are copies: changing them changes nothing in the app.
func Variants() []Variant { return variants.Variants() }

// UnknownVariantError names a variant that does not exist and lists the ones that do.
type UnknownVariantError = appkit.UnknownVariantError

// VariantNames lists the variant names in the order of Variants.
func VariantNames() []string { return variants.Names() }

// includes reports whether the variant being served (one name, or several joined with "+")
// includes name.
func includes(variant, name string) bool { return appkit.Includes(variant, name) }
