package demoapp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// cents is an amount of money in US cents; the shop never uses floating point for money, so a
// total is the same on every run.
type cents int

func (c cents) String() string { return fmt.Sprintf("$%d.%02d", c/100, c%100) }

// parseCents reads "32", "32.5" or "32.00" (an optional leading $) into cents.
func parseCents(s string) (cents, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "$")
	whole, frac, hasFrac := strings.Cut(s, ".")
	if whole == "" || (hasFrac && (frac == "" || len(frac) > 2)) {
		return 0, fmt.Errorf("price %q is not an amount like 12.50", s)
	}
	w, err := strconv.Atoi(whole)
	if err != nil || w < 0 {
		return 0, fmt.Errorf("price %q is not an amount like 12.50", s)
	}
	f := 0
	if hasFrac {
		if len(frac) == 1 {
			frac += "0"
		}
		if f, err = strconv.Atoi(frac); err != nil || f < 0 {
			return 0, fmt.Errorf("price %q is not an amount like 12.50", s)
		}
	}
	return cents(w*100 + f), nil
}

// Product is one item of the catalogue.
type Product struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	SKU         string `json:"sku"`
	Category    string `json:"category"`
	Price       cents  `json:"-"`
	Stock       int    `json:"stock"`
	Description string `json:"description"`
	ImageAlt    string `json:"-"`
	Featured    bool   `json:"featured"`
}

// categories maps a category value to its label, in display order.
var categories = []struct{ Value, Label string }{
	{"indoor", "Indoor"},
	{"outdoor", "Outdoor"},
	{"tools", "Tools & pots"},
}

func categoryLabel(v string) string {
	for _, c := range categories {
		if c.Value == v {
			return c.Label
		}
	}
	return v
}

// seedProducts is the catalogue every App starts with; the saved tests name these products.
func seedProducts() []Product {
	return []Product{
		{1, "Boston Fern", "FERN-001", "indoor", 1850, 12, "A lush fern for a bright bathroom or a hanging basket.", "Boston Fern in a hanging basket", false},
		{2, "Snake Plant", "SNAKE-002", "indoor", 2400, 8, "Upright leaves that forgive a missed watering.", "Snake Plant in a grey pot", true},
		{3, "Lavender", "LAV-003", "outdoor", 975, 30, "Fragrant purple spikes for a sunny border.", "Lavender in flower", false},
		{4, "Olive Tree", "OLIVE-004", "outdoor", 8900, 0, "A small olive tree for a sheltered patio.", "Young olive tree in a terracotta pot", false},
		{5, "Pruning Shears", "SHEAR-005", "tools", 2240, 15, "Bypass shears with a safety lock.", "Red-handled pruning shears", false},
		{6, "Terracotta Pot", "POT-006", "tools", 625, 40, "A 15 cm pot with a drainage hole.", "Plain terracotta pot", false},
		{7, "Fiddle Leaf Fig", "FIG-007", "indoor", 4500, 0, "Large violin-shaped leaves for a bright room.", "Fiddle Leaf Fig beside a window", false},
	}
}

// Shipping prices. Standard delivery is free from freeShippingFrom on.
const (
	standardShipping cents = 495
	expressShipping  cents = 995
	freeShippingFrom cents = 5000
)

// deliveries are the delivery options of the checkout, in display order.
var deliveries = []struct{ Value, Label string }{
	{"standard", "Standard (3–5 days)"},
	{"express", "Express"},
}

func shippingFor(delivery string, subtotal cents) cents {
	if delivery == "express" {
		return expressShipping
	}
	if subtotal >= freeShippingFrom || subtotal == 0 {
		return 0
	}
	return standardShipping
}

// cartLine is one product in a cart.
type cartLine struct {
	Product Product
	Qty     int
}

func (l cartLine) Total() cents { return l.Product.Price * cents(l.Qty) }

// totals is what the cart and the checkout show under the lines.
type totals struct {
	Subtotal cents `json:"-"`
	Shipping cents `json:"-"`
	Total    cents `json:"-"`
}

// computeTotals adds up a cart. The wrong-total regression sums unit prices and forgets the
// quantities, the kind of bug a refactor of the subtotal introduces.
func computeTotals(lines []cartLine, delivery string, ignoreQuantities bool) totals {
	var t totals
	for _, l := range lines {
		if ignoreQuantities {
			t.Subtotal += l.Product.Price
		} else {
			t.Subtotal += l.Total()
		}
	}
	t.Shipping = shippingFor(delivery, t.Subtotal)
	t.Total = t.Subtotal + t.Shipping
	return t
}

// cart holds product quantities by product id, in the order they were first added.
type cart struct {
	order []int
	qty   map[int]int
}

func (c *cart) add(id, qty int) {
	if c.qty == nil {
		c.qty = map[int]int{}
	}
	if _, ok := c.qty[id]; !ok {
		c.order = append(c.order, id)
	}
	c.qty[id] += qty
}

func (c *cart) set(id, qty int) {
	if qty <= 0 {
		delete(c.qty, id)
		c.order = slices.DeleteFunc(c.order, func(x int) bool { return x == id })
		return
	}
	if _, ok := c.qty[id]; !ok {
		c.add(id, qty)
		return
	}
	c.qty[id] = qty
}

func (c *cart) count() int {
	n := 0
	for _, q := range c.qty {
		n += q
	}
	return n
}

// shipping is what the first checkout page collects.
type shipping struct {
	Name, Address, City, Postcode, Phone, Delivery string
}
