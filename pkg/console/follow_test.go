package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestRunPageFollowsARunningExecution runs the run page's script in Chromium: the page lists the
// events stored when it was served, appends the ones recorded while it is open in their order,
// comes back after the connection drops asking only for what follows the last event it shows
// (Last-Event-ID), and shows the execution's end.
func TestRunPageFollowsARunningExecution(t *testing.T) {
	w := seed(t)
	ctx := context.Background()
	run := gardener.Run{ID: "run-follow", ProjectID: "shop", TestID: "quiet", TestVersion: 1, Trigger: gardener.TriggerSchedule, At: w.now,
		Result: &gardener.RunResult{TestID: "quiet", TestVersion: 1, FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound, Message: "no element matches #checkout"}}
	if err := w.store.PutRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	x := gardener.Execution{ID: "exec-follow", Name: "exec-follow", ProjectID: "shop", TestID: "quiet", RunID: run.ID, By: "ann@example.com", At: w.now}
	if err := w.store.PutExecution(ctx, x); err != nil {
		t.Fatal(err)
	}
	add := func(stage gardener.EventStage, msg string) {
		t.Helper()
		if _, err := w.store.AppendEvent(ctx, x.Name, gardener.LadderEvent{At: time.Now(), Stage: stage, Message: msg}); err != nil {
			t.Fatal(err)
		}
	}
	add(gardener.EventEligibility, "eligible: a scheduled run of an active test")
	add(gardener.EventReproduce, "replaying quiet (version 1) to reproduce the failure")

	// The execution's status is what the test sets, so the test decides when it ends.
	actions := &idleStarter{}
	actions.status.Store("RUNNING")
	auth, err := console.DevAuth()
	if err != nil {
		t.Fatal(err)
	}
	c, err := console.New(console.Deps{Store: w.store, App: appOver(t, w, actions), Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	authorize := func(r *http.Request, who console.Identity) (string, error) {
		var project string
		switch {
		case r.PathValue("projectId") != "":
			project = r.PathValue("projectId")
		case r.PathValue("runId") != "":
			rn, err := w.store.Run(r.Context(), r.PathValue("runId"))
			if err != nil {
				return "", err
			}
			project = rn.ProjectID
		case r.PathValue("executionId") != "":
			ex, err := w.store.Execution(r.Context(), r.PathValue("executionId"))
			if err != nil {
				return "", err
			}
			project = ex.ProjectID
		}
		if !who.May(project) {
			return "", &gardener.NotFoundError{Entity: "project", ID: project}
		}
		return project, nil
	}
	mux := http.NewServeMux()
	for _, rt := range console.Routes() {
		mux.Handle(rt.Pattern, c.Handler(rt, authorize))
	}
	// The stream's requests, with the cursor each resumed from.
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/events") {
			mu.Lock()
			asked = append(asked, fmt.Sprintf("after=%s last-event-id=%s", r.URL.Query().Get("after"), r.Header.Get("Last-Event-ID")))
			mu.Unlock()
		}
		mux.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)

	tb := newTab(t, srv.URL, 1280)
	tb.signIn("/console/runs/"+run.ID, "ann@example.com", "shop")
	if !strings.HasPrefix(tb.url(), "/console/runs/"+run.ID) {
		t.Fatalf("signed in at %s, want the run page", tb.url())
	}
	seqs := func() string {
		return value(tb, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("ol.events li")).map(li => li.getAttribute("data-seq") || "?").join(",")`))
	}
	// waitFor polls the page until cond holds, failing with what the page showed last.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if cond() {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%s: the page shows events %q, status %q; stream requests %v", what, seqs(), tb.text("[data-status]"), asked)
	}
	if got := tb.text("[data-status]"); got != "RUNNING" {
		t.Fatalf("status %q, want RUNNING", got)
	}
	waitFor("the served events", func() bool { return seqs() == "1,2" })

	add(gardener.EventSnapshot, "snapshot of the failing page: 12 elements")
	add(gardener.EventCandidate, "trying replace step 3")
	waitFor("events recorded while the page is open", func() bool { return seqs() == "1,2,3,4" })
	if got := tb.text(`ol.events li[data-seq="4"]`); !strings.Contains(got, "candidate") || !strings.Contains(got, "trying replace step 3") {
		t.Errorf("event 4 reads %q, want its stage and message", got)
	}

	// The connection drops (a proxy's idle limit, a Lambda's answer ending): EventSource comes
	// back by itself and asks for what follows event 4 only.
	srv.CloseClientConnections()
	add(gardener.EventProof, "green: the re-run passed all 5 steps")
	waitFor("the event recorded after the connection dropped", func() bool { return seqs() == "1,2,3,4,5" })
	mu.Lock()
	resumed := false
	for _, a := range asked {
		resumed = resumed || strings.HasSuffix(a, "last-event-id=4")
	}
	first := asked[0]
	mu.Unlock()
	if first != "after=2 last-event-id=" {
		t.Errorf("the first stream request was %q, want it to start after the 2 events the page was served with", first)
	}
	if !resumed {
		mu.Lock()
		t.Errorf("no stream request resumed after event 4: %v", asked)
		mu.Unlock()
	}

	// The outcome tells a triage from a repair, beside a status that is SUCCEEDED for both.
	if _, err := w.store.AppendEvent(ctx, x.Name, gardener.LadderEvent{At: time.Now(), Stage: gardener.EventOutcome, TestID: "quiet",
		Outcome: "triaged", Reason: "diagnosed as app-bug, not test drift: nothing is repaired", Message: "triaged"}); err != nil {
		t.Fatal(err)
	}
	actions.status.Store("SUCCEEDED")
	waitFor("the execution's end", func() bool { return tb.text("[data-status]") == "SUCCEEDED" })
	if got := seqs(); got != "1,2,3,4,5,6" {
		t.Errorf("events %q at the end, want 1 to 6 once each in order", got)
	}
	if got := strings.TrimSpace(tb.text("[data-outcome-line]")); got != "· outcome: triaged — diagnosed as app-bug, not test drift: nothing is repaired" {
		t.Errorf("at the end the execution's outcome reads %q", got)
	}
}
