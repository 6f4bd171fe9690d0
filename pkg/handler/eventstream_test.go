package handler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/driftgardener/gardener/pkg/eventstream"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

// unfolding stands in for Step Functions running one execution, "x-1": it is RUNNING for its
// first three status reads and SUCCEEDED after, and its last two events are appended on the
// second read, so a stream must read again to see them. "x-moved" is moved to project other
// on its first status read, as if the caller lost it mid-stream. Any execution runs for ever.
type unfolding struct {
	store *movable
	reads atomic.Int32
}

// movable is a store whose record of x-moved names project other once moved is set.
type movable struct {
	gardener.Store
	moved atomic.Bool
}

func (m *movable) Execution(ctx context.Context, id string) (gardener.Execution, error) {
	x, err := m.Store.Execution(ctx, id)
	if id == "x-moved" && m.moved.Load() {
		x.ProjectID = "other"
	}
	return x, err
}

func (u *unfolding) Start(context.Context, string, string, any) (string, error) {
	return "", fmt.Errorf("this test starts nothing")
}

func (u *unfolding) Describe(ctx context.Context, id string) (string, string, error) {
	if id == "x-moved" {
		u.store.moved.Store(true)
		return eventstream.Running, "", nil
	}
	if id != "x-1" {
		return eventstream.Running, "", nil
	}
	n := u.reads.Add(1)
	if n == 2 {
		for seq := 4; seq <= 5; seq++ {
			if _, err := u.store.AppendEvent(ctx, "x-1-log", gardener.LadderEvent{Stage: gardener.EventCandidate, Message: fmt.Sprintf("event %d", seq)}); err != nil {
				return "", "", err
			}
		}
	}
	if n > 3 {
		return "SUCCEEDED", "", nil
	}
	return eventstream.Running, "", nil
}

// sse reads a whole stream into its events: name, id and data.
func sse(body string) [][3]string {
	var out [][3]string
	for _, block := range strings.Split(strings.TrimSpace(body), "\n\n") {
		var ev [3]string
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, ": ")
			switch k {
			case "event":
				ev[0] = v
			case "id":
				ev[1] = v
			case "data":
				ev[2] = v
			}
		}
		if ev[0] != "" {
			out = append(out, ev)
		}
	}
	return out
}

func get(t *testing.T, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	r, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	// A stream that does not end when it should fails the test instead of holding it.
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestAPIStreamsExecutionEvents: the API answers GET /executions/{id}/events with Server-Sent
// Events when asked (Accept: text/event-stream): each event once, in order, with its number as
// the SSE id, reading again while the execution runs, ending with the status once it ended; a
// reconnect resumes after the Last-Event-ID; the route's own answers (JSON, unauthorized, not
// found) are untouched; every read authorizes the caller again; a caller of another project is not found, as on the JSON route. In
// Lambda, whose answer cannot be flushed, the stream is the first page with a retry field.
func TestAPIStreamsExecutionEvents(t *testing.T) {
	ctx := context.Background()
	s := fullServices(t)
	store := &movable{Store: s.Store}
	exec := &unfolding{store: store}
	s.Store, s.Starter, s.EventPoll = store, exec, 10*time.Millisecond
	for _, p := range []string{"shop", "other"} {
		if err := s.Store.PutProject(ctx, gardener.Project{ID: p, Plan: gardener.PlanPro}); err != nil {
			t.Fatal(err)
		}
	}
	for _, x := range []gardener.Execution{
		{ID: "x-1", Name: "x-1-log", ProjectID: "shop", At: time.Now()},
		{ID: "x-run", Name: "x-run-log", ProjectID: "shop", At: time.Now()},
		{ID: "x-moved", Name: "x-moved-log", ProjectID: "shop", At: time.Now()},
	} {
		if err := s.Store.PutExecution(ctx, x); err != nil {
			t.Fatal(err)
		}
		for seq := 1; seq <= 3; seq++ {
			if _, err := s.Store.AppendEvent(ctx, x.Name, gardener.LadderEvent{Stage: gardener.EventCandidate, Message: fmt.Sprintf("event %d", seq)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	h, err := handler.ApiFunction.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	api := h.(*handler.API)
	// The test stands in for the authorizer: a bearer names a caller of one project.
	callers := map[string]map[string]string{
		"Bearer ada": {"sub": "ada", "projects": "shop"},
		"Bearer eve": {"sub": "eve", "projects": "other"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if claims, ok := callers[r.Header.Get("Authorization")]; ok {
			r = handler.WithClaims(r, claims)
		}
		api.ServeHTTP(w, r)
	}))
	defer srv.Close()
	stream := map[string]string{"Authorization": "Bearer ada", "Accept": "text/event-stream"}

	resp, body := get(t, srv.URL+"/executions/x-1/events", stream)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	evs := sse(body)
	if len(evs) != 6 || evs[5][0] != "end" || !strings.Contains(evs[5][2], `"SUCCEEDED"`) {
		t.Fatalf("stream events %v; want five ladder events and the end", evs)
	}
	for i, e := range evs[:5] {
		var le gardener.LadderEvent
		if e[0] != "ladder" || e[1] != strconv.Itoa(i+1) || json.Unmarshal([]byte(e[2]), &le) != nil || le.Seq != i+1 || le.Message != fmt.Sprintf("event %d", i+1) {
			t.Fatalf("event %d is %v", i, e)
		}
	}
	if n := exec.reads.Load(); n < 4 {
		t.Fatalf("the stream read the execution %d times; it must read again until the execution ended", n)
	}

	// Every read authorizes the caller again: an execution the caller lost meanwhile ends the
	// stream with a failure, not with its events.
	_, body = get(t, srv.URL+"/executions/x-moved/events", stream)
	if evs := sse(body); len(evs) != 4 || evs[2][1] != "3" || evs[3][0] != "failure" || !strings.Contains(evs[3][2], "not found") {
		t.Fatalf("stream of an execution moved to another project while it ran: %v; want its three events and a failure", evs)
	}

	resume := map[string]string{"Authorization": "Bearer ada", "Accept": "text/event-stream", "Last-Event-ID": "4"}
	_, body = get(t, srv.URL+"/executions/x-1/events", resume)
	if evs := sse(body); len(evs) != 2 || evs[0][1] != "5" || evs[1][0] != "end" {
		t.Fatalf("resumed after 4: %v", evs)
	}
	if resp, _ := get(t, srv.URL+"/executions/x-2/events", stream); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("stream of an unknown execution: %d, want 404", resp.StatusCode)
	}
	other := map[string]string{"Authorization": "Bearer eve", "Accept": "text/event-stream"}
	if resp, body := get(t, srv.URL+"/executions/x-1/events", other); resp.StatusCode != http.StatusNotFound || strings.Contains(body, "event:") {
		t.Fatalf("stream for a caller of another project: %d %s, want 404", resp.StatusCode, body)
	}
	if resp, body := get(t, srv.URL+"/executions/x-1/events", map[string]string{"Accept": "text/event-stream"}); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "no verified caller") {
		t.Fatalf("stream without a caller: %d %s, want the API's 401", resp.StatusCode, body)
	}
	resp, body = get(t, srv.URL+"/executions/x-1/events?after=3", map[string]string{"Authorization": "Bearer ada"})
	var page eventstream.Page
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(body), &page) != nil || page.Next != 5 || !page.Done {
		t.Fatalf("a JSON read is the route's page: %d %s", resp.StatusCode, body)
	}

	// Lambda: a running execution's stream answers at once with what is there and a retry.
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: "/executions/x-run/events", Headers: map[string]string{"accept": "text/event-stream"},
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: http.MethodGet, Path: "/executions/x-run/events"},
			Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: callers["Bearer ada"]}}}}
	payload, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := api.Invoke(lctx, payload)
	if err != nil {
		t.Fatal(err)
	}
	var lr events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(out, &lr); err != nil {
		t.Fatal(err)
	}
	lb := lr.Body
	if lr.IsBase64Encoded {
		t.Fatalf("Lambda's stream is base64: %s", lb)
	}
	evs = sse(lb)
	if lr.StatusCode != http.StatusOK || !strings.Contains(lb, fmt.Sprintf("retry: %d", eventstream.Retry)) || len(evs) != 3 || evs[2][1] != "3" {
		t.Fatalf("Lambda's stream of a running execution: %d %q; want its three events and a retry, no end", lr.StatusCode, lb)
	}
}
