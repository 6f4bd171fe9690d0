// Package hostilepage replays pages written to escape the browser sandbox through the real
// runner, in both browser modes (lanes in one multi-process Chromium, and the single-process
// Chromium of a Lambda), with a canary server on a loopback port outside the allowed origins.
// It holds the runner to what the sandbox promises: the canary sees no request, no TCP
// connection and no UDP datagram from any of them; no popup, worker or page of a replay is
// alive once the replay has ended; and every replay ends in bounded time, including those of
// a page that loops forever or allocates without end.
package hostilepage

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/testkit"
)

// Limits of the suite's runners: low enough that the pages that hold a replay cost seconds,
// not minutes; high enough for a loaded two-core machine to open any of the pages.
const (
	stepTimeout = 3 * time.Second
	replayLimit = 20 * time.Second
	// slack is what a replay may take past its limit: closing its tab, sweeping its lane, or
	// relaunching a browser a page took down.
	slack = 30 * time.Second
	// lanesAtOnce is how many replays run together in lanes mode, as a suite run would.
	lanesAtOnce = 3
)

func TestMain(m *testing.M) {
	// Each browser mode starts a runner of its own: no shared one.
	testkit.Main(m, testkit.Chromium{Package: "tests/hostilepage"})
}

// site is the allowed origin: the hostile pages and what they use.
type site struct {
	srv *httptest.Server
	can *canary
	mu  sync.Mutex
	// beats are the times each behaviour's popup pinged the allowed origin: a popup that
	// outlives its replay shows as a ping after the replay's end.
	beats map[string][]time.Time
}

func newSite(t *testing.T, can *canary) *site {
	s := &site{can: can, beats: map[string][]time.Time{}}
	byName := map[string]behaviour{}
	for _, b := range behaviours {
		byName[b.name] = b
	}
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, b, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>"+b+"</title>"+s.fill(body, b))
	}
	mux.HandleFunc("/h/{name}", func(w http.ResponseWriter, r *http.Request) {
		b, ok := byName[r.PathValue("name")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		html(w, b.name, b.page)
	})
	mux.HandleFunc("/all", func(w http.ResponseWriter, r *http.Request) {
		var frames strings.Builder
		for _, name := range strings.Split(r.URL.Query().Get("b"), ",") {
			fmt.Fprintf(&frames, `<iframe src="/h/%s"></iframe>`, name)
		}
		html(w, "all", frames.String())
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, can.origin()+"/?b="+r.URL.Query().Get("b"), http.StatusFound)
	})
	mux.HandleFunc("/csp", func(w http.ResponseWriter, r *http.Request) {
		b := r.URL.Query().Get("b")
		w.Header().Set("Content-Security-Policy", "img-src 'none'; report-uri "+can.origin()+"/?b="+b+"; report-to e")
		w.Header().Set("Reporting-Endpoints", `e="`+can.origin()+"/?b="+b+`-reporting"`)
		html(w, b, `<img src="/nothing.png">`)
	})
	mux.HandleFunc("/shared.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, s.fill(`fetch("{{C}}/?b={{B}}"); new WebSocket("ws://127.0.0.1:{{CP}}/?b={{B}}"); setInterval(() => fetch("{{C}}/?b={{B}}-later"), 100)`, r.URL.Query().Get("b")))
	})
	mux.HandleFunc("/sw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, s.fill(`fetch("{{C}}/?b={{B}}"); self.addEventListener("activate", () => clients.openWindow("{{C}}/?b={{B}}-open")); self.addEventListener("fetch", e => fetch("{{C}}/?b={{B}}-fetch"))`, r.URL.Query().Get("b")))
	})
	mux.HandleFunc("/popup-beacon", func(w http.ResponseWriter, r *http.Request) {
		b := r.URL.Query().Get("b")
		html(w, b, `<script>navigator.sendBeacon("{{C}}/?b={{B}}", "x"); addEventListener("pagehide", () => navigator.sendBeacon("{{C}}/?b={{B}}-hide", "x"))</script>`)
	})
	mux.HandleFunc("/beat", func(w http.ResponseWriter, r *http.Request) {
		b := r.URL.Query().Get("b")
		html(w, b, `<script>setInterval(() => fetch("/ping?b={{B}}"), 100)</script>`)
	})
	mux.HandleFunc("/ping", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.beats[r.URL.Query().Get("b")] = append(s.beats[r.URL.Query().Get("b")], time.Now())
		s.mu.Unlock()
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// fill puts the canary's and the site's addresses and the behaviour's name into a page.
func (s *site) fill(text, name string) string {
	return strings.NewReplacer("{{C}}", s.can.origin(), "{{CP}}", fmt.Sprint(s.can.port), "{{A}}", strings.TrimPrefix(s.srv.URL, "http://"), "{{B}}", name).Replace(text)
}

// beatsAfter counts the pings of name's popups later than end.
func (s *site) beatsAfter(name string, end time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, at := range s.beats[name] {
		if at.After(end) {
			n++
		}
	}
	return n
}

// outcome is how one behaviour's replay ended.
type outcome struct {
	kind    gardener.ErrorKind
	message string
	took    time.Duration
	ended   time.Time
}

func TestHostilePages(t *testing.T) {
	for _, mode := range []struct {
		name   string
		single bool
	}{{"lanes", false}, {"single-process", true}} {
		t.Run(mode.name, func(t *testing.T) {
			// The modes run side by side, each with a browser, a canary and a site of its own:
			// most of a mode's time is its pages holding replays to their limits, which the
			// other mode's replays fill.
			t.Parallel()
			can := startCanary(t)
			s := newSite(t, can)
			r := browser.New(browser.Options{SingleProcess: mode.single, StepTimeout: stepTimeout, ReplayLimit: replayLimit})
			defer r.Close()
			at := 1
			if !mode.single {
				at = lanesAtOnce
			}
			// The browser starts before the suite's replays, so that its start (twenty seconds
			// and more on a loaded machine, with the other mode's browser starting beside it)
			// does not count against the first replays' limits.
			start, err := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/h/fetch-nothing"}]`))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Replay(context.Background(), gardener.Test{ID: "start", Version: 1, Steps: start}, gardener.ReplayOptions{BaseURL: s.srv.URL}); err != nil {
				t.Fatalf("starting the browser: %v", err)
			}
			runs := replays()
			outcomes := map[string]outcome{}
			var mu sync.Mutex
			for i := 0; i < len(runs); i += at {
				batch := runs[i:min(i+at, len(runs))]
				var wg sync.WaitGroup
				for _, u := range batch {
					wg.Add(1)
					go func() {
						defer wg.Done()
						o := replay(t, r, s, u)
						mu.Lock()
						for _, name := range u.names {
							outcomes[name] = o
						}
						mu.Unlock()
					}()
				}
				wg.Wait()
				// Between batches no replay runs: whatever target is alive was left by one.
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				left, err := r.Leftovers(ctx)
				cancel()
				if err != nil {
					t.Fatalf("listing the browser's targets after %v: %v", labels(batch), err)
				}
				if len(left) > 0 {
					t.Errorf("after the replays of %v ended, targets of theirs are alive: %v", labels(batch), left)
				}
			}
			// What a page scheduled for later (a delayed popup, an interval, a worker) gets
			// its moment, then the canary is read.
			time.Sleep(time.Second)
			for _, u := range runs {
				o := outcomes[u.names[0]]
				t.Logf("%-5.1fs %-18s %s  %s", o.took.Seconds(), cmp.Or(string(o.kind), "passed"), u.label, o.message)
				if o.took > replayLimit+slack {
					t.Errorf("%s: the replay took %s, past its limit of %s", u.label, o.took, replayLimit)
				}
			}
			for _, b := range behaviours {
				if n := s.beatsAfter(b.name, outcomes[b.name].ended); n > 0 {
					t.Errorf("%s: a popup of the replay pinged the allowed origin %d times after the replay ended", b.name, n)
				}
			}
			if k := outcomes["infinite-loop"].kind; k != gardener.ErrTimeout && k != gardener.ErrBrowserCrash {
				t.Errorf("infinite-loop: ended as %q, want a timeout or a browser crash", k)
			}
			if seen := can.seen(); seen != "" {
				t.Errorf("the canary outside the allowed origins was reached: %s", seen)
			}
			t.Logf("%d behaviours replayed in %d replays in %s mode; the canary saw nothing from any of them", len(behaviours), len(runs), mode.name)
		})
	}
}

func replay(t *testing.T, r *browser.Runner, s *site, u run) outcome {
	steps, err := gardener.DecodeSteps([]byte(s.fill(u.steps, u.names[0])))
	if err != nil {
		t.Fatalf("%s: decoding its steps: %v", u.label, err)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), replayLimit+slack+time.Minute)
	defer cancel()
	rep, err := r.Replay(ctx, gardener.Test{ID: u.names[0], Version: 1, Steps: steps}, gardener.ReplayOptions{BaseURL: s.srv.URL})
	o := outcome{took: time.Since(start), ended: time.Now()}
	if err != nil {
		t.Errorf("%s: the replay did not end with a result: %v", u.label, err)
		return o
	}
	o.kind, o.message = rep.Result.ErrorKind, rep.Result.Message
	return o
}

func labels(us []run) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.label
	}
	return out
}
