// Package appkit is what the laboratory apps (the demo shop of package demoapp, Crewdesk of
// package spaapp) share: the hit record of what their pages and API saw, their variants, and
// the middleware that pins a request to the variant it arrived under. It imports no browser and
// no testing package: the apps are also served by the CLI's demo.
package appkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Event is one thing an app saw: an element clicked, filled or (un)checked in the page (or its
// frames), or a request it served. Key is the element's recording key, which names the same
// element in every variant however it is found, so a test can prove that a healed step hit the
// element the original step meant.
type Event struct {
	Seq    int               `json:"seq"`
	Type   string            `json:"type"` // click | fill | check | request
	Key    string            `json:"key,omitempty"`
	Value  string            `json:"value,omitempty"` // fill: the field's value; check: "true" or "false"
	Page   string            `json:"page,omitempty"`  // the page path or route an element event happened on
	Method string            `json:"method,omitempty"`
	Path   string            `json:"path,omitempty"` // request: path and query
	Status int               `json:"status,omitempty"`
	Fields map[string]string `json:"fields,omitempty"` // request: the form or JSON fields posted, when recorded
	// Variant is the variant the app served when the event happened.
	Variant string `json:"variant"`
	// at orders the record: the page's clock for element events, the server's for requests.
	// Beacons travel on their own connections and can arrive after the navigation a click
	// caused, so arrival order is not the order things happened in. Both clocks are the same
	// machine's in every use of the apps.
	at time.Time
}

// Event types.
const (
	EventClick   = "click"
	EventFill    = "fill"
	EventCheck   = "check"
	EventRequest = "request"
)

// MaxEvents bounds a record: a runaway client cannot exhaust memory; what is dropped is counted.
const MaxEvents = 10000

// MaxBody bounds a request body an app reads (a record batch, a form, a JSON payload).
const MaxBody = 1 << 20

// FillMerge says how a recorder folds the reports of one fill: a page reports a field while it
// is typed into and again when it changes or loses focus, and only the value it ended with is
// what the step entered.
type FillMerge int

const (
	// MergeAdjacentFill folds a fill into the event just before it when that is a fill of the
	// same key (Crewdesk's record).
	MergeAdjacentFill FillMerge = iota
	// MergeFillOnPage folds a fill into the event just before it when that is a fill of the
	// same key on the same page, and drops a fill that repeats the value the same key last
	// reported on that page with other events between (the shop's record).
	MergeFillOnPage
)

// Recorder is the event log of one app, safe for concurrent use. Its zero value records with
// MergeAdjacentFill.
type Recorder struct {
	Fills FillMerge

	mu      sync.Mutex
	events  []Event
	dropped int
}

// Add inserts e, which happened at at, in time order, folding fills as r.Fills says.
func (r *Recorder) Add(e Event, at time.Time) {
	e.at = at
	r.mu.Lock()
	defer r.mu.Unlock()
	i := len(r.events)
	for i > 0 && r.events[i-1].at.After(e.at) {
		i--
	}
	if e.Type == EventFill && r.foldFill(e, i) {
		return
	}
	if len(r.events) >= MaxEvents {
		r.dropped++
		return
	}
	r.events = slices.Insert(r.events, i, e)
}

// foldFill folds the fill e, to be inserted at i, into the record, and reports whether it did;
// the caller holds r.mu.
func (r *Recorder) foldFill(e Event, i int) bool {
	if r.Fills == MergeAdjacentFill {
		if i > 0 {
			if prev := &r.events[i-1]; prev.Type == EventFill && prev.Key == e.Key {
				prev.Value, prev.at = e.Value, e.at
				return true
			}
		}
		return false
	}
	for j := i - 1; j >= 0; j-- {
		prev := &r.events[j]
		if prev.Type != EventFill || prev.Key != e.Key || prev.Page != e.Page {
			continue
		}
		if j == i-1 {
			prev.Value, prev.at = e.Value, e.at
			return true
		}
		return prev.Value == e.Value
	}
	return false
}

// Snapshot returns a copy of the record, numbered from 1, and how many events were dropped.
func (r *Recorder) Snapshot() ([]Event, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Event, len(r.events))
	for i, e := range r.events {
		out[i] = e
		out[i].Seq = i + 1
		out[i].Fields = maps.Clone(e.Fields)
	}
	return out, r.dropped
}

// Reset empties the record.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events, r.dropped = nil, 0
}

// pageEvent is what a page's script posts for one element event.
type pageEvent struct {
	Type  string `json:"type"`
	Key   string `json:"key"`
	Value string `json:"value"`
	Page  string `json:"page"`
	// At is when it happened by the page's clock, in milliseconds since the Unix epoch; zero
	// means "when it arrived".
	At float64 `json:"at"`
}

// PageHandler serves POST /__record: a batch of element events posted by a page's script, each
// recorded under the variant variantOf gives the request.
func (r *Recorder) PageHandler(variantOf func(*http.Request) string) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(io.LimitReader(req.Body, MaxBody+1))
		if err != nil || len(body) > MaxBody {
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
		v := variantOf(req)
		now := time.Now()
		for _, e := range batch {
			at := now
			if e.At > 0 {
				at = time.UnixMicro(int64(e.At * 1000))
			}
			r.Add(Event{Type: e.Type, Key: e.Key, Value: e.Value, Page: e.Page, Variant: v}, at)
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// Requests records the requests next serves that keep accepts, with the status it answered and
// the variant variantOf gives; with fields, also the form or flat JSON fields posted.
func (r *Recorder) Requests(next http.Handler, keep func(*http.Request) bool, fields bool, variantOf func(*http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !keep(req) {
			next.ServeHTTP(w, req)
			return
		}
		var posted map[string]string
		if fields {
			posted = postedFields(req)
		}
		at := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, req)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		r.Add(Event{Type: EventRequest, Method: req.Method, Path: req.URL.RequestURI(), Status: sw.status, Fields: posted, Variant: variantOf(req)}, at)
	})
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

// postedFields reads a form or flat JSON body without consuming it: the handler reads it again.
func postedFields(r *http.Request) map[string]string {
	if r.Body == nil || (r.Method != http.MethodPost && r.Method != http.MethodPut) {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody))
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
