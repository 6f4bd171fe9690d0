package handler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/eventstream"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
)

// recorder is the progress hook of one function of an execution: every event goes to the log
// (one line each, with the ids that let someone follow the run), and, for a manual execution,
// to its event log in the store, where the API reads it for whoever follows the execution. The
// automatic path has no execution to follow, so its events stay in the log. A failed append is
// logged and the repair goes on: a gap in what a watcher sees must not cost the repair.
func (d StoreDeps) recorder(ctx context.Context, execution, runID string) func(ladder.Event) {
	return func(e ladder.Event) {
		d.log().Info("ladder", "run", runID, "test", e.TestID, "execution", execution, "stage", e.Stage, "rung", e.Rung, "message", e.Message)
		if execution == "" {
			return
		}
		if e.At.IsZero() {
			e.At = d.now()
		}
		if _, err := d.Store.AppendEvent(ctx, execution, e); err != nil {
			d.log().Error("event not recorded", "execution", execution, "run", runID, "stage", e.Stage, "error", err.Error())
		}
	}
}

// executionEvents answers GET /executions/{executionId}/events?after=N&limit=M.
func (a *API) executionEvents(ctx context.Context, c call) (any, int) {
	id := c.r.PathValue("executionId")
	q := c.r.URL.Query()
	after, err := queryInt(q.Get("after"), 0, "after")
	if err != nil {
		return errBody(err.Error()), http.StatusBadRequest
	}
	limit, err := queryInt(q.Get("limit"), gardener.MaxEventPage, "limit")
	if err != nil {
		return errBody(err.Error()), http.StatusBadRequest
	}
	page, err := eventstream.Read(ctx, a.Store, a.status, id, after, limit)
	return a.listing(c, "events", page, err)
}

// queryInt reads a query parameter that must be a whole number of at least 0, def when absent.
func queryInt(v string, def int, name string) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("query parameter %s=%q is not a whole number of at least 0", name, v)
	}
	return n, nil
}

// status reads an execution's status from the state machine service.
func (a *API) status(ctx context.Context, id string) (string, error) {
	status, _, err := a.Starter.Describe(ctx, id)
	return status, err
}

// streams are the routes that also answer as Server-Sent Events when the request accepts
// text/event-stream: what reads each page of the stream for one call.
var streams = map[string]func(a *API, c call) eventstream.Reader{
	"GET /executions/{executionId}/events": (*API).eventReader,
}

// acceptsEventStream says whether the request asks for Server-Sent Events (an EventSource
// sends Accept: text/event-stream).
func acceptsEventStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/event-stream") {
			return true
		}
	}
	return false
}

// eventReader reads the pages of a stream of an execution's events. A stream stays open while
// the execution runs, and the caller's access may be taken away meanwhile (the record moved,
// the project gone), so every read authorizes the caller again, as the JSON route does for each
// page: an execution the caller may not read stays a *gardener.NotFoundError (404, as for one
// that does not exist), any other refusal is an *eventstream.RefusedError with the route's
// status and body.
func (a *API) eventReader(c call) eventstream.Reader {
	id := c.r.PathValue("executionId")
	return func(ctx context.Context, after int) (eventstream.Page, error) {
		if _, err := a.projectOf(ctx, c); err != nil {
			var nf *gardener.NotFoundError
			if errors.As(err, &nf) {
				return eventstream.Page{}, err
			}
			body, status := fail(err)
			msg, _ := json.Marshal(body)
			return eventstream.Page{}, &eventstream.RefusedError{Status: status, Message: string(msg)}
		}
		return eventstream.Read(ctx, a.Store, a.status, id, after, 0)
	}
}
