package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

//go:embed axe/axe.min.js
var axeJS string

// a11yMinTimeout is the least time an audit gets when its step sets none: axe on a large page
// takes longer than the default step timeout.
const a11yMinTimeout = 30 * time.Second

// visibility is what the runtime's visibility() reports.
type visibility struct {
	Count   int      `json:"count"`
	Visible int      `json:"visible"`
	Texts   []string `json:"texts"`
	Loading bool     `json:"loading"` // the document is still being parsed
}

// visibility reads a locator's matches once; a transient error (the page navigating) gives nil.
func (r *run) visibility(ctx context.Context, loc gardener.Locator) (*visibility, error) {
	var v visibility
	err := r.s.call(ctx, &v, "visibility", locatorArg(loc))
	if err != nil {
		if transient(err) || ctx.Err() != nil {
			return nil, nil
		}
		return nil, err
	}
	return &v, nil
}

// retry evaluates a check until it passes or ctx ends, and returns the last verdict: checks
// wait, as a person looking at a page that is still updating would.
func retry(ctx context.Context, f func(context.Context) (bool, *failure)) *failure {
	var last *failure
	start := time.Now()
	for first := true; ; first = false {
		c, cancel := ctx, context.CancelFunc(func() {})
		if first {
			c, cancel = withFloor(ctx)
		}
		ok, fl := f(c)
		cancel()
		if ok {
			return nil
		}
		if ctx.Err() != nil && last != nil {
			// This attempt ran into the deadline mid-read; the one before saw the page whole.
			return last
		}
		last = fl
		if fl != nil && fl.kind != gardener.ErrAssertionFailed && fl.kind != gardener.ErrElementNotFound {
			return fl
		}
		if once(ctx) {
			return last
		}
		select {
		case <-ctx.Done():
			return last
		case <-lookAgain(time.Since(start)):
		}
	}
}

func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

func containsFold(hay, needle string) bool {
	return strings.Contains(strings.ToLower(norm(hay)), strings.ToLower(norm(needle)))
}

// compare applies an assert condition. Text is compared with its whitespace collapsed, as it
// shows on the page.
func compare(cond gardener.Condition, observed, expected string, collapse bool) (bool, error) {
	if collapse {
		observed, expected = norm(observed), norm(expected)
	}
	switch cond {
	case gardener.Equals:
		return observed == expected, nil
	case gardener.Contains:
		return strings.Contains(observed, expected), nil
	case gardener.Matches:
		re, err := regexp.Compile(expected)
		if err != nil {
			return false, err
		}
		return re.MatchString(observed), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

func (r *run) checkStep(ctx context.Context, st gardener.Step, vars map[string]string, rec *gardener.StepRecord, timeout limit) *failure {
	switch st.Kind {
	case gardener.Assert:
		return r.assert(ctx, st, rec, timeout)
	case gardener.AssertVisible, gardener.AssertHidden:
		return r.assertVisibility(ctx, st, rec, timeout)
	case gardener.AssertToast, gardener.AssertModal:
		return r.assertLive(ctx, st, rec, timeout)
	case gardener.AssertValidationError:
		return r.assertValidation(ctx, st, rec, timeout)
	case gardener.AssertConsole:
		return r.assertConsole(ctx, st, rec, timeout)
	case gardener.AssertRequest:
		return r.assertRequest(ctx, st, rec, timeout)
	case gardener.A11yAudit:
		return r.audit(ctx, st, rec, timeout)
	}
	return fail(gardener.ErrBadStep, "%s is not a check", st.Kind)
}

func (r *run) assert(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	if st.Subject == gardener.SubjectVariable {
		rec.Observed = st.Actual
		ok, err := compare(st.Condition, st.Actual, st.Expected, false)
		if err != nil {
			return fail(gardener.ErrBadStep, "%v", err)
		}
		if !ok {
			return fail(gardener.ErrAssertionFailed, "variable is %s, expected it to %s %q", st.ShowObserved(st.Actual), verb(st.Condition), st.Expected)
		}
		return nil
	}
	return retry(ctx, func(ctx context.Context) (bool, *failure) {
		var observed string
		switch st.Subject {
		case gardener.SubjectURL, gardener.SubjectTitle:
			var p struct{ URL, Title string }
			if err := r.s.call(ctx, &p, "page"); err != nil {
				return false, r.readFailure(ctx, err, gardener.Locator{})
			}
			observed = p.URL
			if st.Subject == gardener.SubjectTitle {
				observed = p.Title
			}
		default:
			one, cancel := context.WithTimeout(ctx, pollInterval*4)
			res, f := r.read(one, st.Locator, string(st.Subject), "", timeout, rec)
			cancel()
			if f != nil {
				return false, f
			}
			if res.Value != nil {
				observed = *res.Value
			}
		}
		rec.Observed = observed
		ok, err := compare(st.Condition, observed, st.Expected, st.Subject == gardener.SubjectText)
		if err != nil {
			return false, fail(gardener.ErrBadStep, "%v", err)
		}
		if ok {
			return true, nil
		}
		return false, fail(gardener.ErrAssertionFailed, "%s is %s, expected it to %s %q (waited %s)", st.Subject, st.ShowObserved(observed), verb(st.Condition), st.Expected, timeout)
	})
}

func verb(c gardener.Condition) string {
	switch c {
	case gardener.Equals:
		return "equal"
	case gardener.Contains:
		return "contain"
	}
	return "match"
}

// readFailure turns an error reading the page into a failure, retrying what is transient.
func (r *run) readFailure(ctx context.Context, err error, loc gardener.Locator) *failure {
	if transient(err) || ctx.Err() != nil {
		return fail(gardener.ErrAssertionFailed, "the page was still changing")
	}
	return r.callFailure(loc, err)
}

func (r *run) assertVisibility(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	wantVisible := st.Kind == gardener.AssertVisible
	return retry(ctx, func(ctx context.Context) (bool, *failure) {
		v, err := r.visibility(ctx, st.Locator)
		if err != nil {
			return false, r.callFailure(st.Locator, err)
		}
		if v == nil {
			return false, fail(gardener.ErrAssertionFailed, "the page was still changing after %s", timeout)
		}
		shown := v.Visible
		var texts []string
		if st.Text != "" {
			shown = 0
			for _, t := range v.Texts {
				if containsFold(t, st.Text) {
					shown++
					texts = append(texts, t)
				}
			}
		} else {
			texts = v.Texts
		}
		rec.Observed = describeVisibility(v, shown)
		if wantVisible && shown > 0 {
			rec.Element = r.fingerprint(ctx)
			return true, nil
		}
		if !wantVisible && shown == 0 {
			if v.Loading {
				// Absence on a page the parser has not finished proves nothing: what the
				// check looks for may be further down, behind a script still loading.
				return false, fail(gardener.ErrAssertionFailed, "the page was still loading after %s", timeout)
			}
			return true, nil
		}
		withText := ""
		if st.Text != "" {
			withText = fmt.Sprintf(" with text %q", st.Text)
		}
		if wantVisible {
			if v.Count == 0 {
				return false, fail(gardener.ErrElementNotFound, "no element matches %s after %s", st.Locator, timeout)
			}
			if st.Text != "" && v.Visible > 0 {
				return false, fail(gardener.ErrAssertionFailed, "%s is visible but shows %s, not text %q (waited %s)", st.Locator, quoteList(v.Texts, 3), st.Text, timeout)
			}
			return false, fail(gardener.ErrAssertionFailed, "%s%s is not visible after %s (%d match, none visible)", st.Locator, withText, timeout, v.Count)
		}
		return false, fail(gardener.ErrAssertionFailed, "%s%s is still visible after %s (shows %s)", st.Locator, withText, timeout, quoteList(texts, 3))
	})
}

func describeVisibility(v *visibility, shown int) string {
	if v.Count == 0 {
		return "no match"
	}
	return fmt.Sprintf("%d match, %d visible, %d shown: %s", v.Count, v.Visible, shown, quoteList(v.Texts, 3))
}

func quoteList(items []string, n int) string {
	if len(items) == 0 {
		return "nothing"
	}
	out := make([]string, 0, n)
	for i, it := range items {
		if i == n {
			out = append(out, fmt.Sprintf("and %d more", len(items)-n))
			break
		}
		out = append(out, gardener.QuoteBounded(it))
	}
	return strings.Join(out, ", ")
}

// assertLive checks for a toast or modal. A modal is a state: one on the page now counts. A
// toast is an event: only a status message (role=status or alert, an aria-live region) that
// appeared since the last action began counts, even one that came and went while the action
// settled; text that was on the page before the step, or sits in an element that is no status
// message, is not the toast the step should have shown.
func (r *run) assertLive(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	kind, what := "toast", "toast"
	fn := "toasts"
	if st.Kind == gardener.AssertModal {
		kind, what, fn = "modal", "modal", "modals"
	}
	return retry(ctx, func(ctx context.Context) (bool, *failure) {
		var seen []string
		var err error
		switch {
		case !st.Locator.IsZero():
			err = r.s.call(ctx, &seen, fn+"In", locatorArg(st.Locator))
		case kind == "modal":
			err = r.s.call(ctx, &seen, fn)
		}
		if err != nil {
			if f := r.readFailure(ctx, err, st.Locator); f.kind != gardener.ErrAssertionFailed {
				return false, f
			}
		}
		if kind == "toast" {
			seen = r.liveSince(kind, seen, st.Locator.IsZero())
		} else if st.Locator.IsZero() {
			seen = append(seen, r.liveSince(kind, nil, true)...)
		}
		rec.Observed = strings.Join(seen, " | ")
		for _, t := range seen {
			if st.Text == "" || containsFold(t, st.Text) {
				rec.Observed = t
				return true, nil
			}
		}
		where := ""
		if !st.Locator.IsZero() {
			where = " in " + st.Locator.String()
		}
		if st.Text != "" {
			return false, fail(gardener.ErrAssertionFailed, "no %s%s with text %q appeared within %s (saw %s)", what, where, st.Text, timeout, quoteList(seen, 3))
		}
		return false, fail(gardener.ErrAssertionFailed, "no %s%s appeared within %s", what, where, timeout)
	})
}

// liveSince is what the page showed as kind since the last action began. With all, every such
// message counts; otherwise only those of shown (what a locator found) that one of them carried.
func (r *run) liveSince(kind string, shown []string, all bool) []string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	var out []string
	for _, e := range r.s.live {
		if e.kind != kind || e.seq <= r.window {
			continue
		}
		if all {
			if !slices.Contains(out, e.text) {
				out = append(out, e.text)
			}
			continue
		}
		for _, t := range shown {
			if (containsFold(e.text, t) || containsFold(t, e.text)) && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func (r *run) assertValidation(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	return retry(ctx, func(ctx context.Context) (bool, *failure) {
		var res targetResult
		if err := r.s.call(ctx, &res, "validation", locatorArg(st.Locator)); err != nil {
			return false, r.readFailure(ctx, err, st.Locator)
		}
		if res.State != "ok" && res.State != "ok-hidden" {
			return false, targetFailure(st.Locator, res, timeout)
		}
		rec.Observed = strings.Join(res.Msgs, " | ")
		if !res.Invalid && len(res.Msgs) == 0 {
			return false, fail(gardener.ErrAssertionFailed, "%s shows no validation error after %s", st.Locator, timeout)
		}
		if st.Text == "" {
			return true, nil
		}
		for _, m := range res.Msgs {
			if containsFold(m, st.Text) {
				rec.Observed = m
				return true, nil
			}
		}
		return false, fail(gardener.ErrAssertionFailed, "%s shows no validation error with text %q after %s (it shows %s)", st.Locator, st.Text, timeout, quoteList(res.Msgs, 3))
	})
}

func (r *run) assertConsole(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	re, err := regexp.Compile(st.Pattern)
	if err != nil {
		return fail(gardener.ErrBadStep, "pattern: %v", err)
	}
	find := func() (string, bool) {
		r.s.mu.Lock()
		defer r.s.mu.Unlock()
		for _, m := range r.s.console {
			if m.Level == st.Level && re.MatchString(m.Text) {
				return m.Text, true
			}
		}
		return "", false
	}
	if st.Expect == gardener.ExpectNoMatch {
		if f := r.parsed(ctx, timeout); f != nil {
			return f
		}
		if text, found := find(); found {
			rec.Observed = text
			return fail(gardener.ErrAssertionFailed, "the console has a %s message matching %q: %s", st.Level, st.Pattern, gardener.QuoteBounded(text))
		}
		return nil
	}
	return retry(ctx, func(ctx context.Context) (bool, *failure) {
		if text, found := find(); found {
			rec.Observed = text
			return true, nil
		}
		return false, fail(gardener.ErrAssertionFailed, "no %s message matching %q in the console after %s", st.Level, st.Pattern, timeout)
	})
}

func (r *run) assertRequest(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	re, err := regexp.Compile(st.URLPattern)
	if err != nil {
		return fail(gardener.ErrBadStep, "urlPattern: %v", err)
	}
	return retry(ctx, func(ctx context.Context) (bool, *failure) {
		r.s.mu.Lock()
		var near []string
		var hit *gardener.Request
		for i := range r.s.requests {
			q := r.s.requests[i]
			if q.Method != st.Method || !re.MatchString(q.URL) {
				continue
			}
			if st.Status == 0 || q.Status == st.Status {
				hit = &q
				break
			}
			near = append(near, fmt.Sprintf("%s %s → %s", q.Method, q.URL, statusText(q)))
		}
		r.s.mu.Unlock()
		if hit != nil {
			rec.Observed = fmt.Sprintf("%s %s → %s", hit.Method, hit.URL, statusText(*hit))
			return true, nil
		}
		rec.Observed = strings.Join(near, " | ")
		want := ""
		if st.Status != 0 {
			want = fmt.Sprintf(" answered %d", st.Status)
		}
		if len(near) > 0 {
			return false, fail(gardener.ErrAssertionFailed, "no %s request matching %q%s within %s (saw %s)", st.Method, st.URLPattern, want, timeout, strings.Join(near, "; "))
		}
		return false, fail(gardener.ErrAssertionFailed, "no %s request matching %q%s within %s", st.Method, st.URLPattern, want, timeout)
	})
}

func statusText(q gardener.Request) string {
	if q.Failed != "" {
		return "failed: " + q.Failed
	}
	if q.Status == 0 {
		return "pending"
	}
	return strconv.Itoa(q.Status)
}

// axeViolation is one axe-core rule violation, reduced to what a run records.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Nodes  int    `json:"nodes"`
}

func (r *run) audit(ctx context.Context, st gardener.Step, rec *gardener.StepRecord, timeout limit) *failure {
	if f := r.parsed(ctx, timeout); f != nil {
		return f
	}
	present, err := r.s.eval(ctx, `typeof window.axe === "object" ? "yes" : ""`, false)
	if err != nil {
		return r.readFailure(ctx, err, st.Scope)
	}
	if present == "" {
		if _, err := r.s.eval(ctx, axeJS+";''", false); err != nil {
			return r.commandFailure(ctx, "loading axe-core", err)
		}
	}
	scope := "document"
	if !st.Scope.IsZero() {
		if _, f := r.read(ctx, st.Scope, "text", "", limit{d: r.timeout}, rec); f != nil {
			return f
		}
		scope = "window.__dg.chosen()"
	}
	opts := map[string]any{"resultTypes": []string{"violations"}}
	if len(st.Rules) > 0 {
		opts["runOnly"] = map[string]any{"type": "rule", "values": st.Rules}
	}
	optJSON, _ := json.Marshal(opts)
	expr := fmt.Sprintf(`(async () => { const r = await axe.run(%s, %s); return JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact || "minor", nodes: v.nodes.length}))); })()`, scope, optJSON)
	out, err := r.s.eval(ctx, expr, true)
	if err != nil {
		var je *jsError
		if errors.As(err, &je) {
			// axe refuses options it does not know, an unknown rule id above all.
			return fail(gardener.ErrBadStep, "axe-core refused the audit: %s", je.msg)
		}
		return r.callFailure(st.Scope, err)
	}
	var vs []axeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		return fail(gardener.ErrBadStep, "reading the audit result: %v", err)
	}
	parts := make([]string, 0, len(vs))
	var failing []string
	for _, v := range vs {
		p := fmt.Sprintf("%s (%s) ×%d", v.ID, v.Impact, v.Nodes)
		parts = append(parts, p)
		if !st.ReportOnly && gardener.ImpactRank(v.Impact) >= gardener.ImpactRank(st.Threshold) {
			failing = append(failing, p)
		}
	}
	rec.Observed = "no violations"
	if len(parts) > 0 {
		rec.Observed = strings.Join(parts, "; ")
	}
	if len(failing) > 0 {
		return fail(gardener.ErrAssertionFailed, "%s at or above %s: %s", gardener.Plural(len(failing), "accessibility violation", "accessibility violations"), st.Threshold, strings.Join(failing, "; "))
	}
	return nil
}

// parsed waits until the parser has reached the end of the document. A check that passes for
// what is absent (no console error, no audit violation) proves nothing on a page whose body is
// still arriving behind a script in its head.
func (r *run) parsed(ctx context.Context, timeout limit) *failure {
	err := r.s.untilReady(ctx, func(state string) bool { return state != "loading" })
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fail(gardener.ErrAssertionFailed, "the page was still loading after %s", timeout)
	}
	return r.readFailure(ctx, err, gardener.Locator{})
}
