package demoapp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/tests/testkit/appkit"
)

// writeJSON is the apps' one JSON answer, so that the API and the admin endpoints answer alike.
var writeJSON = appkit.WriteJSON

// apiError is the body of every failed API call.
type apiError struct {
	Error  string            `json:"error"`
	Fields map[string]string `json:"fields,omitempty"`
}

// decodeBody reads a JSON body strictly into v.
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("body is not the expected JSON: %w", err)
	}
	return nil
}

// newProductIn is the body of POST /api/products.
type newProductIn struct {
	Name        string `json:"name"`
	SKU         string `json:"sku"`
	Price       string `json:"price"`
	Category    string `json:"category"`
	Description string `json:"description"`
	Featured    bool   `json:"featured"`
}

// productOut is a product as the API returns it.
type productOut struct {
	ID      int    `json:"id"`
	Name    string `json:"name"`
	Price   string `json:"price"`
	URL     string `json:"url"`
	Message string `json:"message,omitempty"` // the success toast; absent under toast-missing
}

func (a *App) apiCreateProduct(w http.ResponseWriter, r *http.Request) {
	if a.user(r) == "" {
		writeJSON(w, http.StatusUnauthorized, apiError{Error: "log in to create products"})
		return
	}
	variant := a.variantOf(r)
	if includes(variant, vAPI500) {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: "internal error: inventory database unavailable"})
		return
	}
	var in newProductIn
	if err := decodeBody(r, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "create product: " + err.Error()})
		return
	}
	fields := map[string]string{}
	for id, v := range map[string]string{"name": in.Name, "sku": in.SKU, "price": in.Price} {
		if strings.TrimSpace(v) == "" {
			fields[id] = "is required"
		}
	}
	price, err := parseCents(in.Price)
	if err != nil && fields["price"] == "" {
		fields["price"] = err.Error()
	}
	if categoryLabel(in.Category) == in.Category {
		fields["category"] = fmt.Sprintf("%q is not a category", in.Category)
	}
	if len(fields) > 0 {
		writeJSON(w, http.StatusUnprocessableEntity, apiError{Error: "the product was not saved: some fields are missing or wrong", Fields: fields})
		return
	}
	a.mu.Lock()
	p := Product{ID: a.nextID, Name: strings.TrimSpace(in.Name), SKU: strings.TrimSpace(in.SKU), Category: in.Category,
		Price: price, Stock: 0, Description: strings.TrimSpace(in.Description), ImageAlt: strings.TrimSpace(in.Name), Featured: in.Featured}
	a.nextID++
	a.products = append(a.products, p)
	a.mu.Unlock()
	out := productOut{ID: p.ID, Name: p.Name, Price: p.Price.String(), URL: "/products/" + strconv.Itoa(p.ID)}
	if !includes(variant, vToastMissing) {
		out.Message = "Product created"
	}
	writeJSON(w, http.StatusCreated, out)
}

func (a *App) apiDeleteProduct(w http.ResponseWriter, r *http.Request) {
	if a.user(r) == "" {
		writeJSON(w, http.StatusUnauthorized, apiError{Error: "log in to delete products"})
		return
	}
	id, err := strconv.Atoi(r.PathValue("id"))
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, p := range a.products {
		if err == nil && p.ID == id {
			a.products = append(a.products[:i], a.products[i+1:]...)
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	writeJSON(w, http.StatusNotFound, apiError{Error: fmt.Sprintf("no product with id %q", r.PathValue("id"))})
}

// cartIn is the body of POST /api/cart and PUT /api/cart/{id}.
type cartIn struct {
	ProductID int `json:"productId"`
	Qty       int `json:"qty"`
}

// cartOut is the cart as the API returns it: the pages update their counts and totals from it.
type cartOut struct {
	Count    int               `json:"count"`
	Lines    map[string]string `json:"lines"` // product id → line total
	Subtotal string            `json:"subtotal"`
	Shipping string            `json:"shipping"`
	Total    string            `json:"total"`
	Message  string            `json:"message,omitempty"` // the success toast; absent under toast-missing
}

// maxQty bounds a cart line, as the quantity inputs do.
const maxQty = 10

func (a *App) apiAddToCart(w http.ResponseWriter, r *http.Request) {
	var in cartIn
	if err := decodeBody(r, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "add to cart: " + err.Error()})
		return
	}
	a.changeCart(w, r, in.ProductID, in.Qty, true)
}

func (a *App) apiSetQuantity(w http.ResponseWriter, r *http.Request) {
	var in cartIn
	if err := decodeBody(r, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "set quantity: " + err.Error()})
		return
	}
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("set quantity: product id %q is not a number", r.PathValue("id"))})
		return
	}
	a.changeCart(w, r, id, in.Qty, false)
}

// changeCart adds qty of a product to the cart (add) or sets its quantity, and answers with
// the cart's new state.
func (a *App) changeCart(w http.ResponseWriter, r *http.Request, id, qty int, add bool) {
	if qty < 0 || qty > maxQty || (add && qty == 0) {
		writeJSON(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("quantity %d is not between 1 and %d", qty, maxQty)})
		return
	}
	variant := a.variantOf(r)
	tok := a.cartToken(w, r)
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.productByID(id)
	if !ok {
		writeJSON(w, http.StatusNotFound, apiError{Error: fmt.Sprintf("no product with id %d", id)})
		return
	}
	if add && p.Stock == 0 {
		writeJSON(w, http.StatusConflict, apiError{Error: p.Name + " is out of stock"})
		return
	}
	c := a.carts[tok]
	if add {
		c.add(id, qty)
	} else {
		c.set(id, qty)
	}
	lines := a.linesOf(c)
	t := computeTotals(lines, "standard", includes(variant, vWrongTotal))
	out := cartOut{Count: c.count(), Lines: map[string]string{}, Subtotal: t.Subtotal.String(), Shipping: t.Shipping.String(), Total: t.Total.String()}
	for _, l := range lines {
		out.Lines[strconv.Itoa(l.Product.ID)] = l.Total().String()
	}
	if add && !includes(variant, vToastMissing) {
		if qty == 1 {
			out.Message = "Added " + p.Name + " to cart"
		} else {
			out.Message = fmt.Sprintf("Added %d × %s to cart", qty, p.Name)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// apiQuote prices the request's cart for a delivery option: the merged checkout page updates
// its total from it when the delivery changes, so the server stays the one place totals are
// computed.
func (a *App) apiQuote(w http.ResponseWriter, r *http.Request) {
	d := r.URL.Query().Get("delivery")
	if d != "standard" && d != "express" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("delivery %q is not standard or express", d)})
		return
	}
	v := a.cartView(r, d)
	writeJSON(w, http.StatusOK, map[string]string{"subtotal": v.Totals.Subtotal.String(), "shipping": v.Totals.Shipping.String(), "total": v.Totals.Total.String()})
}
