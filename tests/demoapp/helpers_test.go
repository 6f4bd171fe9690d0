package demoapp

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// client is a browser-like HTTP client for one App: it keeps cookies and follows redirects.
type client struct {
	t    *testing.T
	srv  *httptest.Server
	http *http.Client
}

func newClient(t *testing.T, app *App) *client {
	t.Helper()
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, srv: srv, http: &http.Client{Jar: jar}}
}

// do sends a request and returns the final status, path and body.
func (c *client) do(method, path, contentType, body string) (int, string, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.srv.URL+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp.StatusCode, resp.Request.URL.Path, string(b)
}

func (c *client) get(path string) (int, string, string) { return c.do(http.MethodGet, path, "", "") }

func (c *client) postForm(path string, v url.Values) (int, string, string) {
	return c.do(http.MethodPost, path, "application/x-www-form-urlencoded", v.Encode())
}

func (c *client) postJSON(path, body string) (int, string, string) {
	return c.do(http.MethodPost, path, "application/json", body)
}

func (c *client) login() {
	c.t.Helper()
	if _, at, _ := c.postForm("/login", url.Values{"username": {demoUser}, "password": {demoPassword}}); at != "/dashboard" {
		c.t.Fatalf("logging in as the demo user ended on %s, want /dashboard", at)
	}
}
