package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp/kb"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// ambiguityGrace is how long several matches must persist before an action fails on them: a
// list that re-renders shows two copies for a frame.
const ambiguityGrace = 500 * time.Millisecond

// firstLookFloor is the least time the first look at the page gets, whatever is left of the
// step's time: on a loaded machine one evaluation can take longer than a short timeout, and a
// step must not fail without having looked once.
const firstLookFloor = 2 * time.Second

// withFloor extends ctx's deadline to at least firstLookFloor from now. A ctx already ended
// gets the floor too: the quiet watch (watchQuiet) cancels a step's context long before its
// deadline, and the look after it (the covered element's fingerprint, what covers it) must
// still be answered, or the repair loses what the covered step's failure says.
func withFloor(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) >= firstLookFloor && ctx.Err() == nil {
		return ctx, func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), firstLookFloor)
}

func networkID(l cdp.LoaderID) network.RequestID { return network.RequestID(l) }

// do runs one step's work against the page.
func (r *run) do(ctx context.Context, st gardener.Step, vars map[string]string, rec *gardener.StepRecord, timeout limit) *failure {
	switch st.Kind {
	case gardener.Goto:
		return r.gotoURL(ctx, st, rec)
	case gardener.Click:
		return r.click(ctx, st, rec, timeout)
	case gardener.Fill:
		return r.fill(ctx, st, rec, timeout)
	case gardener.Select:
		return r.selectOption(ctx, st, rec, timeout)
	case gardener.Set:
		return r.set(ctx, st, rec, timeout)
	case gardener.Check, gardener.Uncheck:
		return r.check(ctx, st, rec, timeout)
	case gardener.Press:
		return r.press(ctx, st, rec, timeout)
	case gardener.Hover:
		t, f := r.waitTarget(ctx, st.Locator, "hover", timeout, rec)
		if f != nil {
			return f
		}
		return r.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, t.X, t.Y, 0)
	case gardener.Wait:
		return r.wait(ctx, st, rec, timeout)
	case gardener.Screenshot:
		return r.screenshot(ctx, st, rec, timeout)
	case gardener.Extract:
		return r.extract(ctx, st, vars, rec, timeout)
	case gardener.Intent:
		return fail(gardener.ErrBadStep, "intent blocks do not nest")
	}
	if st.IsCheck() || st.Kind == gardener.A11yAudit {
		return r.checkStep(ctx, st, vars, rec, timeout)
	}
	return fail(gardener.ErrBadStep, "unknown step kind %q", st.Kind)
}

// targetResult is what the runtime's target() says about a locator.
type targetResult struct {
	State   string   `json:"state"`
	Count   int      `json:"count"`
	Visible int      `json:"visible"`
	Matches []string `json:"matches"`
	By      string   `json:"by"`
	What    string   `json:"what"`
	X       float64  `json:"x"`
	Y       float64  `json:"y"`
	Direct  bool     `json:"direct"`
	Checked bool     `json:"checked"`
	// Control is what a set step found: select, checkbox, radio or text.
	Control string `json:"control"`
	// BoxValue is the value attribute of the checkbox or radio button a set step found.
	BoxValue string   `json:"boxValue"`
	Value    *string  `json:"value"`
	Invalid  bool     `json:"invalid"`
	Msgs     []string `json:"messages"`
	// Print is the fingerprint of the element found, when it was found (see the runtime's
	// printed).
	Print *gardener.Fingerprint `json:"fingerprint"`
}

// locatorArg is a locator as the runtime reads it.
func locatorArg(l gardener.Locator) map[string]any {
	return map[string]any{"kind": string(l.Kind), "value": l.Value, "role": l.Role, "name": l.Name, "nameContains": l.NameContains, "exact": l.Exact, "frame": l.Frame}
}

// pollTarget calls a runtime function that resolves a locator until accept says the result
// will do or ctx ends; it returns the last result seen.
func (r *run) pollTarget(ctx context.Context, accept func(targetResult) bool, fn string, args ...any) (targetResult, error) {
	var last targetResult
	var ambiguousSince time.Time
	start := time.Now()
	for first := true; ; first = false {
		var res targetResult
		c, cancel := ctx, context.CancelFunc(func() {})
		if first {
			c, cancel = withFloor(ctx)
		}
		err := r.s.call(c, &res, fn, args...)
		cancel()
		switch {
		case err == nil:
			last = res
			if accept(res) {
				return res, nil
			}
			if res.State == "ambiguous" {
				if ambiguousSince.IsZero() {
					ambiguousSince = time.Now()
				} else if time.Since(ambiguousSince) >= ambiguityGrace {
					return last, nil
				}
			} else {
				ambiguousSince = time.Time{}
			}
		case transient(err):
		default:
			// The page's script throwing, and the runtime answering what the runner cannot
			// read, are failures no wait mends: polling on would spend the step's time and
			// end as "no element matches", blaming the page for the gardener's own fault.
			var je *jsError
			var re *runtimeError
			if errors.As(err, &je) || errors.As(err, &re) {
				return last, err
			}
			if ctx.Err() != nil {
				return last, nil
			}
			if r.s.crashReason() != "" {
				return last, err
			}
		}
		if once(ctx) && err == nil {
			return last, nil
		}
		select {
		case <-ctx.Done():
			return last, nil
		case <-lookAgain(time.Since(start)):
		}
	}
}

// waitTarget waits for the one element an action needs, ready for it, and records its
// fingerprint.
func (r *run) waitTarget(ctx context.Context, loc gardener.Locator, mode string, timeout limit, rec *gardener.StepRecord) (targetResult, *failure) {
	res, err := r.pollTarget(ctx, func(t targetResult) bool {
		switch t.State {
		case "ok", "not-editable", "not-select", "not-checkable", "not-settable":
			return true
		}
		return false
	}, "printed", "target", locatorArg(loc), mode)
	if err != nil {
		return res, r.callFailure(loc, err)
	}
	switch res.State {
	case "ok":
		rec.Element = res.Print
		return res, nil
	case "covered", "disabled":
		// The locator found its one element and something else stopped the action: the record
		// says which element, so a repair can tell a covered button from a lost one, and the
		// failure says what covered it. The step's own time is spent by now (it waited for the
		// element to come free), so the page is asked with a floor of its own.
		fc, cancel := withFloor(ctx)
		defer cancel()
		rec.Element = r.fingerprint(fc)
		if res.State == "covered" {
			f := targetFailure(loc, res, timeout)
			f.cover = r.covering(fc)
			return res, f
		}
	case "hidden":
		rec.Hidden = res.Count
	}
	return res, targetFailure(loc, res, timeout)
}

// callFailure reports an error from the runtime: a locator the browser rejects is a bad step.
func (r *run) callFailure(loc gardener.Locator, err error) *failure {
	var je *jsError
	if errors.As(err, &je) {
		return fail(gardener.ErrBadStep, "%s cannot be used: %s", loc, je.msg)
	}
	var re *runtimeError
	if errors.As(err, &re) {
		return runtimeFailure(re)
	}
	if why := r.s.crashReason(); why != "" {
		return fail(gardener.ErrBrowserCrash, "%s", why)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// A timeout is a timeout; diagnose asks the browser whether it is hung.
		return browserSlow("the page did not answer %s in time", loc)
	}
	return fail(gardener.ErrBrowserCrash, "the browser failed a command: %v", err)
}

// runtimeFailure names the gardener's page runtime, not the test or the app, as what failed.
func runtimeFailure(re *runtimeError) *failure {
	return fail(gardener.ErrRuntime, "the gardener's page runtime failed on this page, not the test: %v. This is the gardener's fault; please report it", re)
}

// targetFailure explains, in a person's words, why no element was ready in time.
func targetFailure(loc gardener.Locator, t targetResult, timeout limit) *failure {
	switch t.State {
	case "", "none":
		return fail(gardener.ErrElementNotFound, "no element matches %s after %s", loc, timeout)
	case "hidden":
		f := fail(gardener.ErrElementNotFound, "%s %s but none is visible after %s", gardener.Plural(t.Count, "element matches", "elements match"), loc, timeout)
		f.cause = gardener.CauseHidden
		return f
	case "ambiguous":
		return fail(gardener.ErrAmbiguousElement, "%d visible elements match %s (%s)", t.Visible, loc, strings.Join(t.Matches, ", "))
	case "disabled":
		return fail(gardener.ErrTimeout, "the element %s is still disabled after %s", loc, timeout)
	case "covered":
		return fail(gardener.ErrTimeout, "the element %s is covered by %s after %s", loc, t.By, timeout)
	case "not-editable":
		return fail(gardener.ErrBadStep, "the element %s cannot be filled (not a text field, text area or editable element)", loc)
	case "not-select":
		return fail(gardener.ErrBadStep, "the element %s is %s, not a <select>", loc, t.What)
	case "not-checkable":
		return fail(gardener.ErrBadStep, "the element %s is %s, not a checkbox, radio or switch", loc, t.What)
	case "not-settable":
		return fail(gardener.ErrBadStep, "the element %s is %s, which has no value to set (not a text field, text area, editable element, select, checkbox, radio or switch)", loc, t.What)
	}
	return fail(gardener.ErrTimeout, "the element %s was not ready (%s) after %s", loc, t.State, timeout)
}

// covering reads the fingerprint of what covered the element the runtime last found covered.
func (r *run) covering(ctx context.Context) *gardener.Fingerprint {
	var fp *gardener.Fingerprint
	if err := r.s.call(ctx, &fp, "covering"); err != nil {
		return nil
	}
	return fp
}

// fingerprint reads the fingerprint of the element the runtime last chose.
func (r *run) fingerprint(ctx context.Context) *gardener.Fingerprint {
	var fp *gardener.Fingerprint
	if err := r.s.call(ctx, &fp, "fingerprint"); err != nil {
		return nil
	}
	return fp
}

func (r *run) mouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, clicks int64) *failure {
	p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
	if typ != input.DispatchMouseEventTypeMouseMoved {
		p.Button = input.MouseButtonLeft
		p.Buttons = 1
		p.ClickCount = clicks
	}
	if _, err := cdp.Call(ctx, r.s.tgt, input.DispatchMouseEvent, p); err != nil {
		return r.commandFailure(ctx, "sending the mouse event", err)
	}
	return nil
}

// commandFailure reports a DevTools command that did not go through.
func (r *run) commandFailure(ctx context.Context, what string, err error) *failure {
	if why := r.s.crashReason(); why != "" {
		return fail(gardener.ErrBrowserCrash, "%s", why)
	}
	if ctx.Err() != nil {
		return browserSlow("%s did not finish in time", what)
	}
	return fail(gardener.ErrBrowserCrash, "%s failed: %v", what, err)
}

func (r *run) clickAt(ctx context.Context, x, y float64) *failure {
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		if f := r.mouse(ctx, typ, x, y, 1); f != nil {
			return f
		}
	}
	return nil
}

func (r *run) click(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	t, f := r.waitTarget(ctx, st.Locator, "click", timeout, rec)
	if f != nil {
		return f
	}
	if f := r.clickAt(ctx, t.X, t.Y); f != nil {
		return f
	}
	// A double (or triple) click is a person's second press at the same place: the browser
	// counts it into one gesture by its click count, and fires dblclick on the second.
	for n := int64(2); n <= int64(st.Clicks); n++ {
		for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
			if f := r.mouse(ctx, typ, t.X, t.Y, n); f != nil {
				return f
			}
		}
	}
	return nil
}

func (r *run) fill(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	t, f := r.waitTarget(ctx, st.Locator, "fill", timeout, rec)
	if f != nil {
		return f
	}
	return r.typeValue(ctx, st, t, rec)
}

// set does what the control it finds needs: types into a text field, text area or editable
// element, picks a select's option, checks or unchecks a checkbox, switch or radio button.
func (r *run) set(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	t, f := r.waitTarget(ctx, st.Locator, "set", timeout, rec)
	if f != nil {
		return f
	}
	switch t.Control {
	case "select":
		return r.pick(ctx, st, rec, timeout)
	case "checkbox", "radio":
		want, ok := boxState(st.Value, t.BoxValue)
		if !ok {
			return fail(gardener.ErrBadStep, "the value %s does not say whether the %s %s is to be checked (true or false, on or off, checked or unchecked, or the %s's own value)", gardener.RedactValue(st.Value), t.Control, st.Locator, t.Control)
		}
		if f := r.setChecked(ctx, st, t, want, rec, timeout); f != nil {
			return f
		}
		rec.Values = []string{st.Value}
		return nil
	}
	return r.typeValue(ctx, st, t, rec)
}

// boxState reads the value of a set step on a checkbox or radio button: its own value (what a
// recorded change of it carries, "on" by default) or a word for checked or unchecked.
func boxState(value, own string) (want, ok bool) {
	if own != "" && value == own {
		return true, true
	}
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "true", "on", "checked":
		return true, true
	case "false", "off", "unchecked":
		return false, true
	}
	return false, false
}

// typeValue enters a fill's (or a set's) value into the text field, text area or editable
// element target found and focused.
func (r *run) typeValue(ctx context.Context, st gardener.Step, t targetResult, rec *gardener.StepRecord) *failure {
	if !t.Direct {
		if st.Value == "" {
			if f := r.key(ctx, kbKey(kb.Backspace), 0); f != nil {
				return f
			}
		} else if _, err := cdp.Call(ctx, r.s.tgt, input.InsertText, input.InsertTextParams{Text: st.Value}); err != nil {
			return r.commandFailure(ctx, "typing the value", err)
		}
	}
	var after struct{ Value string }
	if err := r.s.call(ctx, &after, "afterFill", st.Value, t.Direct); err != nil && !transient(err) {
		return r.callFailure(st.Locator, err)
	}
	rec.Values = []string{st.Value}
	return nil
}

func (r *run) selectOption(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	if _, f := r.waitTarget(ctx, st.Locator, "select", timeout, rec); f != nil {
		return f
	}
	return r.pick(ctx, st, rec, timeout)
}

// pick chooses the option of the select target found whose value, else whose label, is the
// step's value.
func (r *run) pick(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	var res struct {
		OK       bool
		Value    string
		Label    string
		Disabled string
		Options  []string
	}
	for start := time.Now(); ; {
		if err := r.s.call(ctx, &res, "selectOption", st.Value); err != nil {
			if ctx.Err() != nil {
				break
			}
			if !transient(err) {
				return r.callFailure(st.Locator, err)
			}
		}
		if res.OK || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-lookAgain(time.Since(start)):
		}
	}
	if !res.OK {
		if res.Disabled != "" {
			// The disabled option is the one the step picks: its value or label is what the
			// test enters, so the message masks it like every other text for people.
			return fail(gardener.ErrTimeout, "the option the step picks (%s) of %s is disabled after %s", gardener.RedactValue(st.Value), st.Locator, timeout)
		}
		// The options the page offers are page text; the value sought is the test's own.
		return fail(gardener.ErrElementNotFound, "%s has no option matching the value %s after %s (options: %s)", st.Locator, gardener.RedactValue(st.Value), timeout, strings.Join(res.Options, ", "))
	}
	rec.Values = []string{res.Value}
	if res.Label != res.Value {
		rec.Values = append(rec.Values, res.Label)
	}
	return nil
}

func (r *run) check(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	t, f := r.waitTarget(ctx, st.Locator, "check", timeout, rec)
	if f != nil {
		return f
	}
	return r.setChecked(ctx, st, t, st.Kind == gardener.Check, rec, timeout)
}

// setChecked clicks the checkbox, switch or radio button target found when it is not in the
// state wanted, and waits until it is.
func (r *run) setChecked(ctx context.Context, st gardener.Step, t targetResult, want bool, rec *gardener.StepRecord, timeout limit) *failure {
	if t.Checked == want {
		return nil
	}
	if !want && (t.Control == "radio" || rec.Element != nil && rec.Element.Type == "radio") {
		return fail(gardener.ErrBadStep, "%s is a radio button, which cannot be unchecked by clicking it", st.Locator)
	}
	if f := r.clickAt(ctx, t.X, t.Y); f != nil {
		return f
	}
	for {
		var got *bool
		if err := r.s.call(ctx, &got, "checked"); err == nil && got != nil && *got == want {
			return nil
		}
		select {
		case <-ctx.Done():
			state := map[bool]string{true: "checked", false: "unchecked"}[want]
			return fail(gardener.ErrTimeout, "clicking %s did not leave it %s after %s", st.Locator, state, timeout)
		case <-time.After(pollInterval):
		}
	}
}

func (r *run) press(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	keys, mods, err := parseKeys(st.Key)
	if err != nil {
		return fail(gardener.ErrBadStep, "%v", err)
	}
	if !st.Locator.IsZero() {
		if _, f := r.waitTarget(ctx, st.Locator, "press", timeout, rec); f != nil {
			return f
		}
	}
	for _, m := range mods {
		if f := r.keyEvent(ctx, input.DispatchKeyEventTypeRawKeyDown, m.key, modifierBits(mods)); f != nil {
			return f
		}
	}
	if f := r.key(ctx, keys, modifierBits(mods)); f != nil {
		return f
	}
	for i := len(mods) - 1; i >= 0; i-- {
		if f := r.keyEvent(ctx, input.DispatchKeyEventTypeKeyUp, mods[i].key, 0); f != nil {
			return f
		}
	}
	rec.Values = []string{st.Key}
	return nil
}

// key presses and releases one key with the given modifiers held.
func (r *run) key(ctx context.Context, k *kb.Key, mods int64) *failure {
	down := input.DispatchKeyEventTypeKeyDown
	if k.Text == "" || mods&int64(kb.ModifierCtrl|kb.ModifierAlt|kb.ModifierMeta) != 0 {
		down = input.DispatchKeyEventTypeRawKeyDown
	}
	if f := r.keyEvent(ctx, down, k, mods); f != nil {
		return f
	}
	return r.keyEvent(ctx, input.DispatchKeyEventTypeKeyUp, k, mods)
}

func (r *run) keyEvent(ctx context.Context, typ input.DispatchKeyEventType, k *kb.Key, mods int64) *failure {
	p := input.DispatchKeyEventParams{Type: typ, Key: k.Key, Code: k.Code, WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native, Modifiers: mods}
	if typ == input.DispatchKeyEventTypeKeyDown {
		p.Text, p.UnmodifiedText = k.Text, k.Unmodified
	}
	if _, err := cdp.Call(ctx, r.s.tgt, input.DispatchKeyEvent, p); err != nil {
		return r.commandFailure(ctx, "sending the key "+k.Key, err)
	}
	return nil
}

func (r *run) gotoURL(ctx context.Context, st gardener.Step, rec *gardener.StepRecord) *failure {
	target, err := resolveURL(r.ro.BaseURL, st.URL)
	if err != nil {
		return fail(gardener.ErrBadStep, "%v", err)
	}
	if why := r.s.gate.refuse(target); why != "" {
		return fail(gardener.ErrNavigationBlocked, "navigation to %s was blocked (%s)", target, why)
	}
	rec.Values = []string{target}
	res, err := cdp.Call(ctx, r.s.tgt, page.Navigate, page.NavigateParams{URL: target})
	if err != nil {
		f := r.commandFailure(ctx, "navigating to "+target, err)
		// A navigation waits for the server's answer: running out of time there is the
		// app's slowness, not the browser's.
		f.cause = ""
		return f
	}
	if res.ErrorText != "" {
		r.s.mu.Lock()
		blocked := ""
		if len(r.s.blockedDocs) > 0 {
			blocked = r.s.blockedDocs[0]
			r.s.blockedDocs = r.s.blockedDocs[1:]
		}
		r.s.mu.Unlock()
		if blocked != "" {
			return fail(gardener.ErrNavigationBlocked, "navigation to %s was blocked", blocked)
		}
		return fail(gardener.ErrNavigation, "loading %s failed: %s", target, r.s.netError(target, res.ErrorText))
	}
	r.s.waitReady(ctx)
	if ctx.Err() != nil {
		return fail(gardener.ErrTimeout, "%s did not finish loading in time", target)
	}
	r.s.mu.Lock()
	idx, ok := r.s.reqByID[networkID(res.LoaderID)]
	var req gardener.Request
	if ok {
		req = r.s.requests[idx]
	}
	r.s.mu.Unlock()
	if ok && req.Status >= 400 {
		return fail(gardener.ErrHTTP, "GET %s answered HTTP %d", req.URL, req.Status)
	}
	return nil
}

// resolveURL resolves a goto URL against the base URL.
func resolveURL(base, raw string) (string, error) {
	if base == "" {
		return raw, nil
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("base URL %q: %w", base, err)
	}
	u, err := b.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("URL %q: %w", raw, err)
	}
	return u.String(), nil
}

func (r *run) wait(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	switch st.For {
	case gardener.WaitTime:
		select {
		case <-ctx.Done():
			return fail(gardener.ErrTimeout, "the step's %s ran out before the %dms wait ended", timeout, st.Ms)
		case <-time.After(time.Duration(st.Ms) * time.Millisecond):
			return nil
		}
	case gardener.WaitURL:
		for start := time.Now(); ; {
			u := r.s.currentURL()
			rec.Observed = u
			if urlMatches(u, st.URL) {
				return nil
			}
			if once(ctx) {
				return fail(gardener.ErrAssertionFailed, "the URL is not %q (it is %s)", st.URL, u)
			}
			select {
			case <-ctx.Done():
				return fail(gardener.ErrAssertionFailed, "the URL did not reach %q after %s (it is %s)", st.URL, timeout, u)
			case <-lookAgain(time.Since(start)):
			}
		}
	}
	state := st.State
	if state == "" {
		state = "visible"
	}
	var last visibility
	for start := time.Now(); ; {
		v, err := r.visibility(ctx, st.Locator)
		if err != nil {
			return r.callFailure(st.Locator, err)
		}
		if v != nil {
			last = *v
			if (state == "visible" && v.Visible > 0) || (state == "hidden" && v.Visible == 0 && !v.Loading) || (state == "attached" && v.Count > 0) {
				if v.Visible > 0 {
					rec.Element = r.fingerprint(ctx)
				}
				return nil
			}
		}
		select {
		case <-ctx.Done():
			switch {
			case state == "hidden" && last.Loading:
				return fail(gardener.ErrTimeout, "the page was still loading after %s", timeout)
			case state == "hidden":
				return fail(gardener.ErrTimeout, "%s is still visible after %s", st.Locator, timeout)
			case last.Count == 0:
				return fail(gardener.ErrElementNotFound, "no element matches %s after %s", st.Locator, timeout)
			default:
				return fail(gardener.ErrTimeout, "%s %s but none is visible after %s", gardener.Plural(last.Count, "element matches", "elements match"), st.Locator, timeout)
			}
		case <-lookAgain(time.Since(start)):
		}
	}
}

// urlMatches reads a wait's URL pattern: a glob when it has a *, else a part of the URL.
func urlMatches(u, pattern string) bool {
	if strings.Contains(pattern, "*") {
		parts := strings.Split(pattern, "*")
		rest := u
		for _, p := range parts {
			i := strings.Index(rest, p)
			if i < 0 {
				return false
			}
			rest = rest[i+len(p):]
		}
		return parts[len(parts)-1] == "" || strings.HasSuffix(u, parts[len(parts)-1])
	}
	return strings.Contains(u, pattern)
}

func (r *run) screenshot(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	if !st.Locator.IsZero() {
		if _, f := r.waitTarget(ctx, st.Locator, "read", timeout, rec); f != nil {
			return f
		}
		if rec.Element != nil && rec.Element.Location.Width > 0 {
			l := rec.Element.Location
			p.Clip = &page.Viewport{X: l.X, Y: l.Y, Width: l.Width, Height: l.Height, Scale: 1}
			beyond := true
			p.CaptureBeyondViewport = &beyond
		}
	}
	res, err := cdp.Call(ctx, r.s.tgt, page.CaptureScreenshot, p)
	if err != nil {
		return r.commandFailure(ctx, "taking the screenshot", err)
	}
	name := st.Name
	if name == "" {
		name = "step-" + strings.ReplaceAll(rec.Path, ".", "-") + ".png"
	}
	name = filepath.Base(name)
	rec.Observed = fmt.Sprintf("%s (%d bytes PNG)", name, len(res.Data))
	return nil
}

func (r *run) extract(ctx context.Context, st gardener.Step, vars map[string]string, rec *gardener.StepRecord, timeout limit) *failure {
	res, f := r.read(ctx, st.Locator, "text", st.Attribute, timeout, rec)
	if f != nil {
		return f
	}
	if res.Value == nil {
		return fail(gardener.ErrElementNotFound, "the element %s has no attribute %q", st.Locator, st.Attribute)
	}
	vars[st.Variable] = *res.Value
	rec.Observed = *res.Value
	return nil
}

// read waits for one element (visible or not) and reads its text, value or an attribute.
func (r *run) read(ctx context.Context, loc gardener.Locator, what, attr string, timeout limit, rec *gardener.StepRecord) (targetResult, *failure) {
	res, err := r.pollTarget(ctx, func(t targetResult) bool {
		return t.State == "ok" || t.State == "ok-hidden"
	}, "printed", "read", locatorArg(loc), what, attr)
	if err != nil {
		return res, r.callFailure(loc, err)
	}
	if res.State != "ok" && res.State != "ok-hidden" {
		return res, targetFailure(loc, res, timeout)
	}
	rec.Element = res.Print
	return res, nil
}

const (
	// settleMax bounds the wait after an action: a page that polls or streams is never idle,
	// and the next step's own waiting takes it from there.
	settleMax = 3 * time.Second
	// hangGrace is how long a request may stay open before the wait after an action stops
	// counting it, once the document has stopped changing: a call nothing on the page waits
	// for (analytics to a host that never answers, a long poll) must not hold every click
	// that sends one for settleMax.
	hangGrace = time.Second
	// quietWindow is how long the document must stay unchanged, with nothing loading, for the
	// page to count as quiet.
	quietWindow = 500 * time.Millisecond
	// shapeWindow is how long a page whose text keeps changing (a clock, a counter) must keep
	// its shape and the text that matters to the step, nothing loading, for the step to give
	// up: longer than quietWindow, so that a countdown that ends by adding the element is still
	// waited for when it ends within it.
	shapeWindow = 2 * time.Second
)

// quietState is the runtime's answer to quiet().
type quietState struct {
	Still   int64 `json:"still"` // milliseconds since the document last changed
	Matches int   `json:"matches"`
	Busy    int   `json:"busy"` // visible progress bars and aria-busy regions
	// Changed is the milliseconds since the document last changed in any way: less than Still
	// when only text that does not matter to the locators changed since (a clock elsewhere).
	Changed int64 `json:"changed"`
}

// settle waits, after an action, for what the action started: a navigation to load and the
// requests it sent to answer. A request open longer than hangGrace stops counting once the
// document has been unchanged for quietWindow; everything gives up after settleMax.
//
// A navigation the action asked for is waited for until it commits or stops, up to the step's
// own limit: whether the click's page loaded is the step's outcome, and a replay whose last
// step is that click must not end green before the browser has said.
func (r *run) settle(ctx context.Context, since mark, timeout time.Duration) *failure {
	s := r.s
	r.barrier(ctx)
	// Four quiet looks (100ms) before an action counts as done: a navigation's events can
	// still lag the click's (a redirect chosen by a timer, the network's answer).
	quiet, look := 4, 25*time.Millisecond
	if s.opts.starved {
		quiet, look = 1, 0
	}
	deadline := time.Now().Add(settleMax)
	opened := map[network.RequestID]time.Time{}
	idle := 0
	for time.Now().Before(deadline) || s.navigationPending() {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			u := s.pendingNav
			s.mu.Unlock()
			if u != "" {
				// Stop it, as a person would: the browser holds every question to the page
				// while a navigation is on its way, and the failure's record reads the page.
				sctx, cancel := context.WithTimeout(s.ctx, time.Second)
				_, _ = cdp.Call(sctx, s.tgt, page.StopLoading, cdp.Empty{})
				cancel()
				return fail(gardener.ErrTimeout, "the page the step opened, %s, did not load within %s", u, timeout)
			}
			return nil
		case <-time.After(look):
		}
		if s.crashReason() != "" {
			return nil
		}
		loading, fresh, stale := r.network(opened)
		if loading || fresh > 0 || stale > 0 && !r.documentStill(ctx) {
			idle = 0
			continue
		}
		idle++
		if idle >= quiet {
			break
		}
	}
	s.mu.Lock()
	navigated := len(s.navigations) > since.navs
	s.mu.Unlock()
	if navigated {
		// Best effort, within the step's limit: a page that arrived but is still being parsed
		// when the limit ends passes the action (the next step waits for what it needs, and a
		// check that passes for what is absent waits for the parser: see parsed).
		s.waitReady(ctx)
	}
	return nil
}

// barrier makes one round trip to the page. The renderer reports the navigation a click or a
// key press asked for (frameRequestedNavigation) while it handles the input, before it answers
// anything asked later, and the tab's events are read in order with the answers; so after the
// round trip that report has been read, however long a starved machine took to deliver it.
// Without it the quiet looks in settle could all pass before the report arrived, and a click
// whose page could not load passed for a click that did nothing.
func (r *run) barrier(ctx context.Context) {
	bctx, cancel := context.WithTimeout(ctx, settleMax)
	defer cancel()
	// An error means the page is going away under the call: a navigation, reported already.
	_, _ = r.s.eval(bctx, "0", false)
}

// navigationPending reports whether a navigation the page asked for has neither committed nor
// stopped.
func (s *session) navigationPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pendingNav != ""
}

// network reads whether the main frame is loading and how many awaited requests are open:
// fresh ones, open less than hangGrace since this wait first saw them, and stale ones.
func (r *run) network(opened map[network.RequestID]time.Time) (loading bool, fresh, stale int) {
	now := time.Now()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	for id := range r.s.inflight {
		t, ok := opened[id]
		if !ok {
			opened[id], t = now, now
		}
		if now.Sub(t) < hangGrace {
			fresh++
		} else {
			stale++
		}
	}
	return r.s.loading, fresh, stale
}

// documentStill reports whether the document has been unchanged for quietWindow.
func (r *run) documentStill(ctx context.Context) bool {
	var q quietState
	if err := r.s.call(ctx, &q, "quiet", []any{}); err != nil {
		return false
	}
	return time.Duration(q.Still)*time.Millisecond >= quietWindow
}

// settledRequests says whether the page has a request in flight that could still bring the
// element: the main frame loading, or a request the page awaits (see awaited) open for less
// than hangGrace (however long, when patient) that is not one the page repeats on its own. A request to the same method
// and path as one the page already sent while this step waited (from request index since on)
// is background: a poll, a reconnecting long poll, a heartbeat. The test did nothing in
// between, so its answer is the page's routine, and a page that polls every second must not
// keep a step waiting out its whole limit. Beacons and pings are never awaited.
func (r *run) settledRequests(opened map[network.RequestID]time.Time, since int, patient bool) bool {
	now := time.Now()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.s.loading || r.s.pendingNav != "" {
		return false
	}
	for id := range r.s.inflight {
		t, ok := opened[id]
		if !ok {
			opened[id], t = now, now
		}
		if !patient && now.Sub(t) >= hangGrace {
			continue
		}
		if i, ok := r.s.reqByID[id]; ok && r.s.repeated(i, since) {
			continue
		}
		return false
	}
	return true
}

// repeated reports whether request i went to the method and path of an earlier request sent
// from index since on.
func (s *session) repeated(i, since int) bool {
	ep := endpoint(s.requests[i])
	for j := max(since, 0); j < i; j++ {
		if endpoint(s.requests[j]) == ep {
			return true
		}
	}
	return false
}

// endpoint is a request's method and URL without its query or fragment: a poll's cache
// buster or cursor changes every time.
func endpoint(q gardener.Request) string {
	u := q.URL
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return q.Method + " " + u
}

// readsContent reports whether a step waits for what its element holds rather than for the
// element: a check of an element's text or value, and a select, which waits for its option.
func readsContent(st gardener.Step) bool {
	switch st.Kind {
	case gardener.Assert:
		return st.Subject == gardener.SubjectText || st.Subject == gardener.SubjectValue
	case gardener.Select:
		return true
	}
	return false
}

// watchQuiet ends a step early once the page is quiet: nothing loading or about to load, no
// request in flight that could still bring the element (settledRequests) for quietWindow, the
// document unchanged as long, and, unless a run already reported the step failing or the step
// checks where the page is (Step.PlaceCheck), no visible element matching the step's locator. A
// place check waits patiently unless reported (see gardener.QuietFail), and
// so does a step that waits for its element's content (readsContent), whatever it finds. The
// returned func says, after the step, how long it ran before the watch ended it (zero when the
// watch did not).
func (r *run) watchQuiet(ctx context.Context, st gardener.Step, qf gardener.QuietFail) (context.Context, *quietStop, func() time.Duration) {
	place := st.PlaceCheck()
	// A step that reads what its element holds (a check of its text or value, a select
	// looking for its option) waits for the content, not the element: on a page that has not
	// changed for the quiet window, with nothing loading, the content cannot change either, so
	// the element being there is no reason to wait. It waited out its whole limit, in every
	// reproduction of a wrong total and every proof that one stopped.
	content := readsContent(st)
	patient := qf.Patient || ((place || content) && !qf.Reported)
	var locs []any
	switch {
	case !place && !st.Target().IsZero():
		// The runtime counts the elements the locator matches, unless the step waits for
		// what they hold or a run reported it failing (content): then only text changing
		// inside them, or text that could make the locator match, keeps the page from quiet.
		arg := locatorArg(st.Target())
		if content || qf.Reported {
			arg["content"] = true
		}
		locs = append(locs, arg)
	case !qf.Reported && !place && !content:
		return ctx, nil, func() time.Duration { return 0 }
	}
	wctx, cancel := context.WithCancel(ctx)
	start := time.Now()
	var stop quietStop
	done := make(chan struct{})
	r.s.mu.Lock()
	since := len(r.s.requests)
	r.s.mu.Unlock()
	go func() {
		defer close(done)
		opened := map[network.RequestID]time.Time{}
		var calm time.Time
		for {
			select {
			case <-wctx.Done():
				return
			case <-time.After(2 * pollInterval):
			}
			if !r.settledRequests(opened, since, patient) {
				calm = time.Time{}
				continue
			}
			if calm.IsZero() {
				calm = time.Now()
			}
			if time.Since(calm) < quietWindow {
				continue
			}
			var q quietState
			if err := r.s.call(wctx, &q, "quiet", locs); err != nil {
				continue
			}
			// Text still changing within the window (a clock) asks for the longer one.
			moving := q.Changed < q.Still && time.Duration(q.Changed)*time.Millisecond < quietWindow
			window := quietWindow
			if moving {
				window = shapeWindow
			}
			if time.Duration(q.Still)*time.Millisecond >= window && q.Matches == 0 && (q.Busy == 0 || !patient) {
				stop.text.Store(moving)
				stop.after.Store(int64(time.Since(start)))
				cancel()
				return
			}
		}
	}()
	context.AfterFunc(ctx, cancel)
	return wctx, &stop, func() time.Duration {
		cancel()
		<-done
		return time.Duration(stop.after.Load())
	}
}

// quietStop is how a quiet page ended a step's wait (see watchQuiet): after how long, zero when
// it did not, and whether text that did not matter to the step kept changing meanwhile (a clock).
type quietStop struct {
	after atomic.Int64
	text  atomic.Bool
}

// note says why the step stopped before its limit.
func (q *quietStop) note(lim limit, timeout time.Duration) string {
	still, window := "no change", quietWindow
	if q.text.Load() {
		still, window = "no change but to its text", shapeWindow
	}
	return fmt.Sprintf(" (stopped after %s of its %s limit: the page was quiet, with nothing loading and %s for %s)", lim, timeout, still, window)
}

// limit is a step's time limit as the step's failure words it: the whole limit, or, when a
// quiet page ended the wait early (watchQuiet stores how long it waited in stopped), the time
// the step really waited. A failure is worded once the wait has ended, so it reads the right one.
type limit struct {
	d       time.Duration
	stopped *quietStop
}

func (l limit) String() string {
	if l.stopped != nil {
		if n := l.stopped.after.Load(); n > 0 {
			return time.Duration(n).Round(time.Millisecond).String()
		}
	}
	return l.d.String()
}
