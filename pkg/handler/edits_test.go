package handler_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

// consoleTest is a test whose last check is the console-error check a chat is asked to remove.
const consoleTest = `{"id":"search","project":"acme","name":"search","steps":[
  {"kind":"goto","url":"/"},
  {"kind":"fill","locator":"#q","value":"fern"},
  {"kind":"click","locator":"#search"},
  {"kind":"wait","for":"time","ms":500},
  {"kind":"assertConsole","level":"error","pattern":".","expect":"noMatch"}]}`

func editsAPI(t *testing.T) (*handler.API, handler.Services, map[string]string) {
	t.Helper()
	api, s := newAPI(t)
	ann := map[string]string{"sub": "ann", "projects": "acme"}
	if code, body, _ := as(t, api, ann, "PUT", "/projects/acme", `{"allowedOrigins":["https://shop.acme.test"],"model":"builtin","plan":"pro"}`, nil); code != http.StatusCreated {
		t.Fatalf("project: %d %s", code, body)
	}
	if code, body, _ := as(t, api, ann, "PUT", "/tests/search", consoleTest, nil); code != http.StatusCreated {
		t.Fatalf("test: %d %s", code, body)
	}
	return api, s, ann
}

func decodeEdited(t *testing.T, body string) handler.Edited {
	t.Helper()
	var e handler.Edited
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return e
}

// TestChatEditDeletingConsoleCheckIsWithheld: "remove the console-error check" asked of the chat
// is answered with the change withheld and the pointer to the step editor; nothing is written
// and nothing staged. With a harmless change beside it, that change is staged as an UNVERIFIED
// proposal and the deletion is still withheld; the test is not written.
func TestChatEditDeletingConsoleCheckIsWithheld(t *testing.T) {
	api, s, ann := editsAPI(t)
	ctx := context.Background()
	code, body, _ := as(t, api, ann, "POST", "/tests/search/edits", `{"source":"chat","ops":[{"op":"delete","index":4}]}`, map[string]string{"If-Match": `"1"`})
	e := decodeEdited(t, body)
	if code != http.StatusOK || e.Outcome != "withheld" || e.Proposal != nil || len(e.Withheld) != 1 {
		t.Fatalf("chat delete of the console check: %d %s", code, body)
	}
	w := e.Withheld[0]
	if w.Step != "5" || w.Kind != gardener.AssertConsole || !strings.Contains(w.Pointer, "step editor") || !strings.Contains(w.Pointer, "where a person can make it") || !strings.Contains(e.Message, "step editor") {
		t.Errorf("withheld %+v, message %q: want step 5's console check and the pointer to the step editor", w, e.Message)
	}
	tt, err := s.Store.Test(ctx, "search")
	if err != nil || tt.Version != 1 || len(tt.Steps) != 5 {
		t.Fatalf("the test after a withheld chat edit: %+v (%v)", tt, err)
	}
	if ps, err := s.Store.TestProposals(ctx, "search"); err != nil || len(ps) != 0 {
		t.Errorf("a withheld chat edit staged %d proposals (%v)", len(ps), err)
	}

	// The deletion beside a longer wait: the wait is staged, the deletion withheld.
	code, body, _ = as(t, api, ann, "POST", "/tests/search/edits", `{"source":"chat","version":1,"ops":[{"op":"replace","index":3,"step":{"kind":"wait","for":"time","ms":900}},{"op":"delete","index":4}]}`, nil)
	e = decodeEdited(t, body)
	if code != http.StatusOK || e.Outcome != "staged" || e.Proposal == nil || len(e.Withheld) != 1 || e.Withheld[0].Step != "5" {
		t.Fatalf("chat edit with a wait and the deletion: %d %s", code, body)
	}
	p, err := s.Store.Proposal(ctx, e.Proposal.ID)
	if err != nil || p.Status != gardener.ProposalProposed || p.BaseVersion != 1 || len(p.Verdict.Ops) != 1 || p.Verdict.Ops[0].Index != 3 || p.Verdict.Unverified == "" || p.Verdict.Strategy != handler.StrategyChat {
		t.Fatalf("staged chat proposal %+v (%v)", p, err)
	}
	if need, _ := p.Verdict.NeedsPerson(); !need {
		t.Error("a staged chat edit does not ask for a person")
	}
	if tt, _ := s.Store.Test(ctx, "search"); tt.Version != 1 || len(tt.Steps) != 5 {
		t.Errorf("a chat edit wrote the test: version %d", tt.Version)
	}
	// A second chat edit while that proposal is open is refused rather than folded into it.
	if code, body, _ := as(t, api, ann, "POST", "/tests/search/edits", `{"source":"chat","version":1,"ops":[{"op":"replace","index":3,"step":{"kind":"wait","for":"time","ms":700}}]}`, nil); code != http.StatusConflict || !strings.Contains(body, e.Proposal.ID) {
		t.Errorf("a chat edit beside an open proposal: %d %s", code, body)
	}
}

// TestBuilderEditIsAppliedAtNextVersion: a person's edit, even one deleting a check, is applied
// at the next version, conditional on the version it was made on; a stale one is 412 with the
// current ETag, and bad requests name what is wrong.
func TestBuilderEditIsAppliedAtNextVersion(t *testing.T) {
	api, s, ann := editsAPI(t)
	code, body, tag := as(t, api, ann, "POST", "/tests/search/edits", `{"source":"builder","ops":[{"op":"delete","index":4}]}`, map[string]string{"If-Match": `"1"`})
	e := decodeEdited(t, body)
	if code != http.StatusOK || e.Outcome != "applied" || e.Test == nil || e.Test.Version != 2 || len(e.Test.Steps) != 4 || tag != `"2"` {
		t.Fatalf("builder edit: %d %s ETag %s", code, body, tag)
	}
	if tt, _ := s.Store.Test(context.Background(), "search"); tt.Version != 2 || len(tt.Steps) != 4 {
		t.Errorf("stored after the builder edit: version %d, %d steps", tt.Version, len(tt.Steps))
	}
	if code, body, tag := as(t, api, ann, "POST", "/tests/search/edits", `{"source":"builder","ops":[{"op":"delete","index":0}]}`, map[string]string{"If-Match": `"1"`}); code != http.StatusPreconditionFailed || tag != `"2"` {
		t.Errorf("an edit made on version 1 of a test at 2: %d %s ETag %s", code, body, tag)
	}
	for req, want := range map[string]string{
		`{"source":"builder","ops":[{"op":"delete","index":0}]}`:             "give the version the edit was made on",
		`{"source":"voice","version":2,"ops":[{"op":"delete","index":0}]}`:   `voice`,
		`{"source":"builder","version":2,"ops":[]}`:                          "ops is empty",
		`{"source":"builder","version":2,"ops":[{"op":"delete","index":9}]}`: "index 9",
		`{"source":"builder","version":2,"ops":[],"extra":1}`:                "unknown field",
	} {
		if code, body, _ := as(t, api, ann, "POST", "/tests/search/edits", req, nil); code != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s, want 400 naming %q", req, code, body, want)
		}
	}
	eve := map[string]string{"sub": "eve", "projects": "other"}
	if code, body, _ := as(t, api, eve, "POST", "/tests/search/edits", `{"source":"builder","version":2,"ops":[{"op":"delete","index":0}]}`, nil); code != http.StatusNotFound {
		t.Errorf("an edit by a caller who may not touch the project: %d %s", code, body)
	}
}
