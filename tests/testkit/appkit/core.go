package appkit

import (
	"encoding/json"
	"net/http"
	"sync/atomic"
)

// Core is what every laboratory app holds besides its own data: the variant it serves, switched
// on a live server, and the record of what its pages and API saw. An app embeds it, which gives
// the app Variant, SetVariant, VariantOf, Events and ResetRecord; Init must run before use.
type Core struct {
	catalogue Catalogue
	variant   atomic.Pointer[string]
	rec       Recorder
}

// Init sets the app's variants and record rules and starts it on the baseline.
func (c *Core) Init(variants Catalogue, fills FillMerge) {
	c.catalogue = variants
	c.rec.Fills = fills
	name := BaselineName
	c.variant.Store(&name)
}

// Variant returns the name of the variant being served.
func (c *Core) Variant() string { return *c.variant.Load() }

// SetVariant switches the variant for every request that starts afterwards; a request already
// being served finishes with the variant it started with. Safe for concurrent use. Several
// variants may be named as a person types them (see VariantName).
func (c *Core) SetVariant(name string) error {
	name = VariantName(name)
	if err := c.catalogue.Check(name); err != nil {
		return err
	}
	c.variant.Store(&name)
	return nil
}

// VariantOf is the variant r is served with: read once when it arrived (see Handler), so that
// a switch in the middle of a request never mixes two variants in one response.
func (c *Core) VariantOf(r *http.Request) string {
	if v, ok := r.Context().Value(variantKey{}).(string); ok {
		return v
	}
	return c.Variant()
}

// Events returns a copy of the record so far.
func (c *Core) Events() []Event {
	e, _ := c.rec.Snapshot()
	return e
}

// ResetRecord empties the record.
func (c *Core) ResetRecord() { c.rec.Reset() }

// Admin is how an app's own endpoints under /__ differ from one app to the other.
type Admin struct {
	// Record is the body of GET /__record.
	Record func() any
	// Reset restores the app's seed data (POST /__reset); the variant and the record are kept.
	Reset func()
	// Keep says which requests the record keeps; Fields records the fields they posted.
	Keep   func(*http.Request) bool
	Fields bool
}

// Handler serves mux with the app's own endpoints added to it:
//
//	GET  /__variant            {"name": current variant}
//	POST /__variant?name=X     switch to variant X (400 naming the known ones if X is unknown);
//	                           X may combine several: name=a+b (a query string's "+" is a
//	                           space, which is taken as the same), name=a%2Bb or name=a,b
//	GET  /__variants           every variant with its kind, correct repair and breaks
//	GET  /__record             admin.Record()
//	POST /__record             a JSON array of {type, key, value, page, at}: the page's own script
//	POST /__record/reset       empty the record
//	POST /__reset              admin.Reset()
//
// Every request is pinned to the variant it arrived under, recorded when admin.Keep says so,
// and marked not to be cached, so that a variant switched on a live server shows on the next
// load.
func (c *Core) Handler(mux *http.ServeMux, admin Admin) http.Handler {
	mux.HandleFunc("GET /__variant", func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]string{"name": c.Variant()})
	})
	mux.HandleFunc("POST /__variant", func(w http.ResponseWriter, r *http.Request) {
		if err := c.SetVariant(r.URL.Query().Get("name")); err != nil {
			WriteJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error(), "known": c.catalogue.Names()})
			return
		}
		WriteJSON(w, http.StatusOK, map[string]string{"name": c.Variant()})
	})
	mux.HandleFunc("GET /__variants", func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusOK, c.catalogue.Variants())
	})
	mux.HandleFunc("GET /__record", func(w http.ResponseWriter, _ *http.Request) { WriteJSON(w, http.StatusOK, admin.Record()) })
	mux.HandleFunc("POST /__record", c.rec.PageHandler(c.VariantOf))
	mux.HandleFunc("POST /__record/reset", func(w http.ResponseWriter, _ *http.Request) {
		c.ResetRecord()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /__reset", func(w http.ResponseWriter, _ *http.Request) {
		admin.Reset()
		w.WriteHeader(http.StatusNoContent)
	})
	return pinVariant(c.Variant, c.rec.Requests(noStore(mux), admin.Keep, admin.Fields, c.VariantOf))
}

// Record returns a copy of the record so far and how many events it dropped, being full.
func (c *Core) Record() ([]Event, int) { return c.rec.Snapshot() }

// WriteJSON answers with v as JSON and the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
