package console_test

import (
	"context"
	"encoding/base64"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// client is a browser without a browser: a cookie jar, no redirects followed.
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

func newClient(t *testing.T, base string) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: base, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(method, path string, form url.Values, header http.Header) (int, string, http.Header) {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the CSRF token of the page's forms.
func (c *client) csrf(path string) string {
	c.t.Helper()
	status, body, _ := c.do("GET", path, nil, nil)
	m := csrfField.FindStringSubmatch(body)
	if status != http.StatusOK || m == nil {
		c.t.Fatalf("GET %s: %d, no CSRF token in %.300s", path, status, body)
	}
	return m[1]
}

func (c *client) signIn(email, projects string) {
	c.t.Helper()
	tok := c.csrf("/console/signin")
	status, body, h := c.do("POST", "/console/signin", url.Values{"csrf": {tok}, "email": {email}, "projects": {projects}, "next": {"/console"}}, nil)
	if status != http.StatusSeeOther {
		c.t.Fatalf("signing in: %d %s", status, body)
	}
	var session string
	for _, ck := range h.Values("Set-Cookie") {
		if strings.HasPrefix(ck, "gardener_session=") {
			session = ck
		}
	}
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "Path=/console"} {
		if !strings.Contains(session, want) {
			c.t.Errorf("the session cookie %q lacks %s", session, want)
		}
	}
}

// TestFormsNeedTheSessionsToken: every POST needs the CSRF token of its own session and, when
// the browser names one, this console as its origin; a refused POST changes nothing.
func TestFormsNeedTheSessionsToken(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	annTok := ann.csrf("/console/projects/shop")
	eve := newClient(t, srv.URL)
	eve.signIn("eve@example.com", "shop")
	eveTok := eve.csrf("/console/projects/shop")
	for _, tc := range []struct {
		name   string
		form   url.Values
		header http.Header
	}{
		{"no token", url.Values{}, nil},
		{"another session's token", url.Values{"csrf": {eveTok}}, nil},
		{"a forged token", url.Values{"csrf": {forged(annTok)}}, nil},
		{"another origin", url.Values{"csrf": {annTok}}, http.Header{"Origin": {"http://evil.example"}}},
	} {
		status, body, _ := ann.do("POST", "/console/proposals/p-approve/approve", tc.form, tc.header)
		if status != http.StatusForbidden {
			t.Errorf("%s: %d, want 403: %.200s", tc.name, status, body)
		}
	}
	if p, _ := w.store.Proposal(context.Background(), "p-approve"); p.Status != gardener.ProposalProposed {
		t.Fatalf("a refused POST changed the proposal: %s", p.Status)
	}
	status, body, _ := ann.do("POST", "/console/proposals/p-approve/approve", url.Values{"csrf": {annTok}}, http.Header{"Origin": {srv.URL}})
	if status != http.StatusSeeOther {
		t.Fatalf("the session's own token: %d %.300s", status, body)
	}
	// Signing in is guarded too: a form posted from elsewhere signs nobody in.
	mallory := newClient(t, srv.URL)
	if status, _, _ := mallory.do("POST", "/console/signin", url.Values{"csrf": {"guess"}, "email": {"m@example.com"}, "projects": {"*"}}, nil); status != http.StatusForbidden {
		t.Errorf("a sign-in without the form's cookie: %d, want 403", status)
	}
}

// TestPagesAreAuthorizedPerProject: signed out, a page sends the browser to sign in and a form
// is refused; signed in, another project's objects answer as ones that do not exist, for
// pages and actions alike; a tampered session is no session; sign-in returns only inside the
// console.
func TestPagesAreAuthorizedPerProject(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	anon := newClient(t, srv.URL)
	status, _, h := anon.do("GET", "/console/tests/revert-me", nil, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/console/signin?next=%2Fconsole%2Ftests%2Frevert-me" {
		t.Errorf("signed out: %d to %q, want 303 to the sign-in page", status, h.Get("Location"))
	}
	if status, _, _ := anon.do("POST", "/console/repairs/"+w.repairs["revert-me"]+"/revert", url.Values{"confirm": {"yes"}}, nil); status != http.StatusUnauthorized {
		t.Errorf("a signed-out revert: %d, want 401", status)
	}
	if status, _, h := anon.do("GET", "/console/signin?next=//evil.example/x", nil, nil); status != http.StatusOK || strings.Contains(h.Get("Location"), "evil") {
		t.Errorf("sign-in with an outside next: %d %q", status, h.Get("Location"))
	}
	if _, body, _ := anon.do("GET", "/console/signin?next=https://evil.example/", nil, nil); strings.Contains(body, "evil.example") {
		t.Error("the sign-in form carries an outside next")
	}

	eve := newClient(t, srv.URL)
	eve.signIn("eve@example.com", "other")
	eveTok := eve.csrf("/console")
	for _, path := range []string{"/console/projects/shop", "/console/projects/shop/tests", "/console/projects/shop/settings", "/console/tests/revert-me", "/console/runs/" + w.failedRun} {
		status, body, _ := eve.do("GET", path, nil, nil)
		if status != http.StatusNotFound || strings.Contains(body, "Log in") {
			t.Errorf("another project's %s: %d, want 404 telling nothing", path, status)
		}
	}
	for _, path := range []string{"/console/proposals/p-approve/approve", "/console/proposals/p-dismiss/dismiss", "/console/repairs/" + w.repairs["review-me"] + "/reviewed"} {
		if status, _, _ := eve.do("POST", path, url.Values{"csrf": {eveTok}}, nil); status != http.StatusNotFound {
			t.Errorf("another project's POST %s: %d, want 404", path, status)
		}
	}
	ctx := context.Background()
	if p, _ := w.store.Proposal(ctx, "p-approve"); p.Status != gardener.ProposalProposed {
		t.Errorf("another project's visitor changed proposal p-approve: %s", p.Status)
	}
	if r, _ := w.store.Repair(ctx, w.repairs["review-me"]); !r.Badge {
		t.Error("another project's visitor marked a repair reviewed")
	}

	// A session cookie with its identity changed is no session.
	u, _ := url.Parse(srv.URL + "/console")
	for _, ck := range eve.http.Jar.Cookies(u) {
		if ck.Name == "gardener_session" {
			// The identity with another project added, under the old signature.
			_, sig, _ := strings.Cut(ck.Value, ".")
			forged := base64.RawURLEncoding.EncodeToString([]byte(`{"id":"eve@example.com","projects":["other","shop"],"exp":9999999999}`)) + "." + sig
			eve.http.Jar.SetCookies(u, []*http.Cookie{{Name: "gardener_session", Value: forged, Path: "/console"}})
		}
	}
	if status, _, _ := eve.do("GET", "/console/projects/shop", nil, nil); status != http.StatusSeeOther {
		t.Errorf("a tampered session: %d, want 303 to sign in", status)
	}
}

// TestActionsAnswerAsTheAPI: the settings form is validated and conditional like PUT
// /settings, a revert needs its confirmation, and the manual ladder refuses a control run.
func TestActionsAnswerAsTheAPI(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	ctx := context.Background()
	ann := newClient(t, srv.URL)
	ann.signIn("ann@example.com", "shop")
	tok := ann.csrf("/console/projects/shop/settings")

	status, body, _ := ann.do("POST", "/console/projects/shop/settings", url.Values{"csrf": {tok}, "version": {"0"}, "model": {"nonsense:model"}, "radar": {"on"}}, nil)
	if status != http.StatusBadRequest || !strings.Contains(body, "nonsense") {
		t.Errorf("an unknown model: %d, want 400 naming it: %.400s", status, body)
	}
	// Someone else changes the project after the form was rendered at version 0.
	if _, err := w.store.UpdateProject(ctx, "shop", func(p *gardener.Project) error { p.Model = ""; return nil }); err != nil {
		t.Fatal(err)
	}
	status, body, _ = ann.do("POST", "/console/projects/shop/settings", url.Values{"csrf": {tok}, "version": {"0"}, "model": {"builtin"}, "autoRepair": {"on"}}, nil)
	if status != http.StatusPreconditionFailed || !strings.Contains(html.UnescapeString(body), (&gardening.SettingsMovedError{ProjectID: "shop", Current: 1}).Error()) {
		t.Errorf("a stale form: %d, want 412 saying so: %.400s", status, body)
	}
	if p, err := w.store.Project(ctx, "shop"); err != nil || p.AutoRepair || p.Model != "" {
		t.Errorf("a stale form overwrote the settings: %+v (%v)", p, err)
	}

	if status, _, _ := ann.do("POST", "/console/repairs/"+w.repairs["revert-me"]+"/revert", url.Values{"csrf": {tok}}, nil); status != http.StatusBadRequest {
		t.Errorf("an unconfirmed revert: %d, want 400", status)
	}
	if tst, _ := w.store.Test(ctx, "revert-me"); tst.Version != 2 {
		t.Errorf("an unconfirmed revert changed the test to version %d", tst.Version)
	}

	status, body, _ = ann.do("POST", "/console/runs/"+w.control+"/repair", url.Values{"csrf": {tok}, "rung": {"suggest-fix"}}, nil)
	if status != http.StatusForbidden || !strings.Contains(body, "negative control run") {
		t.Errorf("a manual repair of a control run: %d, want 403 saying why: %.400s", status, body)
	}
	if status, _, _ := ann.do("POST", "/console/runs/"+w.failedRun+"/repair", url.Values{"csrf": {tok}, "rung": {"everything"}}, nil); status != http.StatusBadRequest {
		t.Errorf("an unknown rung: %d, want 400", status)
	}
	// The project gets its model back: without one, no manual repair is asked for at all.
	if _, err := w.store.UpdateProject(ctx, "shop", func(p *gardener.Project) error { p.Model = "builtin"; return nil }); err != nil {
		t.Fatal(err)
	}
	// A run of a version the test has moved past is refused at the door by the manual gate,
	// in its words; nothing is started.
	status, body, _ = ann.do("POST", "/console/runs/"+w.failedRun+"/repair", url.Values{"csrf": {tok}, "rung": {"diagnose-drift"}}, nil)
	if status != http.StatusForbidden || !strings.Contains(body, "which is at version 2 now") {
		t.Errorf("a manual repair of a run of a gone version: %d, want 403 saying why: %.400s", status, body)
	}
	// Diagnose starts the repair machine through the manual route; the run page shows the
	// execution it started and its state.
	fresh := gardener.Run{ID: "sched-quiet", ProjectID: "shop", TestID: "quiet", TestVersion: 1, Trigger: gardener.TriggerSchedule, At: w.now}
	if err := w.store.PutRun(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	status, _, h := ann.do("POST", "/console/runs/"+fresh.ID+"/repair", url.Values{"csrf": {tok}, "rung": {"diagnose-drift"}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/console/runs/"+fresh.ID+"?done=started" {
		t.Fatalf("asking for a diagnosis: %d to %q", status, h.Get("Location"))
	}
	xs, err := w.store.RunExecutions(ctx, fresh.ID)
	if err != nil || len(xs) != 1 || xs[0].By != "ann@example.com" {
		t.Fatalf("the executions recorded for the run: %+v, %v", xs, err)
	}
	if _, body, _ := ann.do("GET", "/console/runs/"+fresh.ID+"?done=started", nil, nil); !strings.Contains(body, xs[0].ID) || !strings.Contains(body, "asked by ann@example.com") {
		t.Errorf("the run page does not show execution %s", xs[0].ID)
	}

	// Every answer carries the security headers.
	_, _, h = ann.do("GET", "/console/projects/shop", nil, nil)
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || h.Get("X-Frame-Options") != "DENY" {
		t.Errorf("security headers: CSP %q, X-Frame-Options %q", csp, h.Get("X-Frame-Options"))
	}
}

// TestSignInComesFromThisConsole: signing in is guarded as every form is, by where the browser
// says the form came from. Cookies do not tell ports apart, so a page on another port of the
// same machine can set the sign-in cookie itself and post a form that matches it; the Origin
// and Sec-Fetch-Site the browser adds are what tell that form from the console's. A refused
// sign-in starts no session.
func TestSignInComesFromThisConsole(t *testing.T) {
	srv := serve(t, seed(t))
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	otherPort := "http://" + u.Hostname() + ":1"
	tossed := "tossed-by-another-port"
	for _, tc := range []struct {
		probe  string
		header http.Header
		want   int
	}{
		{"a page on another local port", http.Header{"Origin": {otherPort}, "Sec-Fetch-Site": {"same-site"}}, http.StatusForbidden},
		{"another local port, Origin only", http.Header{"Origin": {otherPort}}, http.StatusForbidden},
		{"another site", http.Header{"Origin": {"http://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"a sandboxed frame or data: page", http.Header{"Origin": {"null"}, "Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"a same-site page that sends no Origin", http.Header{"Sec-Fetch-Site": {"same-site"}}, http.StatusForbidden},
		{"the console's own form", http.Header{"Origin": {srv.URL}, "Sec-Fetch-Site": {"same-origin"}}, http.StatusSeeOther},
	} {
		t.Run(tc.probe, func(t *testing.T) {
			c := newClient(t, srv.URL)
			h := tc.header.Clone()
			h.Set("Cookie", "gardener_signin="+tossed)
			status, body, got := c.do("POST", "/console/signin", url.Values{"csrf": {tossed}, "email": {"mallory@example.com"}, "projects": {"*"}, "next": {"/console"}}, h)
			started := strings.Contains(strings.Join(got.Values("Set-Cookie"), "\n"), "gardener_session=")
			if status != tc.want || started != (tc.want == http.StatusSeeOther) {
				t.Fatalf("POST /console/signin: %d, session started %v; want %d: %.300s", status, started, tc.want, body)
			}
		})
	}
}

// forged is tok with its first character changed: always another token (a fixed replacement
// character made the real token itself whenever the token began with it).
func forged(tok string) string {
	c := byte('x')
	if tok != "" && tok[0] == c {
		c = 'y'
	}
	return string(c) + tok[min(1, len(tok)):]
}
