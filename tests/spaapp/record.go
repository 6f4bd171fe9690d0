package spaapp

import (
	"net/http"
	"strings"

	"github.com/driftgardener/gardener/tests/testkit/appkit"
)

// Event is one thing the app saw: an element clicked, filled or (un)checked in the page or its
// payment frame, or an API request it served. Key is the element's data-rec key, the same in
// every variant however the element is found.
type Event = appkit.Event

// Event types.
const (
	EventClick   = appkit.EventClick
	EventFill    = appkit.EventFill
	EventCheck   = appkit.EventCheck
	EventRequest = appkit.EventRequest
)

const maxBody = appkit.MaxBody

// keepRequest says which requests the record keeps: the API's.
func keepRequest(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

func (a *App) record() any { return map[string]any{"variant": a.Variant(), "events": a.Events()} }
