package demoapp

import (
	"net/http"
	"strings"

	"github.com/driftgardener/gardener/tests/testkit/appkit"
)

// Event is one thing the app saw: an element clicked, filled or (un)checked in the page, or a
// request it served. Key is the element's data-demo-key, which names the same element in every
// variant however it is found.
type Event = appkit.Event

// Event types.
const (
	EventClick   = appkit.EventClick
	EventFill    = appkit.EventFill
	EventCheck   = appkit.EventCheck
	EventRequest = appkit.EventRequest
)

// maxBody bounds a request body the app reads (a record batch, a form, a JSON payload).
const maxBody = appkit.MaxBody

// recordJSON is the body of GET /__record.
type recordJSON struct {
	Variant string  `json:"variant"`
	Events  []Event `json:"events"`
	Dropped int     `json:"dropped"`
}

func (a *App) record() any {
	events, dropped := a.Record()
	return recordJSON{Variant: a.Variant(), Events: events, Dropped: dropped}
}

// keepRequest says which requests the record keeps: every request the shop serves, the app's
// own endpoints and static assets left out, being no part of what a test does.
func keepRequest(r *http.Request) bool {
	return !strings.HasPrefix(r.URL.Path, adminPrefix) && !strings.HasPrefix(r.URL.Path, "/assets/") && r.URL.Path != "/favicon.ico"
}
