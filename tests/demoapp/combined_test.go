package demoapp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Drift accumulates: a variant may combine several, and each keeps its own change.
func TestCombinedVariants(t *testing.T) {
	app := New()
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()
	for _, bad := range []string{"id-renamed+id-renamed", "baseline+id-renamed", "id-renamed+nope", "id-renamed+"} {
		if err := app.SetVariant(bad); err == nil {
			t.Errorf("SetVariant(%q) accepted", bad)
		}
	}
	if err := app.SetVariant("id-renamed+button-text"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(b)
	if !strings.Contains(page, `id="current-password"`) || strings.Contains(page, `id="password"`) {
		t.Error("the id-renamed change is missing from the combined variant")
	}
	if !strings.Contains(page, "Sign in") {
		t.Error("the button-text change is missing from the combined variant")
	}
}
