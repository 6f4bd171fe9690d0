package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/driftgardener/gardener/pkg/gardener"
)

const (
	// probeTimeout bounds one probe check. A probe looks once (see lookOnce): the page has
	// settled, so a check either holds now or it does not.
	probeTimeout = 300 * time.Millisecond
	// navigationTimeout is the least a goto gets when it sets no timeout of its own: loading a
	// page is not waiting for an element, and a slow server must not look like drift.
	navigationTimeout = 30 * time.Second
	// openTimeout bounds the creation of a replay's tab: a second when the machine is idle,
	// far more when many replays start at once on two loaded cores.
	openTimeout = 60 * time.Second
)

// failure is why a step did not do what it should.
type failure struct {
	kind gardener.ErrorKind
	// format and args are the failure in words, rendered when read (detail): a limit among the
	// args (see limit) reads how long the step really waited, which a quiet page may decide after
	// a check's retry worded an earlier attempt's failure.
	format string
	args   []any
	// note is added to the words.
	note string
	// cause narrows kind: a timeout that was the browser's own.
	cause gardener.FailureCause
	// cover is what stood over the step's element, for a step that failed because of it.
	cover *gardener.Fingerprint
}

func fail(kind gardener.ErrorKind, format string, args ...any) *failure {
	if false {
		// Never runs: it keeps go vet checking the format of every caller, as it did when
		// fail rendered its words at once.
		_ = fmt.Sprintf(format, args...)
	}
	return &failure{kind: kind, format: format, args: args}
}

// detail is the failure in words.
func (f *failure) detail() string { return fmt.Sprintf(f.format, f.args...) + f.note }

// browserSlow is a timeout of the browser's own: a command it did not answer in time.
func browserSlow(format string, args ...any) *failure {
	f := fail(gardener.ErrTimeout, format, args...)
	f.cause = gardener.CauseBrowserSlow
	return f
}

// run is one replay in progress.
type run struct {
	s       *session
	testID  string
	ro      gardener.ReplayOptions
	timeout time.Duration
	vars    map[string]string
	records []gardener.StepRecord
	window  int // live-event sequence at the start of the last action: toasts after it count
	index   int // the top-level step running
}

// replay runs one test in the tab of a lane of in: a browser context no other replay uses
// meanwhile, cleared of what the replays before left (see lane). crashed reports that the
// browser itself died or hung, so the runner must launch another.
func replay(ctx context.Context, in *instance, opts Options, t gardener.Test, ro gardener.ReplayOptions) (_ gardener.Replay, crashed bool, _ error) {
	gate, err := newOriginGate(ro.BaseURL, ro.AllowedOrigins)
	if err != nil {
		return gardener.Replay{}, false, fmt.Errorf("replay of test %s: %w", t.ID, err)
	}
	started := time.Now()
	result := gardener.RunResult{TestID: t.ID, TestVersion: t.Version, FailedIndex: -1, Started: started, Steps: []gardener.StepRecord{}}

	// Opening is bounded twice: by openTimeout, and, since a browser that hangs would hold the
	// replay for all of it, by a ping once opening takes as long as a ping may.
	openCtx, openEnd := context.WithCancel(ctx)
	defer openEnd()
	watchdog := time.AfterFunc(openTimeout, openEnd)
	healthWatch := time.AfterFunc(opts.healthTimeout, func() {
		if !in.answers(opts.healthTimeout) {
			openEnd()
		}
	})
	stopWatches := func() {
		watchdog.Stop()
		healthWatch.Stop()
	}
	l, err := in.takeLane(openCtx)
	if err != nil {
		stopWatches()
		return openFailed(ctx, in, opts, t, result, err)
	}
	// The replay's calls and its listener end with its own context, derived from the lane's
	// tab; the tab stays for the lane's next replay.
	var s *session
	cancel := context.CancelFunc(func() {})
	// The lane goes back for the next replay only after a replay that ran its course, its
	// tab taken back to a blank page.
	laneOK := false
	defer func() {
		if s != nil {
			l.loaded(s.loadedURLs())
		}
		if crashed {
			// A call on the tab asks the browser, which is dead or hung: stop the browser
			// first, so the calls fail at once instead of waiting out chromedp's wait for an
			// answer.
			in.close()
		}
		if !crashed && laneOK {
			laneOK = l.reset(s.tgt) == nil
		}
		cancel()
		if !crashed && !in.giveBack(l, laneOK) {
			// A single-process browser whose one context keeps a target of this replay goes,
			// so that nothing of this replay runs during the next.
			crashed = true
		}
	}()
	err = l.openTab(in.ctx, openCtx)
	if err == nil {
		var tabCtx context.Context
		tabCtx, cancel = context.WithCancel(l.tab)
		s = newSession(in, tabCtx, opts, gate)
		s.net = l.proxy
		stopOpen := context.AfterFunc(openCtx, cancel)
		err = s.open()
		if err == nil {
			err = l.clear(tabCtx, s.tgt, chromedp.FromContext(in.ctx).Browser)
		}
		if err == nil && !t.Viewport.IsZero() {
			err = s.viewport(t.Viewport)
		}
		stopOpen()
	}
	stopWatches()
	if err != nil {
		return openFailed(ctx, in, opts, t, result, err)
	}
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	// From here the replay's gate decides for every target of the lane, through its proxy; the
	// wall-clock limit ends a replay that a page holds up, whatever its steps allow.
	l.proxy.use(gate)
	limit := time.AfterFunc(opts.ReplayLimit, func() { s.overrun(opts.ReplayLimit, cancel) })
	defer limit.Stop()

	timeout := opts.StepTimeout
	if ro.StepTimeout > 0 {
		timeout = ro.StepTimeout
	}
	r := &run{s: s, ro: ro, timeout: timeout, vars: map[string]string{}, testID: t.ID}
	for k, v := range ro.Variables {
		r.vars[k] = v
	}
	rep := gardener.Replay{}
	for i := 0; i <= len(t.Steps); i++ {
		if checks := ro.Probes[i]; len(checks) > 0 && ctx.Err() == nil {
			if rep.Probes == nil {
				rep.Probes = map[int][]gardener.ProbeResult{}
			}
			rep.Probes[i] = r.probe(i, checks)
		}
		if locs, ok := ro.Views[i]; ok && ctx.Err() == nil {
			if rep.Views == nil {
				rep.Views = map[int]gardener.View{}
			}
			rep.Views[i] = r.view(locs)
		}
		if i == len(t.Steps) {
			break
		}
		f := r.top(i, t.Steps[i])
		if ctx.Err() != nil {
			return gardener.Replay{}, false, fmt.Errorf("replay of test %s: %w", t.ID, ctx.Err())
		}
		if f != nil {
			last := r.records[len(r.records)-1]
			result.FailedStep = last.Path
			result.FailedIndex = i
			result.ErrorKind = f.kind
			result.Cause = f.cause
			result.CoveredBy = f.cover
			step := t.Steps[i]
			if step.Kind == gardener.Intent {
				step = stepAt(step, last.Path)
			}
			result.Message = fmt.Sprintf("step %s (%s): %s", last.Path, step.Redacted(), f.detail())
			if f.kind == gardener.ErrBrowserCrash {
				crashed = !in.answers(opts.healthTimeout)
			} else {
				rep.Snapshot = r.takeSnapshot()
				rep.Ahead = r.lookAhead(t.Steps[i], t.Steps[i+1:])
			}
			break
		}
	}
	result.Passed = result.ErrorKind == ""
	s.mu.Lock()
	result.Console = append([]gardener.ConsoleMessage(nil), s.console...)
	result.Requests = append([]gardener.Request(nil), s.requests...)
	result.Navigations = append([]string(nil), s.navigations...)
	result.FinalURL = s.url
	s.mu.Unlock()
	result.Steps = r.records
	result.Millis = time.Since(started).Milliseconds()
	rep.Result = result
	laneOK = result.ErrorKind != gardener.ErrBrowserCrash
	return rep, crashed, nil
}

// openFailed answers for a replay whose tab could not be opened: a browser crash when the
// browser no longer answers, else an error (the replay's ctx ended, or the browser refused).
func openFailed(ctx context.Context, in *instance, opts Options, t gardener.Test, result gardener.RunResult, err error) (gardener.Replay, bool, error) {
	if ctx.Err() != nil {
		return gardener.Replay{}, false, fmt.Errorf("replay of test %s: %w", t.ID, ctx.Err())
	}
	if !in.answers(opts.healthTimeout) {
		result.ErrorKind = gardener.ErrBrowserCrash
		result.Message = "the browser did not open a tab for the replay: " + err.Error()
		result.FailedStep, result.FailedIndex = "1", 0
		result.Millis = time.Since(result.Started).Milliseconds()
		return gardener.Replay{Result: result}, true, nil
	}
	return gardener.Replay{}, false, fmt.Errorf("replay of test %s: %w", t.ID, err)
}

// stepAt finds the inner step of an intent block by its path ("3.2").
func stepAt(block gardener.Step, path string) gardener.Step {
	for j, inner := range block.Steps {
		if path == fmt.Sprintf("%s.%d", pathPrefix(path), j+1) {
			return inner
		}
	}
	return block
}

func pathPrefix(path string) string {
	for i := range path {
		if path[i] == '.' {
			return path[:i]
		}
	}
	return path
}

// top runs top-level step i, an intent block with its inner steps included.
func (r *run) top(i int, st gardener.Step) *failure {
	r.index = i
	path := strconv.Itoa(i + 1)
	if st.Kind != gardener.Intent {
		return r.step(path, st, r.vars)
	}
	start := time.Now()
	blockIdx := len(r.records)
	r.records = append(r.records, gardener.StepRecord{Path: path, Kind: gardener.Intent, URLBefore: r.s.currentURL(), Skipped: true})
	scope := make(map[string]string, len(r.vars)+len(st.Values))
	for k, v := range r.vars {
		scope[k] = v
	}
	for k, v := range st.Values {
		scope[k] = v
	}
	var f *failure
	for j, inner := range st.Steps {
		if f = r.step(fmt.Sprintf("%s.%d", path, j+1), inner, scope); f != nil {
			break
		}
	}
	// Variables extracted inside the block stay set after it; its own values do not.
	for k, v := range scope {
		if _, own := st.Values[k]; !own {
			r.vars[k] = v
		}
	}
	rec := &r.records[blockIdx]
	rec.URLAfter = r.s.currentURL()
	rec.Passed = f == nil
	rec.Millis = time.Since(start).Milliseconds()
	r.notify(*rec)
	return f
}

// step runs one non-block step and appends its record.
func (r *run) step(path string, st gardener.Step, vars map[string]string) *failure {
	start := time.Now()
	rec := gardener.StepRecord{Path: path, Kind: st.Kind, URLBefore: r.s.currentURL()}
	m := r.s.mark()
	if st.IsAction() {
		r.window = m.live
	}
	f := r.exec(st, vars, &rec, m)
	rec.URLAfter = r.s.currentURL()
	rec.Requests = r.s.requestsSince(m)
	rec.Passed = f == nil
	rec.Millis = time.Since(start).Milliseconds()
	r.records = append(r.records, rec)
	r.notify(rec)
	return f
}

func (r *run) notify(rec gardener.StepRecord) {
	if r.s.opts.OnStep != nil {
		r.s.opts.OnStep(r.testID, rec)
	}
	if r.ro.OnStep != nil {
		r.ro.OnStep(rec)
	}
}

func (r *run) stepTimeout(st gardener.Step) time.Duration {
	if st.TimeoutMs > 0 {
		return time.Duration(min(st.TimeoutMs, gardener.MaxStepMillis)) * time.Millisecond
	}
	if st.Kind == gardener.A11yAudit && r.timeout < a11yMinTimeout {
		return a11yMinTimeout
	}
	if st.Kind == gardener.Goto && r.timeout < navigationTimeout {
		return navigationTimeout
	}
	return r.timeout
}

// exec runs the step within its time limit and turns what went wrong into a failure.
func (r *run) exec(st gardener.Step, vars map[string]string, rec *gardener.StepRecord, m mark) *failure {
	st, err := interpolate(st, vars)
	if err != nil {
		return fail(gardener.ErrBadStep, "%v", err)
	}
	if err := gardener.CheckDurations(st); err != nil {
		return fail(gardener.ErrBadStep, "%v", err)
	}
	timeout := r.stepTimeout(st)
	ctx, cancel := context.WithTimeout(r.s.ctx, timeout)
	defer cancel()
	st = r.alternative(ctx, st, rec)
	stepCtx, quietly := ctx, func() time.Duration { return 0 }
	lim := limit{d: timeout}
	if qf, ok := r.ro.QuietFail[r.index]; ok {
		stepCtx, lim.stopped, quietly = r.watchQuiet(ctx, st, qf)
	}
	f := r.do(stepCtx, st, vars, rec, lim)
	if after := quietly(); f != nil && after > 0 {
		// The failure says how long the step waited (lim); say why it stopped before its limit.
		f.note = lim.stopped.note(lim, timeout)
	}
	if f == nil && st.IsAction() {
		f = r.settle(ctx, m, timeout)
		if af := r.afterAction(m); af != nil {
			f = af
		}
	}
	return r.diagnose(f, timeout)
}

// afterAction fails an action whose navigation was blocked, could not load (the browser shows
// its own error page then) or was answered with an HTTP error.
func (r *run) afterAction(m mark) *failure {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.blockedDocs) > 0 {
		u := s.blockedDocs[0]
		s.blockedDocs = s.blockedDocs[1:]
		return fail(gardener.ErrNavigationBlocked, "navigation to %s was blocked", u)
	}
	for i := m.navs; i < len(s.navLoaders); i++ {
		idx, ok := s.reqByID[networkID(s.navLoaders[i])]
		if !ok {
			continue
		}
		req := s.requests[idx]
		if req.Failed != "" {
			return fail(gardener.ErrNavigation, "loading %s failed: %s", req.URL, req.Failed)
		}
		if req.Status >= 400 {
			return fail(gardener.ErrHTTP, "%s %s answered HTTP %d", req.Method, req.URL, req.Status)
		}
	}
	return nil
}

// diagnose tells a browser that died or hung apart from a step that merely failed.
func (r *run) diagnose(f *failure, timeout time.Duration) *failure {
	if f == nil {
		return nil
	}
	if why := r.s.overran(); why != "" {
		return fail(gardener.ErrTimeout, "%s", why)
	}
	if why := r.s.crashReason(); why != "" {
		return fail(gardener.ErrBrowserCrash, "%s", why)
	}
	// Any step that waited may have waited on a browser that stopped: a hung browser's last
	// answer ("no such element yet") must not pass for the app's. One ping settles it; a
	// healthy browser answers at once.
	switch f.kind {
	case gardener.ErrBadStep, gardener.ErrNavigationBlocked, gardener.ErrHTTP:
		return f
	}
	if !r.s.in.answers(r.s.opts.healthTimeout) {
		r.s.markCrashed("the browser stopped answering")
		return fail(gardener.ErrBrowserCrash, "the browser stopped answering (no reply within %s after the step ran out of its %s)", r.s.opts.healthTimeout, timeout)
	}
	// While a navigation is on its way the browser holds what is sent to the page until the
	// next document commits, so a page with one pending cannot answer a ping: the step
	// failed waiting for the navigation's server, and the browser answered above.
	if !r.s.navigationPending() && !r.pageAnswers() {
		return fail(gardener.ErrBrowserCrash, "the page stopped answering (its renderer is hung) during the step's %s", timeout)
	}
	return f
}

func (r *run) pageAnswers() bool {
	ctx, cancel := context.WithTimeout(r.s.ctx, r.s.opts.healthTimeout)
	defer cancel()
	_, err := r.s.eval(ctx, "''", false)
	return err == nil || transient(err)
}

// onceKey marks a context whose checks look at the page once instead of waiting for it.
type onceKey struct{}

// lookOnce marks ctx for a probe: a probe runs on a page that has settled after the step before
// it, so a check that does not hold at the first look would not hold later either, and waiting
// out the probe's time for it cost every sensitive check of every proof that time again.
func lookOnce(ctx context.Context) context.Context { return context.WithValue(ctx, onceKey{}, true) }

// once reports whether ctx is a probe's, whose checks look once.
func once(ctx context.Context) bool { on, _ := ctx.Value(onceKey{}).(bool); return on }

// probe evaluates checks before top-level step i without touching the run's records.
func (r *run) probe(i int, checks []gardener.Step) []gardener.ProbeResult {
	out := make([]gardener.ProbeResult, 0, len(checks))
	for _, c := range checks {
		pr := gardener.ProbeResult{Check: c, Path: strconv.Itoa(i + 1)}
		rec := gardener.StepRecord{}
		ctx, cancel := context.WithTimeout(lookOnce(r.s.ctx), probeTimeout)
		st, err := interpolate(c, r.vars)
		var f *failure
		if err != nil {
			f = fail(gardener.ErrBadStep, "%v", err)
		} else {
			f = r.do(ctx, st, r.vars, &rec, limit{d: probeTimeout})
		}
		cancel()
		pr.Observed = rec.Observed
		switch {
		case f == nil:
			pr.Passed = true
			if c.Kind == gardener.AssertHidden {
				pr.Shown = r.namedByStart(st.Locator)
			}
		case f.kind == gardener.ErrAssertionFailed:
		default:
			pr.Error = f.detail()
		}
		out = append(out, pr)
	}
	return out
}

// namedByStart is, for an absence check that found nothing, the control the page shows whose
// name starts with the one the check gives (gardener.NamedByStart), as a locator; "" when none
// or when the check does not name a control by role and name. Only such a check pays for the
// look at the page's candidates.
func (r *run) namedByStart(loc gardener.Locator) string {
	if loc.Kind != gardener.ByRole || loc.Name == "" || loc.NameContains {
		return ""
	}
	ctx, cancel := context.WithTimeout(r.s.ctx, 2*time.Second)
	defer cancel()
	var sr snapshotResult
	if err := r.s.call(ctx, &sr, "snapshot", r.s.opts.maxCandidates, 0); err != nil {
		return ""
	}
	if l, ok := gardener.NamedByStart(loc, sr.Candidates); ok {
		return l.String()
	}
	return ""
}

// snapshotResult is the runtime's snapshot before the byte cap.
type snapshotResult struct {
	URL        string                 `json:"url"`
	Title      string                 `json:"title"`
	Candidates []gardener.Fingerprint `json:"candidates"`
	Text       string                 `json:"text"`
	Truncated  bool                   `json:"truncated"`
}

// view is the page as it is now: its URL, a snapshot and the locators resolved.
func (r *run) view(locs []gardener.Locator) gardener.View {
	r.s.mu.Lock()
	v := gardener.View{URL: r.s.url}
	r.s.mu.Unlock()
	v.Snapshot = r.takeSnapshot()
	if len(locs) > 0 {
		v.Resolved = r.resolveAll(locs, gardener.MaxResolvedElements)
	}
	return v
}

// takeSnapshot captures the page as it is now, capped by count and bytes.
func (r *run) takeSnapshot() *gardener.Snapshot {
	ctx, cancel := context.WithTimeout(r.s.ctx, 10*time.Second)
	defer cancel()
	var sr snapshotResult
	if err := r.s.call(ctx, &sr, "snapshot", r.s.opts.maxCandidates, r.s.opts.maxText); err != nil {
		return &gardener.Snapshot{URL: r.s.currentURL(), Truncated: true}
	}
	snap := &gardener.Snapshot{URL: sr.URL, Title: sr.Title, Truncated: sr.Truncated, Candidates: make([]gardener.Fingerprint, 0, len(sr.Candidates))}
	size := 0
	for _, c := range sr.Candidates {
		b, err := json.Marshal(c)
		if err != nil {
			continue
		}
		if size+len(b) > r.s.opts.maxSnapshotBytes {
			snap.Truncated = true
			break
		}
		size += len(b)
		snap.Candidates = append(snap.Candidates, c)
	}
	snap.Text = capBytes(sr.Text, r.s.opts.maxText)
	if len(snap.Text) < len(sr.Text) {
		snap.Truncated = true
	}
	if r.ro.Screenshot {
		if png, err := cdp.Call(ctx, r.s.tgt, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}); err == nil {
			snap.Screenshot = png.Data
		}
	}
	return snap
}

// capBytes cuts s to at most n bytes without splitting a character.
func capBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// varRef is a ${name} reference to a variable.
var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}`)

// interpolate replaces ${name} in the fields a person writes values into. An unknown
// variable is a bad step: comparing against the literal "${total}" would fail confusingly.
func interpolate(st gardener.Step, vars map[string]string) (gardener.Step, error) {
	var missing string
	sub := func(s string) string {
		return varRef.ReplaceAllStringFunc(s, func(ref string) string {
			name := varRef.FindStringSubmatch(ref)[1]
			v, ok := vars[name]
			if !ok && missing == "" {
				missing = name
			}
			return v
		})
	}
	st.URL = sub(st.URL)
	st.Value = sub(st.Value)
	st.Expected = sub(st.Expected)
	st.Actual = sub(st.Actual)
	st.Text = sub(st.Text)
	if missing != "" {
		return st, fmt.Errorf("variable ${%s} is not set (extract it in an earlier step or pass it in the replay's variables)", missing)
	}
	return st, nil
}
