package demoapp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Event is one thing the app saw: an element clicked, filled or (un)checked in the page, or a
// request it served. Key is the element's data-demo-key, which names the same element in every
// variant however it is found, so a test can prove that a healed step hit the element the
// original step meant.
type Event struct {
	Seq    int               `json:"seq"`
	Type   string            `json:"type"` // click | fill | check | request
	Key    string            `json:"key,omitempty"`
	Value  string            `json:"value,omitempty"` // fill: the field's value; check: "true" or "false"
	Page   string            `json:"page,omitempty"`  // the page path an element event happened on
	Method string            `json:"method,omitempty"`
	Path   string            `json:"path,omitempty"` // request: path and query
	Status int               `json:"status,omitempty"`
	Fields map[string]string `json:"fields,omitempty"` // request: the form or JSON fields posted
	// Variant is the variant the app served when the event happened.
	Variant string `json:"variant"`
	// at orders the record: the page's clock for element events, the server's for requests.
	// Beacons travel on their own connections and can arrive after the navigation a click
	// caused, so arrival order is not the order things happened in. Both clocks are the same
	// machine's in every use of the demo app.
	at time.Time
}

// Event types.
const (
	EventClick   = "click"
	EventFill    = "fill"
	EventCheck   = "check"
	EventRequest = "request"
)

// maxEvents bounds a record: a runaway client cannot exhaust memory; what is dropped is counted.
const maxEvents = 10000

// maxBody bounds a request body the app reads (a record batch, a form, a JSON payload).
const maxBody = 1 << 20

// recorder is the event log of one App, safe for concurrent use.
type recorder struct {
	mu      sync.Mutex
	events  []Event
	dropped int
}

// add inserts an event in time order. A fill of the same element as the event before it
// replaces that event's value rather than adding another, and a fill that repeats the element's
// last recorded value is dropped: the page reports a field while it is typed into and again when
// it changes, and only the value it ended with is what the step entered.
func (r *recorder) add(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := len(r.events)
	for i > 0 && r.events[i-1].at.After(e.at) {
		i--
	}
	if e.Type == EventFill {
		for j := i - 1; j >= 0; j-- {
			prev := &r.events[j]
			if prev.Type != EventFill || prev.Key != e.Key || prev.Page != e.Page {
				continue
			}
			if j == i-1 {
				prev.Value, prev.at = e.Value, e.at
				return
			}
			if prev.Value == e.Value {
				return
			}
			break
		}
	}
	if len(r.events) >= maxEvents {
		r.dropped++
		return
	}
	r.events = slices.Insert(r.events, i, e)
}

func (r *recorder) snapshot() ([]Event, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Event, len(r.events))
	for i, e := range r.events {
		out[i] = e
		out[i].Seq = i + 1
		if e.Fields != nil {
			out[i].Fields = make(map[string]string, len(e.Fields))
			for k, v := range e.Fields {
				out[i].Fields[k] = v
			}
		}
	}
	return out, r.dropped
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events, r.dropped = nil, 0
}

// pageEvent is what the page's script posts for one element event.
type pageEvent struct {
	Type  string `json:"type"`
	Key   string `json:"key"`
	Value string `json:"value"`
	Page  string `json:"page"`
	// At is when it happened by the page's clock, in milliseconds since the Unix epoch; zero
	// means "when it arrived".
	At float64 `json:"at"`
}

// recordPage stores a batch of element events posted by the page's script.
func (a *App) recordPage(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "record: body unreadable or larger than 1 MiB", http.StatusBadRequest)
		return
	}
	var batch []pageEvent
	if err := json.Unmarshal(body, &batch); err != nil {
		http.Error(w, fmt.Sprintf("record: body is not a JSON array of events: %v", err), http.StatusBadRequest)
		return
	}
	for i, e := range batch {
		if e.Type != EventClick && e.Type != EventFill && e.Type != EventCheck {
			http.Error(w, fmt.Sprintf("record: event %d has type %q, want click, fill or check", i, e.Type), http.StatusBadRequest)
			return
		}
		if e.Key == "" {
			http.Error(w, fmt.Sprintf("record: event %d has no key", i), http.StatusBadRequest)
			return
		}
	}
	v := a.variantOf(r)
	now := time.Now()
	for _, e := range batch {
		at := now
		if e.At > 0 {
			at = time.UnixMicro(int64(e.At * 1000))
		}
		a.rec.add(Event{Type: e.Type, Key: e.Key, Value: e.Value, Page: e.Page, Variant: v, at: at})
	}
	w.WriteHeader(http.StatusNoContent)
}

// recordJSON is the body of GET /__record.
type recordJSON struct {
	Variant string  `json:"variant"`
	Events  []Event `json:"events"`
	Dropped int     `json:"dropped"`
}

func (a *App) serveRecord(w http.ResponseWriter, _ *http.Request) {
	events, dropped := a.rec.snapshot()
	writeJSON(w, http.StatusOK, recordJSON{Variant: a.Variant(), Events: events, Dropped: dropped})
}

// statusWriter remembers the status a handler wrote.
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

// recordRequests records every request the shop serves, with the fields it was sent; the
// app's own endpoints and static assets are left out, being no part of what a test does.
func (a *App) recordRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, adminPrefix) || strings.HasPrefix(r.URL.Path, "/assets/") || r.URL.Path == "/favicon.ico" {
			next.ServeHTTP(w, r)
			return
		}
		fields := postedFields(r)
		at := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		a.rec.add(Event{Type: EventRequest, Method: r.Method, Path: r.URL.RequestURI(), Status: sw.status, Fields: fields, Variant: a.variantOf(r), at: at})
	})
}

// postedFields reads a form or flat JSON body without consuming it: the handler reads it again.
func postedFields(r *http.Request) map[string]string {
	if r.Body == nil || (r.Method != http.MethodPost && r.Method != http.MethodPut) {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil || len(body) == 0 {
		return nil
	}
	fields := map[string]string{}
	switch ct := r.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/json"):
		var obj map[string]any
		if json.Unmarshal(body, &obj) != nil {
			return nil
		}
		for k, v := range obj {
			fields[k] = fmt.Sprint(v)
		}
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil
		}
		for k := range vals {
			fields[k] = vals.Get(k)
		}
	default:
		return nil
	}
	return fields
}
