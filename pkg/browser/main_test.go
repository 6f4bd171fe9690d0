package browser

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// shared is the one Runner the package's tests use, so the suite starts Chromium once, as a warm
// Lambda container would. The tests on it run in parallel (testParallel at once, unless
// -parallel says otherwise), and so do the ones that start browsers of their own (crash
// recovery, isolation); the few that read the whole process (its goroutines after Close, its
// environment) run alone, before them.
var shared *Runner

// testParallel is how many parallel tests run at once when -parallel is not given. Go's default
// is one per core, but a browser test mostly waits: for a page to settle after an action, for a
// step that fails on purpose to run out its time, for a ping. Two at a time on two cores left
// the cores idle most of the run; four keep them busy without starving a passing step of its
// time on a loaded machine (six did: a page's timers starved long enough to look quiet).
const testParallel = 4

// chromeMissing is set when no Chromium is installed; browser tests then skip, saying so.
var chromeMissing string

func TestMain(m *testing.M) {
	flag.Parse()
	defaultParallel(testParallel)
	if _, err := ChromePath(); err != nil {
		chromeMissing = err.Error()
		fmt.Fprintln(os.Stderr, "SKIPPING the browser tests: "+chromeMissing)
		os.Exit(m.Run())
	}
	shared = New(Options{StepTimeout: 10 * time.Second})
	code := m.Run()
	_ = shared.Close()
	os.Exit(code)
}

// defaultParallel sets -parallel to n unless the command line set it.
func defaultParallel(n int) {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
			panic(err)
		}
	}
}

// needBrowser skips a test loudly when Chromium is absent.
func needBrowser(t testing.TB) *Runner {
	t.Helper()
	if chromeMissing != "" {
		t.Skipf("no Chromium (%s); install it with: apt-get install -y chromium", chromeMissing)
	}
	return shared
}

// start launches r's browser unless it runs already, and returns its process id.
func start(t testing.TB, r *Runner) int {
	t.Helper()
	in, err := r.instance()
	if err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	return in.pid
}

// fixture serves testdata/site and a few endpoints the fixture pages call.
func fixture(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("testdata/site")))
	mux.HandleFunc("POST /api/login", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"ok":true}`) })
	mux.HandleFunc("POST /api/orders", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":1}`)
	})
	mux.HandleFunc("/api/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
	mux.HandleFunc("/redirect-out", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.invalid/landing", http.StatusFound)
	})
	mux.HandleFunc("/missing-page", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such page", http.StatusNotFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// steps decodes a JSON step list, failing the test on a decode error.
func steps(t testing.TB, js string) []gardener.Step {
	t.Helper()
	s, err := gardener.DecodeSteps([]byte(js))
	if err != nil {
		t.Fatalf("decoding steps: %v", err)
	}
	return s
}

func replayOK(t testing.TB, r *Runner, base string, st []gardener.Step, ro gardener.ReplayOptions) gardener.Replay {
	t.Helper()
	ro.BaseURL = base
	rep, err := r.Replay(context.Background(), gardener.Test{ID: t.Name(), Version: 1, Steps: st}, ro)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return rep
}
