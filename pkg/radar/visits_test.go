package radar

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// pagesRunner plays a site without a browser: a goto reaches its page unless the page is in
// fail (the step fails) or in redirect (it ends on another page); setup steps are clicks.
type pagesRunner struct {
	fail, redirect map[string]string
	mu             sync.Mutex
	replays        [][]string // the gotos of each replay
}

func (f *pagesRunner) Replay(_ context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	var rep gardener.Replay
	var gotos []string
	here := "about:blank"
	for i := 0; i <= len(t.Steps); i++ {
		if _, ok := o.Views[i]; ok {
			if rep.Views == nil {
				rep.Views = map[int]gardener.View{}
			}
			rep.Views[i] = gardener.View{URL: here, Snapshot: &gardener.Snapshot{URL: here}}
		}
		if i == len(t.Steps) {
			break
		}
		s := t.Steps[i]
		if s.Kind != gardener.Goto {
			continue
		}
		gotos = append(gotos, s.URL)
		if why, ok := f.fail[s.URL]; ok {
			rep.Result = gardener.RunResult{FailedIndex: i, Message: why, FinalURL: here}
			f.record(gotos)
			return rep, nil
		}
		here = o.BaseURL + s.URL
		if to, ok := f.redirect[s.URL]; ok {
			here = o.BaseURL + to
		}
	}
	rep.Result = gardener.RunResult{Passed: true, FinalURL: here}
	f.record(gotos)
	return rep, nil
}

func (f *pagesRunner) record(gotos []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replays = append(f.replays, gotos)
}

func TestVisitAllSharesReplaysAndNeverLosesAPage(t *testing.T) {
	base, _ := url.Parse("http://shop.test")
	setup := gardener.Test{ID: "login", Steps: []gardener.Step{{Kind: gardener.Click}}}
	route := gardener.Test{ID: "checkout", Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/x"}, {Kind: gardener.Goto, URL: "/y"}, {Kind: gardener.Goto, URL: "/z"}, {Kind: gardener.Goto, URL: "/w"}}}
	p := &project{base: base, setup: &setup, tests: map[string]gardener.Test{"checkout": route}, opts: gardener.ReplayOptions{BaseURL: "http://shop.test"}}
	pages := []string{"/a", "/b", "/c", "/d", "/e", "/f", "/y", "/w"}
	plans := make([]visitPlan, len(pages))
	for i, pg := range pages {
		plans[i] = visitPlan{Page: pg, NeedsSession: i >= 3}
	}
	plans[6].Via = &gardener.PageRoute{TestID: "checkout", Steps: 2}
	plans[7].Via = &gardener.PageRoute{TestID: "checkout", Steps: 4}
	resolves := make([][]gardener.Locator, len(pages))

	run := &pagesRunner{fail: map[string]string{"/b": "HTTP 500"}, redirect: map[string]string{"/e": "/login"}}
	r := &Radar{Runner: run, Concurrency: 1}
	visits, err := r.visitAll(context.Background(), p, plans, resolves, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range visits {
		switch pages[i] {
		case "/b":
			if v.Reached || !strings.Contains(v.Message, "HTTP 500") {
				t.Errorf("/b: %+v, want the failure", v)
			}
		case "/e":
			if !v.Reached || p.rel(v.URL) != "/login" {
				t.Errorf("/e: %+v, want the redirect", v)
			}
		default:
			if !v.Reached || p.rel(v.URL) != pages[i] || v.Snapshot == nil {
				t.Errorf("%s: %+v", pages[i], v)
			}
		}
	}
	// One concurrent replay: the direct pages share one, the session pages another, the two
	// pages along the checkout test's steps a third (its first four steps, once); /b failed
	// there, so /b and /c (never reached) are visited alone, as is /e (confirmed: it ended
	// elsewhere).
	want := [][]string{{"/a", "/b"}, {"/d", "/e", "/f"}, {"/x", "/y", "/z", "/w"}, {"/b"}, {"/c"}, {"/e"}}
	if len(run.replays) != len(want) {
		t.Fatalf("replays %v, want %v", run.replays, want)
	}
	for i := range want {
		if !slices.Equal(run.replays[i], want[i]) {
			t.Fatalf("replays %v, want %v", run.replays, want)
		}
	}
}

// TestVisitAllSharesWhatAFailedReplayNeverReached: the pages after the one a shared goto replay
// failed at were never tried, and go again together, not one replay each; the failed page is
// visited alone, and so on until every page is settled.
func TestVisitAllSharesWhatAFailedReplayNeverReached(t *testing.T) {
	base, _ := url.Parse("http://shop.test")
	p := &project{base: base, opts: gardener.ReplayOptions{BaseURL: "http://shop.test"}}
	pages := []string{"/a", "/b", "/c", "/d", "/e", "/f", "/g"}
	plans := make([]visitPlan, len(pages))
	for i, pg := range pages {
		plans[i] = visitPlan{Page: pg}
	}
	resolves := make([][]gardener.Locator, len(pages))
	run := &pagesRunner{fail: map[string]string{"/b": "HTTP 500", "/e": "HTTP 404"}}
	r := &Radar{Runner: run, Concurrency: 1}
	visits, err := r.visitAll(context.Background(), p, plans, resolves, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range visits {
		switch pages[i] {
		case "/b", "/e":
			if v.Reached || !strings.Contains(v.Message, run.fail[pages[i]]) {
				t.Errorf("%s: %+v, want its failure", pages[i], v)
			}
		default:
			if !v.Reached || p.rel(v.URL) != pages[i] || v.Snapshot == nil {
				t.Errorf("%s: %+v", pages[i], v)
			}
		}
	}
	want := [][]string{{"/a", "/b"}, {"/b"}, {"/c", "/d", "/e"}, {"/e"}, {"/f", "/g"}}
	if len(run.replays) != len(want) {
		t.Fatalf("replays %v, want %v", run.replays, want)
	}
	for i := range want {
		if !slices.Equal(run.replays[i], want[i]) {
			t.Fatalf("replays %v, want %v", run.replays, want)
		}
	}
}

// TestVisitAllSettlesPagesAlongATestsSteps: a page along the first steps of a test that their
// shared replay failed before is settled by it: a visit on its own would replay the same steps
// and fail the same way, after waiting out the same failing step again. One the shared replay
// found ending elsewhere is confirmed on its own, as every shared page is.
func TestVisitAllSettlesPagesAlongATestsSteps(t *testing.T) {
	base, _ := url.Parse("http://shop.test")
	route := gardener.Test{ID: "checkout", Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/x"}, {Kind: gardener.Goto, URL: "/y"}, {Kind: gardener.Goto, URL: "/z"}, {Kind: gardener.Goto, URL: "/w"}}}
	p := &project{base: base, tests: map[string]gardener.Test{"checkout": route}, opts: gardener.ReplayOptions{BaseURL: "http://shop.test"}}
	plans := []visitPlan{
		{Page: "/x", Via: &gardener.PageRoute{TestID: "checkout", Steps: 1}},
		{Page: "/y", Via: &gardener.PageRoute{TestID: "checkout", Steps: 2}},
		{Page: "/w", Via: &gardener.PageRoute{TestID: "checkout", Steps: 4}},
	}
	resolves := make([][]gardener.Locator, len(plans))
	run := &pagesRunner{fail: map[string]string{"/z": "step 3 timed out"}, redirect: map[string]string{"/y": "/cart"}}
	r := &Radar{Runner: run, Concurrency: 1}
	visits, err := r.visitAll(context.Background(), p, plans, resolves, true)
	if err != nil {
		t.Fatal(err)
	}
	if v := visits[0]; !v.Reached || p.rel(v.URL) != "/x" {
		t.Errorf("/x: %+v, want reached", v)
	}
	if v := visits[1]; !v.Reached || p.rel(v.URL) != "/cart" {
		t.Errorf("/y: %+v, want reached, ending at /cart", v)
	}
	if v := visits[2]; v.Reached || !strings.Contains(v.Message, "step 3 timed out") {
		t.Errorf("/w: %+v, want unreached with the failure", v)
	}
	want := [][]string{{"/x", "/y", "/z"}, {"/x", "/y"}}
	if len(run.replays) != len(want) || !slices.Equal(run.replays[0], want[0]) || !slices.Equal(run.replays[1], want[1]) {
		t.Errorf("replays %v, want %v", run.replays, want)
	}
}

// TestVisitAllSettlesPagesBehindAFailedSetup: when the setup test fails before the first page
// of a shared replay (the app is down, the login broke), the pages behind it are settled with
// that failure: a visit of each alone would run the same setup and fail the same way. A page
// that needs no session is still visited.
func TestVisitAllSettlesPagesBehindAFailedSetup(t *testing.T) {
	base, _ := url.Parse("http://shop.test")
	setup := gardener.Test{ID: "login", Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, {Kind: gardener.Click}}}
	p := &project{base: base, setup: &setup, opts: gardener.ReplayOptions{BaseURL: "http://shop.test"}}
	plans := []visitPlan{{Page: "/a"}, {Page: "/d", NeedsSession: true}, {Page: "/e", NeedsSession: true}, {Page: "/f", NeedsSession: true}}
	resolves := make([][]gardener.Locator, len(plans))
	run := &pagesRunner{fail: map[string]string{"/login": "net::ERR_CONNECTION_REFUSED"}}
	r := &Radar{Runner: run, Concurrency: 1}
	visits, err := r.visitAll(context.Background(), p, plans, resolves, true)
	if err != nil {
		t.Fatal(err)
	}
	if v := visits[0]; !v.Reached || p.rel(v.URL) != "/a" {
		t.Errorf("/a: %+v, want reached", v)
	}
	for i, v := range visits[1:] {
		if v.Reached || !strings.Contains(v.Message, "ERR_CONNECTION_REFUSED") {
			t.Errorf("%s: %+v, want unreached with the setup's failure", plans[i+1].Page, v)
		}
	}
	want := [][]string{{"/a"}, {"/login"}}
	if len(run.replays) != len(want) || !slices.Equal(run.replays[0], want[0]) || !slices.Equal(run.replays[1], want[1]) {
		t.Errorf("replays %v, want %v", run.replays, want)
	}
}

func TestChunks(t *testing.T) {
	idx := []int{1, 2, 3, 4, 5}
	for n, want := range map[int]string{0: "[[1 2 3 4 5]]", 1: "[[1 2 3 4 5]]", 2: "[[1 2] [3 4 5]]", 5: "[[1] [2] [3] [4] [5]]", 9: "[[1] [2] [3] [4] [5]]"} {
		if got := fmt.Sprint(chunks(idx, n, 1)); got != want {
			t.Errorf("chunks(%d, 1) = %s, want %s", n, got, want)
		}
	}
	// At least least items a run: fewer runs than asked for, never a run of fewer items
	// (unless there are fewer in all).
	for _, c := range []struct {
		idx      []int
		n, least int
		want     string
	}{
		{idx, 4, 3, "[[1 2 3 4 5]]"},
		{idx, 4, 2, "[[1 2] [3 4 5]]"},
		{[]int{1, 2}, 4, 3, "[[1 2]]"},
		{[]int{1, 2, 3, 4, 5, 6}, 4, 3, "[[1 2 3] [4 5 6]]"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, 4, 3, "[[1 2 3] [4 5 6] [7 8 9] [10 11 12 13]]"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, 2, 3, "[[1 2 3 4 5 6] [7 8 9 10 11 12 13]]"},
	} {
		if got := fmt.Sprint(chunks(c.idx, c.n, c.least)); got != c.want {
			t.Errorf("chunks(%v, %d, %d) = %s, want %s", c.idx, c.n, c.least, got, c.want)
		}
	}
	if chunks(nil, 3, 3) != nil {
		t.Error("chunks of nothing")
	}
}
