package driftgen

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestSecondLoadFailsAFixThatLastsOneLoad: the second load is a check that can fail. A fix that
// names the save button by the count a live-count case put in its name ("Save (3)") is green on
// the load it was proven on and red on the next, which serves another count, so the case is
// fragile; the same button by its place on the page lasts.
func TestSecondLoadFailsAFixThatLastsOneLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app := func() http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html><body><main><p>Draft</p><button type="button" id="save" onclick="this.previousElementSibling.textContent='Saved'">Save</button></main></body></html>`)
		})
	}
	env := &Env{Runner: runner, NewApp: app}
	test := gardener.Test{ID: "save", Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/"},
		{Kind: gardener.Click, Locator: gardener.MustLocator(`role=button[name="Save"]`)},
	}}
	b, err := env.Baseline(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	var m *Mutation
	for _, c := range Generate(b.Test, b.Green, 1) {
		if c.Kind == LiveCount {
			m = &c
		}
	}
	if m == nil {
		t.Fatalf("no live-count case among %v", names(Generate(b.Test, b.Green, 1)))
	}
	fix := func(l gardener.Locator) gardener.Test {
		f := test.Clone()
		f.Steps[1].Locator = l
		return f
	}
	// The name the page shows on the first load: the count the case starts from.
	volatile := fix(gardener.MustLocator(fmt.Sprintf(`role=button[name="Save (%v)"]`, m.Params["n"])))
	lasting := fix(gardener.Locator{Kind: gardener.ByXPath, Value: b.Targets[0].XPath})
	for _, c := range []struct {
		name  string
		fixed gardener.Test
		want  string // what the reason starts with; "" when the fix lasts
	}{
		{"volatile", volatile, "red on a second load"},
		{"lasting", lasting, ""},
	} {
		site := NewSite(env.NewApp(), b.Targets)
		srv := httptest.NewServer(site)
		opts := env.options(srv.URL)
		site.Set(m)
		first, err := env.twice(ctx, c.fixed, opts, site)
		if err != nil {
			t.Fatal(err)
		}
		if !first.Result.Passed {
			t.Fatalf("%s: the fix is not green on the load it was proven on: step %s: %s", c.name, first.Result.FailedStep, first.Result.Message)
		}
		if c.want != "" {
			// The step that goes red waits out its limit (twice): a short one keeps the test cheap.
			opts.StepTimeout = time.Second
		}
		why, err := env.secondLoad(ctx, b, c.fixed, opts, site)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" && why != "" || c.want != "" && !strings.HasPrefix(why, c.want) {
			t.Errorf("%s fix (%s): second load says %q, want %q", c.name, c.fixed.Steps[1].Locator, why, c.want)
		}
	}
}
