package spaapp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
)

type client struct {
	t    *testing.T
	base string
	http *http.Client
}

func newClient(t *testing.T, srv *httptest.Server) *client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, base: srv.URL, http: &http.Client{Jar: jar}}
}

func (c *client) do(method, path, body string) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestWorkspacesAreIsolated: each browser session (cookie) gets its own seeded team, so a
// delete in one leaves the other whole; Reset forgets them all.
func TestWorkspacesAreIsolated(t *testing.T) {
	app := New()
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()
	a, b := newClient(t, srv), newClient(t, srv)
	for _, c := range []*client{a, b} {
		if st, body := c.do("GET", "/members", ""); st != 200 || !strings.Contains(body, "cd-variant") {
			t.Fatalf("shell: %d %s", st, body)
		}
	}
	if st, _ := a.do("DELETE", "/api/members/3", ""); st != http.StatusNoContent {
		t.Fatalf("delete: %d", st)
	}
	count := func(c *client) int {
		_, body := c.do("GET", "/api/members?page=1", "")
		var res struct{ Total int }
		if err := json.Unmarshal([]byte(body), &res); err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	if ca, cb := count(a), count(b); ca != 11 || cb != 12 {
		t.Errorf("members after a delete in one workspace: %d and %d, want 11 and 12", ca, cb)
	}
}

// TestAPIRefusesBadInput: bad input gets a 4xx naming what was wrong.
func TestAPIRefusesBadInput(t *testing.T) {
	app := New()
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()
	c := newClient(t, srv)
	c.do("GET", "/", "")
	cases := []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"GET", "/api/members?page=zero", "", 400, `page \"zero\"`},
		{"POST", "/api/members", `{"email":"not an address","role":"Editor"}`, 422, "email address"},
		{"POST", "/api/members", `{"email":`, 400, "not the JSON expected"},
		{"PUT", "/api/members/2", `{"name":"","role":"Admin"}`, 422, "a name"},
		{"PUT", "/api/members/99", `{"name":"X","role":"Admin"}`, 404, `no member \"99\"`},
		{"POST", "/api/payments", `{"card":"abc","expiry":"12/30","name":"A"}`, 422, "card number"},
		{"GET", "/api/nothing", "", 404, "no API endpoint"},
		{"POST", "/__variant?name=nope", "", 400, "unknown demo app variant"},
		{"POST", "/__record", `[{"type":"tap","key":"x"}]`, 400, "want click, fill or check"},
		{"PUT", "/api/profile", `{"displayName":"A","theme":"neon","timeZone":"utc"}`, 422, "unknown theme"},
	}
	for _, k := range cases {
		st, body := c.do(k.method, k.path, k.body)
		if st != k.status || !strings.Contains(body, k.want) {
			t.Errorf("%s %s: %d %s; want %d mentioning %q", k.method, k.path, st, body, k.status, k.want)
		}
	}
	if err := app.SetVariant("kebab-menu+pager-icons"); err != nil {
		t.Errorf("combined variants: %v", err)
	}
	if err := app.SetVariant("baseline+kebab-menu"); err == nil {
		t.Error("the baseline combined with a variant was accepted")
	}
}

// TestProfile: the profile starts seeded in each workspace and keeps what a save sent.
func TestProfile(t *testing.T) {
	srv := httptest.NewServer(New().Handler())
	defer srv.Close()
	c := newClient(t, srv)
	c.do("GET", "/profile", "")
	if st, body := c.do("GET", "/api/profile", ""); st != 200 || !strings.Contains(body, `"theme":"system"`) {
		t.Fatalf("GET /api/profile: %d %s", st, body)
	}
	in := `{"displayName":"Ada","theme":"dark","timeZone":"cet","away":true,"about":"Maths","status":"On leave","waves":2}`
	if st, body := c.do("PUT", "/api/profile", in); st != 200 {
		t.Fatalf("PUT /api/profile: %d %s", st, body)
	}
	if _, body := c.do("GET", "/api/profile", ""); body != in+"\n" && strings.TrimSpace(body) != in {
		t.Errorf("the profile read back %s, want %s", body, in)
	}
}
