package appkit

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// Kind says what a variant is for in a drift laboratory.
type Kind string

// Variant kinds.
const (
	// Baseline is the app every saved test was recorded against; all of them pass.
	Baseline Kind = "baseline"
	// Drift changes how elements are found, not what the app does: a correct repair exists that
	// keeps every check of every test.
	Drift Kind = "drift"
	// Regression breaks what the app does: no repair may be made, because every one would have
	// to weaken a check.
	Regression Kind = "regression"
	// Neutral changes a page without touching any element a saved test uses: every test passes.
	Neutral Kind = "neutral"
)

// Variant is one version of a laboratory app.
type Variant struct {
	Name        string `json:"name"`
	Kind        Kind   `json:"kind"`
	Description string `json:"description"`
	// CorrectRepair says, in words, what a correct repair is: for a drift, the locator or step
	// change that makes the broken tests green again with every check kept; for a regression,
	// why there is none.
	CorrectRepair string `json:"correctRepair"`
	// Breaks maps each saved test that fails under the variant to the path of the first step
	// that fails ("4", or "1.5" for the fifth step inside the intent block at step 1). Tests
	// not named pass. The paths assume a runner that refuses to act on an element another
	// element covers and that auto-waits for elements up to its step timeout, as the runner of
	// DESIGN.md does.
	Breaks map[string]string `json:"breaks"`
}

// BaselineName is the name of the variant a new app serves.
const BaselineName = "baseline"

// Catalogue is an app's variants, baseline first.
type Catalogue []Variant

// Variants returns every variant in order. The slice and its maps are copies: changing them
// changes nothing in the app.
func (c Catalogue) Variants() []Variant {
	out := make([]Variant, len(c))
	for i, v := range c {
		out[i] = v
		out[i].Breaks = maps.Clone(v.Breaks)
	}
	return out
}

// Names lists the variant names in order.
func (c Catalogue) Names() []string {
	names := make([]string, 0, len(c))
	for _, v := range c {
		names = append(names, v.Name)
	}
	return names
}

// Known accepts a variant name, or several joined with "+" ("id-renamed+moved-button"): drift
// accumulates in a real app, and the laboratory lets it accumulate too. The baseline combines
// with nothing and no name is given twice.
func (c Catalogue) Known(name string) bool {
	parts := strings.Split(name, "+")
	seen := map[string]bool{}
	for _, p := range parts {
		if seen[p] || !slices.Contains(c.Names(), p) || (p == BaselineName && len(parts) > 1) {
			return false
		}
		seen[p] = true
	}
	return true
}

// VariantName is a combination of variants as a person types it, written as one name: names
// joined with "+", or separated by spaces or commas ("a+b" in a URL's query string arrives as
// "a b"), become "a+b". A single name is itself; a separator with no name after it stays, for
// Check to refuse ("a+" is a mistake, not "a").
func VariantName(typed string) string {
	return separators.ReplaceAllString(strings.TrimSpace(typed), "+")
}

// separators is a run of what people put between variant names.
var separators = regexp.MustCompile(`[+,\s]+`)

// Check is nil when name is Known, else an UnknownVariantError.
func (c Catalogue) Check(name string) error {
	if !c.Known(name) {
		return &UnknownVariantError{Name: name, Known: c.Names()}
	}
	return nil
}

// Includes reports whether variant (one name, or several joined with "+") includes name.
func Includes(variant, name string) bool {
	return slices.Contains(strings.Split(variant, "+"), name)
}

// UnknownVariantError names a variant that does not exist and lists the ones that do.
type UnknownVariantError struct {
	Name  string
	Known []string
}

func (e *UnknownVariantError) Error() string {
	return fmt.Sprintf("unknown demo app variant %q; known variants: %s", e.Name, strings.Join(e.Known, ", "))
}

type variantKey struct{}

// pinVariant reads the variant (current) once per request, so that a switch in the middle of a
// request never mixes two variants in one response; Core.VariantOf reads it back.
func pinVariant(current func() string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), variantKey{}, current())))
	})
}

// noStore keeps the browser from caching: a variant switched on a live server shows on the
// next load.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
