package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/driftgardener/gardener/pkg/gardener"
)

//go:embed js/runtime.js
var runtimeJS string

// emitBinding is the page-to-Go channel the runtime reports toasts and modals on: a binding
// delivers them even when the page navigates right after showing them.
const emitBinding = "__dgEmit"

// pollInterval is how often a waiting step looks at the page again in the first second of its
// wait (see lookAgain).
const pollInterval = 50 * time.Millisecond

// lookAgain paces the looks of a wait that has lasted waited: every pollInterval for the first
// second, when most elements a step waits for appear, then every 100 ms, and every 200 ms after
// three seconds. Each look resolves the step's locator over the whole document in the renderer;
// a step that waits out a 5 s limit on a page of a few hundred elements cost 0.41 CPU-seconds in
// looks at one every 50 ms (a role locator; 0.20 for an id), and a wait that long is on a slow
// page or for an element that is not coming, where a look every 200 ms misses nothing a person
// would notice. On a loaded machine the replays beside it want that CPU.
func lookAgain(waited time.Duration) <-chan time.Time {
	switch {
	case waited < time.Second:
		return time.After(pollInterval)
	case waited < 3*time.Second:
		return time.After(2 * pollInterval)
	}
	return time.After(4 * pollInterval)
}

// liveEvent is a toast or modal the page showed, or a JavaScript dialog it opened.
type liveEvent struct {
	kind string // toast | modal
	text string
	seq  int
}

// session is one replay's tab, with everything the tab reported.
type session struct {
	in   *instance
	ctx  context.Context // the tab's chromedp context
	tgt  *chromedp.Target
	opts Options
	gate *originGate
	net  *gateProxy // the proxy of the replay's lane, for why a request could not connect

	mu          sync.Mutex
	console     []gardener.ConsoleMessage
	requests    []gardener.Request
	reqByID     map[network.RequestID]int
	inflight    map[network.RequestID]bool
	navigations []string
	navLoaders  []cdp.LoaderID // loader of each main-frame navigation, for its document status
	url         string
	mainFrame   cdp.FrameID
	loading     bool
	// pendingNav is the URL of a navigation of the tab that the page asked for (a link, a
	// form, a script) and that has neither committed nor stopped; "" when there is none.
	pendingNav  string
	blocked     []string // URLs the gate refused, in order
	blockedDocs []string // of those, the document navigations
	live        []liveEvent
	liveSeq     int
	crashed     string // why the tab or browser died, "" while it lives
	overLimit   string // why the replay was stopped at its wall-clock limit, "" before
	kills       int64  // the memory watchdog's count of kills when the replay started
}

func newSession(in *instance, ctx context.Context, opts Options, gate *originGate) *session {
	return &session{
		in: in, ctx: ctx, opts: opts, gate: gate,
		reqByID:  map[network.RequestID]int{},
		inflight: map[network.RequestID]bool{},
		kills:    in.memoryKills.Load(),
	}
}

// wireTab opens the tab of ctx, a new chromedp tab context, and installs what every replay in
// it uses: the page binding, the page runtime in every new document, and request interception.
// It runs on the tab context itself because the first call on a chromedp context decides how
// long its target lives: as long as that context.
func wireTab(ctx context.Context) (*chromedp.Target, error) {
	if err := chromedp.Do(ctx); err != nil {
		return nil, fmt.Errorf("opening a tab: %w", err)
	}
	tgt := chromedp.FromContext(ctx).Target
	if _, err := cdp.Call(ctx, tgt, runtime.AddBinding, runtime.AddBindingParams{Name: emitBinding}); err != nil {
		return nil, fmt.Errorf("adding the page binding: %w", err)
	}
	if _, err := cdp.Call(ctx, tgt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: runtimeJS}); err != nil {
		return nil, fmt.Errorf("installing the page runtime: %w", err)
	}
	if _, err := cdp.Call(ctx, tgt, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}}}); err != nil {
		return nil, fmt.Errorf("enabling request interception: %w", err)
	}
	return tgt, nil
}

// open wires the session to its tab, one wireTab opened: the replay's listener takes the tab's
// events (and answers its paused requests) while s.ctx lasts, a context derived from the tab's.
func (s *session) open() error {
	if err := chromedp.Listen(s.ctx, s.onEvent); err != nil {
		return fmt.Errorf("listening to the tab: %w", err)
	}
	s.tgt = chromedp.FromContext(s.ctx).Target
	tree, err := cdp.Call(s.ctx, s.tgt, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return fmt.Errorf("reading the frame tree: %w", err)
	}
	s.mu.Lock()
	s.mainFrame = tree.FrameTree.Frame.ID
	s.url = tree.FrameTree.Frame.URL
	s.mu.Unlock()
	return nil
}

// viewport lays the tab's pages out at the test's viewport, before its first step; the lane's
// reset after the replay takes it back.
func (s *session) viewport(v gardener.Viewport) error {
	p := emulation.SetDeviceMetricsOverrideParams{Width: int64(v.Width), Height: int64(v.Height), DeviceScaleFactor: 1}
	if _, err := cdp.Call(s.ctx, s.tgt, emulation.SetDeviceMetricsOverride, p); err != nil {
		return fmt.Errorf("setting the viewport to %s: %w", v, err)
	}
	return nil
}

// onEvent runs on the tab's reader goroutine: it records and returns at once, and answers
// what needs an answer (paused requests, dialogs) from a goroutine of its own.
func (s *session) onEvent(ev any) {
	switch e := ev.(type) {
	case *fetch.EventRequestPaused:
		s.onRequestPaused(e)
	case *network.EventRequestWillBeSent:
		s.onRequest(e)
	case *network.EventResponseReceived:
		s.mu.Lock()
		if i, ok := s.reqByID[e.RequestID]; ok {
			s.requests[i].Status = int(e.Response.Status)
		}
		s.mu.Unlock()
	case *network.EventLoadingFinished:
		s.mu.Lock()
		delete(s.inflight, e.RequestID)
		s.mu.Unlock()
	case *network.EventLoadingFailed:
		s.mu.Lock()
		delete(s.inflight, e.RequestID)
		if i, ok := s.reqByID[e.RequestID]; ok && s.requests[i].Status == 0 {
			why := e.ErrorText
			if e.BlockedReason != "" {
				why += " (" + string(e.BlockedReason) + ")"
			}
			if why == "net::ERR_BLOCKED_BY_CLIENT" && s.wasBlockedLocked(s.requests[i].URL) {
				why = "blocked: origin not allowed"
			}
			why = s.netError(s.requests[i].URL, why)
			s.requests[i].Failed = why
		}
		s.mu.Unlock()
	case *page.EventFrameNavigated:
		if e.Frame.ParentID == "" {
			s.mu.Lock()
			s.url = e.Frame.URL
			s.navigations = append(s.navigations, e.Frame.URL)
			s.navLoaders = append(s.navLoaders, e.Frame.LoaderID)
			s.pendingNav = ""
			s.mu.Unlock()
		}
	case *page.EventNavigatedWithinDocument:
		s.mu.Lock()
		if e.FrameID == s.mainFrame {
			s.url = e.URL
			s.navigations = append(s.navigations, e.URL)
			s.loading = false // a same-document navigation loads nothing
			s.pendingNav = ""
		}
		s.mu.Unlock()
	case *page.EventFrameRequestedNavigation:
		// A click on a link asks for the navigation before the load starts; count it as
		// loading so the action's settle waits for it (and for the gate's verdict). A link
		// that opens another tab or a download leaves this tab where it is.
		s.mu.Lock()
		if e.FrameID == s.mainFrame && e.Disposition == page.ClientNavigationDispositionCurrentTab {
			s.loading = true
			s.pendingNav = e.URL
		}
		s.mu.Unlock()
	case *page.EventFrameStartedLoading:
		s.mu.Lock()
		if e.FrameID == s.mainFrame {
			s.loading = true
		}
		s.mu.Unlock()
	case *page.EventFrameStoppedLoading:
		s.mu.Lock()
		if e.FrameID == s.mainFrame {
			s.loading = false
			s.pendingNav = "" // a navigation that ends without a page: a 204, a download
		}
		s.mu.Unlock()
	case *runtime.EventConsoleAPICalled:
		s.addConsole(consoleLevel(e.Type), consoleText(e.Args))
	case *runtime.EventExceptionThrown:
		s.addConsole("error", exceptionText(e.ExceptionDetails))
	case *runtime.EventBindingCalled:
		if e.Name == emitBinding {
			var p struct{ Kind, Text string }
			if json.Unmarshal([]byte(e.Payload), &p) == nil && p.Text != "" {
				s.addLive(p.Kind, p.Text)
			}
		}
	case *page.EventJavascriptDialogOpening:
		// An alert or confirm blocks the page until answered; accept it, as a person clicking
		// OK would, and remember it as a modal the page showed.
		s.addLive("modal", e.Message)
		go func() {
			_, _ = cdp.Call(s.ctx, s.tgt, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}()
	case *inspector.EventTargetCrashed:
		s.markCrashed("the page's renderer process crashed")
	case *inspector.EventDetached:
		s.markCrashed("the browser detached from the tab: " + e.Reason)
	}
}

func (s *session) onRequestPaused(e *fetch.EventRequestPaused) {
	reason := s.gate.refuse(e.Request.URL)
	if reason != "" {
		s.mu.Lock()
		s.blocked = append(s.blocked, e.Request.URL)
		if e.ResourceType == network.ResourceTypeDocument {
			s.blockedDocs = append(s.blockedDocs, e.Request.URL+" ("+reason+")")
		}
		s.mu.Unlock()
	}
	id := e.RequestID
	go func() {
		if reason != "" {
			_, _ = cdp.Call(s.ctx, s.tgt, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonBlockedByClient})
			return
		}
		_, _ = cdp.Call(s.ctx, s.tgt, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
	}()
}

func (s *session) onRequest(e *network.EventRequestWillBeSent) {
	u := e.Request.URL
	if strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.RedirectResponse != nil {
		if i, ok := s.reqByID[e.RequestID]; ok {
			s.requests[i].Status = int(e.RedirectResponse.Status)
		}
	}
	s.reqByID[e.RequestID] = len(s.requests)
	s.requests = append(s.requests, gardener.Request{Method: e.Request.Method, URL: u})
	if awaited[e.Type] {
		s.inflight[e.RequestID] = true
	}
}

// awaited are the request types an action waits for before the next step: what the page
// loads or asks for. Favicons, pings and media are left alone; Chrome does not always report
// their end.
var awaited = map[network.ResourceType]bool{
	network.ResourceTypeDocument: true, network.ResourceTypeXHR: true, network.ResourceTypeFetch: true,
	network.ResourceTypeScript: true, network.ResourceTypeStylesheet: true,
}

// netError is the error of a failed request as Chromium would name it without the proxy: the
// proxy hangs up on a request it could not connect for, which Chromium reports as an empty
// response, so the proxy's own reason replaces that.
func (s *session) netError(rawURL, chromium string) string {
	if s.net != nil {
		if why := s.net.whyUnreachable(rawURL); why != "" {
			return why
		}
	}
	return chromium
}

func (s *session) wasBlockedLocked(u string) bool {
	for _, b := range s.blocked {
		if b == u {
			return true
		}
	}
	return false
}

func (s *session) addConsole(level, text string) {
	s.mu.Lock()
	s.console = append(s.console, gardener.ConsoleMessage{Level: level, Text: text})
	s.mu.Unlock()
}

func (s *session) addLive(kind, text string) {
	s.mu.Lock()
	s.liveSeq++
	s.live = append(s.live, liveEvent{kind: kind, text: text, seq: s.liveSeq})
	s.mu.Unlock()
}

func (s *session) markCrashed(why string) {
	s.mu.Lock()
	if s.crashed == "" {
		s.crashed = why
	}
	s.mu.Unlock()
}

// overrun stops a replay at its wall-clock limit: it stops the page's script, which may be
// an endless loop that nothing else interrupts, and closes the tab (close), so the step in
// progress and every one after it fail at once.
func (s *session) overrun(limit time.Duration, close func()) {
	s.mu.Lock()
	s.overLimit = fmt.Sprintf("the replay ran past its wall-clock limit of %s and was stopped", limit)
	s.mu.Unlock()
	if s.tgt != nil {
		ctx, cancel := context.WithTimeout(s.in.ctx, 2*time.Second)
		_, _ = cdp.Call(ctx, s.tgt, runtime.TerminateExecution, cdp.Empty{})
		cancel()
	}
	close()
}

// overran says why the replay was stopped at its wall-clock limit, "" when it was not.
func (s *session) overran() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.overLimit
}

// crashReason says why the tab or browser is gone, "" while both live; when the memory
// watchdog killed a process meanwhile, it says that too.
func (s *session) crashReason() string {
	s.mu.Lock()
	why := s.crashed
	s.mu.Unlock()
	switch {
	case why != "":
	case s.in.hung.Load():
		why = "the browser stopped answering"
	case !s.in.alive():
		why = "the browser process exited"
	default:
		return ""
	}
	if s.in.memoryKills.Load() != s.kills {
		if note, ok := s.in.memoryNote.Load().(string); ok {
			why += " (" + note + ")"
		}
	}
	return why
}

func consoleLevel(t runtime.ConsoleAPICalledType) string {
	switch t {
	case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
		return "error"
	case runtime.ConsoleAPICalledTypeWarning:
		return "warning"
	case runtime.ConsoleAPICalledTypeInfo:
		return "info"
	}
	return "log"
}

func consoleText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case len(a.Value) > 0:
			var str string
			if json.Unmarshal([]byte(a.Value), &str) == nil {
				parts = append(parts, str)
			} else {
				parts = append(parts, string(a.Value))
			}
		case a.UnserializableValue != "":
			parts = append(parts, string(a.UnserializableValue))
		case a.Description != "":
			parts = append(parts, a.Description)
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "uncaught exception"
	}
	text := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		first, _, _ := strings.Cut(d.Exception.Description, "\n")
		text = strings.TrimSpace(text + " " + first)
	}
	return text
}

// jsError is an exception thrown by the runtime: a selector the browser cannot parse, say.
type jsError struct{ msg string }

func (e *jsError) Error() string { return e.msg }

// runtimeError is the gardener's page runtime failing on a page, not the page's script and not
// the test: it answered something the runner cannot read (a page that changes how its values
// become JSON, say). Waiting does not mend it, so a step reports it at once and as the
// gardener's own failure (gardener.ErrRuntime), never as an element the page lacks.
type runtimeError struct {
	fn  string
	err error
}

func (e *runtimeError) Error() string {
	return fmt.Sprintf("decoding the result of %s: %v", e.fn, e.err)
}

func (e *runtimeError) Unwrap() error { return e.err }

const missingRuntime = "\x00missing"

// call runs a runtime entry point with JSON arguments and decodes its JSON result into out. A
// document that has no runtime yet (one that was already loading when the tab was wired) gets
// it installed first.
func (s *session) call(ctx context.Context, out any, fn string, args ...any) error {
	if args == nil {
		args = []any{}
	}
	argJSON, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("encoding the arguments of %s: %w", fn, err)
	}
	expr := fmt.Sprintf(`(() => { const d = window.__dg; if (!d) return %q; return JSON.stringify(d.%s(...%s)); })()`, missingRuntime, fn, argJSON)
	for attempt := 0; attempt < 2; attempt++ {
		str, err := s.eval(ctx, expr, false)
		if err != nil {
			return err
		}
		if str == missingRuntime {
			if _, err := s.eval(ctx, runtimeJS+";''", false); err != nil {
				return fmt.Errorf("installing the page runtime: %w", err)
			}
			continue
		}
		if out == nil || str == "" {
			return nil
		}
		if err := json.Unmarshal([]byte(str), out); err != nil {
			return &runtimeError{fn: fn, err: err}
		}
		return nil
	}
	return errors.New("the page runtime could not be installed")
}

// eval evaluates an expression that yields a string (or nothing).
func (s *session) eval(ctx context.Context, expr string, await bool) (string, error) {
	t := true
	p := runtime.EvaluateParams{Expression: expr, ReturnByValue: &t}
	if await {
		p.AwaitPromise = &t
	}
	res, err := cdp.Call(ctx, s.tgt, runtime.Evaluate, p)
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", &jsError{exceptionText(res.ExceptionDetails)}
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return "", nil
	}
	var str string
	if err := json.Unmarshal([]byte(res.Result.Value), &str); err != nil {
		return "", nil
	}
	return str, nil
}

// transient reports whether an error comes from the page navigating under a call, which a
// waiting step simply retries.
func transient(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	for _, m := range []string{"Execution context was destroyed", "Cannot find context with specified id", "Inspected target navigated or closed", "Cannot find default execution context", "Node with given id does not belong to the document"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// mark is a position in the session's logs: what a step added is what lies past its mark.
type mark struct{ requests, live, console, navs int }

func (s *session) mark() mark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return mark{len(s.requests), s.liveSeq, len(s.console), len(s.navigations)}
}

// loadedURLs lists every URL the tab requested or navigated to.
func (s *session) loadedURLs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	urls := make([]string, 0, len(s.requests)+len(s.navigations))
	for _, q := range s.requests {
		urls = append(urls, q.URL)
	}
	return append(urls, s.navigations...)
}

func (s *session) currentURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

func (s *session) requestsSince(m mark) []gardener.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.requests >= len(s.requests) {
		return nil
	}
	return append([]gardener.Request(nil), s.requests[m.requests:]...)
}

// waitReady waits until the current document has loaded, bounded by ctx.
func (s *session) waitReady(ctx context.Context) {
	_ = s.untilReady(ctx, func(state string) bool { return state == "complete" })
}

// untilReady asks the document's readyState until reached accepts it (nil), ctx ends (ctx's
// error), or the page cannot be asked for a reason other than navigating (that error).
func (s *session) untilReady(ctx context.Context, reached func(state string) bool) error {
	for ctx.Err() == nil {
		var p struct{ Ready string }
		err := s.call(ctx, &p, "page")
		if err == nil && reached(p.Ready) {
			return nil
		}
		if err != nil && !transient(err) && ctx.Err() == nil {
			return err
		}
		select {
		case <-ctx.Done():
		case <-time.After(pollInterval):
		}
	}
	return ctx.Err()
}
