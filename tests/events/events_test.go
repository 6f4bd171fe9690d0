// Package events proves the manual ladder's event stream end to end: a drifted demo test, the
// repair machine of template.yaml on the local stack, real Chromium, and a client reading the
// execution's events a page at a time through the API.
package events

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/eventstream"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/workspace"
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/testkit"
)

// runner is the one Chromium of the package.
var runner *browser.Runner

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Chromium{Package: "tests/events", Shared: &runner})
}

// shop is the demo app, a stack of template.yaml over an embedded store, and the demo project
// with its login test recorded green on the baseline.
type shop struct {
	app   *demoapp.App
	stack *stack.Stack
	store gardener.Store
	api   string // the stack's API, served on a loopback port
}

func newShop(t *testing.T, autoRepair bool) *shop {
	t.Helper()
	app := demoapp.New()
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s, err := stack.New(stack.Config{Template: "../../template.yaml", Services: handler.Services{
		Store: store, Runner: runner, StepTimeout: 2 * time.Second,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Wait)
	ctx := context.Background()
	p := demoapp.Project(srv.URL)
	p.SetupTestID, p.AutoRepair, p.Model = "", autoRepair, "builtin"
	ws := &workspace.Service{Store: store}
	if _, err := ws.EnsureProject(ctx, p.ID, workspace.Settings{New: p}); err != nil {
		t.Fatal(err)
	}
	tests, err := demoapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tests, func(x gardener.Test) bool { return x.ID == "login" })
	synced, err := ws.SyncTest(ctx, tests[i], nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := ws.RecordGreen(ctx, runner, synced.Test, gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: p.AllowedOrigins})
	if err != nil || !rec.Replay.Result.Passed {
		t.Fatalf("recording login green on the baseline: %v %+v", err, rec.Replay.Result)
	}
	api := httptest.NewServer(s.Handler())
	t.Cleanup(api.Close)
	return &shop{app: app, stack: s, store: store, api: api.URL}
}

// call serves one API request as caller (a development token) and decodes the answer.
func (s *shop) call(t *testing.T, method, path, caller, body string, out any) int {
	t.Helper()
	r, err := http.NewRequest(method, s.api+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+stack.DevToken(caller, "demo"))
	if caller == "eve@example.com" {
		r.Header.Set("Authorization", "Bearer "+stack.DevToken(caller, "other"))
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return resp.StatusCode
}

// follow reads an execution's events a page of size at a time until the API says they are all
// read, checking each page continues where the last ended.
func (s *shop) follow(t *testing.T, id string, size int) []gardener.LadderEvent {
	t.Helper()
	var all []gardener.LadderEvent
	next := 0
	deadline := time.Now().Add(3 * time.Minute)
	for pages := 0; ; pages++ {
		var page eventstream.Page
		path := fmt.Sprintf("/executions/%s/events?after=%d&limit=%d", id, next, size)
		if code := s.call(t, http.MethodGet, path, "ada@example.com", "", &page); code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, code)
		}
		if len(page.Events) > size {
			t.Fatalf("a page of %d events when %d were asked for", len(page.Events), size)
		}
		for _, e := range page.Events {
			if e.Seq != len(all)+1 {
				t.Fatalf("event %+v after %d events read: numbers must run on from the cursor", e, len(all))
			}
			all = append(all, e)
		}
		if want := next; len(page.Events) > 0 {
			want = page.Events[len(page.Events)-1].Seq
			if page.Next != want {
				t.Fatalf("next is %d, want the last event's number %d", page.Next, want)
			}
		} else if page.Next != want {
			t.Fatalf("an empty page moved the cursor from %d to %d", want, page.Next)
		}
		next = page.Next
		if page.Done {
			if page.Status != "SUCCEEDED" {
				t.Fatalf("the execution ended %s", page.Status)
			}
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("the execution did not end in 3 minutes; %d events read: %v", len(all), stages(all))
		}
		if len(page.Events) < size {
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func stages(evs []gardener.LadderEvent) []gardener.EventStage {
	var out []gardener.EventStage
	for _, e := range evs {
		if len(out) == 0 || out[len(out)-1] != e.Stage {
			out = append(out, e.Stage)
		}
	}
	return out
}

// TestManualLadderEventsReadIncrementally: the login test's password field was renamed. A person
// asks for the whole ladder on the test (propose mode); a client reads the execution's events
// five at a time with after=N and sees every stage in order, from the gate to the staged
// proposal, with the fields each stage carries, and never the password the test types.
func TestManualLadderEventsReadIncrementally(t *testing.T) {
	s := newShop(t, false)
	if err := s.app.SetVariant("id-renamed"); err != nil {
		t.Fatal(err)
	}
	var started map[string]string
	if code := s.call(t, http.MethodPost, "/tests/login/repair", "ada@example.com", `{}`, &started); code != http.StatusAccepted {
		t.Fatalf("POST /tests/login/repair: %d", code)
	}
	id := started["executionId"]
	// Someone without the project gets what an unknown execution gets.
	if code := s.call(t, http.MethodGet, "/executions/"+id+"/events", "eve@example.com", "", nil); code != http.StatusNotFound {
		t.Fatalf("events of another project's execution: %d, want 404", code)
	}
	if code := s.call(t, http.MethodGet, "/executions/"+id+"/events?after=-1", "ada@example.com", "", nil); code != http.StatusBadRequest {
		t.Fatalf("after=-1: %d, want 400", code)
	}
	evs := s.follow(t, id, 5)

	want := []gardener.EventStage{gardener.EventEligibility, gardener.EventReproduce, gardener.EventSnapshot, gardener.EventCandidate,
		gardener.EventProofStep, gardener.EventProof, gardener.EventSensitivity, gardener.EventContract, gardener.EventVerdict,
		gardener.EventOutcome, gardener.EventStaged}
	got := stages(evs)
	// Each wanted stage appears, in this order, with nothing but candidate and proof lines
	// between (a rung may try more than one candidate).
	at := 0
	for _, st := range got {
		if at < len(want) && st == want[at] {
			at++
		}
	}
	if at != len(want) || got[0] != gardener.EventEligibility || got[len(got)-1] != gardener.EventStaged {
		t.Fatalf("stages %v; want %v in order, ending staged", got, want)
	}
	find := func(st gardener.EventStage) gardener.LadderEvent {
		for _, e := range evs {
			if e.Stage == st {
				return e
			}
		}
		return gardener.LadderEvent{}
	}
	for i, e := range evs {
		if e.At.IsZero() || e.Message == "" || (i > 0 && e.At.Before(evs[i-1].At)) {
			t.Fatalf("event %d %+v: every event has a time, in order, and a message", i, e)
		}
	}
	if e := find(gardener.EventEligibility); e.Passed == nil || !*e.Passed {
		t.Fatalf("eligibility: %+v", e)
	}
	var repro gardener.LadderEvent
	for _, e := range evs {
		if e.Stage == gardener.EventReproduce && e.Passed != nil {
			repro = e
			break
		}
	}
	if *repro.Passed || repro.Step != "4" || repro.TestID != "login" {
		t.Fatalf("the reproduction: %+v, want it failing at step 4 of login", repro)
	}
	if e := find(gardener.EventSnapshot); e.Snapshot == nil || e.Snapshot.Elements == 0 || !strings.Contains(e.Snapshot.URL, "/login") {
		t.Fatalf("snapshot: %+v", e)
	}
	var cand gardener.LadderEvent
	for _, e := range evs {
		if e.Stage == gardener.EventCandidate && len(e.Ops) > 0 {
			cand = e
		}
	}
	if cand.Rung == "" || !strings.Contains(strings.Join(cand.Ops, "\n"), "#password") {
		t.Fatalf("the candidate proven: %+v, want its rung and ops moving #password", cand)
	}
	var steps []gardener.LadderEvent
	for _, e := range evs {
		if e.Stage == gardener.EventProofStep {
			steps = append(steps, e)
		}
	}
	if len(steps) == 0 || steps[0].Step != "1" || steps[0].Passed == nil || !*steps[0].Passed || steps[0].Kind == "" {
		t.Fatalf("proof steps: %+v", steps)
	}
	if e := find(gardener.EventSensitivity); e.Sensitivity == nil {
		t.Fatalf("sensitivity: %+v", e)
	}
	if e := find(gardener.EventContract); e.Contract == nil || e.Contract.Total == 0 {
		t.Fatalf("contract: %+v", e)
	}
	if e := find(gardener.EventStaged); e.ProposalID == "" {
		t.Fatalf("stage: %+v", e)
	} else if _, err := s.store.Proposal(context.Background(), e.ProposalID); err != nil {
		t.Fatalf("the staged event names proposal %s: %v", e.ProposalID, err)
	}
	raw, _ := json.Marshal(evs)
	if strings.Contains(string(raw), "demo123") {
		t.Fatal("an event carries the password the login test types")
	}
	// Read again from a cursor: exactly the rest.
	var page eventstream.Page
	s.call(t, http.MethodGet, fmt.Sprintf("/executions/%s/events?after=%d", id, len(evs)-2), "ada@example.com", "", &page)
	if len(page.Events) != 2 || page.Events[0].Seq != len(evs)-1 || !page.Done {
		t.Fatalf("after=%d: %+v", len(evs)-2, page)
	}
	for _, e := range evs {
		t.Logf("%3d [%s %s] %s", e.Seq, e.Stage, e.Rung, e.Message)
	}
}
