package console_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/local/stack"
)

var (
	inline = regexp.MustCompile(`</?(strong|em|span|a|code)\b[^>]*>`)
	tags   = regexp.MustCompile(`<[^>]*>`)
	spaces = regexp.MustCompile(`\s+`)
)

// words is a page's HTML as a person reads it: its text, tags dropped (a block's as a space),
// entities decoded, white space collapsed.
func words(page string) string {
	page = tags.ReplaceAllString(inline.ReplaceAllString(page, ""), " ")
	return strings.TrimSpace(spaces.ReplaceAllString(html.UnescapeString(page), " "))
}

// row is the text of one proposal's row of the radar page.
func row(t *testing.T, page, proposalID string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, `id="proposal-`+proposalID+`"`)
	if !ok {
		t.Fatalf("the radar page has no row for %s", proposalID)
	}
	article, _, _ := strings.Cut(rest, "</article>")
	return words(article)
}

// TestRowsSayWhatHappenedOnce: a chat edit's row says a person's chat request put it there
// (not a failed run), names no failing step, says UNVERIFIED once, counts no contract or checks
// it never had, lists the changes the floor withheld and what approving it asks to confirm; a
// row held for a person says why once, in words. The API's queue row carries the same.
func TestRowsSayWhatHappenedOnce(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	status, page, _ := ann.do("GET", "/console/projects/shop", nil, nil)
	if status != http.StatusOK {
		t.Fatalf("GET the radar page: %d", status)
	}
	chat := row(t, page, w.proposals["chat-me"])
	for _, want := range []string{
		"Why it is staged: a chat edit asked by bob@example.com",
		"Triggered by a person's request in a chat: the chat assistant's edit of the test, not a failed run or an app change",
		"UNVERIFIED: a chat edit is staged without a re-run of the test",
		"Delete step 1",
		"Asked for and withheld Step 4 (assert):",
		"Approving asks you to confirm: It is UNVERIFIED", "It deletes step 1 (goto /cart).",
		"Approve and apply…",
	} {
		if !strings.Contains(chat, want) {
			t.Errorf("the chat edit's row lacks %q:\n%s", want, chat)
		}
	}
	for _, no := range []string{"Failing step", "No app change recorded", "UNVERIFIED: UNVERIFIED", "Contract:", "Checks proven sensitive", "Delete step 4"} {
		if strings.Contains(chat, no) {
			t.Errorf("the chat edit's row says %q:\n%s", no, chat)
		}
	}
	if n := strings.Count(chat, "UNVERIFIED:"); n != 1 {
		t.Errorf("the chat edit's row says UNVERIFIED %d times, want once:\n%s", n, chat)
	}

	held := row(t, page, w.proposals["dismiss-me"])
	for _, want := range []string{
		"Why it is staged: a person must look: the requirement contract is not kept",
		"Unproven check (step 4): step 4, which", "Insensitive check (step 5): step 5 passes", "Flow change (step 3): the repaired test",
		"NOT KEPT (step 3)", "Contract: 1 of 2 kept", "Failing step 3",
	} {
		if !strings.Contains(held, want) {
			t.Errorf("the held row lacks %q:\n%s", want, held)
		}
	}
	for _, no := range []string{"unproven-check", "a person must look: a person must look", "Why a person must look", "check: unproven check", "check: insensitive check"} {
		if strings.Contains(held, no) {
			t.Errorf("the held row says %q:\n%s", no, held)
		}
	}
	if strings.Contains(words(page), "0 of 0") {
		t.Error("the radar page counts 0 of 0 of something")
	}
	// A row that needs no confirmation approves in one click.
	if plain := row(t, page, w.proposals["approve-me"]); strings.Contains(plain, "confirm") || !strings.Contains(plain, "Approve and apply") {
		t.Errorf("a proven fix that deletes nothing asks for a confirmation:\n%s", plain)
	}

	// The API's queue row: where the row came from, what was withheld, what approving confirms.
	api := newClient(t, srv.URL)
	status, body, _ := api.do("GET", "/projects/shop/queue", nil, http.Header{"Authorization": {"Bearer " + stack.DevToken("ann@example.com", "shop")}})
	var q struct {
		Rows []struct {
			ProposalID string             `json:"proposalId"`
			Origin     string             `json:"origin"`
			Withheld   []gardener.Refusal `json:"withheld"`
			Confirm    []string           `json:"confirm"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(body), &q); status != http.StatusOK || err != nil {
		t.Fatalf("GET the queue: %d %v %.300s", status, err, body)
	}
	for _, r := range q.Rows {
		switch r.ProposalID {
		case w.proposals["chat-me"]:
			if !strings.Contains(r.Origin, "a person's request in a chat") || len(r.Withheld) != 1 || r.Withheld[0].Path != "4" || len(r.Confirm) != 2 {
				t.Errorf("the API's chat row: origin %q, withheld %+v, confirm %q", r.Origin, r.Withheld, r.Confirm)
			}
		case w.proposals["approve-me"]:
			if r.Origin != "" || len(r.Withheld) != 0 || len(r.Confirm) != 0 {
				t.Errorf("the API's plain row: origin %q, withheld %+v, confirm %q", r.Origin, r.Withheld, r.Confirm)
			}
		}
	}
}

// TestApprovingAnUnverifiedDeletionAsksFirst: approving a chat edit that is UNVERIFIED and
// deletes the goto answers with a confirmation page and writes nothing; a form that says
// something other than yes (a script's, an old page's) is refused naming the field, and writes
// nothing either; the confirmed form writes it, without the withheld change.
func TestApprovingAnUnverifiedDeletionAsksFirst(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	ctx := context.Background()
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	tok := ann.csrf("/console/projects/shop")
	id := w.proposals["chat-me"]
	path := "/console/proposals/" + id + "/approve"
	for _, form := range []url.Values{{"csrf": {tok}}, {"csrf": {tok}, "confirm": {"on"}}} {
		status, body, _ := ann.do("POST", path, form, nil)
		text := words(body)
		if form.Has("confirm") {
			if status != http.StatusBadRequest || !strings.Contains(text, `form field "confirm": "on" is not "yes" or absent`) {
				t.Errorf("POST %v: %d, want 400 naming the field:\n%.600s", form, status, text)
			}
		} else if status != http.StatusOK || !strings.Contains(text, "Confirm the approval") || !strings.Contains(text, "It deletes step 1 (goto /cart).") ||
			!strings.Contains(text, "It is UNVERIFIED") || !strings.Contains(body, `name="confirm" value="yes"`) {
			t.Errorf("POST %v: %d, want the confirmation page:\n%.600s", form, status, text)
		}
		if p, _ := w.store.Proposal(ctx, id); p.Status != gardener.ProposalProposed {
			t.Fatalf("after an unconfirmed approval the proposal is %s", p.Status)
		}
	}
	status, _, h := ann.do("POST", path, url.Values{"csrf": {tok}, "confirm": {"yes"}}, nil)
	if status != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "done=approved") {
		t.Fatalf("the confirmed approval: %d to %s", status, h.Get("Location"))
	}
	tst, err := w.store.Test(ctx, "chat-me")
	if err != nil {
		t.Fatal(err)
	}
	if tst.Version != 2 || len(tst.Steps) != 4 || tst.Steps[0].Kind != gardener.Fill || tst.Steps[2].Kind != gardener.Assert {
		t.Errorf("after the confirmed approval the test is version %d with %d steps (%v), want version 2 without the goto and with the URL check", tst.Version, len(tst.Steps), tst.Steps)
	}
}

// TestTestsListFlagsOpenTriage: a test with a triage issue nothing answered since is flagged on
// the tests list, linking to the issue on its page; one that has run green since is not, and its
// page says the issue was answered.
func TestTestsListFlagsOpenTriage(t *testing.T) {
	w := seed(t)
	ctx := context.Background()
	if err := w.store.PutTriageIssue(ctx, gardener.TriageIssue{ID: "triage-old", ProjectID: "shop", TestID: "quiet", Classification: gardener.AppBug,
		FailedStep: "4", Error: "assertion-failed", At: w.now.Add(-2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := w.store.PutRun(ctx, gardener.Run{ID: "green-quiet", ProjectID: "shop", TestID: "quiet", TestVersion: 1, Trigger: gardener.TriggerManual, At: w.now.Add(-time.Hour),
		Result: &gardener.RunResult{TestID: "quiet", TestVersion: 1, Passed: true}}); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, w)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	_, list, _ := ann.do("GET", "/console/projects/shop/tests", nil, nil)
	if !strings.Contains(list, `<a class="badge badge-risk" href="/console/tests/at-risk#triage-triage-1">Triage issue: app-bug</a>`) {
		t.Errorf("the tests list does not flag the open triage issue of at-risk with a link to it:\n%s", words(list))
	}
	if strings.Contains(list, "#triage-triage-old") || strings.Count(list, "Triage issue:") != 1 {
		t.Errorf("the tests list flags a triage issue answered by a green run since:\n%s", words(list))
	}
	_, open, _ := ann.do("GET", "/console/tests/at-risk", nil, nil)
	if !strings.Contains(open, `id="triage-triage-1"`) || !strings.Contains(words(open), "app-bug at step 4 ("+w.now.Add(-20*time.Minute).UTC().Format("2006-01-02 15:04 UTC")+") Open") {
		t.Errorf("the test page does not show the open issue the flag links to:\n%s", words(open))
	}
	if _, answered, _ := ann.do("GET", "/console/tests/quiet", nil, nil); !strings.Contains(words(answered), "Answered since") {
		t.Errorf("the test page does not say the old issue was answered:\n%s", words(answered))
	}
}
