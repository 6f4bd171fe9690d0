package browser

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/testkit/netkit"
)

func TestLocatorForms(t *testing.T) {
	t.Parallel()
	cases := []struct{ locator, wantID string }{
		{"#save", "save"},
		{"css=button#save", "save"},
		{"xpath=//button[@title='Save the order']", "save"},
		{"xpath=//button[text()='Save']/text()", "save"},
		{"text=Delete order", "open-modal"},
		{`text="Save"`, "save"},
		{"role=button[name=\"Save\"]", "save"},
		{"role=link[name=\"Partner site\"]", "ext"},
		{"role=searchbox", "search"},
		{"role=combobox[name=\"Country\"]", "country"},
		{"role=checkbox[name=\"I accept the terms\"]", "terms"},
		{"role=heading[name=\"Dashboard\"]", ""},
		{"label=Country", "country"},
		{"label=Delivery date", "when"},
		{"label=accept the", "terms"},
		{"placeholder=Search orders", "search"},
		{`placeholder="Search orders"`, "search"},
		{"testid=total", "total"},
	}
	r := needBrowser(t)
	srv := fixture(t)
	var js strings.Builder
	js.WriteString(`[{"kind":"goto","url":"/dashboard.html"}`)
	for _, c := range cases {
		fmt.Fprintf(&js, `,{"kind":"assertVisible","locator":%q}`, c.locator)
	}
	js.WriteString(`]`)
	rep := replayOK(t, r, srv.URL, steps(t, js.String()), gardener.ReplayOptions{})
	if !rep.Result.Passed {
		t.Fatalf("run failed: %s", rep.Result.Message)
	}
	for i, c := range cases {
		fp := rep.Result.Steps[i+1].Element
		if fp == nil {
			t.Errorf("%s: no fingerprint recorded", c.locator)
			continue
		}
		if fp.ID != c.wantID {
			t.Errorf("%s found <%s id=%q>, want id %q", c.locator, fp.Tag, fp.ID, c.wantID)
		}
	}
	// A quoted text is exact: "Sav" is not the button's whole text.
	rep = replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/dashboard.html"},{"kind":"click","locator":"text=\"Sav\"","timeoutMs":300}]`), gardener.ReplayOptions{})
	if rep.Result.ErrorKind != gardener.ErrElementNotFound {
		t.Errorf(`text="Sav" gave %s (%s), want element-not-found`, rep.Result.ErrorKind, rep.Result.Message)
	}
}

func TestFingerprintFields(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := fixture(t)
	rep := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/login.html"},{"kind":"click","locator":"label=Email"},{"kind":"click","locator":"testid=login-submit"}]`), gardener.ReplayOptions{})
	email, submit := rep.Result.Steps[1].Element, rep.Result.Steps[2].Element
	if email == nil || submit == nil {
		t.Fatalf("missing fingerprints: %+v", rep.Result.Steps)
	}
	checks := []struct {
		field     string
		got, want any
	}{
		{"tag", email.Tag, "INPUT"},
		{"id", email.ID, "email"},
		{"name", email.Name, "email"},
		{"xpath", email.XPath, "/html[1]/body[1]/main[1]/form[1]/input[1]"},
		{"idxpath", email.IdxPath, "//*[@id='email']"},
		{"role", email.Role, "textbox"},
		{"accessibleName", email.AccessibleName, "Email"},
		{"label", email.Label, "Email"},
		{"type", email.Type, "email"},
		{"formId", email.FormID, "login-form"},
		{"aria", email.ARIA["aria-describedby"], "email-error"},
		{"isButton", email.IsButton, false},
		{"frame", email.Frame, ""},
		{"submit tag", submit.Tag, "BUTTON"},
		{"submit idxpath", submit.IdxPath, "//*[@id='login-form']/button[1]"},
		{"submit classList", strings.Join(submit.ClassList, " "), "btn btn-primary"},
		{"submit isButton", submit.IsButton, true},
		{"submit visibleText", strings.Join(submit.VisibleText, " "), "Sign in"},
		{"submit testId", submit.TestID, "login-submit"},
		{"submit accessibleName", submit.AccessibleName, "Sign in"},
		{"submit role", submit.Role, "button"},
		{"submit shape", submit.Shape, float64(int(submit.Location.Width*100/submit.Location.Height + 0.5))},
		{"submit area", submit.Area, submit.Location.Width * submit.Location.Height},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s = %v, want %v", c.field, c.got, c.want)
		}
	}
	if submit.Location.Width <= 0 || submit.Location.Y <= 0 {
		t.Errorf("location %+v is not a box on the page", submit.Location)
	}
	if len(submit.NeighborText) == 0 {
		t.Errorf("no neighbour text around the submit button")
	}
	if len(email.Placeholder) != 0 || rep.Result.Steps[2].Element.Href != "" {
		t.Errorf("unexpected placeholder/href: %+v", email)
	}
}

func TestSnapshot(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := fixture(t)
	st := steps(t, `[{"kind":"goto","url":"/dashboard.html"}]`)
	end := map[int][]gardener.Locator{len(st): nil}
	rep := replayOK(t, r, srv.URL, st, gardener.ReplayOptions{Views: end, Screenshot: true})
	snap := rep.Views[len(st)].Snapshot
	if snap == nil || snap.Truncated || len(snap.Candidates) < 20 {
		t.Fatalf("snapshot at end: %+v", snap)
	}
	if !strings.Contains(snap.Text, "Plain accessible text.") || !strings.HasSuffix(snap.URL, "/dashboard.html") || !strings.Contains(snap.Title, "Dashboard") {
		t.Errorf("snapshot text/url/title: %q %q %q", snap.Text, snap.URL, snap.Title)
	}
	if len(snap.Screenshot) < 8 || string(snap.Screenshot[1:4]) != "PNG" {
		t.Errorf("screenshot is not a PNG (%d bytes)", len(snap.Screenshot))
	}
	for _, c := range snap.Candidates {
		if c.ID == "modal" || c.ID == "menu" {
			t.Errorf("hidden element %s in the snapshot", c.ID)
		}
	}
	caps := []struct {
		name string
		opts Options
	}{
		{"count", Options{maxCandidates: 5}},
		{"bytes", Options{maxSnapshotBytes: 2000}},
		{"text", Options{maxText: 50}},
	}
	in, err := r.instance()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range caps {
		t.Run(c.name, func(t *testing.T) {
			// The caps are options of a runner; the replay runs with them in the shared
			// browser rather than starting one of its own.
			opts := New(c.opts).opts
			rep, _, err := replay(context.Background(), in, opts, gardener.Test{ID: t.Name(), Steps: st}, gardener.ReplayOptions{BaseURL: srv.URL, Views: end})
			if err != nil {
				t.Fatal(err)
			}
			s := rep.Views[len(st)].Snapshot
			if !s.Truncated {
				t.Errorf("snapshot not marked truncated")
			}
			switch c.name {
			case "count":
				if len(s.Candidates) != 5 {
					t.Errorf("%d candidates, want 5", len(s.Candidates))
				}
			case "bytes":
				if len(s.Candidates) == 0 || len(s.Candidates) > 10 {
					t.Errorf("%d candidates under a 2000-byte cap", len(s.Candidates))
				}
			case "text":
				if len(s.Text) > 50 {
					t.Errorf("text of %d bytes over a 50-byte cap", len(s.Text))
				}
			}
		})
	}
}

func TestFailingRunSnapshotIsTakenAtTheFailure(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := fixture(t)
	rep := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/dashboard.html"},{"kind":"click","locator":"text=Delete order"},{"kind":"click","locator":"#gone","timeoutMs":300},{"kind":"goto","url":"/login.html"}]`), gardener.ReplayOptions{})
	res := rep.Result
	if res.Passed || res.FailedIndex != 2 || res.FailedStep != "3" {
		t.Fatalf("want a failure at step 3 (index 2), got %+v", res)
	}
	if len(res.Steps) != 3 || res.Steps[2].Passed || !res.Steps[1].Passed {
		t.Errorf("step records: %+v", res.Steps)
	}
	found := false
	for _, c := range rep.Snapshot.Candidates {
		found = found || c.AccessibleName == "Confirm"
	}
	if !found {
		t.Errorf("the snapshot does not show the modal open when step 3 failed")
	}
}

// TestViews visits two pages in one replay and looks at each after its goto; a run that fails
// before a view has none.
func TestViews(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := fixture(t)
	save := gardener.MustLocator("#save")
	email := gardener.MustLocator("#email")
	st := steps(t, `[{"kind":"goto","url":"/dashboard.html"},{"kind":"goto","url":"/login.html"}]`)
	rep := replayOK(t, r, srv.URL, st, gardener.ReplayOptions{Views: map[int][]gardener.Locator{1: {save, email}, 2: {email}}})
	if !rep.Result.Passed {
		t.Fatalf("run failed: %s", rep.Result.Message)
	}
	first, second := rep.Views[1], rep.Views[2]
	if !strings.HasSuffix(first.URL, "/dashboard.html") || first.Snapshot == nil || len(first.Snapshot.Candidates) == 0 {
		t.Errorf("view of the dashboard: %s, snapshot %v", first.URL, first.Snapshot != nil)
	}
	if first.Resolved[save.String()].Visible != 1 || first.Resolved[email.String()].Count != 0 {
		t.Errorf("locators on the dashboard: %+v", first.Resolved)
	}
	if !strings.HasSuffix(second.URL, "/login.html") || second.Resolved[email.String()].Visible != 1 {
		t.Errorf("view of the login page: %s %+v", second.URL, second.Resolved)
	}
	st = steps(t, `[{"kind":"goto","url":"/missing-page"},{"kind":"goto","url":"/login.html"}]`)
	rep = replayOK(t, r, srv.URL, st, gardener.ReplayOptions{Views: map[int][]gardener.Locator{1: nil, 2: nil}})
	if rep.Result.Passed || len(rep.Views) != 0 {
		t.Errorf("a run failing at its first goto has views %v", rep.Views)
	}
}

func TestProbes(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := fixture(t)
	toast := steps(t, `[{"kind":"assertToast","text":"Order saved"}]`)[0]
	title := steps(t, `[{"kind":"assert","assert":"title","condition":"contains","expected":"Dashboard"}]`)[0]
	missing := steps(t, `[{"kind":"assert","assert":"text","locator":"#nothing","condition":"equals","expected":"x"}]`)[0]
	st := steps(t, `[{"kind":"goto","url":"/dashboard.html"},{"kind":"click","locator":"#save"},{"kind":"assertToast","text":"Order saved"}]`)
	rep := replayOK(t, r, srv.URL, st, gardener.ReplayOptions{Probes: map[int][]gardener.Step{1: {toast, title, missing}, 2: {toast}}})
	if !rep.Result.Passed {
		t.Fatalf("run failed: %s", rep.Result.Message)
	}
	before := rep.Probes[1]
	if len(before) != 3 {
		t.Fatalf("probes before step 2: %+v", before)
	}
	if before[0].Passed || before[0].Error != "" {
		t.Errorf("the toast check passed before the click that shows it: %+v", before[0])
	}
	if !before[1].Passed || before[1].Observed == "" {
		t.Errorf("the title check should hold before the click: %+v", before[1])
	}
	if before[2].Passed || before[2].Error == "" {
		t.Errorf("a check that cannot run should carry an error: %+v", before[2])
	}
	if after := rep.Probes[2]; len(after) != 1 || !after[0].Passed || after[0].Path != "3" {
		t.Errorf("the toast probe after the click: %+v", after)
	}
	if len(rep.Result.Steps) != 3 {
		t.Errorf("probes added step records: %d records", len(rep.Result.Steps))
	}
}

func TestBlockedNavigation(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := fixture(t)
	cases := []struct {
		name, steps, mention string
		allowed              []string
	}{
		{"goto another origin", `{"kind":"goto","url":"http://example.invalid/"}`, "http://example.invalid/", nil},
		{"click a link out", `{"kind":"click","locator":"#ext"}`, "http://example.invalid/", nil},
		{"metadata address even when allowed", `{"kind":"click","locator":"#meta"}`, "169.254.169.254", []string{srv.URL, "http://169.254.169.254"}},
		{"redirect out", `{"kind":"click","locator":"#go-redirect"}`, "http://example.invalid/landing", nil},
		{"goto metadata", `{"kind":"goto","url":"http://metadata.google.internal/computeMetadata/v1/"}`, "metadata", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rep := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/dashboard.html"},`+c.steps+`]`), gardener.ReplayOptions{AllowedOrigins: c.allowed})
			res := rep.Result
			if res.ErrorKind != gardener.ErrNavigationBlocked || res.FailedStep != "2" {
				t.Fatalf("got %s at %s (%s), want navigation-blocked at step 2", res.ErrorKind, res.FailedStep, res.Message)
			}
			if !strings.Contains(res.Message, c.mention) {
				t.Errorf("message %q does not name %s", res.Message, c.mention)
			}
		})
	}
}

// TestNavigationErrors: a page the browser cannot load, whether a goto or a click asked for it,
// fails the step as a navigation error, and a page answered with an HTTP error as an HTTP error;
// neither passes for the app's drift. A click whose page never answers fails within the step's
// limit. Each case runs also on a starved runner, whose wait after a click ends at its first
// look: there the navigation's report must still be waited for (a click is the last step
// here, so a replay that stopped looking would end green).
func TestNavigationErrors(t *testing.T) {
	t.Parallel()
	shared := needBrowser(t)
	starved := New(Options{StepTimeout: 3 * time.Second, starved: true})
	t.Cleanup(func() { starved.Close() })
	// A port nothing listens on: the origin is allowed, the connection is refused.
	down := "http://" + netkit.RefusedAddr(t)
	hang := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>links</title><a id="down" href="%s/">Down</a> <a id="missing" href="/missing">Missing</a> <a id="hangs" href="/hangs">Hangs</a>`, down)
	})
	mux.HandleFunc("/hangs", func(http.ResponseWriter, *http.Request) { <-hang })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(hang) })
	cases := []struct {
		name, step string
		kind       gardener.ErrorKind
		message    string
	}{
		{"goto a server that is down", `{"kind":"goto","url":"` + down + `/"}`, gardener.ErrNavigation, "ERR_CONNECTION_REFUSED"},
		{"click a link to a server that is down", `{"kind":"click","locator":"#down"}`, gardener.ErrNavigation, "ERR_CONNECTION_REFUSED"},
		{"click a link to a missing page", `{"kind":"click","locator":"#missing"}`, gardener.ErrHTTP, "answered HTTP 404"},
		{"click a link to a page that never answers", `{"kind":"click","locator":"#hangs","timeoutMs":1500}`, gardener.ErrTimeout, "did not load within"},
	}
	for _, runner := range []struct {
		name string
		r    *Runner
	}{{"", shared}, {"starved/", starved}} {
		for _, c := range cases {
			t.Run(runner.name+c.name, func(t *testing.T) {
				t.Parallel()
				rep := replayOK(t, runner.r, srv.URL, steps(t, `[{"kind":"goto","url":"/"},`+c.step+`]`), gardener.ReplayOptions{AllowedOrigins: []string{srv.URL, down}})
				res := rep.Result
				if res.ErrorKind != c.kind || res.FailedStep != "2" {
					t.Fatalf("got %s at step %s (%s), want %s at step 2", res.ErrorKind, res.FailedStep, res.Message, c.kind)
				}
				if !strings.Contains(res.Message, c.message) {
					t.Errorf("message %q does not contain %q", res.Message, c.message)
				}
			})
		}
	}
}

// TestCrashRecovery kills or stops the browser under a replay: the run fails as a browser crash
// and the next replay gets a new, working browser. The signal is sent when the replay reaches a
// known point (after its first step, or before it starts), never after a guessed delay, so the
// case tested does not depend on how loaded the machine is. One runner serves all cases: each
// recovery must hand the next case a browser as good as a fresh one.
func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	needBrowser(t)
	srv := fixture(t)
	// sig and pid are read by OnStep, which runs on the goroutine that called Replay.
	var sig syscall.Signal
	var pid int
	r := New(Options{
		// A stopped browser is known only by a ping it leaves unanswered: a short wait for the
		// answer keeps the test short, and a healthy browser answers well within it.
		StepTimeout:   time.Second,
		healthTimeout: 3 * time.Second,
		OnStep: func(id string, rec gardener.StepRecord) {
			if id == "victim" && rec.Path == "1" && sig != 0 {
				_ = syscall.Kill(pid, sig)
			}
		},
	})
	defer r.Close()
	victim := gardener.Test{ID: "victim", Steps: steps(t, `[{"kind":"goto","url":"/dashboard.html"},{"kind":"click","locator":"#never-there"}]`)}
	healthy := gardener.Test{ID: "healthy", Steps: steps(t, `[{"kind":"goto","url":"/dashboard.html"},{"kind":"click","locator":"#save"}]`)}
	cases := []struct {
		name     string
		sig      syscall.Signal
		midRun   bool // signal after step 1, else before the replay opens its tab
		failedAt string
	}{
		{"killed mid-run", syscall.SIGKILL, true, "2"},
		{"stopped mid-run", syscall.SIGSTOP, true, "2"},
		{"stopped between replays", syscall.SIGSTOP, false, "1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pid = start(t, r)
			sig = 0
			if c.midRun {
				sig = c.sig
			} else if err := syscall.Kill(pid, c.sig); err != nil {
				t.Fatal(err)
			}
			rep, err := r.Replay(context.Background(), victim, gardener.ReplayOptions{BaseURL: srv.URL})
			sig = 0
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			res := rep.Result
			if res.ErrorKind != gardener.ErrBrowserCrash || res.FailedStep != c.failedAt {
				t.Fatalf("got %s at step %s (%s), want browser-crash at step %s", res.ErrorKind, res.FailedStep, res.Message, c.failedAt)
			}
			if !strings.Contains(res.Message, "browser") {
				t.Errorf("message %q does not say the browser failed", res.Message)
			}
			// The runner let go of the dead or hung browser and reaped it; a stopped one left
			// running would hold its memory for good.
			if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
				t.Errorf("the old browser (pid %d) is still there: kill(0) = %v", pid, err)
			}
			rep, err = r.Replay(context.Background(), healthy, gardener.ReplayOptions{BaseURL: srv.URL, StepTimeout: 20 * time.Second})
			if err != nil || !rep.Result.Passed {
				t.Fatalf("the replay after the crash failed: %v %s", err, rep.Result.Message)
			}
			if start(t, r) == pid {
				t.Errorf("the browser was not relaunched")
			}
		})
	}
}

// TestReplaysAreIsolated: what a replay leaves in the browser (a cookie, local and session
// storage, a cached script, the tab's window name and history) is gone for the next one, both
// where replays reuse a browser context and its tab (a lane, cleared between them) and in
// single-process mode, where Chromium cannot create a second context (it crashes) and replays take turns in the
// one it has. Three replays start together, twice: in the second round every lane has been used
// before; in single-process mode they must wait for each other, not mix.
func TestReplaysAreIsolated(t *testing.T) {
	t.Parallel()
	needBrowser(t)
	const page = `<!doctype html><title>storage</title><p id="seen"></p><script src="/cached.js"></script><script>
document.getElementById("seen").textContent = [localStorage.getItem("k") || "no storage", sessionStorage.getItem("k") || "no session", document.cookie || "no cookie", window.name || "no name", "history " + history.length].join(", ");
localStorage.setItem("k", "stored");
sessionStorage.setItem("k", "kept");
document.cookie = "c=set; max-age=3600";
window.name = "named";
</script>`
	// The second visit shows that the page does see what it stored, within one replay, and
	// that the script came from the cache then.
	st := steps(t, `[{"kind":"goto","url":"/"},{"kind":"assert","assert":"text","locator":"#seen","condition":"equals","expected":"no storage, no session, no cookie, no name, history 2"},
		{"kind":"goto","url":"/"},{"kind":"assert","assert":"text","locator":"#seen","condition":"equals","expected":"stored, kept, c=set, named, history 2"}]`)
	const rounds, together = 2, 3
	for _, c := range []struct {
		name string
		opts Options
	}{{"lanes", Options{}}, {"single process", Options{SingleProcess: true}}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// Each mode has a site of its own, so that it counts the fetches of its replays
			// only.
			var fetched atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/cached.js" {
					fetched.Add(1)
					w.Header().Set("Cache-Control", "max-age=3600")
					w.Header().Set("Content-Type", "text/javascript")
					fmt.Fprint(w, "var cached = true;")
					return
				}
				fmt.Fprint(w, page)
			}))
			t.Cleanup(srv.Close)
			r := New(c.opts)
			defer r.Close()
			for round := range rounds {
				var wg sync.WaitGroup
				for i := range together {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rep, err := r.Replay(context.Background(), gardener.Test{ID: fmt.Sprint("isolated-", round, "-", i), Steps: st}, gardener.ReplayOptions{BaseURL: srv.URL})
						if err != nil {
							t.Errorf("replay %d.%d: %v", round, i, err)
							return
						}
						if !rep.Result.Passed {
							t.Errorf("replay %d.%d failed at step %s: %s", round, i, rep.Result.FailedStep, rep.Result.Message)
						}
					}()
				}
				wg.Wait()
			}
			if got := fetched.Load(); got != rounds*together {
				t.Errorf("the cached script was fetched %d times in %d replays: once each, or the cache leaks between replays", got, rounds*together)
			}
			if c.opts.SingleProcess {
				return
			}
			// The second round ran in lanes the first had used, or the test proved nothing.
			in, err := r.instance()
			if err != nil {
				t.Fatal(err)
			}
			in.lanesMu.Lock()
			idle := len(in.idle)
			in.lanesMu.Unlock()
			if idle != together {
				t.Errorf("%d lanes are idle after %d rounds of %d replays, want %d reused", idle, rounds, together, together)
			}
		})
	}
}

// TestConcurrentReplays runs replays in parallel in one browser, each in its own context, and
// checks that Close leaves no goroutine behind.
func TestConcurrentReplays(t *testing.T) {
	needBrowser(t)
	srv := fixture(t)
	before := runtime.NumGoroutine()
	r := New(Options{StepTimeout: 10 * time.Second})
	st := steps(t, `[{"kind":"goto","url":"/dashboard.html"},{"kind":"fill","locator":"#search","value":"kiwi"},{"kind":"press","locator":"#search","key":"Enter"},{"kind":"assert","assert":"text","locator":"#result","condition":"equals","expected":"Results for kiwi"}]`)
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := r.Replay(context.Background(), gardener.Test{ID: "c", Steps: st}, gardener.ReplayOptions{BaseURL: srv.URL})
			if err != nil || !rep.Result.Passed {
				errs <- fmt.Sprintf("%v %s", err, rep.Result.Message)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Replay(context.Background(), gardener.Test{ID: "c", Steps: st}, gardener.ReplayOptions{BaseURL: srv.URL}); err != ErrClosed {
		t.Errorf("Replay after Close: %v, want ErrClosed", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestCanceledContext(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(800*time.Millisecond, cancel)
	_, err := r.Replay(ctx, gardener.Test{ID: "x", Steps: steps(t, `[{"kind":"goto","url":"/dashboard.html"},{"kind":"wait","for":"time","ms":5000}]`)}, gardener.ReplayOptions{BaseURL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("Replay with a canceled context: %v, want a context error", err)
	}
}

// An absence check naming a control by the start of its name finds nothing before its step
// either: the probe names the control the page shows, its name in full, and only for a check
// whose name the control's starts with at a word boundary.
func TestProbeNamesAControlNamedByTheStartOfItsName(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := fixture(t)
	byStart := steps(t, `[{"kind":"assertHidden","locator":"role=textbox[name=\"Firstname\"]"}]`)[0]
	other := steps(t, `[{"kind":"assertHidden","locator":"role=textbox[name=\"Surname\"]"}]`)[0]
	whole := steps(t, `[{"kind":"assertHidden","locator":"role=textbox[name=\"Firstname Required\"]"}]`)[0]
	st := steps(t, `[{"kind":"goto","url":"/signup.html"},{"kind":"click","locator":"role=button[name=\"Sign up\"]"},{"kind":"assertHidden","locator":"role=textbox[name=\"Firstname\"]"}]`)
	rep := replayOK(t, r, srv.URL, st, gardener.ReplayOptions{Probes: map[int][]gardener.Step{1: {byStart, other, whole}}})
	if !rep.Result.Passed {
		t.Fatalf("run failed: %s", rep.Result.Message)
	}
	got := rep.Probes[1]
	if len(got) != 3 {
		t.Fatalf("probes before step 2: %+v", got)
	}
	if !got[0].Passed || got[0].Shown != `role=textbox[name="Firstname Required"]` {
		t.Errorf("the check naming the start of a name: %+v, want it passed with the control shown in full", got[0])
	}
	if !got[1].Passed || got[1].Shown != "" {
		t.Errorf("a check naming no shown control: %+v", got[1])
	}
	if got[2].Passed || got[2].Shown != "" {
		t.Errorf("the check naming the control in full sees it before the step: %+v", got[2])
	}
}

// TestBrowserIsRecycled: a browser that served its share of replays is handed out no more; the
// next replay starts a new one, and the old one's process ends once its last replay ended,
// replays running on it meanwhile included. Every replay stays green across the changes.
func TestBrowserIsRecycled(t *testing.T) {
	t.Parallel()
	needBrowser(t)
	srv := fixture(t)
	r := New(Options{recycleAfter: 2})
	defer r.Close()
	st := steps(t, `[{"kind":"goto","url":"/"}]`)
	pidNow := func() int {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.inst == nil {
			return 0
		}
		return r.inst.pid
	}
	var pids []int
	for i := 0; i < 3; i++ {
		replayOK(t, r, srv.URL, st, gardener.ReplayOptions{})
		pids = append(pids, pidNow())
	}
	// After two replays the first browser is retired (none is current) and closed; the third
	// replay runs on a second one.
	if pids[0] == 0 || pids[1] != 0 || pids[2] == 0 || pids[2] == pids[0] {
		t.Fatalf("browser after each replay: %v, want the first, none (retired), a second", pids)
	}
	if stillRuns(pids[0]) {
		t.Errorf("the retired browser (pid %d) still runs", pids[0])
	}
	// Replays at once across a retirement: each green, and in the end one browser runs.
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replayOK(t, r, srv.URL, st, gardener.ReplayOptions{})
		}()
	}
	wg.Wait()
	if stillRuns(pids[2]) {
		t.Errorf("the second browser (pid %d) still runs after its share of replays", pids[2])
	}
}

// stillRuns waits a few seconds for pid to end (closing a browser kills it and reaps it), and
// reports whether it still runs then.
func stillRuns(pid int) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !processRuns(pid) {
			return false
		}
	}
	return true
}

// processRuns reports whether pid is a process that has not ended (a zombie counts as ended).
func processRuns(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
