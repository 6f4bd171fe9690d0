package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/local/stack"
)

// TestTestPageListsRunsAsTheAPIDoes: the test page lists the test's runs, newest first, each
// linked to its run page and in the words GET /tests/{testId}/runs gives, a page at a time;
// a run of another test asked as the cursor is refused as the API refuses it.
func TestTestPageListsRunsAsTheAPIDoes(t *testing.T) {
	w := seed(t)
	ctx := context.Background()
	// More runs than a page holds: the page links the older ones.
	for i := range gardening.DefaultRunPage + 2 {
		r := gardener.Run{ID: fmt.Sprintf("many-%02d", i), ProjectID: "shop", TestID: "revert-me", TestVersion: 2, Trigger: gardener.TriggerCI,
			At: w.now.Add(time.Duration(i) * time.Minute), Result: &gardener.RunResult{TestID: "revert-me", TestVersion: 2, Passed: true, FailedIndex: -1}}
		if err := w.store.PutRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	srv := serve(t, w)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	bearer := http.Header{"Authorization": {"Bearer " + stack.DevToken("ann@example.com", "shop")}}
	api := newClient(t, srv.URL)
	read := func(path string) gardening.RunsPage {
		t.Helper()
		status, body, _ := api.do("GET", path, nil, bearer)
		var p gardening.RunsPage
		if err := json.Unmarshal([]byte(body), &p); status != http.StatusOK || err != nil {
			t.Fatalf("GET %s: %d %v %.300s", path, status, err, body)
		}
		return p
	}

	first := read("/tests/revert-me/runs")
	status, page, _ := ann.do("GET", "/console/tests/revert-me", nil, nil)
	if status != http.StatusOK || len(first.Runs) != gardening.DefaultRunPage || first.Next == "" {
		t.Fatalf("GET the test page: %d; the API's first page has %d runs, next %q", status, len(first.Runs), first.Next)
	}
	_, section, _ := strings.Cut(page, `id="runs-title"`)
	section, _, _ = strings.Cut(section, "</section>")
	for _, l := range first.Runs {
		if !strings.Contains(section, `<a href="/console/runs/`+l.ID+`">`) || !strings.Contains(words(section), l.ID+" "+l.At.UTC().Format("2006-01-02 15:04 UTC")+" — "+l.Summary) {
			t.Errorf("the test page does not list run %s as %q:\n%s", l.ID, l.Summary, words(section))
		}
	}
	if !strings.Contains(section, `?runsAfter=`+first.Next) {
		t.Errorf("the test page does not link the older runs after %s:\n%s", first.Next, section)
	}

	// The older page holds the scheduled red run a repair starts from.
	older := read("/tests/revert-me/runs?after=" + first.Next)
	_, page, _ = ann.do("GET", "/console/tests/revert-me?runsAfter="+first.Next, nil, nil)
	want := "sched-revert-me"
	var red gardening.RunLine
	for _, l := range older.Runs {
		if l.ID == want {
			red = l
		}
	}
	if red.Summary != "red at step 3 (element-not-found), version 1 run started by the schedule" {
		t.Errorf("the API's line of the scheduled red run: %+v", red)
	}
	if !strings.Contains(words(page), want+" ") || !strings.Contains(words(page), red.Summary) {
		t.Errorf("the older runs page does not list %s as %q:\n%s", want, red.Summary, words(page))
	}

	// A cursor that is no run of the test: the same refusal on both doors.
	status, body, _ := api.do("GET", "/tests/revert-me/runs?after=control-quiet", nil, bearer)
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal([]byte(body), &e)
	cstatus, cpage, _ := ann.do("GET", "/console/tests/revert-me?runsAfter=control-quiet", nil, nil)
	if status != http.StatusNotFound || cstatus != status || e.Error == "" || !strings.Contains(words(cpage), e.Error) {
		t.Errorf("a cursor of another test's run: the API %d %q, the console %d:\n%.500s", status, e.Error, cstatus, words(cpage))
	}
	if status, body, _ := api.do("GET", "/tests/revert-me/runs?limit=101", nil, bearer); status != http.StatusBadRequest || !strings.Contains(body, "limit 101 is not between 1 and 100") {
		t.Errorf("a limit above the bound: %d %s", status, body)
	}
}
