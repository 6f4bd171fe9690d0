package handler_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

var admin = map[string]string{"sub": "u-1", "email": "ann@example.com", "projects": "*"}

// send serves a request with headers and returns the recorder.
func send(api *handler.API, method, path, body string, header map[string]string) *httptest.ResponseRecorder {
	r := handler.WithClaims(httptest.NewRequest(method, path, strings.NewReader(body)), admin)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	api.ServeHTTP(w, r)
	return w
}

// TestSettingsETag: settings carry their version as an ETag; a PUT with an If-Match of a version
// the project has moved from is refused with 412 naming the current one and writes nothing; a
// PUT without If-Match merges its fields into the current settings.
func TestSettingsETag(t *testing.T) {
	api, s := newAPI(t)
	got := send(api, "GET", "/projects/shop/settings", "", nil)
	if got.Code != http.StatusOK || got.Header().Get("ETag") != `"0"` {
		t.Fatalf("GET settings: %d ETag %q", got.Code, got.Header().Get("ETag"))
	}
	put := send(api, "PUT", "/projects/shop/settings", `{"radar":true}`, map[string]string{"If-Match": `"0"`})
	if put.Code != http.StatusOK || put.Header().Get("ETag") != `"1"` {
		t.Fatalf("PUT with the current ETag: %d %s ETag %q", put.Code, put.Body, put.Header().Get("ETag"))
	}
	late := send(api, "PUT", "/projects/shop/settings", `{"autoRepair":true}`, map[string]string{"If-Match": `"0"`})
	if late.Code != http.StatusPreconditionFailed || !strings.Contains(late.Body.String(), "version 1") || late.Header().Get("ETag") != `"1"` {
		t.Errorf("PUT with an old ETag: %d %s ETag %q; want 412 naming version 1", late.Code, late.Body, late.Header().Get("ETag"))
	}
	if p, _ := s.Store.Project(context.Background(), "shop"); p.AutoRepair || p.Version != 1 {
		t.Errorf("a refused PUT wrote: %+v", p)
	}
	if bad := send(api, "PUT", "/projects/shop/settings", `{"radar":false}`, map[string]string{"If-Match": `W/"1"`}); bad.Code != http.StatusBadRequest {
		t.Errorf("PUT with a weak ETag: %d %s; want 400", bad.Code, bad.Body)
	}
	star := send(api, "PUT", "/projects/shop/settings", `{"autoRepair":true}`, map[string]string{"If-Match": "*"})
	bare := send(api, "PUT", "/projects/shop/settings", `{"radar":false}`, nil)
	if star.Code != http.StatusOK || bare.Code != http.StatusOK || !strings.Contains(bare.Body.String(), `"autoRepair":true`) || bare.Header().Get("ETag") != `"3"` {
		t.Errorf("If-Match * %d %s; without If-Match %d %s ETag %q", star.Code, star.Body, bare.Code, bare.Body, bare.Header().Get("ETag"))
	}
}

// TestConcurrentSettingsKeepBothChanges: two PUTs of different settings at once both stay.
func TestConcurrentSettingsKeepBothChanges(t *testing.T) {
	api, s := newAPI(t)
	for round := range 20 {
		for _, body := range []string{`{"autoRepair":true,"radar":true}`} {
			if w := send(api, "PUT", "/projects/shop/settings", body, nil); w.Code != http.StatusOK {
				t.Fatalf("round %d reset: %d %s", round, w.Code, w.Body)
			}
		}
		var wg sync.WaitGroup
		for _, body := range []string{`{"autoRepair":false}`, `{"radar":false}`} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if w := send(api, "PUT", "/projects/shop/settings", body, nil); w.Code != http.StatusOK {
					t.Errorf("round %d %s: %d %s", round, body, w.Code, w.Body)
				}
			}()
		}
		wg.Wait()
		if p, err := s.Store.Project(context.Background(), "shop"); err != nil || p.AutoRepair || p.Radar {
			t.Fatalf("round %d lost a change: %+v (%v)", round, p, err)
		}
	}
}

// TestBodiesAreStrict: a body with data after its JSON value, or a key given twice, is refused
// with 400 naming what was wrong, and nothing is written.
func TestBodiesAreStrict(t *testing.T) {
	api, s := newAPI(t)
	cases := []struct{ method, path, body, want string }{
		{"PUT", "/projects/shop/settings", `{"radar":true}{"autoRepair":true}`, `trailing data after the JSON value at offset 14: \"{\\\"autoRepair\\\":true}\"`},
		{"PUT", "/projects/shop/settings", `{"radar":true} x`, `trailing data`},
		{"PUT", "/projects/shop/settings", `{"radar":true,"radar":false}`, `duplicate key \"radar\"`},
		{"PUT", "/projects/shop/settings", `{"radar":true,"model":{"a":[{"b":1},{"b":2}],"a":3}}`, `duplicate key \"a\"`},
	}
	for _, c := range cases {
		got := viaHTTP(t, api, c.method, c.path, c.body, admin)
		if got.status != http.StatusBadRequest || !strings.Contains(got.body, c.want) {
			t.Errorf("%s %s %s: %+v; want 400 with %s", c.method, c.path, c.body, got, c.want)
		}
	}
	if p, err := s.Store.Project(context.Background(), "shop"); err != nil || p.Radar || p.AutoRepair || p.Version != 0 {
		t.Errorf("a refused body wrote: %+v (%v)", p, err)
	}

	two, store, m := twoProjects(t)
	if got := viaHTTP(t, two, "POST", "/repairs/rp-beta/revert", `{"confirm":false}{"confirm":true}`, betaOnly); got.status != http.StatusBadRequest || !strings.Contains(got.body, "trailing data") {
		t.Errorf("revert with trailing data: %+v", got)
	}
	if r, err := store.Repair(context.Background(), "rp-beta"); err != nil || !r.RevertedAt.IsZero() {
		t.Errorf("a refused revert reverted: %+v (%v)", r, err)
	}
	if got := viaHTTP(t, two, "POST", "/runs/r-alpha/repair", `{"rungs":["self-heal"],"rungs":["diagnose-drift"]}`, alphaOnly); got.status != http.StatusBadRequest || !strings.Contains(got.body, `duplicate key \"rungs\"`) || len(m.started()) != 0 {
		t.Errorf("manual repair with a duplicate key: %+v, started %v", got, m.started())
	}
}

// TestWrongTypesAreNamed: a body value of the wrong type is refused with 400 naming the field by
// its JSON name, what it wants and what it was given — the words the MCP tools answer with — never
// Go's struct and type names; and nothing is written.
func TestWrongTypesAreNamed(t *testing.T) {
	api, s := newAPI(t)
	cases := []struct{ method, path, body, want string }{
		{"PUT", "/projects/shop/settings", `{"autoRepair":"yes"}`, `field \"autoRepair\": want true or false, not a string`},
		{"PUT", "/projects/shop/settings", `[]`, `want an object, not a list`},
		{"PUT", "/projects/shop", `{"allowedOrigins":"http://127.0.0.1:1"}`, `field \"allowedOrigins\": want a list of strings, not a string`},
		{"PUT", "/projects/shop/settings", `{"radar":1}`, `field \"radar\": want true or false, not a number`},
		{"PUT", "/tests/t-9", `{"id":"t-9","project":"shop","name":5,"steps":[{"kind":"goto","url":"/"}]}`, `field \"name\": want a string, not a number`},
		{"PUT", "/tests/t-9", `[1]`, `test: want an object, not a list`},
		{"PUT", "/tests/t-9", `{"id":"t-9","project":"shop","steps":{"kind":"goto","url":"/"}}`, `want a list, not an object`},
	}
	for _, c := range cases {
		got := viaHTTP(t, api, c.method, c.path, c.body, admin)
		if got.status != http.StatusBadRequest || !strings.Contains(got.body, c.want) || strings.Contains(got.body, "Go ") {
			t.Errorf("%s %s %s: %+v; want 400 with %s", c.method, c.path, c.body, got, c.want)
		}
	}
	if p, err := s.Store.Project(context.Background(), "shop"); err != nil || p.AutoRepair || p.Version != 0 {
		t.Errorf("a refused body wrote: %+v (%v)", p, err)
	}
	if _, err := s.Store.Test(context.Background(), "t-9"); err == nil {
		t.Error("a refused test body was written")
	}
}

// TestEmptyListsAreArrays: every list an answer carries is [] when empty, never null.
func TestEmptyListsAreArrays(t *testing.T) {
	api, s := newAPI(t)
	test := gardener.Test{ID: "t-1", ProjectID: "shop", Name: "home", Status: gardener.StatusActive, Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}
	if err := s.Store.CreateTest(context.Background(), test); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"/projects/shop/repairs": `[]`,
		"/projects/shop/triage":  `[]`,
		"/tests/t-1/repairs":     `[]`,
		"/tests/t-1/history":     `{"modelCalls":[],"repairs":[]}`,
	}
	for path, want := range cases {
		if got := viaHTTP(t, api, "GET", path, "", admin); got.status != http.StatusOK || got.body != want {
			t.Errorf("GET %s: %+v, want %s", path, got, want)
		}
	}
	if got := viaHTTP(t, api, "GET", "/projects/shop/queue", "", admin); got.status != http.StatusOK || strings.Contains(got.body, "null") {
		t.Errorf("GET queue: %+v, want no null", got)
	}
}
