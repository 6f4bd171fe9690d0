package main

import (
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

	"github.com/driftgardener/gardener/pkg/eventstream"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// fakeEvents is an API whose one execution, "x-1", runs for its first three reads and has five
// events, the last two appended after the first read. It answers only the bearer "ada".
type fakeEvents struct{ reads atomic.Int32 }

func (f *fakeEvents) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer ada" {
		http.Error(w, `{"error":"no verified caller"}`, http.StatusUnauthorized)
		return
	}
	if r.URL.Path != "/executions/x-1/events" {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	if r.Header.Get("Accept") == "text/event-stream" {
		http.Error(w, "the stream asked the API for a stream", http.StatusTeapot)
		return
	}
	n := f.reads.Add(1)
	after, _ := strconv.Atoi(r.URL.Query().Get("after"))
	last, status := 3, "RUNNING"
	if n > 1 {
		last = 5
	}
	if n > 3 {
		status = "SUCCEEDED"
	}
	page := eventstream.Page{ExecutionID: "x-1", Status: status, Next: after, Events: []gardener.LadderEvent{}}
	for seq := after + 1; seq <= last; seq++ {
		page.Events = append(page.Events, gardener.LadderEvent{Seq: seq, Stage: gardener.EventCandidate, Message: fmt.Sprintf("event %d", seq)})
		page.Next = seq
	}
	page.Done = status != "RUNNING"
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(page)
}

// sse reads a whole stream into its events: name, id and data.
func sse(t *testing.T, body string) [][3]string {
	t.Helper()
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
	resp, err := http.DefaultClient.Do(r)
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

// TestServeStreamsEvents: gardener serve's stream of an execution's events sends each event once,
// in order, with its number as the SSE id, reading the API's JSON route again while the
// execution runs, and ends with the status once it ended; a reconnect resumes after the
// Last-Event-ID; the API's own answers (JSON, unauthorized, not found) are untouched.
func TestServeStreamsEvents(t *testing.T) {
	api := &fakeEvents{}
	srv := httptest.NewServer(streaming(api, 10*time.Millisecond))
	defer srv.Close()
	stream := map[string]string{"Authorization": "Bearer ada", "Accept": "text/event-stream"}

	resp, body := get(t, srv.URL+"/executions/x-1/events", stream)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	evs := sse(t, body)
	if len(evs) != 6 || evs[5][0] != "end" || !strings.Contains(evs[5][2], `"SUCCEEDED"`) {
		t.Fatalf("stream events %v; want five ladder events and the end", evs)
	}
	for i, e := range evs[:5] {
		var le gardener.LadderEvent
		if e[0] != "ladder" || e[1] != strconv.Itoa(i+1) || json.Unmarshal([]byte(e[2]), &le) != nil || le.Seq != i+1 {
			t.Fatalf("event %d is %v", i, e)
		}
	}
	if api.reads.Load() < 4 {
		t.Fatalf("the stream read the API %d times; it must read again until the execution ended", api.reads.Load())
	}

	resume := map[string]string{"Authorization": "Bearer ada", "Accept": "text/event-stream", "Last-Event-ID": "4"}
	_, body = get(t, srv.URL+"/executions/x-1/events", resume)
	if evs := sse(t, body); len(evs) != 2 || evs[0][1] != "5" || evs[1][0] != "end" {
		t.Fatalf("resumed after 4: %v", evs)
	}
	if resp, _ := get(t, srv.URL+"/executions/x-2/events", stream); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("stream of an unknown execution: %d, want 404", resp.StatusCode)
	}
	if resp, body := get(t, srv.URL+"/executions/x-1/events", map[string]string{"Accept": "text/event-stream"}); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "no verified caller") {
		t.Fatalf("stream without a caller: %d %s, want the API's 401", resp.StatusCode, body)
	}
	resp, body = get(t, srv.URL+"/executions/x-1/events?after=3", map[string]string{"Authorization": "Bearer ada"})
	var page eventstream.Page
	if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &page) != nil || page.Next != 5 {
		t.Fatalf("a JSON read passes through to the API: %d %s", resp.StatusCode, body)
	}
}
