// Package eventstream reads a manual execution's event log a page at a time and serves it as
// Server-Sent Events. The API's JSON route, its stream of the same route and the console's live
// run page all read pages the same way; a stream is pages written as they come.
package eventstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Page is one read of an execution's event log: the events after the cursor the reader gave, the
// cursor to ask with next, and the execution's status, read before the events so that an
// execution that had ended by then has all of its events in the log. Done says the log is
// complete: the execution had ended and this page holds the last of its events.
type Page struct {
	ExecutionID string                 `json:"executionId"`
	Status      string                 `json:"status"`
	Events      []gardener.LadderEvent `json:"events"`
	Next        int                    `json:"next"`
	Done        bool                   `json:"done"`
}

// Running is the status of an execution that has not ended.
const Running = "RUNNING"

// Status reads an execution's status (RUNNING, SUCCEEDED, …) by its id.
type Status func(ctx context.Context, executionID string) (string, error)

// Read reads a page of the log of the execution with id, whose record the caller was authorized
// on: its status, then at most limit events numbered above after (gardener.MaxEventPage when limit
// is out of range). Events that do not decode are skipped and named in the *gardener.CorruptError
// returned beside the page.
func Read(ctx context.Context, store gardener.Store, status Status, id string, after, limit int) (Page, error) {
	page := Page{ExecutionID: id, Next: after, Events: []gardener.LadderEvent{}}
	x, err := store.Execution(ctx, id)
	if err != nil {
		return page, err
	}
	if page.Status, err = status(ctx, id); err != nil {
		return page, fmt.Errorf("status of execution %s: %w", id, err)
	}
	// A record written before executions kept their name is read by its id, and has no events.
	name := x.Name
	if name == "" {
		name = id
	}
	limit = gardener.EventPage(limit)
	evs, err := store.Events(ctx, name, after, limit)
	if _, failure := gardener.SplitCorrupt(err); failure != nil {
		return page, fmt.Errorf("events of execution %s: %w", id, failure)
	}
	page.Events = append(page.Events, evs...)
	if n := len(evs); n > 0 {
		page.Next = evs[n-1].Seq
	}
	page.Done = page.Status != Running && len(evs) < limit
	return page, err
}

// Reader reads the page after a cursor.
type Reader func(ctx context.Context, after int) (Page, error)

// Options shape a stream.
type Options struct {
	// Poll is how long the stream waits before reading again when a page came back short;
	// zero means a second.
	Poll time.Duration
	// Hold bounds how long one response stays open; zero means 10 minutes. A response that
	// cannot be flushed (API Gateway buffers a Lambda's answer) holds nothing: it answers what
	// is there and the client comes back, as EventSource does by itself.
	Hold time.Duration
}

// Retry is how long a client waits before asking again after a response ended without the
// execution ending, in milliseconds (sent as the stream's retry field).
const Retry = 2000

// After is the cursor a stream request resumes from: the Last-Event-ID a reconnecting
// EventSource sends, else the after query parameter, else 0.
func After(r *http.Request) (int, error) {
	v := r.Header.Get("Last-Event-ID")
	name := "Last-Event-ID"
	if v == "" {
		v, name = r.URL.Query().Get("after"), "after"
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s %q is not a whole number of at least 0", name, v)
	}
	return n, nil
}

// Serve writes the log as Server-Sent Events from the request's cursor: each event as
// "event: ladder" with its number as the id, and once the execution ended and every event is
// written, "event: end" with the status. When the response can be flushed it stays open,
// reading again every Poll while the execution runs; otherwise it ends after the first page,
// with a retry field that brings the client back. A read that fails ends the stream with
// "event: failure" and its message (an execution the caller may not read is not found).
func Serve(w http.ResponseWriter, r *http.Request, read Reader, o Options) {
	after, err := After(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	poll, hold := o.Poll, o.Hold
	if poll <= 0 {
		poll = time.Second
	}
	if hold <= 0 {
		hold = 10 * time.Minute
	}
	ctx := r.Context()
	page, err := read(ctx, after)
	var nf *gardener.NotFoundError
	var refused *RefusedError
	switch {
	case errors.As(err, &nf):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case errors.As(err, &refused):
		http.Error(w, refused.Message, refused.Status)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	streaming := rc.Flush() == nil
	fmt.Fprintf(w, "retry: %d\n\n", Retry)
	deadline := time.Now().Add(hold)
	for {
		if err != nil && !isCorrupt(err) {
			writeEvent(w, "failure", "", map[string]string{"error": err.Error()})
			_ = rc.Flush()
			return
		}
		for _, e := range page.Events {
			writeEvent(w, "ladder", strconv.Itoa(e.Seq), e)
		}
		if page.Done {
			writeEvent(w, "end", "", map[string]string{"status": page.Status})
			_ = rc.Flush()
			return
		}
		if !streaming || time.Now().After(deadline) {
			return
		}
		if rc.Flush() != nil {
			return
		}
		if len(page.Events) < gardener.MaxEventPage {
			select {
			case <-ctx.Done():
				return
			case <-time.After(poll):
			}
		}
		page, err = read(ctx, page.Next)
	}
}

// RefusedError is a read an API refused with its status (401, 403, …): the first read of a
// stream refused so answers with that status, not with a stream.
type RefusedError struct {
	Status  int
	Message string
}

func (e *RefusedError) Error() string { return fmt.Sprintf("%d: %s", e.Status, e.Message) }

func isCorrupt(err error) bool {
	c, _ := gardener.SplitCorrupt(err)
	return c != nil
}

// writeEvent writes one event; the data is one line of JSON, so it needs no splitting.
func writeEvent(w http.ResponseWriter, name, id string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"error":"encoding the event failed"}`)
	}
	if id != "" {
		fmt.Fprintf(w, "id: %s\n", id)
	}
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
}
