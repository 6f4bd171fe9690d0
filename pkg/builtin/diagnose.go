package builtin

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

// errorText is what pages say when the app, not the test, went wrong.
var errorText = regexp.MustCompile(`(?i)\b(something went wrong|internal server error|an error occurred|unexpected error|service unavailable|server error|bad gateway|failed to (load|save|submit)|invalid (credentials|email or password|username or password)|try again later)\b`)

// Diagnose classifies a failure from evidence, strongest first. Only what the run itself shows
// and the last green run did not counts: a server that answered 5xx, a network that failed,
// console errors, a check that read its element's value and found another, error text on the
// page, an element gone with nothing similar in its place (not one still there but hidden,
// which a move behind a menu leaves too). Any other failed check (a toast that
// never came, a wait for a page never reached) and a flow that ended on another page are what
// any failure before them produces, drift included (a form that now needs another field stays
// on its page): they are noted, but they alone never make an app bug. Without evidence the failure is taken as
// drift, and the drift rules are asked once more for a repair; with only such weak signs and no
// rule that fits, it is left unclassified for a person.
func (e Engine) Diagnose(ctx context.Context, ask gardener.DiagnoseAsk) (gardener.Diagnosis, error) {
	d := gardener.Diagnosis{Usage: usage()}
	r := ask.Result
	add := func(c gardener.Classification, format string, args ...any) {
		if d.Classification == "" {
			d.Classification = c
		}
		d.Evidence = append(d.Evidence, fmt.Sprintf(format, args...))
	}
	var weak []string
	switch r.ErrorKind {
	case gardener.ErrBrowserCrash:
		add(gardener.Environment, "the browser crashed: %s", r.Message)
	case gardener.ErrRuntime:
		add(gardener.Environment, "the gardener's page runtime failed on this page, not the test or the app: %s", r.Message)
	case gardener.ErrNavigation:
		add(gardener.Environment, "navigation failed: %s", r.Message)
	case gardener.ErrNavigationBlocked:
		add(gardener.Environment, "navigation left the allowed origins: %s", r.Message)
	}
	if r.Cause == gardener.CauseBrowserSlow {
		add(gardener.Environment, "the browser itself did not answer in time, whatever the page showed: %s", r.Message)
	}
	known := failedRequests(ask.LastGreen)
	for _, rq := range r.Requests {
		if known[requestKey(rq)] {
			continue // the last green run had the same failure: it is how the app always is
		}
		switch {
		case rq.Status >= 500:
			add(gardener.AppBug, "the server answered %d to %s %s", rq.Status, rq.Method, pathOf(rq.URL))
		case rq.Failed != "" && !aborted(rq.Failed):
			add(gardener.Environment, "%s %s failed on the network: %s", rq.Method, pathOf(rq.URL), rq.Failed)
		}
	}
	for _, m := range newConsoleErrors(r.Console, ask.LastGreen) {
		add(gardener.AppBug, "a console error the last green run did not have: %s", ask.Typed().Quote(m))
	}
	if r.ErrorKind == gardener.ErrAssertionFailed && r.FailedIndex >= 0 && r.FailedIndex < len(ask.Test.Steps) {
		s := failedStep(ask.Test, r.FailedStep)
		switch {
		case !s.IsCheck():
		case readValue(s, r, r.FailedStep):
			add(gardener.AppBug, "step %s (%s) found what it checks and it was not what the test expects: %s", r.FailedStep, s.Redacted(), r.Message)
		default:
			weak = append(weak, fmt.Sprintf("step %s (%s) failed: %s", r.FailedStep, s.Redacted(), r.Message))
		}
	}
	if was, now := greenURL(ask.LastGreen, r.FailedStep), pathOf(ask.PageURL); was != "" && now != "" && was != now {
		weak = append(weak, fmt.Sprintf("the flow is on %s at step %s, where the last green run was on %s", now, r.FailedStep, was))
	}
	if m := errorText.FindString(ask.PageText); m != "" {
		add(gardener.AppBug, "the page says %s", ask.Typed().Quote(m))
	}
	var renamed *gardener.Op
	if r.ErrorKind == gardener.ErrElementNotFound && r.FailedIndex >= 0 && r.FailedIndex < len(ask.Test.Steps) {
		s := failedStep(ask.Test, r.FailedStep)
		rec := ask.LastGreen.Element(r.FailedStep)
		target, _ := targetOf(s, rec)
		page := similo.NewPage(ask.Snapshot)
		renamedWhy := ""
		if rec != nil {
			_, renamedWhy, _ = rowRenamed(page, target, ask.Typed())
		}
		switch m := e.Locate.LocateOn(page, target); {
		case optionGone(ask, s):
			// The select is there and no longer offers what the last green run picked: the
			// option is gone as an element is, whatever the others look like.
			add(gardener.AppBug, "the select of step %s (%s) no longer offers the option the last green run picked", r.FailedStep, s.Target())
		case rec != nil && choiceGone(ask.Snapshot, *rec):
			// A sibling of the group (the 14:00 slot) looks like the recorded choice (the
			// 10:30 one) to the similarity of all features, yet it is another choice.
			add(gardener.AppBug, "the choice of the group %s that step %s (%s) picked on the last green run is no longer offered", ask.Typed().Quote(rec.Name), r.FailedStep, s.Target())
		case !m.Abstained():
		case r.Cause == gardener.CauseHidden:
			// The snapshot lists visible elements only; the locator still matched one that
			// is not. A redesign that moved it behind a menu and a defect that stopped
			// showing it look alike here.
			weak = append(weak, fmt.Sprintf("the element of step %s (%s) is still on the page but hidden: behind a control that shows it (a menu, a tab) or not shown by a defect", r.FailedStep, s.Target()))
		case renamedWhy != "":
			// The recorded row still has a control at the recorded place with its entity's
			// words: a renamed row action, which is drift, not a control gone.
			weak = append(weak, fmt.Sprintf("the element of step %s (%s) is not found by its words, but %s", r.FailedStep, s.Target(), renamedWhy))
		case rec != nil:
			add(gardener.AppBug, "%s", e.goneText(ask, r.FailedStep, s.Target(), m))
		default:
			// No green run recorded the element: the locator's words are all there is to go
			// on. An element that still answers to them is drift (the locator rung's answer
			// is the repair); one that does not is gone only as far as a locator can tell,
			// which alone is no evidence of a bug.
			switch op := e.renameOp(ctx, ask, s); {
			case op != nil:
				d.Evidence = append(d.Evidence, namedBy(ask.Snapshot, s).say(ask.Snapshot, r.FailedStep, s.Target(), ask.Typed()))
				renamed = op
			case !s.IsAction():
				weak = append(weak, fmt.Sprintf("nothing on the page matches the locator of step %s (%s), and no green run recorded what it checked: its absence alone is no evidence of a bug", r.FailedStep, s.Target()))
			default:
				weak = append(weak, namedBy(ask.Snapshot, s).say(ask.Snapshot, r.FailedStep, s.Target(), ask.Typed())+
					": no green run recorded what the element was, so its absence alone is no evidence of a bug")
			}
		}
	}
	if renamed != nil && d.Classification == "" {
		d.Classification = gardener.TestDrift
		d.Evidence = append(d.Evidence, weak...)
		d.Ops = []gardener.Op{*renamed}
		return d, nil
	}
	if d.Classification != "" {
		d.Evidence = append(d.Evidence, weak...)
		return d, nil
	}
	ops, err := e.SuggestOps(ctx, gardener.OpsAsk(ask))
	if err != nil {
		return d, err
	}
	d.Evidence = append(d.Evidence, weak...)
	switch {
	case len(ops.Ops) > 0:
		d.Classification = gardener.TestDrift
		d.Evidence = append(d.Evidence, "no server, network, console or page evidence of a defect: the failure looks like drift ("+ops.Reason+")")
		d.Ops = ops.Ops
	case len(weak) > 0:
		d.Classification = gardener.Unknown
		d.Evidence = append(d.Evidence, "no server, network, console or page evidence of a defect, and no drift rule explains the failure: a person must look")
	default:
		d.Classification = gardener.TestDrift
		d.Evidence = append(d.Evidence, "no server, network, console or page evidence of a defect: the failure looks like drift")
	}
	return d, nil
}

// renameOp is the replacement of failing step s (a top-level step) by the same step under the
// locator the locator rung finds for it, or nil.
func (e Engine) renameOp(ctx context.Context, ask gardener.DiagnoseAsk, s gardener.Step) *gardener.Op {
	if strings.Contains(ask.Result.FailedStep, ".") || !s.IsAction() {
		return nil
	}
	ans, err := e.FixLocator(ctx, gardener.LocatorAsk{Failure: ask.Failure, Index: ask.Result.FailedIndex, Inner: -1, Step: s})
	if err != nil || ans.Locator.IsZero() {
		return nil
	}
	fixed := s.Clone()
	fixed.Locator = ans.Locator
	return &gardener.Op{Kind: gardener.OpReplace, Index: ask.Result.FailedIndex, Step: &fixed}
}

// readValue reports whether the failing check s read the value it compares from its element (a
// text, a field's value, a variable) and found another: the one failed check that says what the
// app shows is wrong. Every other failed check is what a flow stopped short produces, drift
// included: a wait or a URL or title check says only that the flow is elsewhere; a presence check
// that found nothing visible, a toast, dialog or validation message other than the expected
// one, a request answered with another status (a form that now needs another field is refused
// with a message and a 4xx) are all what a newly required field brings too.
func readValue(s gardener.Step, r gardener.RunResult, path string) bool {
	if s.Kind != gardener.Assert || s.Subject == gardener.SubjectURL || s.Subject == gardener.SubjectTitle {
		return false
	}
	for _, st := range r.Steps {
		if st.Path == path {
			return st.Element != nil || st.Observed != ""
		}
	}
	return false
}

// failedRequests are the requests that failed on the last green run, by requestKey.
func failedRequests(lg *gardener.RunResult) map[string]bool {
	known := map[string]bool{}
	if lg == nil {
		return known
	}
	for _, rq := range lg.Requests {
		if rq.Status >= 500 || rq.Failed != "" {
			known[requestKey(rq)] = true
		}
	}
	for _, st := range lg.Steps {
		for _, rq := range st.Requests {
			if rq.Status >= 500 || rq.Failed != "" {
				known[requestKey(rq)] = true
			}
		}
	}
	return known
}

// requestKey names a failed request by method, host and path, and how it failed: the query
// (a cache buster, a timestamp) changes from run to run.
func requestKey(rq gardener.Request) string {
	how := rq.Failed
	if rq.Status >= 500 {
		how = "5xx"
	}
	host := ""
	if u, err := url.Parse(rq.URL); err == nil {
		host = u.Host
	}
	return rq.Method + " " + host + pathOf(rq.URL) + " " + how
}

// failedStep finds the step at a path such as "4" or "3.2".
func failedStep(t gardener.Test, path string) gardener.Step {
	top, inner, _ := strings.Cut(path, ".")
	var i int
	fmt.Sscan(top, &i)
	if i < 1 || i > len(t.Steps) {
		return gardener.Step{}
	}
	s := t.Steps[i-1]
	if inner != "" && s.Kind == gardener.Intent {
		var j int
		fmt.Sscan(inner, &j)
		if j >= 1 && j <= len(s.Steps) {
			return s.Steps[j-1]
		}
	}
	return s
}

// aborted is a request the page itself cancelled (a navigation away), not a network failure.
func aborted(reason string) bool {
	return strings.Contains(reason, "ERR_ABORTED") || strings.Contains(strings.ToLower(reason), "cancel")
}

func newConsoleErrors(now []gardener.ConsoleMessage, lg *gardener.RunResult) []string {
	seen := map[string]bool{}
	if lg != nil {
		for _, m := range lg.Console {
			if m.Level == "error" {
				seen[m.Text] = true
			}
		}
	}
	var out []string
	for _, m := range now {
		if m.Level == "error" && !seen[m.Text] {
			seen[m.Text] = true
			out = append(out, m.Text)
		}
	}
	return out
}

// greenURL is the path the last green run was on when it reached the step.
func greenURL(lg *gardener.RunResult, path string) string {
	if lg == nil {
		return ""
	}
	for _, r := range lg.Steps {
		if r.Path == path {
			return pathOf(r.URLBefore)
		}
	}
	return ""
}

func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Path
}

// optionGone reports whether the failing step is a select whose select was found and no longer
// offers the option value the last green run picked with it.
func optionGone(ask gardener.DiagnoseAsk, s gardener.Step) bool {
	if s.Kind != gardener.Select || ask.LastGreen == nil {
		return false
	}
	found := ask.Result.Element(ask.Result.FailedStep)
	if found == nil || !strings.EqualFold(found.Tag, "SELECT") {
		return false
	}
	for _, g := range ask.LastGreen.Steps {
		if g.Path == ask.Result.FailedStep && g.Passed && len(g.Values) > 0 {
			return !slices.Contains(found.Options, g.Values[0])
		}
	}
	return false
}

// choiceGone reports whether the recorded element was a radio button or checkbox with a name
// and a value, the page still shows its group, and no box of the group has the value.
func choiceGone(snap []gardener.Fingerprint, rec gardener.Fingerprint) bool {
	kind := strings.ToLower(rec.Type)
	if kind != "radio" && kind != "checkbox" || rec.Name == "" || rec.Value == "" || rec.Value == "on" {
		return false
	}
	sibling := false
	for _, c := range snap {
		if strings.EqualFold(c.Tag, rec.Tag) && strings.ToLower(c.Type) == kind && c.Name == rec.Name {
			if c.Value == rec.Value {
				return false
			}
			sibling = true
		}
	}
	return sibling
}

// goneText says that the element of the failing step at path is gone. When the locate engine's
// best candidate came near (at least half the confidence a match needs), "nothing similar" would
// hide what a person most wants to check, so the text names that candidate, as the page shows
// it and never by a value the test types (gardener.Typed), with its confidence and why it was
// not taken. The verdict is the caller's and does not change.
func (e Engine) goneText(ask gardener.DiagnoseAsk, path string, target gardener.Locator, m similo.Match) string {
	thr := e.Locate.Threshold
	if thr == 0 {
		thr = similo.ShippingThreshold
	}
	if m.Best < 0 || m.Best >= len(ask.Snapshot) || thr <= 0 || m.Confidence < thr/2 {
		return fmt.Sprintf("the element of step %s (%s) is gone with nothing similar on the page", path, target)
	}
	c := describeMasked(ask.Snapshot[m.Best], ask.Typed())
	if m.Confidence < thr {
		return fmt.Sprintf("the element of step %s (%s) is gone: the closest element on the page, %s, has a confidence of %.2f, under the %.2f a match needs, so it is not close enough to be taken for it", path, target, c, m.Confidence, thr)
	}
	return fmt.Sprintf("the element of step %s (%s) is gone as far as the locate engine can tell: the closest element on the page, %s (confidence %.2f), is not told apart from another like it", path, target, c, m.Confidence)
}

// describeMasked is describe leaving out every name that holds a value the test types
// (gardener.Typed): text for people never shows such a value.
func describeMasked(c gardener.Fingerprint, typed gardener.Typed) string {
	for _, f := range []*string{&c.Label, &c.AccessibleName, &c.ID, &c.Name, &c.Placeholder, &c.TestID} {
		if typed.In(*f) {
			*f = ""
		}
	}
	return describe(c)
}
