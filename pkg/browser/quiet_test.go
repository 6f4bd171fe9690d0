package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// quietSite is a page whose buttons start what real pages start after a click: a call to a host
// that never answers, a save that answers after a moment, an element that appears late while
// the page keeps changing, and a message that never comes.
func quietSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	mux.HandleFunc("/collect", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/save", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(600 * time.Millisecond)
		fmt.Fprint(w, `{"ok":true}`)
	})
	// A clock rewrites its text five times a second for as long as the page is open, and a
	// countdown ticks ten times before it adds the button it counts down to.
	mux.HandleFunc("/clock", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><body><header>Now: <span id="clock"></span></header>
<script>setInterval(() => { document.getElementById('clock').textContent = 'updated ' + new Date().toISOString() }, 200)</script>
<p id="status">Open</p><p id="count"></p><button id="start" onclick="let n = 10; const t = setInterval(() => { document.getElementById('count').textContent = n--; if (n < 0) { clearInterval(t); const b = document.createElement('button'); b.id = 'go'; b.textContent = 'Go'; document.body.append(b) } }, 100)">Start</button>
</body></html>`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><body>
<button id="track" onclick="fetch('/collect', {method: 'POST'})">Track</button>
<button id="save" onclick="fetch('/save', {method: 'POST'}).then(() => { document.getElementById('out').textContent = 'Saved' })">Save</button>
<button id="slow" onclick="let n = 0; const t = setInterval(() => { document.getElementById('tick').textContent = ++n; if (n === 15) { clearInterval(t); const b = document.createElement('button'); b.textContent = 'Late'; document.body.append(b) } }, 100)">Slow</button>
<p id="tick"></p><p id="out" role="status"></p>
</body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestClickDoesNotWaitForAHangingCall: a click whose page sends a call nobody waits for (the host
// never answers) used to hold the step for the whole three-second settle; a save that answers
// within a second is still waited for, so the next step sees its result at once.
func TestClickDoesNotWaitForAHangingCall(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := quietSite(t)
	rep := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"#track"},{"kind":"click","locator":"#save"},{"kind":"assert","assert":"text","locator":"#out","condition":"equals","expected":"Saved","timeoutMs":1}]`), gardener.ReplayOptions{StepTimeout: 5 * time.Second})
	if !rep.Result.Passed {
		t.Fatalf("replay failed: %s", rep.Result.Message)
	}
	if ms := rep.Result.Steps[1].Millis; ms >= 2500 {
		t.Errorf("the click that sent a hanging call took %dms, want well under the 3s settle bound", ms)
	}
	if ms := rep.Result.Steps[2].Millis; ms < 550 {
		t.Errorf("the click on Save took %dms: it did not wait for the save to answer", ms)
	}
}

// TestQuietFailEndsAReproductionEarly: with QuietFail a step on a quiet page that has nothing
// matching ends long before its timeout; an element that shows up while the page keeps changing
// is still waited for; a step a run already reported failing ends on a quiet page even though
// its locator matches.
func TestQuietFailEndsAReproductionEarly(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	srv := quietSite(t)
	const timeout = 8 * time.Second
	t.Run("gone", func(t *testing.T) {
		t.Parallel()
		st := steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"#renamed"}]`)
		ro := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{1: {}}}
		rep := replayOK(t, r, srv.URL, st, ro)
		res := rep.Result
		if res.Passed || res.ErrorKind != gardener.ErrElementNotFound || res.FailedStep != "2" {
			t.Fatalf("want element-not-found at step 2, got passed=%v %s at %s: %s", res.Passed, res.ErrorKind, res.FailedStep, res.Message)
		}
		if ms := res.Steps[1].Millis; ms > int64(timeout/time.Millisecond)/2 {
			t.Errorf("the step took %dms of its %s: it waited out the timeout on a quiet page", ms, timeout)
		}
		if !strings.Contains(res.Message, "quiet") {
			t.Errorf("the message does not say the page was quiet: %s", res.Message)
		}
		// It says how long the step waited, not that it waited its whole limit.
		if strings.Contains(res.Message, "after "+timeout.String()+" ") || !strings.Contains(res.Message, "of its "+timeout.String()+" limit") {
			t.Errorf("the message claims the step waited its %s limit, or does not name the limit: %s", timeout, res.Message)
		}
		if rep.Snapshot == nil {
			t.Error("no snapshot of the page the step failed on")
		}
	})
	t.Run("late element", func(t *testing.T) {
		t.Parallel()
		st := steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"#slow"},{"kind":"click","locator":"text=Late"}]`)
		ro := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{2: {}}}
		if res := replayOK(t, r, srv.URL, st, ro).Result; !res.Passed {
			t.Errorf("the element that appears while the page changes was given up on: %s", res.Message)
		}
	})
	t.Run("reported", func(t *testing.T) {
		t.Parallel()
		st := steps(t, `[{"kind":"goto","url":"/"},{"kind":"assert","assert":"text","locator":"#out","condition":"equals","expected":"Saved"}]`)
		ro := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{1: {Reported: true}}}
		res := replayOK(t, r, srv.URL, st, ro).Result
		if res.Passed || res.ErrorKind != gardener.ErrAssertionFailed {
			t.Fatalf("want an assertion failure, got passed=%v %s: %s", res.Passed, res.ErrorKind, res.Message)
		}
		if ms := res.Steps[1].Millis; ms > int64(timeout/time.Millisecond)/2 {
			t.Errorf("the reported step took %dms of its %s", ms, timeout)
		}
	})
	t.Run("reported check of an element that is gone", func(t *testing.T) {
		t.Parallel()
		// A check retries, and its failure is the last attempt's: it says how long the step
		// waited when the quiet page ended it, not the limit it did not wait out.
		st := steps(t, `[{"kind":"goto","url":"/"},{"kind":"assert","assert":"text","locator":"#confirmation","condition":"contains","expected":"Booked"}]`)
		ro := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{1: {Reported: true}}}
		res := replayOK(t, r, srv.URL, st, ro).Result
		if res.Passed || !strings.Contains(res.Message, "of its "+timeout.String()+" limit") {
			t.Fatalf("want a check ended by the quiet page, got passed=%v: %s", res.Passed, res.Message)
		}
		if strings.Contains(res.Message, "after "+timeout.String()) || strings.Contains(res.Message, "(waited "+timeout.String()+")") {
			t.Errorf("the message claims the step waited its %s limit: %s", timeout, res.Message)
		}
	})
	t.Run("a clock ticking", func(t *testing.T) {
		t.Parallel()
		// The clock changes the page all the time, but only its text: no element comes or
		// goes, so a locator no text can match, and one named by words the clock never writes,
		// give up once the page's shape has been still for the longer window.
		for _, l := range []string{"#renamed", `role=link[name=\"My bookings\"]`} {
			st := steps(t, `[{"kind":"goto","url":"/clock"},{"kind":"click","locator":"`+l+`"}]`)
			ro := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{1: {}}}
			res := replayOK(t, r, srv.URL, st, ro).Result
			if res.Passed || res.ErrorKind != gardener.ErrElementNotFound {
				t.Fatalf("%s: want element-not-found, got passed=%v %s: %s", l, res.Passed, res.ErrorKind, res.Message)
			}
			if ms := res.Steps[1].Millis; ms > int64(timeout/time.Millisecond)/2 {
				t.Errorf("%s: the step took %dms of its %s: it waited out the timeout on a page whose text alone changes", l, ms, timeout)
			}
			if !strings.Contains(res.Message, "no change but to its text for "+shapeWindow.String()) {
				t.Errorf("%s: the message does not say only text changed: %s", l, res.Message)
			}
		}
	})
	t.Run("a check of content a clock does not touch", func(t *testing.T) {
		t.Parallel()
		// A check waits for what its element holds: text changing elsewhere (the clock) is no
		// reason to wait, text changing inside it would be.
		st := steps(t, `[{"kind":"goto","url":"/clock"},{"kind":"assert","assert":"text","locator":"#status","condition":"equals","expected":"Closed"}]`)
		ro := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{1: {Patient: true}}}
		res := replayOK(t, r, srv.URL, st, ro).Result
		if res.Passed || res.ErrorKind != gardener.ErrAssertionFailed || !strings.Contains(res.Message, "no change but to its text") {
			t.Fatalf("want an assertion failure ended by the quiet page, got passed=%v %s: %s", res.Passed, res.ErrorKind, res.Message)
		}
		const short = 3 * time.Second
		st = steps(t, `[{"kind":"goto","url":"/clock"},{"kind":"assert","assert":"text","locator":"header","condition":"contains","expected":"Closed"}]`)
		ro = gardener.ReplayOptions{StepTimeout: short, QuietFail: map[int]gardener.QuietFail{1: {Patient: true}}}
		res = replayOK(t, r, srv.URL, st, ro).Result
		if res.Passed || res.Steps[1].Millis < int64(short/time.Millisecond)-100 || strings.Contains(res.Message, "quiet") {
			t.Errorf("a check of the element the clock ticks in: want the whole %s waited, got %dms: %s", short, res.Steps[1].Millis, res.Message)
		}
	})
	t.Run("a countdown ends by adding the element", func(t *testing.T) {
		t.Parallel()
		st := steps(t, `[{"kind":"goto","url":"/clock"},{"kind":"click","locator":"#start"},{"kind":"click","locator":"#go"}]`)
		ro := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{2: {}}}
		if res := replayOK(t, r, srv.URL, st, ro).Result; !res.Passed {
			t.Errorf("the button added when the countdown ends was given up on: %s", res.Message)
		}
	})
	t.Run("text a locator can match keeps it waiting", func(t *testing.T) {
		t.Parallel()
		// Text that changes may come to say what a locator looks for when it writes one of its
		// words: the page is not quiet for it while the clock runs.
		const short = 3 * time.Second
		st := steps(t, `[{"kind":"goto","url":"/clock"},{"kind":"click","locator":"text=Updated just now"}]`)
		ro := gardener.ReplayOptions{StepTimeout: short, QuietFail: map[int]gardener.QuietFail{1: {}}}
		res := replayOK(t, r, srv.URL, st, ro).Result
		if res.Passed || res.Steps[1].Millis < int64(short/time.Millisecond)-100 || strings.Contains(res.Message, "quiet") {
			t.Errorf("want the whole %s waited, got %dms: %s", short, res.Steps[1].Millis, res.Message)
		}
	})
	t.Run("proof keeps the limit", func(t *testing.T) {
		t.Parallel()
		st := steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"#renamed","timeoutMs":1500}]`)
		res := replayOK(t, r, srv.URL, st, gardener.ReplayOptions{}).Result
		if res.Passed || res.Steps[1].Millis < 1400 {
			t.Errorf("without QuietFail the step must wait its whole 1.5s, it took %dms", res.Steps[1].Millis)
		}
	})
}

// TestQuietFailOnAPollingPage: a page that polls its server every second (each answer slow to
// come, and written into the page again unchanged) and sends a beacon as often is settled as
// far as a missing element goes: nothing the test did is pending, and the poll's routine
// brings nothing new. A reproduction gives up there on the quiet rule instead of waiting out
// its limit. The page also renders a list again, with the same markup, five times a second,
// more often than the quiet window: elements replaced by equal ones are no change either.
// (An element that shows up while the page keeps changing is still waited for: see
// TestQuietFailEndsAReproductionEarly/late_element.)
func TestQuietFailOnAPollingPage(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	mux := http.NewServeMux()
	var polls, beacons atomic.Int64
	mux.HandleFunc("/poll", func(w http.ResponseWriter, r *http.Request) {
		polls.Add(1)
		time.Sleep(700 * time.Millisecond)
		fmt.Fprint(w, `Online`)
	})
	mux.HandleFunc("/beacon", func(w http.ResponseWriter, r *http.Request) { beacons.Add(1) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><body>
<p id="status">Online</p>
<ul id="people"><li data-id="1">Ada <b>online</b></li><li data-id="2">Bo</li></ul>
<script>
const people = '<li data-id="1">Ada <b>online</b></li><li data-id="2">Bo</li>';
const poll = () => fetch('/poll?t=' + Date.now()).then((r) => r.text()).then((s) => { document.getElementById('status').textContent = s; });
const render = () => { document.getElementById('people').innerHTML = people; };
setInterval(render, 200);
const beacon = () => navigator.sendBeacon('/beacon', 'seen');
poll(); beacon(); setInterval(poll, 1000); setInterval(beacon, 1000);
</script></body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	st := steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"#renamed"}]`)
	ro := gardener.ReplayOptions{StepTimeout: 8 * time.Second, QuietFail: map[int]gardener.QuietFail{1: {}}}
	res := replayOK(t, r, srv.URL, st, ro).Result
	if res.Passed || res.ErrorKind != gardener.ErrElementNotFound {
		t.Fatalf("want element-not-found, got passed=%v %s: %s", res.Passed, res.ErrorKind, res.Message)
	}
	if !strings.Contains(res.Message, "the page was quiet") {
		t.Errorf("the step was not ended by the quiet rule on a page that only polls: %s", res.Message)
	}
	if polls.Load() < 2 || beacons.Load() < 1 {
		t.Errorf("the page sent %d polls and %d beacons while the step waited: the fixture did not poll", polls.Load(), beacons.Load())
	}
}

// TestPatientQuietFailWaitsForASlowAnswer: a proof's quiet rule (Patient) waits on while a
// request the test's click sent is still open, however long, and while the page shows a
// progress bar; a reproduction's gives up on the same page once the answer is late and the
// page still. The element that the slow answer brings is found by the proof.
func TestPatientQuietFailWaitsForASlowAnswer(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	mux := http.NewServeMux()
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("hang") != "" {
			// The reproduction's answer never comes: it must give up whatever the machine's load.
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			return
		}
		time.Sleep(4 * time.Second)
		fmt.Fprint(w, `ok`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><body>
<button id="load" onclick="document.getElementById('busy').hidden = false; fetch('/slow' + location.search).then(() => { document.getElementById('busy').hidden = true; const b = document.createElement('button'); b.textContent = 'Result'; document.body.append(b) })">Load</button>
<div id="busy" role="progressbar" hidden>Loading</div>
</body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	st := steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"#load"},{"kind":"click","locator":"text=Result"}]`)
	hangs := steps(t, `[{"kind":"goto","url":"/?hang=1"},{"kind":"click","locator":"#load"},{"kind":"click","locator":"text=Result"}]`)
	t.Run("proof", func(t *testing.T) {
		t.Parallel()
		ro := gardener.ReplayOptions{StepTimeout: 8 * time.Second, QuietFail: map[int]gardener.QuietFail{2: {Patient: true}}}
		if res := replayOK(t, r, srv.URL, st, ro).Result; !res.Passed {
			t.Errorf("a proof gave up on an element a slow answer brings: %s", res.Message)
		}
	})
	t.Run("reproduction", func(t *testing.T) {
		t.Parallel()
		ro := gardener.ReplayOptions{StepTimeout: 8 * time.Second, QuietFail: map[int]gardener.QuietFail{2: {}}}
		res := replayOK(t, r, srv.URL, hangs, ro).Result
		if res.Passed || !strings.Contains(res.Message, "the page was quiet") {
			t.Errorf("want the reproduction to give up on the quiet rule while the answer is late, got passed=%v: %s", res.Passed, res.Message)
		}
	})
}

// toastCheck is a check of a toast that names no element to find it in.
const toastCheck = `{"kind":"assertToast","text":"Welcome back"}`

// TestPlaceCheckQuietFail: a reproduction's check of where the page is (a wait for a URL, an
// assert on it or on the title), and one of a toast, names no element, so it gives up once the page is quiet on a
// page nothing will move (a refused sign-in stays put), and waits on while the sign-in's slow
// call is open (the rule is patient there), however late the navigation it brings; inside an
// intent block too.
func TestPlaceCheckQuietFail(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/signin", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("slow") != "" {
			time.Sleep(4 * time.Second)
			fmt.Fprint(w, `{"ok":true}`)
			return
		}
		fmt.Fprint(w, `{"ok":false}`)
	})
	mux.HandleFunc("/home", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Home</title></head><body><h1>Home</h1></body></html>`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Sign in</title></head><body>
<button id="signin" onclick="fetch('/signin' + location.search, {method: 'POST'}).then(a => a.json()).then(j => { const out = document.getElementById('out'); if (j.ok && location.search.includes('toast')) out.textContent = 'Welcome back'; else if (j.ok) location.href = '/home'; else out.textContent = 'Wrong password' })">Sign in</button>
<p id="out" role="alert"></p>
</body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	const timeout = 8 * time.Second
	ro := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{2: {}}}
	checks := []string{`{"kind":"wait","for":"url","url":"/home"}`, `{"kind":"assert","assert":"url","condition":"contains","expected":"/home"}`,
		`{"kind":"assert","assert":"title","condition":"equals","expected":"Home"}`, toastCheck}
	for _, check := range checks {
		slow := "/?slow=1"
		if check == toastCheck {
			// The slow sign-in answers with a toast instead of a navigation.
			slow += "&toast=1"
		}
		t.Run("refused "+check, func(t *testing.T) {
			t.Parallel()
			res := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"#signin"},`+check+`]`), ro).Result
			if res.Passed || !strings.Contains(res.Message, "the page was quiet") {
				t.Fatalf("want the check to give up on the quiet page, got passed=%v: %s", res.Passed, res.Message)
			}
			if ms := res.Steps[2].Millis; ms > int64(timeout/time.Millisecond)/2 {
				t.Errorf("the check took %dms of its %s on a page nothing moves", ms, timeout)
			}
		})
		t.Run("slow "+check, func(t *testing.T) {
			t.Parallel()
			if res := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"`+slow+`"},{"kind":"click","locator":"#signin"},`+check+`]`), ro).Result; !res.Passed {
				t.Errorf("the check gave up while the sign-in's slow call was open: %s", res.Message)
			}
		})
	}
	t.Run("refused inside a block", func(t *testing.T) {
		t.Parallel()
		block := `[{"kind":"intent","goal":"sign in","steps":[{"kind":"goto","url":"/"},{"kind":"click","locator":"#signin"},` + checks[0] + `]}]`
		inBlock := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{0: {}}}
		res := replayOK(t, r, srv.URL, steps(t, block), inBlock).Result
		if res.Passed || !strings.Contains(res.Message, "the page was quiet") {
			t.Fatalf("want the block's URL wait to give up on the quiet page, got passed=%v: %s", res.Passed, res.Message)
		}
	})
}

// TestQuietFailEndsAContentWait: a reproduction's check of an element's text, whose element is
// there with other text, and a select whose option is not offered end on a quiet page long
// before their limit; a text a slow save brings is still waited for (the wait is patient). Both
// used to wait out their whole limit, since the element they name was on the page.
func TestQuietFailEndsAContentWait(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/save", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1500 * time.Millisecond)
		fmt.Fprint(w, `{"ok":true}`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><body><p id="total">Total: 360.00</p>
<label for="dept">Department</label><select id="dept"><option value="derm">Dermatology</option><option value="neuro">Neurology</option></select>
<button id="save" onclick="fetch('/save', {method: 'POST'}).then(() => { document.getElementById('total').textContent = 'Total: 380.00' })">Save</button>
</body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	const timeout = 8 * time.Second
	for _, c := range []struct {
		name, steps string
		step        int
		pass        bool
	}{
		{"wrong text", `{"kind":"assert","assert":"text","locator":"#total","condition":"equals","expected":"Total: 380.00"}`, 1, false},
		{"no such option", `{"kind":"select","locator":"label=Department","value":"Cardiology"}`, 1, false},
		{"text a slow save brings", `{"kind":"click","locator":"#save"},{"kind":"assert","assert":"text","locator":"#total","condition":"equals","expected":"Total: 380.00"}`, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ro := gardener.ReplayOptions{StepTimeout: timeout, QuietFail: map[int]gardener.QuietFail{c.step: {}}}
			res := replayOK(t, r, srv.URL, steps(t, `[{"kind":"goto","url":"/"},`+c.steps+`]`), ro).Result
			if c.pass {
				if !res.Passed {
					t.Errorf("the text a slow save brings was given up on: %s", res.Message)
				}
				return
			}
			if res.Passed {
				t.Fatal("the step passed")
			}
			if ms := res.Steps[c.step].Millis; ms > int64(timeout/time.Millisecond)/2 || !strings.Contains(res.Message, "quiet") {
				t.Errorf("the step took %dms of its %s on a quiet page: %s", ms, timeout, res.Message)
			}
		})
	}
}
