package browser

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

func TestResolveAtEnd(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	page := `<!doctype html><title>r</title><body>
<button id="one">Save</button>
<a href="#x" class="dup">Dup</a><a href="#y" class="dup">Dup</a>
<span id="hidden" style="display:none">gone</span>
<button id="under" style="position:absolute;top:300px;left:10px">Under</button>
<div style="position:fixed;top:280px;left:0;width:400px;height:80px;background:#fff" class="banner">Cookies</div>
</body>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	locs := []string{"#one", "css=.dup", "#hidden", "#nothing", "#under", "css=:bogus-pseudo"}
	var resolve []gardener.Locator
	for _, l := range locs {
		resolve = append(resolve, gardener.MustLocator(l))
	}
	rep := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/"}]`), gardener.ReplayOptions{Views: map[int][]gardener.Locator{1: resolve}})
	if !rep.Result.Passed {
		t.Fatalf("replay failed: %s", rep.Result.Message)
	}
	resolved := rep.Views[1].Resolved
	cases := []struct {
		loc              string
		count, visible   int
		elements         int
		coveredBy, error string
	}{
		{"#one", 1, 1, 1, "", ""},
		{"css=.dup", 2, 2, 2, "", ""},
		{"#hidden", 1, 0, 0, "", ""},
		{"#nothing", 0, 0, 0, "", ""},
		{"#under", 1, 1, 1, "div.banner", ""},
		{"css=:bogus-pseudo", 0, 0, 0, "", "cannot be used"},
	}
	for _, c := range cases {
		t.Run(c.loc, func(t *testing.T) {
			got, ok := resolved[gardener.MustLocator(c.loc).String()]
			if !ok {
				t.Fatalf("no answer for %s in %v", c.loc, resolved)
			}
			if got.Count != c.count || got.Visible != c.visible || len(got.Elements) != c.elements {
				t.Errorf("count %d visible %d elements %d, want %d %d %d", got.Count, got.Visible, len(got.Elements), c.count, c.visible, c.elements)
			}
			if !strings.Contains(got.CoveredBy, c.coveredBy) || (c.coveredBy == "" && got.CoveredBy != "") {
				t.Errorf("coveredBy %q, want %q", got.CoveredBy, c.coveredBy)
			}
			if !strings.Contains(got.Error, c.error) || (c.error == "" && got.Error != "") {
				t.Errorf("error %q, want %q", got.Error, c.error)
			}
		})
	}
	if fp := resolved["#one"].Elements; len(fp) == 1 && (fp[0].ID != "one" || fp[0].Tag != "BUTTON") {
		t.Errorf("fingerprint of #one: %+v", fp[0])
	}
}

// TestFailureLooksAhead: a replay that fails says what each later step's locator matches on the
// page it failed on, so a repair sees every element gone from that page at once: the second
// renamed field matches nothing, the button still there matches one visible element.
func TestFailureLooksAhead(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><body><input id="user-email" aria-label="Email"><input id="user-pass" aria-label="Password"><button id="go">Sign in</button></body>`))
	}))
	t.Cleanup(srv.Close)
	st := steps(t, `[{"kind":"goto","url":"/"},{"kind":"fill","locator":"#email","value":"a@b.test","timeoutMs":300},{"kind":"fill","locator":"#password","value":"x"},{"kind":"click","locator":"#go"}]`)
	rep := replayOK(t, r, srv.URL, st, gardener.ReplayOptions{})
	if rep.Result.Passed || rep.Result.FailedStep != "2" {
		t.Fatalf("want a failure at step 2, got passed=%v at %s: %s", rep.Result.Passed, rep.Result.FailedStep, rep.Result.Message)
	}
	if got, ok := rep.Ahead["css=#password"]; !ok || got.Count != 0 {
		t.Errorf("the later renamed field: %+v (present %v), want a look that matched nothing", got, ok)
	}
	if got := rep.Ahead["css=#go"]; got.Count != 1 || got.Visible != 1 {
		t.Errorf("the button still on the page: %+v, want one visible match", got)
	}
}
