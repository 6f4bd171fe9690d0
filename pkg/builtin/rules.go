package builtin

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

// SuggestOps applies the drift rules in turn and answers with the first that fits: dismiss a
// newly blocking banner or modal, fill a newly required field, open the collapsed menu or
// disclosure the step's element may have moved into, or drop a non-check step whose element is
// gone. Each answer is only a candidate; the green gate decides.
func (e Engine) SuggestOps(_ context.Context, ask gardener.OpsAsk) (gardener.OpsAnswer, error) {
	out := gardener.OpsAnswer{Usage: usage()}
	fi := ask.Result.FailedIndex
	if fi < 0 || fi >= len(ask.Test.Steps) {
		out.Reason = "the failure names no step of the test"
		return out, nil
	}
	if ask.Result.ErrorKind == gardener.ErrRuntime {
		out.Reason = "the gardener's page runtime failed, not the test: no drift rule applies"
		return out, nil
	}
	page := similo.NewPage(ask.Snapshot)
	for _, rule := range []func(*similo.Page, gardener.OpsAsk) ([]gardener.Op, string){dismissOverlay, fillRequired, pickRecordedOption, waitLonger, openCollapsed, dropGoneStep} {
		if ops, why := rule(page, ask); len(ops) > 0 {
			out.Ops, out.Reason = ops, why
			return out, nil
		}
	}
	out.Reason = "no drift rule fits this failure"
	return out, nil
}

// dismissOverlay inserts a click on a dismiss button before the failing step, when the page
// shows one inside a dialog or banner, or inside whatever the run says covers the step's
// element, that the test does not click there already. A failing step inside an intent block
// gets the click inside the block, just before it: a click before the block would come before
// the block's own navigation, on a page the overlay is not on yet.
func dismissOverlay(page *similo.Page, ask gardener.OpsAsk) ([]gardener.Op, string) {
	if !actionFailed(ask) {
		return nil, ""
	}
	fi := ask.Result.FailedIndex
	inner := -1
	if strings.Contains(ask.Result.FailedStep, ".") {
		if inner = innerIndex(ask.Result.FailedStep); inner < 0 || ask.Test.Steps[fi].Kind != gardener.Intent || inner >= len(ask.Test.Steps[fi].Steps) {
			return nil, ""
		}
	}
	cover := ask.Result.CoveredBy
	for i, c := range ask.Snapshot {
		if c.Inert || !clickable(c) || !gardener.DismissWords.MatchString(c.Shown()) || !inOverlay(c) && !under(c, cover) {
			continue
		}
		locs := page.Locators(i)
		if len(locs) == 0 {
			continue
		}
		l, err := gardener.ParseLocator(locs[0])
		if err != nil {
			continue
		}
		step := gardener.Step{Kind: gardener.Click, Locator: l}
		// A dismissal the test makes on an earlier page does not stop another here: overlays
		// that return on every page load are common. One the test makes just before the
		// failing step, or later, does: dismissing twice in a row changes nothing.
		if inner < 0 {
			if usesLocator(ask.Test.Steps[max(fi-1, 0):], l) {
				continue
			}
			ops := []gardener.Op{{Kind: gardener.OpInsert, Index: fi, Step: &step}}
			why := fmt.Sprintf("a banner or dialog now stands in the way: dismiss it with %s before step %d", l, fi+1)
			if usesLocator(ask.Test.Steps[:max(fi-1, 0)], l) {
				// The test dismisses it on an earlier page and it is back: it returns with
				// every page load. The first action on each page the last green run loaded
				// after this one gets the dismissal too, so one proof covers every page
				// instead of one proof for each (a page it does not return on fails that
				// proof at its dismissal, which the ladder then drops).
				var at []string
				for _, j := range firstActionsAfterLoads(ask, fi) {
					again := step
					ops = append(ops, gardener.Op{Kind: gardener.OpInsert, Index: j, Step: &again})
					at = append(at, strconv.Itoa(j+1))
				}
				if len(at) > 0 {
					why += fmt.Sprintf(", and before step %s: it came back after the dismissal on an earlier page, and the last green run loaded a page before each", strings.Join(at, ", "))
				}
			}
			return ops, why
		}
		block := ask.Test.Steps[fi].Clone()
		if usesLocator(block.Steps[max(inner-1, 0):], l) {
			continue
		}
		block.Steps = append(block.Steps[:inner:inner], append([]gardener.Step{step}, block.Steps[inner:]...)...)
		return []gardener.Op{{Kind: gardener.OpReplace, Index: fi, Step: &block}},
			fmt.Sprintf("a banner or dialog now stands in the way: dismiss it with %s before step %s", l, ask.Result.FailedStep)
	}
	return nil, ""
}

// firstActionsAfterLoads lists the top-level steps after step fi that act first on a page the
// test's last green run loaded: the step after a goto, or after a step during which the page's
// own document was requested again (a link followed, a form posted), skipping the checks in
// between, which read the page through an overlay. It stops at an intent block, whose steps
// the green run numbers apart. Without a green run it knows of no page loads but gotos.
func firstActionsAfterLoads(ask gardener.OpsAsk, fi int) []int {
	records := map[string]gardener.StepRecord{}
	if ask.LastGreen != nil {
		for _, r := range ask.LastGreen.Steps {
			records[r.Path] = r
		}
	}
	var out []int
	loaded := false
	for j := fi + 1; j < len(ask.Test.Steps); j++ {
		prev, st := ask.Test.Steps[j-1], ask.Test.Steps[j]
		if prev.Kind == gardener.Goto || loadedPage(records[strconv.Itoa(j)]) {
			loaded = true
		}
		if st.Kind == gardener.Intent {
			break
		}
		if !loaded || !st.IsAction() || st.Kind == gardener.Goto || st.Target().IsZero() {
			continue
		}
		loaded = false
		out = append(out, j)
	}
	return out
}

// loadedPage reports whether the page a step left was a document loaded during the step: its
// requests include the URL it ended on. A route an app changes without a load (history.pushState)
// has no such request.
func loadedPage(r gardener.StepRecord) bool {
	if r.URLAfter == "" {
		return false
	}
	end, _, _ := strings.Cut(r.URLAfter, "#")
	for _, q := range r.Requests {
		if u, _, _ := strings.Cut(q.URL, "#"); u == end {
			return true
		}
	}
	return false
}

// fillRequired inserts a fill for a form field the app now flags as required or invalid and the
// test never fills, before the click or key press that submitted the form: the last one before
// the failing step, inside an intent block when that is where it is (the block then gets the
// fills inside it, just before the submit).
func fillRequired(page *similo.Page, ask gardener.OpsAsk) ([]gardener.Op, string) {
	steps := ask.Test.Steps
	top, inner := submitBefore(steps, ask.Result.FailedIndex, ask.Result.FailedStep)
	if top < 0 {
		return nil, ""
	}
	var fills []gardener.Step
	var names []string
	groups := map[string]bool{} // radio groups already given a choice
	for i, c := range ask.Snapshot {
		if c.Inert || !formControl(c) || !flaggedRequired(c) {
			continue
		}
		if strings.EqualFold(c.Type, "radio") {
			// One choice answers the whole group: the first of its buttons.
			group := c.Frame + "\x00" + c.FormID + "\x00" + c.Name
			if c.Name != "" && groups[group] {
				continue
			}
			groups[group] = true
		}
		locs := page.Locators(i)
		if len(locs) == 0 {
			continue
		}
		l, err := gardener.ParseLocator(locs[0])
		if err != nil || fillsField(steps, c, l) {
			continue
		}
		kind, value := valueFor(c)
		if kind == "" {
			continue
		}
		fills = append(fills, gardener.Step{Kind: kind, Locator: l, Value: value})
		names = append(names, l.String())
	}
	if len(fills) == 0 {
		return nil, ""
	}
	if inner >= 0 {
		block := steps[top].Clone()
		block.Steps = append(append(block.Steps[:inner:inner], fills...), block.Steps[inner:]...)
		return []gardener.Op{{Kind: gardener.OpReplace, Index: top, Step: &block}},
			fmt.Sprintf("the form now requires %s: fill before step %d.%d submits it", strings.Join(names, ", "), top+1, inner+1)
	}
	ops := make([]gardener.Op, len(fills))
	for k := range fills {
		ops[k] = gardener.Op{Kind: gardener.OpInsert, Index: top, Step: &fills[k]}
	}
	return ops, fmt.Sprintf("the form now requires %s: fill before step %d submits it", strings.Join(names, ", "), top+1)
}

// submitBefore finds the last click or key press at or before the failing step: its top-level
// index, and its index inside the intent block it is in (-1: not in a block). The failing step
// itself counts (a submit the form refuses fails its own wait), and so does a block before it
// whose last submit it is. -1, -1 when there is none.
func submitBefore(steps []gardener.Step, fi int, failed string) (int, int) {
	submits := func(s gardener.Step) bool { return s.Kind == gardener.Click || s.Kind == gardener.Press }
	for k := min(fi, len(steps)-1); k >= 0; k-- {
		s := steps[k]
		if s.Kind != gardener.Intent {
			if submits(s) {
				return k, -1
			}
			continue
		}
		last := len(s.Steps) - 1
		if k == fi {
			if n := innerIndex(failed); n >= 0 {
				last = min(n, last)
			}
		}
		for j := last; j >= 0; j-- {
			if submits(s.Steps[j]) {
				return k, j
			}
		}
	}
	return -1, -1
}

// waitLonger gives a step that found nothing more time when the page still showed a busy
// indicator (a progress bar, an aria-busy region) as it failed: the content is late, not gone.
// The step keeps what it does and checks; only its time limit grows, to four times what it
// waited (at least 10 s, at most a minute). The proof shows whether the content comes.
func waitLonger(_ *similo.Page, ask gardener.OpsAsk) ([]gardener.Op, string) {
	fi := ask.Result.FailedIndex
	s := ask.Test.Steps[fi]
	if s.Kind == gardener.Intent || s.Target().IsZero() || strings.Contains(ask.Result.FailedStep, ".") {
		return nil, ""
	}
	if ask.Result.ErrorKind != gardener.ErrElementNotFound && ask.Result.ErrorKind != gardener.ErrTimeout {
		return nil, ""
	}
	busy := ""
	for _, c := range ask.Snapshot {
		if c.Role == "progressbar" || c.ARIA["aria-busy"] == "true" {
			busy = cmp.Or(c.AccessibleName, c.Role)
			break
		}
	}
	if busy == "" {
		return nil, ""
	}
	var waited int64
	for _, r := range ask.Result.Steps {
		if r.Path == ask.Result.FailedStep {
			waited = r.Millis
		}
	}
	limit := min(max(4*waited, 10_000), 60_000)
	if int64(s.TimeoutMs) >= limit {
		return nil, ""
	}
	longer := s.Clone()
	longer.TimeoutMs = int(limit)
	return []gardener.Op{{Kind: gardener.OpReplace, Index: fi, Step: &longer}},
		fmt.Sprintf("the page was still busy (%s) when step %d gave up after %.1fs: give it %ds", busy, fi+1, float64(waited)/1000, limit/1000)
}

// pickRecordedOption picks, in a select whose option the step names by its label and finds no
// more, the option the last green run picked, by the value the form sends for it, when the
// select still offers that value: an option relabelled ("Cardiology" became "Heart
// (Cardiology)") is the same choice. A step that named the option by its value, or a select
// that no longer offers the value, is left alone: that option is gone.
func pickRecordedOption(_ *similo.Page, ask gardener.OpsAsk) ([]gardener.Op, string) {
	fi := ask.Result.FailedIndex
	s := ask.Test.Steps[fi]
	if s.Kind != gardener.Select || ask.Result.ErrorKind != gardener.ErrElementNotFound || strings.Contains(ask.Result.FailedStep, ".") || ask.LastGreen == nil {
		return nil, ""
	}
	found := ask.Result.Element(ask.Result.FailedStep)
	if found == nil || !strings.EqualFold(found.Tag, "SELECT") {
		return nil, ""
	}
	var picked string
	for _, r := range ask.LastGreen.Steps {
		if r.Path == ask.Result.FailedStep && r.Passed && len(r.Values) > 0 {
			picked = r.Values[0]
		}
	}
	if picked == "" || picked == s.Value || !slices.Contains(found.Options, picked) {
		return nil, ""
	}
	by := s.Clone()
	by.Value = picked
	return []gardener.Op{{Kind: gardener.OpReplace, Index: fi, Step: &by}},
		fmt.Sprintf("step %d's select no longer offers an option labelled as the step says, and still offers the option the last green run picked: pick it by its value", fi+1)
}

// dropGoneStep deletes a failing click, hover or key press whose element has no similar
// candidate left on the page: the proof shows whether the flow still reaches the next step.
// Checks are never dropped (the floor would refuse anyway), nor steps that enter a value.
func dropGoneStep(page *similo.Page, ask gardener.OpsAsk) ([]gardener.Op, string) {
	fi := ask.Result.FailedIndex
	s := ask.Test.Steps[fi]
	switch s.Kind {
	case gardener.Click, gardener.Hover, gardener.Press:
	case gardener.Wait:
		if s.For != gardener.WaitElement {
			return nil, ""
		}
	default:
		return nil, ""
	}
	if ask.Result.ErrorKind != gardener.ErrElementNotFound && ask.Result.ErrorKind != gardener.ErrTimeout {
		return nil, ""
	}
	if strings.Contains(ask.Result.FailedStep, ".") {
		return nil, ""
	}
	if !actsWithout(ask.Test.Steps, fi) {
		return nil, ""
	}
	rec := ask.LastGreen.Element(ask.Result.FailedStep)
	if rec != nil && rec.Modal && !modalOpen(ask.Snapshot) {
		// The element sat in a modal dialog and no dialog is open: the step before did not open
		// it (a button that now does nothing), which dropping this step would hide.
		return nil, ""
	}
	target, _ := targetOf(s, rec)
	if m := (similo.Engine{}).LocateOn(page, target); !m.Abstained() && otherStepsElement(page, ask.Snapshot, ask.LastGreen, rec, m.Index) == "" {
		return nil, ""
	}
	return []gardener.Op{{Kind: gardener.OpDelete, Index: fi}},
		fmt.Sprintf("the element of step %d (%s) is gone with nothing similar in its place: try the flow without it", fi+1, s.Redacted())
}

// modalOpen reports whether the page shows an open modal dialog.
func modalOpen(snap []gardener.Fingerprint) bool {
	for _, c := range snap {
		if c.Modal {
			return true
		}
	}
	return false
}

// actsWithout reports whether the test still does something on the page of step i without it:
// another action after the last navigation before it and before the next check after it. A
// test whose every action on a page is gone checks only the page as it loads; the proof would
// show that the checks still pass, not that the flow still works (a row whose Delete is gone,
// then the Cancel of the dialog it no longer opens).
func actsWithout(steps []gardener.Step, i int) bool {
	from := 0
	for k := i - 1; k >= 0; k-- {
		if steps[k].Kind == gardener.Goto {
			from = k + 1
			break
		}
	}
	for k := from; k < len(steps); k++ {
		s := steps[k]
		if k > i && s.IsCheck() {
			break
		}
		if k != i && s.Kind != gardener.Goto && (s.IsAction() || s.Kind == gardener.Intent) {
			return true
		}
	}
	return false
}

// menuWords are what the toggles of overflow menus and collapsed sections say.
var menuWords = regexp.MustCompile(`(?i)^\s*(more( actions| options)?|actions|options|menu|tools|show more|expand|…|\.\.\.|⋯|⋮|☰)\s*$`)

// openCollapsed inserts a click on a collapsed menu or disclosure toggle before a failing action
// whose element the page does not show: controls move into overflow menus ("More", "⋯") and
// closed sections, where they exist but cannot be seen until the toggle is opened. The proof
// shows whether the element is back; when the locator changed on the way, its failure goes to
// the locator rung on the opened page.
//
// Which toggle: the one that stands where the element stood (see menuFor). In a table or list
// whose rows each have their own menu, that is the menu of the element's own row: opening
// another row's would act on the wrong record. A toggle the test already clicks since it last
// went to a page is not clicked again (that would close it, or it opened and the element was
// not there).
func openCollapsed(page *similo.Page, ask gardener.OpsAsk) ([]gardener.Op, string) {
	if !actionFailed(ask) {
		return nil, ""
	}
	// The rules are asked only once no new locator made the step pass, so an element that
	// looks like the recorded one (the "Edit" left where "Archive" was) is no reason to skip.
	fi := ask.Result.FailedIndex
	// A failing step inside an intent block is the block's step: the click goes inside the
	// block, just before it, as a dismissal does (before the block it would come before the
	// block's own navigation).
	steps, inner := ask.Test.Steps, -1
	failing := ask.Test.Steps[fi]
	if strings.Contains(ask.Result.FailedStep, ".") {
		if inner = innerIndex(ask.Result.FailedStep); inner < 0 || failing.Kind != gardener.Intent || inner >= len(failing.Steps) {
			return nil, ""
		}
		steps, failing = failing.Steps, failing.Steps[inner]
	}
	var toggles []int
	for i, c := range ask.Snapshot {
		if !c.Inert && collapsedToggle(c) && len(page.Locators(i)) > 0 {
			toggles = append(toggles, i)
		}
	}
	target, _ := targetOf(failing, ask.LastGreen.Element(ask.Result.FailedStep))
	i, why := menuFor(ask.Snapshot, toggles, target, failing.Target())
	if i < 0 {
		return nil, ""
	}
	if ask.Typed().In(why) {
		why = " in the element's row" // the row's words hold what the test typed
	}
	locs := page.Locators(i)
	at := fi
	if inner >= 0 {
		at = inner
	}
	since := 0
	for k := at - 1; k >= 0; k-- {
		if steps[k].Kind == gardener.Goto {
			since = k
			break
		}
	}
	l, err := gardener.ParseLocator(locs[0])
	if err != nil || anyLocatorUsed(steps[since:at+1], locs) {
		return nil, ""
	}
	step := gardener.Step{Kind: gardener.Click, Locator: l}
	if inner < 0 {
		return []gardener.Op{{Kind: gardener.OpInsert, Index: fi, Step: &step}},
			fmt.Sprintf("the element of step %d is not on the page as it was and %s is a collapsed menu%s: open it before step %d", fi+1, l, why, fi+1)
	}
	block := ask.Test.Steps[fi].Clone()
	block.Steps = append(block.Steps[:inner:inner], append([]gardener.Step{step}, block.Steps[inner:]...)...)
	return []gardener.Op{{Kind: gardener.OpReplace, Index: fi, Step: &block}},
		fmt.Sprintf("the element of step %s is not on the page as it was and %s is a collapsed menu%s: open it before step %s", ask.Result.FailedStep, l, why, ask.Result.FailedStep)
}

// menuFor chooses among the toggles (indices into snap) the one whose menu the target element
// most likely moved into, or -1 with none to choose, and says why it chose it.
//
// When the target sat in a row of a table or list and toggles sit in rows, only a row's own
// toggle can hold it. The row is the one whose words hold the words the target's name adds to
// its text (the "Grace Hopper" of a "Delete" button named "Delete Grace Hopper"), or, when the
// name adds none, the row at the target's position. No such row — the record is gone — means
// no toggle: another row's menu would reach another record's action.
//
// Otherwise it is the toggle nearest the target in the document: the longest common path with
// the target's recorded path, then the nearest on screen.
func menuFor(snap []gardener.Fingerprint, toggles []int, target gardener.Fingerprint, loc gardener.Locator) (int, string) {
	if len(toggles) == 0 {
		return -1, ""
	}
	var inRows []int
	for _, i := range toggles {
		if rowOf(snap[i].XPath) != "" {
			inRows = append(inRows, i)
		}
	}
	if (rowOf(target.XPath) != "" || target.XPath == "") && len(inRows) > 0 {
		if i, why := rowMenu(snap, inRows, target, loc); i >= 0 || target.XPath != "" {
			return i, why
		}
		// With no recorded path the element may as well have been outside the rows.
		toggles = slices.DeleteFunc(slices.Clone(toggles), func(i int) bool { return rowOf(snap[i].XPath) != "" })
	}
	best, bestLen, bestDist := -1, -1, 0.0
	for _, i := range toggles {
		n := commonSegments(snap[i].XPath, target.XPath)
		d := distance(snap[i].Location, target.Location)
		if n > bestLen || n == bestLen && d < bestDist {
			best, bestLen, bestDist = i, n, d
		}
	}
	return best, ""
}

// rowMenu is menuFor among toggles that sit in rows.
func rowMenu(snap []gardener.Fingerprint, toggles []int, target gardener.Fingerprint, loc gardener.Locator) (int, string) {
	rowWords := map[string]map[string]bool{}
	for _, i := range toggles {
		rowWords[rowOf(snap[i].XPath)] = map[string]bool{}
	}
	for _, c := range snap {
		if r := rowOf(c.XPath); r != "" {
			if ws, ok := rowWords[r]; ok {
				for _, w := range append(words(strings.Join(c.VisibleText, " ")), words(c.AccessibleName)...) {
					ws[w] = true
				}
			}
		}
	}
	names := rowNameWords(target, loc)
	if target.XPath == "" {
		// The locator's words that no row shows (the action hidden in the menu) name no row.
		names = slices.DeleteFunc(names, func(w string) bool {
			for _, ws := range rowWords {
				if ws[w] {
					return false
				}
			}
			return true
		})
	}
	if len(names) > 0 {
		found := -1
		for _, i := range toggles {
			if holdsAll(rowWords[rowOf(snap[i].XPath)], names) {
				if found >= 0 && rowOf(snap[found].XPath) != rowOf(snap[i].XPath) {
					return -1, "" // two rows fit: no telling which record is meant
				}
				if found < 0 {
					found = i
				}
			}
		}
		if found < 0 {
			return -1, ""
		}
		return found, fmt.Sprintf(" in the row of %q", strings.Join(names, " "))
	}
	if target.XPath == "" {
		return -1, ""
	}
	for _, i := range toggles {
		if sameRowPosition(snap[i].XPath, target.XPath) {
			return i, " in the element's row"
		}
	}
	return -1, ""
}

// rowNameWords are the words that name the target's record: what its accessible name says
// beyond its visible text (the "Grace Hopper" of a "Delete" named "Delete Grace Hopper").
// Without a recorded element the locator's whole name counts: which of its words name the
// record cannot be told.
func rowNameWords(target gardener.Fingerprint, loc gardener.Locator) []string {
	name := target.AccessibleName
	if name == "" && loc.Kind == gardener.ByRole {
		name = loc.Name
	}
	if target.XPath == "" {
		return words(name)
	}
	shown := map[string]bool{}
	for _, w := range words(strings.Join(target.VisibleText, " ")) {
		shown[w] = true
	}
	var out []string
	for _, w := range words(name) {
		if !shown[w] {
			out = append(out, w)
		}
	}
	return out
}

func holdsAll(set map[string]bool, ws []string) bool {
	for _, w := range ws {
		if !set[w] {
			return false
		}
	}
	return len(ws) > 0
}

// rowSegment is a step of an element path that enters a row of a table or list.
var rowSegment = regexp.MustCompile(`^(tr|li)\[\d+\]$`)

// rowOf is the path of the innermost table or list row that holds the element, "" when none.
func rowOf(xpath string) string {
	segs := strings.Split(xpath, "/")
	for k := len(segs) - 1; k >= 0; k-- {
		if rowSegment.MatchString(segs[k]) {
			return strings.Join(segs[:k+1], "/")
		}
	}
	return ""
}

// sameRowPosition reports whether two elements sit in the same row of the same table or list.
func sameRowPosition(a, b string) bool {
	ra := rowOf(a)
	return ra != "" && ra == rowOf(b)
}

// commonSegments counts the leading steps two element paths share.
func commonSegments(a, b string) int {
	sa, sb := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(sa) && n < len(sb) && sa[n] == sb[n] {
		n++
	}
	return n
}

func distance(a, b gardener.Rect) float64 {
	return math.Hypot(a.X+a.Width/2-b.X-b.Width/2, a.Y+a.Height/2-b.Y-b.Height/2)
}

// anyLocatorUsed reports whether a step targets the element by any of its locators.
func anyLocatorUsed(steps []gardener.Step, locs []string) bool {
	for _, s := range locs {
		if l, err := gardener.ParseLocator(s); err == nil && usesLocator(steps, l) {
			return true
		}
	}
	return false
}

// collapsedToggle is a control that opens a menu or section: a disclosure's summary, a button
// that says it is collapsed or has a popup, or one named like an overflow menu.
func collapsedToggle(c gardener.Fingerprint) bool {
	if strings.EqualFold(c.Tag, "summary") {
		return true
	}
	if !clickable(c) {
		return false
	}
	if c.ARIA["aria-expanded"] == "false" || c.ARIA["aria-haspopup"] == "true" || c.ARIA["aria-haspopup"] == "menu" {
		return true
	}
	return menuWords.MatchString(c.Shown())
}

func actionFailed(ask gardener.OpsAsk) bool {
	s := ask.Test.Steps[ask.Result.FailedIndex]
	return (s.IsAction() || s.Kind == gardener.Intent || s.Kind == gardener.Wait) && ask.Result.LocatorTrouble()
}

func clickable(c gardener.Fingerprint) bool {
	return c.IsButton || c.Role == "button" || c.Role == "link" || strings.EqualFold(c.Tag, "button") || strings.EqualFold(c.Tag, "a")
}

// inOverlay reads the element's path for a dialog, banner or cookie container, or the runtime's
// word that it sits in the open modal dialog.
func inOverlay(c gardener.Fingerprint) bool {
	where := strings.ToLower(c.XPath + " " + c.IdxPath + " " + strings.Join(c.ClassList, " ") + " " + c.ID)
	for _, w := range []string{"dialog", "modal", "banner", "cookie", "consent", "overlay", "popup"} {
		if strings.Contains(where, w) {
			return true
		}
	}
	return c.ARIA["aria-modal"] == "true" || c.Modal
}

// under reports whether c is inside cover, the element the runner found over the step's own
// (nil: none): overlays are not always named for what they are ("notice", "gdpr", a generated
// id), but they always cover what the step wanted, and their own buttons are inside them.
func under(c gardener.Fingerprint, cover *gardener.Fingerprint) bool {
	if cover == nil || cover.XPath == "" || c.Frame != cover.Frame {
		return false
	}
	return c.XPath == cover.XPath || strings.HasPrefix(c.XPath, cover.XPath+"/")
}

func formControl(c gardener.Fingerprint) bool {
	switch strings.ToUpper(c.Tag) {
	case "INPUT", "SELECT", "TEXTAREA":
		return c.Type != "hidden" && c.Type != "submit" && c.Type != "button"
	}
	return false
}

// flaggedRequired reports a control the form will not accept as it is: its value fails the
// form's own constraints (a required field left empty, a value out of range) or the app marks
// it invalid or required.
func flaggedRequired(c gardener.Fingerprint) bool {
	return c.Invalid || c.ARIA["aria-invalid"] == "true" || c.ARIA["aria-required"] == "true"
}

// usesLocator reports whether any step already targets l.
func usesLocator(steps []gardener.Step, l gardener.Locator) bool {
	for _, s := range steps {
		if s.Target() == l || s.Kind == gardener.Intent && usesLocator(s.Steps, l) {
			return true
		}
	}
	return false
}

// fillsField reports whether the test already enters a value into the field: by the same
// locator, or by a locator naming its label, id, name or placeholder.
func fillsField(steps []gardener.Step, c gardener.Fingerprint, l gardener.Locator) bool {
	for _, s := range steps {
		if s.Kind == gardener.Intent {
			if fillsField(s.Steps, c, l) {
				return true
			}
			continue
		}
		if !s.Enters() && s.Kind != gardener.Check && s.Kind != gardener.Uncheck {
			continue
		}
		t := s.Locator
		if t == l {
			return true
		}
		switch t.Kind {
		case gardener.ByLabel:
			if labelFinds(t, c.Label) || labelFinds(t, c.ARIA["aria-label"]) {
				return true
			}
		case gardener.ByPlaceholder:
			if strings.EqualFold(c.Placeholder, t.Value) {
				return true
			}
		case gardener.ByTestID:
			if c.TestID == t.Value {
				return true
			}
		case gardener.ByCSS:
			if c.ID != "" && strings.Contains(t.Value, "#"+c.ID) || c.Name != "" && strings.Contains(t.Value, c.Name) {
				return true
			}
		}
	}
	return false
}

// labelFinds reports whether the label locator l finds a control labelled label, the way the
// runtime resolves it: the whole label when quoted, else a part of it, with its case. A
// case-blind part would take a new required "Work email" for the field the test's
// label=Email fills, and the rule would never fill it.
func labelFinds(l gardener.Locator, label string) bool {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	have, want := norm(label), norm(l.Value)
	if have == "" || want == "" {
		return false
	}
	if l.Exact {
		return have == want
	}
	return strings.Contains(have, want)
}

// valueFor picks a step and a value that fit the control's type, range and label: a check for
// a checkbox or radio button, one of a select's own options, a well-formed date, number, email
// or phone number, and for plain text what the label asks for. Controls no value can be made up
// for (a file, a range slider, a colour) get none.
func valueFor(c gardener.Fingerprint) (gardener.StepKind, string) {
	label := strings.ToLower(c.Label + " " + c.Name + " " + c.Placeholder + " " + c.ID + " " + c.AccessibleName)
	if strings.EqualFold(c.Tag, "select") {
		return pickOption(c.Options, label)
	}
	switch strings.ToLower(c.Type) {
	case "checkbox", "radio":
		return gardener.Check, ""
	case "file", "range", "color", "hidden", "image", "reset":
		return "", ""
	case "email":
		return gardener.Fill, "gardener@example.com"
	case "tel":
		return gardener.Fill, "+1 555 0100"
	case "url":
		return gardener.Fill, "https://example.com"
	case "number":
		return gardener.Fill, inRange("1", c.Min, c.Max, numberLess)
	case "date":
		return gardener.Fill, inRange("2026-01-15", c.Min, c.Max, strLess)
	case "datetime-local":
		return gardener.Fill, inRange("2026-01-15T09:30", c.Min, c.Max, strLess)
	case "month":
		return gardener.Fill, inRange("2026-01", c.Min, c.Max, strLess)
	case "week":
		return gardener.Fill, inRange("2026-W03", c.Min, c.Max, strLess)
	case "time":
		return gardener.Fill, inRange("09:30", c.Min, c.Max, strLess)
	}
	switch {
	case strings.Contains(label, "mail"):
		return gardener.Fill, "gardener@example.com"
	case strings.Contains(label, "phone"), strings.Contains(label, "tel"):
		return gardener.Fill, "+1 555 0100"
	case strings.Contains(label, "zip"), strings.Contains(label, "postal"), strings.Contains(label, "postcode"):
		return gardener.Fill, "12345"
	case strings.Contains(label, "city"):
		return gardener.Fill, "Springfield"
	case strings.Contains(label, "company"), strings.Contains(label, "organi"):
		return gardener.Fill, "Example Ltd"
	case strings.Contains(label, "name"):
		return gardener.Fill, "Demo Gardener"
	case strings.Contains(label, "reason"), strings.Contains(label, "comment"), strings.Contains(label, "note"), strings.Contains(label, "message"), strings.Contains(label, "description"):
		return gardener.Fill, "Entered by Drift Gardener for an automated test."
	}
	return gardener.Fill, "Drift Gardener"
}

// placeholderOption is what the first option of a select says when it only asks for a choice.
var placeholderOption = regexp.MustCompile(`(?i)^\s*(-+|(choose|select|pick|please|none)\b)`)

// pickOption chooses a select's option: one whose value the label names (a "Net 30 terms"
// label and a "net 30" option), else the first that is not a prompt. A select with no option to
// pick gets no step.
func pickOption(options []string, label string) (gardener.StepKind, string) {
	var first string
	for _, o := range options {
		if placeholderOption.MatchString(o) {
			continue
		}
		if first == "" {
			first = o
		}
		if w := strings.ToLower(strings.TrimSpace(o)); len(w) > 2 && strings.Contains(label, w) {
			return gardener.Select, o
		}
	}
	if first == "" {
		return "", ""
	}
	return gardener.Select, first
}

// inRange moves a default value into [min, max] when the control sets a range.
func inRange(v, lo, hi string, less func(a, b string) bool) string {
	if lo != "" && less(v, lo) {
		return lo
	}
	if hi != "" && less(hi, v) {
		return hi
	}
	return v
}

func numberLess(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	return errA == nil && errB == nil && x < y
}

// strLess compares ISO dates and times, which sort as strings.
func strLess(a, b string) bool { return a < b }
