package spaapp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Event is one thing the app saw: an element clicked, filled or (un)checked in the page or its
// payment frame, or an API request it served. Key is the element's data-rec key, the same in
// every variant however the element is found, so a test can prove that a healed step hit the
// element the original step meant.
type Event struct {
	Seq     int    `json:"seq"`
	Type    string `json:"type"` // click | fill | check | request
	Key     string `json:"key,omitempty"`
	Value   string `json:"value,omitempty"` // fill: the field's value; check: "true" or "false"
	Page    string `json:"page,omitempty"`  // the route an element event happened on
	Method  string `json:"method,omitempty"`
	Path    string `json:"path,omitempty"`
	Status  int    `json:"status,omitempty"`
	Variant string `json:"variant"`
	// at orders the record: the page's clock for element events, the server's for requests
	// (the same machine's in every use of the app).
	at time.Time
}

// Event types.
const (
	EventClick   = "click"
	EventFill    = "fill"
	EventCheck   = "check"
	EventRequest = "request"
)

const (
	maxEvents = 10000
	maxBody   = 1 << 20
)

type recorder struct {
	mu     sync.Mutex
	events []Event
}

// add inserts an event in time order; a fill of the element filled just before replaces that
// fill's value (a field reports while it is typed into and again when it changes).
func (r *recorder) add(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := len(r.events)
	for i > 0 && r.events[i-1].at.After(e.at) {
		i--
	}
	if e.Type == EventFill && i > 0 {
		if prev := &r.events[i-1]; prev.Type == EventFill && prev.Key == e.Key {
			prev.Value, prev.at = e.Value, e.at
			return
		}
	}
	if len(r.events) >= maxEvents {
		return
	}
	r.events = slices.Insert(r.events, i, e)
}

func (r *recorder) snapshot() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.events)
	for i := range out {
		out[i].Seq = i + 1
	}
	return out
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = nil
}

// recordPage stores a batch of element events posted by the page's or the frame's script:
// [{"type", "key", "value", "page", "at"}] with at in epoch milliseconds.
func (a *App) recordPage(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "record: body unreadable or larger than 1 MiB", http.StatusBadRequest)
		return
	}
	var batch []struct {
		Type, Key, Value, Page string
		At                     float64
	}
	if err := json.Unmarshal(body, &batch); err != nil {
		http.Error(w, fmt.Sprintf("record: body is not a JSON array of events: %v", err), http.StatusBadRequest)
		return
	}
	for i, e := range batch {
		if (e.Type != EventClick && e.Type != EventFill && e.Type != EventCheck) || e.Key == "" {
			http.Error(w, fmt.Sprintf("record: event %d has type %q and key %q; want click, fill or check with a key", i, e.Type, e.Key), http.StatusBadRequest)
			return
		}
	}
	v := a.variantOf(r)
	for _, e := range batch {
		at := time.Now()
		if e.At > 0 {
			at = time.UnixMicro(int64(e.At * 1000))
		}
		a.rec.add(Event{Type: e.Type, Key: e.Key, Value: e.Value, Page: e.Page, Variant: v, at: at})
	}
	w.WriteHeader(http.StatusNoContent)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// recordRequests records every API request the app serves.
func (a *App) recordRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		at := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		a.rec.add(Event{Type: EventRequest, Method: r.Method, Path: r.URL.RequestURI(), Status: sw.status, Variant: a.variantOf(r), at: at})
	})
}
