package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"
)

func TestOriginGate(t *testing.T) {
	g, err := newOriginGate("http://127.0.0.1:8080/app/", []string{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		url     string
		allowed bool
	}{
		{"http://127.0.0.1:8080/login", true},
		{"http://127.0.0.1:8080", true},
		{"ws://127.0.0.1:8080/live", true},
		{"http://127.0.0.1:8081/", false},
		{"https://127.0.0.1:8080/", false},
		{"http://localhost:8080/", false},
		{"http://169.254.169.254/latest/meta-data/", false},
		{"http://[fe80::1]/", false},
		{"http://metadata.google.internal/", false},
		{"file:///etc/passwd", false},
		{"data:text/plain,hi", true},
		{"about:blank", true},
	}
	for _, c := range cases {
		if got := g.refuse(c.url) == ""; got != c.allowed {
			t.Errorf("%s allowed = %v, want %v (%s)", c.url, got, c.allowed, g.refuse(c.url))
		}
	}
	meta, err := newOriginGate("", []string{"http://169.254.169.254", "https://shop.example:443"})
	if err != nil {
		t.Fatal(err)
	}
	if meta.refuse("http://169.254.169.254/") == "" {
		t.Error("a metadata address was allowed because the allowed list named it")
	}
	if meta.refuse("https://shop.example/cart") != "" {
		t.Error("the default port was not normalised")
	}
	if _, err := newOriginGate("", nil); err == nil {
		t.Error("a gate with no base URL and no origins was accepted")
	}
}

func TestURLMatchesAndKeys(t *testing.T) {
	urls := []struct {
		u, pattern string
		want       bool
	}{
		{"http://h/dashboard", "/dashboard", true},
		{"http://h/orders/12/edit", "/orders/*/edit", true},
		{"http://h/orders/12/view", "/orders/*/edit", false},
		{"http://h/orders/12", "http://h/orders/*", true},
		{"http://h/login", "/dashboard", false},
	}
	for _, c := range urls {
		if got := urlMatches(c.u, c.pattern); got != c.want {
			t.Errorf("urlMatches(%q, %q) = %v", c.u, c.pattern, got)
		}
	}
	keys := []struct {
		spec    string
		key     string
		mods    int64
		wantErr bool
	}{
		{"Enter", "Enter", 0, false},
		{"a", "a", 0, false},
		{"Control+Shift+K", "K", int64(kb.ModifierCtrl | kb.ModifierShift), false},
		{"+", "+", 0, false},
		{"Hyper+A", "", 0, true},
		{"F13", "", 0, true},
	}
	for _, c := range keys {
		k, mods, err := parseKeys(c.spec)
		if (err != nil) != c.wantErr || (err == nil && (k.Key != c.key || modifierBits(mods) != c.mods)) {
			t.Errorf("parseKeys(%q) = %+v %v %v", c.spec, k, modifierBits(mods), err)
		}
	}
}

// TestChromePath finds the browser as a Lambda image and a developer machine name it: CHROME_PATH
// first, else a chromium on PATH; a missing browser is an error saying how to install one.
func TestChromePath(t *testing.T) {
	bin := t.TempDir()
	chromium := filepath.Join(bin, "chromium")
	if err := os.WriteFile(chromium, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	cases := []struct {
		name, chromePath, path string
		want, wantErr          string
	}{
		{"CHROME_PATH wins", chromium, empty, chromium, ""},
		{"CHROME_PATH that does not exist", filepath.Join(empty, "nope"), bin, "", "CHROME_PATH=" + filepath.Join(empty, "nope")},
		{"found on PATH", "", bin, chromium, ""},
		{"nowhere", "", empty, "", "apt-get install -y chromium"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("CHROME_PATH", c.chromePath)
			t.Setenv("PATH", c.path)
			got, err := ChromePath()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("ChromePath() = %q, %v; want an error mentioning %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("ChromePath() = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
