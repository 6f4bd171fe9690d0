package console_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/local/stack"
)

// TestFormsRefuseWhatTheyDoNotHave: a form field the page does not have, a value a field cannot
// take, or a field given twice is refused with 400 naming it, and nothing is written, as the
// API refuses its JSON; a rung that is not one and settings that moved are refused in the API's
// words.
func TestFormsRefuseWhatTheyDoNotHave(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	ctx := context.Background()
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	tok := ann.csrf("/console/projects/shop/settings")
	before, err := w.store.Project(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, path string
		form       url.Values
		want       string
	}{
		{"a checkbox that says maybe", "/console/projects/shop/settings", url.Values{"version": {"0"}, "autoRepair": {"maybe"}, "model": {"builtin"}},
			`form field "autoRepair": "maybe" is not "on" (ticked) or absent (not ticked)`},
		{"a field the form does not have", "/console/projects/shop/settings", url.Values{"version": {"0"}, "radar": {"on"}, "colour": {"green"}},
			`form field "colour": unknown field (this form's fields: autoRepair, model, radar, version)`},
		{"a field given twice", "/console/projects/shop/settings", url.Values{"version": {"0"}, "radar": {"on", "on"}},
			`form field "radar": given 2 times`},
		{"a version that is no number", "/console/projects/shop/settings", url.Values{"version": {"new"}, "radar": {"on"}},
			`form field "version": "new" is not a whole number`},
		{"a dismissal that says more", "/console/proposals/p-dismiss/dismiss", url.Values{"reason": {"meh"}},
			`form field "reason": unknown field (this form has no field but its CSRF token)`},
		{"a confirmation that is not yes", "/console/repairs/" + w.repairs["revert-me"] + "/revert", url.Values{"confirm": {"true"}},
			`form field "confirm": "true" is not "yes" or absent`},
	} {
		c.form.Set("csrf", tok)
		status, body, _ := ann.do("POST", c.path, c.form, nil)
		if status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(body), c.want) {
			t.Errorf("%s: %d, want 400 saying %q:\n%.600s", c.what, status, c.want, words(body))
		}
	}
	if after, _ := w.store.Project(ctx, "shop"); after.Version != before.Version || after.AutoRepair != before.AutoRepair || after.Radar != before.Radar {
		t.Errorf("a refused form changed the settings: %+v, was %+v", after, before)
	}
	if p, _ := w.store.Proposal(ctx, "p-dismiss"); p.Status != gardener.ProposalProposed {
		t.Errorf("a refused dismissal decided the proposal: %s", p.Status)
	}
	if tst, _ := w.store.Test(ctx, "revert-me"); tst.Version != 2 {
		t.Errorf("a refused revert wrote the test: version %d", tst.Version)
	}

	api := newClient(t, srv.URL)
	bearer := http.Header{"Authorization": {"Bearer " + stack.DevToken("ann@example.com", "shop")}, "Content-Type": {"application/json"}}
	apiError := func(method, path, body string, h http.Header) (int, string) {
		t.Helper()
		req := h.Clone()
		status, out, _ := api.doBody(method, path, body, req)
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal([]byte(out), &e)
		return status, e.Error
	}

	// A rung that is not one: the same sentence on the console's repair form and the API.
	status, page, _ := ann.do("POST", "/console/runs/"+w.failedRun+"/repair", url.Values{"csrf": {tok}, "rung": {"teleport"}}, nil)
	astatus, aerr := apiError("POST", "/runs/"+w.failedRun+"/repair", `{"rungs":["teleport"]}`, bearer)
	rung := gardening.NotARung("teleport")
	if status != http.StatusBadRequest || astatus != status || !strings.Contains(html.UnescapeString(page), rung) || !strings.Contains(aerr, rung) {
		t.Errorf("a rung that is not one: the console %d, the API %d %q; want 400 saying %q on both:\n%.500s", status, astatus, aerr, rung, words(page))
	}

	// Settings someone saved after they were read: the same refusal on the form and the API.
	cur, err := w.store.Project(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.store.UpdateProject(ctx, "shop", func(p *gardener.Project) error { p.Radar = !p.Radar; return nil }); err != nil {
		t.Fatal(err)
	}
	status, page, _ = ann.do("POST", "/console/projects/shop/settings", url.Values{"csrf": {tok}, "version": {itoa(cur.Version)}, "autoRepair": {"on"}}, nil)
	h := bearer.Clone()
	h.Set("If-Match", `"`+itoa(cur.Version)+`"`)
	astatus, aerr = apiError("PUT", "/projects/shop/settings", `{"autoRepair":true}`, h)
	moved := (&gardening.SettingsMovedError{ProjectID: "shop", Current: cur.Version + 1}).Error()
	if status != http.StatusPreconditionFailed || astatus != status || aerr != moved || !strings.Contains(html.UnescapeString(page), moved) {
		t.Errorf("settings that moved: the console %d, the API %d %q; want 412 saying %q on both:\n%.500s", status, astatus, aerr, moved, words(page))
	}
}

// doBody is do with a raw body (the API's JSON).
func (c *client) doBody(method, path, body string, header http.Header) (int, string, http.Header) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header = header
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func itoa(n int) string { return strconv.Itoa(n) }
