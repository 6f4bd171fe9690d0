// Package builtin is the model that needs no key and spends no tokens: it answers the ladder's
// four asks from the page and the last green run alone. Locators come from the similarity
// engine, operations from rules for the commonest drift (a new banner or modal to dismiss, a
// newly required field, a step whose element is gone), and diagnosis from evidence (server
// errors, new console errors, a flow that ends elsewhere, error text on the page).
package builtin

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

// Name is the model name the built-in engine records.
const Name = "builtin"

// Engine is the built-in model. The zero value uses the locate engine's shipping threshold.
type Engine struct {
	Locate similo.Engine
}

var _ gardener.Model = Engine{}

// Name implements gardener.Model.
func (Engine) Name() string { return Name }

func usage() gardener.Usage { return gardener.Usage{Model: Name} }

// FixLocator finds the recorded element on the page and names it the most robust way that is
// unique on the page, or abstains when no candidate is close enough.
func (e Engine) FixLocator(_ context.Context, ask gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	ans := gardener.LocatorAnswer{Usage: usage()}
	target, from := targetOf(ask.Step, ask.Recorded)
	cands, at := usable(ask.Snapshot)
	if len(cands) == 0 {
		ans.Reason = "the page had no candidate elements a person can use"
		return ans, nil
	}
	if ask.Recorded == nil && ask.Step.IsCheck() {
		// What a check reads is known only from a green run: its locator's words may name
		// another element that shows other things, and a check moved there checks those.
		ans.Reason = fmt.Sprintf("no green run recorded what step %s checks: a check is not moved on its locator's words alone", ask.Result.FailedStep)
		return ans, nil
	}
	// Reasons quote the page's words; a name that holds a typed value is left out.
	typed := ask.Typed()
	page := similo.NewPage(cands)
	m := e.Locate.LocateOn(page, target)
	idx, confidence := m.Index, m.Confidence
	matched := fmt.Sprintf("matched the %s (confidence %.2f)", from, m.Confidence)
	byWords := false
	if m.Abstained() {
		glyph, isGlyph := glyphNamed(cands, target)
		live, isLive := liveNamed(cands, target)
		renamed, renamedWhy, isRenamed := rowRenamed(page, target, typed)
		submit, isSubmit := -1, false
		choice, isChoice := -1, false
		if ask.Recorded != nil && greenURL(ask.LastGreen, ask.Result.FailedStep) == pathOf(ask.PageURL) {
			submit, isSubmit = formSubmit(cands, target)
			isSubmit = isSubmit && submit == m.Best
			choice, isChoice = groupChoice(cands, target)
		}
		switch {
		case isGlyph:
			// The similarity of all the element's features is low because its words moved
			// from its text into its name; the name itself is the evidence.
			idx, confidence = glyph, 0
			matched = fmt.Sprintf("the %s became an icon button whose accessible name %s keeps its words %s", from, typed.Quote(cands[idx].AccessibleName), typed.Quote(strings.Join(recordedWords(target), " ")))
		case isLive:
			// The control's name gained or changed live data (a count, a price) and nothing
			// else: the stable part of its name is the recorded one, and only it has it.
			idx, confidence = live, 0
			matched = fmt.Sprintf("the %s's name %s is now %s: the same name with live data", from, typed.Quote(target.Shown()), typed.Quote(cands[idx].AccessibleName))
		case isChoice:
			// A radio button or checkbox relabelled and given another id is still the choice
			// its form sends under the same name and value; the similarity of all features
			// weighs the new label and id against its siblings' and can abstain.
			idx, confidence = choice, 0
			matched = fmt.Sprintf("the %s is a choice of the group %s, and the page still offers exactly one box of the group with its value, now labelled %s", from, typed.Quote(target.Name), typed.Quote(cands[choice].Shown()))
		case isRenamed:
			// A row action whose words changed on its row ("Delete Ada Lovelace" now reads
			// "Remove Ada Lovelace") loses to its twins on the other rows, which keep the
			// recorded text and are refused; the one control of the recorded row at the
			// recorded place with the row's entity words is the same control.
			idx, confidence = renamed, 0
			matched = fmt.Sprintf("the %s's row action was renamed: %s", from, renamedWhy)
		case isSubmit:
			// The words of a form's submit button change with its copy ("Book" became
			// "Confirm booking", "Save" became "Save changes") and little else does; on the
			// page the last green run was on, the form it submitted still has one submit
			// control, and it is the closest element: it is the same control. The proof
			// and the requirement contract (the request the step sent) decide the rest.
			idx, confidence = submit, 0
			matched = fmt.Sprintf("the %s submitted its form; the form's only submit control on the same page is now named %s", from, typed.Quote(cands[submit].Shown()))
		case ask.Recorded == nil:
			// Without a green run the locator's own words are the evidence left, and only for
			// an element whose handle is gone: one the locator still finds out of sight (in a
			// closed menu) is there, and an element called the same elsewhere is another.
			if f := failedRecord(ask.Result); f != nil && f.Hidden > 0 {
				ans.Reason = fmt.Sprintf("no green run recorded the element, and the step's locator still matches %d hidden element(s): it is out of sight, not renamed", f.Hidden)
				return ans, nil
			}
			n := namedBy(ask.Snapshot, ask.Step)
			if idx = slices.Index(at, n.unique()); idx < 0 {
				ans.Reason = "no green run recorded the element, and " + n.say(ask.Snapshot, ask.Result.FailedStep, ask.Step.Target(), typed)
				return ans, nil
			}
			confidence, byWords = 0, true
			matched = n.say(ask.Snapshot, ask.Result.FailedStep, ask.Step.Target(), typed)
		default:
			ans.Reason = "no confident match for the " + from + ": " + m.Reason
			return ans, nil
		}
	}
	if c := cands[idx]; otherChoice(target, c) {
		// A radio button or checkbox of the recorded one's group with another value is
		// another choice (the 14:00 slot beside a 10:30 that is gone), however alike the two
		// look: a step moved there picks what the test never picked.
		ans.Reason = fmt.Sprintf("the closest element (%s) is another choice of the group %s: its form sends another value than the recorded one's", typed.Quote(c.Shown()), typed.Quote(target.Name))
		return ans, nil
	}
	if ask.Step.IsCheck() && !readsTheSame(target, cands[idx]) {
		// A check asserts what its element shows: another element that shows other words (the
		// e-mail cell beside a name that is gone) would have it check something else.
		ans.Reason = fmt.Sprintf("the check's element read %s; the closest element reads %s, and a check moved there would check something else",
			typed.Quote(strings.Join(target.VisibleText, " ")), typed.Quote(cands[idx].Shown()))
		return ans, nil
	}
	if failed := failedRecord(ask.Result); failed != nil && failed.Hidden > 0 && !readsTheSame(target, cands[idx]) {
		// The step's locator still matches its element, out of sight (moved into a closed
		// menu, a collapsed section); a visible neighbour that says other words (the dialog's
		// "Delete" beside a "Cancel") is another control. Revealing the element is for the
		// drift rules.
		ans.Reason = fmt.Sprintf("the step's locator still matches %s; the closest visible element reads %s, not %s", gardener.Plural(failed.Hidden, "hidden element", "hidden elements"), typed.Quote(cands[idx].Shown()), typed.Quote(strings.Join(recordedWords(target), " ")))
		return ans, nil
	}
	if found := ask.Result.Element(ask.Result.FailedStep); found != nil && idx < len(cands) && sameElement(*found, cands[idx]) {
		// The failing locator still finds the element the last green run used; something else
		// (a banner over it, a disabled state) stopped the step, and another name for the same
		// element stops the same way. The drift rules deal with what is in the way.
		ans.Reason = "the step's locator still finds the element it used on the last green run; a new locator cannot fix what stops the step"
		return ans, nil
	}
	// The guard looks for the later steps' elements among all the page shows: a closed
	// dialog's button, not the usable element chosen here, is where a later step's lands.
	full := similo.NewPage(ask.Snapshot)
	if n := otherStepsElement(full, ask.Snapshot, ask.LastGreen, ask.Recorded, at[idx]); n != "" {
		// The closest element is the one another step of the test acts on: moving this step
		// there would do that step's action twice (a "Continue" that became the form's only
		// "Place order"). Abstain and let the drift rules try the flow without the step.
		ans.Reason = fmt.Sprintf("the closest element is the one step %s acts on", n)
		return ans, nil
	}
	current := ask.Step.Target()
	// Locators are made unique among everything the page shows: the runtime counts a
	// transparent element as a match too.
	for _, s := range full.Locators(at[idx]) {
		l, err := gardener.ParseLocator(s)
		if err != nil || l == current {
			continue
		}
		if byWords {
			if n := otherStepUsing(ask.Test.Steps, ask.Index, l); n > 0 {
				// The element the words found is the one another step names already: no
				// green run says this step was ever about it.
				ans.Locator, ans.Alternatives = gardener.Locator{}, nil
				ans.Reason = fmt.Sprintf("the element the words of step %s name is the one step %d uses (%s)", ask.Result.FailedStep, n, l)
				return ans, nil
			}
		}
		if ans.Locator.IsZero() {
			ans.Locator = l
		} else {
			ans.Alternatives = append(ans.Alternatives, l)
		}
	}
	if ans.Locator.IsZero() {
		ans.Reason = "the matching element has no locator other than the failing one"
		return ans, nil
	}
	ans.Confidence = confidence
	ans.Reason = matched
	return ans, nil
}

// otherStepUsing is the number (from 1) of a top-level step other than step i whose target
// is l, or 0.
func otherStepUsing(steps []gardener.Step, i int, l gardener.Locator) int {
	for j, s := range steps {
		if j != i && s.Kind != gardener.Intent && s.Target() == l {
			return j + 1
		}
	}
	return 0
}

// failedRecord is the record of the step a run failed at, or nil.
func failedRecord(r gardener.RunResult) *gardener.StepRecord {
	for i := range r.Steps {
		if r.Steps[i].Path == r.FailedStep && !r.Passed {
			return &r.Steps[i]
		}
	}
	return nil
}

// readsTheSame reports whether candidate c shows every word the recorded element showed, in its
// text or its accessible name; an element recorded with no words constrains nothing.
func readsTheSame(recorded, c gardener.Fingerprint) bool {
	have := map[string]bool{}
	for _, w := range append(words(strings.Join(c.VisibleText, " ")), words(c.AccessibleName)...) {
		have[w] = true
	}
	for _, w := range words(strings.Join(recorded.VisibleText, " ")) {
		if !have[w] {
			return false
		}
	}
	return true
}

// glyphNamed finds the one usable control that became an icon: it shows no words (a glyph such
// as "›" or "✕", an image, nothing) and its accessible name (an aria-label or title) keeps the
// words the recorded control showed or was named by, in order, perhaps extended ("Next" became
// "›" named "Next page"). Icon buttons drop their text but keep their meaning in the name,
// which the similarity of the other features does not weigh enough to be sure.
//
// Row actions turned icons name each button by its action and its row ("Delete INV-002",
// "View INV-002", "Delete INV-003"), so several controls can keep the words. Two rules, both
// about names, pick among them: a name that starts with the recorded words (at a word
// boundary) beats one that only holds them further in ("Undo delete"), since the recorded
// words were the action and an icon's name leads with it; and of those, the one whose other
// words the recorded control's neighbours showed (its row's "INV-002") is the recorded row's.
// Still two or more make the change ambiguous: none is chosen.
func glyphNamed(cands []gardener.Fingerprint, target gardener.Fingerprint) (int, bool) {
	want := recordedWords(target)
	if len(want) == 0 || !clickable(target) && target.Tag != "" {
		return -1, false
	}
	var found []int
	for i, c := range cands {
		if clickable(c) && !hasWords(strings.Join(c.VisibleText, " ")) && containsRun(words(c.AccessibleName), want) {
			found = append(found, i)
		}
	}
	found = narrow(found, func(i int) bool { return startsWith(words(cands[i].AccessibleName), want) })
	neighbours := map[string]bool{}
	for _, w := range words(strings.Join(target.NeighborText, " ")) {
		neighbours[w] = true
	}
	found = narrow(found, func(i int) bool {
		name := words(cands[i].AccessibleName)
		return startsWith(name, want) && len(name) > len(want) && holdsAll(neighbours, name[len(want):])
	})
	if len(found) != 1 {
		return -1, false
	}
	return found[0], true
}

// groupChoice finds the one radio button or checkbox of the recorded one's group (its name)
// with the recorded value: what the form sends for the choice, whatever its label or id became.
// A recorded box without a name or a value, or a value of "on" (the default a box without one
// sends), names no choice.
func groupChoice(cands []gardener.Fingerprint, target gardener.Fingerprint) (int, bool) {
	kind := strings.ToLower(target.Type)
	if !strings.EqualFold(target.Tag, "INPUT") || kind != "radio" && kind != "checkbox" || target.Name == "" || target.Value == "" || target.Value == "on" {
		return -1, false
	}
	return onlyOne(cands, func(c gardener.Fingerprint) bool {
		return strings.EqualFold(c.Tag, "INPUT") && strings.ToLower(c.Type) == kind && c.Name == target.Name && c.Value == target.Value
	})
}

// otherChoice reports whether c is a radio button or checkbox of the recorded one's group (the
// same type and name) whose value differs from the recorded value.
func otherChoice(target, c gardener.Fingerprint) bool {
	kind := strings.ToLower(target.Type)
	if kind != "radio" && kind != "checkbox" || target.Name == "" || target.Value == "" {
		return false
	}
	return strings.EqualFold(c.Tag, target.Tag) && strings.ToLower(c.Type) == kind && c.Name == target.Name && c.Value != target.Value
}

// formSubmit finds the one control that submits, in the form the recorded control submitted,
// when the recorded control was a submit control of a form: the same form is the one with the
// recorded form id, or, when the form had none, the one at the same place in the document.
// Two submit controls in the form (Save and Save draft) leave the choice open: none is taken.
func formSubmit(cands []gardener.Fingerprint, target gardener.Fingerprint) (int, bool) {
	form := formOf(target)
	if form == "" || !submits(target) {
		return -1, false
	}
	return onlyOne(cands, func(c gardener.Fingerprint) bool { return submits(c) && formOf(c) == form })
}

// formOf names the form an element is in: its id, or the path of its innermost form element;
// "" outside a form.
func formOf(c gardener.Fingerprint) string {
	if c.FormID != "" {
		return "#" + c.FormID
	}
	i := strings.LastIndex(c.XPath, "/form[")
	if i < 0 {
		return ""
	}
	end := strings.Index(c.XPath[i+1:], "]")
	if end < 0 {
		return ""
	}
	return c.XPath[:i+1+end+1]
}

// submits reports whether a control submits its form when clicked: a button of type submit
// (the default) or an input of type submit or image.
func submits(c gardener.Fingerprint) bool {
	t := strings.ToLower(c.Type)
	switch strings.ToUpper(c.Tag) {
	case "BUTTON":
		return t == "" || t == "submit"
	case "INPUT":
		return t == "submit" || t == "image"
	}
	return false
}

// liveNamed finds the one usable control whose accessible name is the recorded control's name
// with live data added or changed ("Delete Grace Hopper" became "Delete Grace Hopper (5)",
// "Cart (3)" became "Cart (5)"): the stable part of the two names (gardener.WithoutLiveData) is
// the same words, and the names differ. Shops and dashboards put counts and prices into their
// controls' names; the similarity of all features weighs the name's change against a
// neighbour's equally changed name and can abstain. A name with other words added ("Save" and
// "Save draft") is another control; two controls with the stable name make the change
// ambiguous: none is chosen.
func liveNamed(cands []gardener.Fingerprint, target gardener.Fingerprint) (int, bool) {
	name := target.AccessibleName
	if strings.TrimSpace(name) == "" {
		name = strings.Join(target.VisibleText, " ")
	}
	want := words(gardener.WithoutLiveData(name))
	if len(want) == 0 || !clickable(target) && target.Tag != "" {
		return -1, false
	}
	return onlyOne(cands, func(c gardener.Fingerprint) bool {
		return clickable(c) && c.AccessibleName != name && slices.Equal(words(gardener.WithoutLiveData(c.AccessibleName)), want)
	})
}

// rowRenamed is the control of the recorded row whose action was renamed on its row (similo's
// RowRenamed), and why. The why quotes the row's controls, whose names hold the row's entity,
// which may be what the test typed (the member it added): then it says so without their words.
func rowRenamed(page *similo.Page, target gardener.Fingerprint, typed gardener.Typed) (int, string, bool) {
	i, why, ok := page.RowRenamed(target)
	if ok && typed.In(why) {
		why = "the recorded row's control stands renamed at its place, where the other rows' controls keep the recorded action"
	}
	return i, why, ok
}

// onlyOne is the index of the one candidate that fits; none, or two or more, is no choice: the
// rules that take an element on one piece of evidence take it only when it is the only one.
func onlyOne(cands []gardener.Fingerprint, fits func(gardener.Fingerprint) bool) (int, bool) {
	found := -1
	for i, c := range cands {
		if !fits(c) {
			continue
		}
		if found >= 0 {
			return -1, false
		}
		found = i
	}
	return found, found >= 0
}

// narrow keeps the indices keep accepts when there are several to choose from and keep accepts
// some of them; otherwise it leaves them as they are, for the caller to find the choice
// ambiguous or empty.
func narrow(found []int, keep func(int) bool) []int {
	if len(found) < 2 {
		return found
	}
	var out []int
	for _, i := range found {
		if keep(i) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return found
	}
	return out
}

// startsWith reports whether have begins with the words of want.
func startsWith(have, want []string) bool {
	return len(have) >= len(want) && slices.Equal(have[:len(want)], want)
}

// recordedWords are the words a control was known by: its accessible name, else its text.
func recordedWords(fp gardener.Fingerprint) []string {
	if w := words(fp.AccessibleName); len(w) > 0 {
		return w
	}
	return words(strings.Join(fp.VisibleText, " "))
}

// words splits s into lower-case words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func hasWords(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// containsRun reports whether want occurs in have as consecutive words.
func containsRun(have, want []string) bool {
	for i := 0; i+len(want) <= len(have); i++ {
		if slices.Equal(have[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

// usable keeps the candidates a person can use now, with each one's index in snap: a step is
// never moved onto the button of a dialog that is still closed by its styles.
func usable(snap []gardener.Fingerprint) ([]gardener.Fingerprint, []int) {
	out := make([]gardener.Fingerprint, 0, len(snap))
	at := make([]int, 0, len(snap))
	for i, c := range snap {
		if !c.Inert {
			out = append(out, c)
			at = append(at, i)
		}
	}
	return out, at
}

// targetOf is the fingerprint to look for: the one the last green run recorded or, when there is
// none, what the locator itself says about the element.
func targetOf(step gardener.Step, recorded *gardener.Fingerprint) (gardener.Fingerprint, string) {
	if recorded != nil {
		return *recorded, "element recorded on the last green run"
	}
	l := step.Target()
	var fp gardener.Fingerprint
	switch l.Kind {
	case gardener.ByRole:
		fp.AccessibleName = l.Name
		if l.Role != gardener.AnyRole {
			fp.Role = l.Role
		}
		if l.Name != "" {
			fp.VisibleText = strings.Fields(l.Name)
		}
	case gardener.ByText:
		fp.VisibleText = strings.Fields(l.Value)
	case gardener.ByLabel:
		fp.Label = l.Value
	case gardener.ByPlaceholder:
		fp.Placeholder = l.Value
	case gardener.ByTestID:
		fp.TestID = l.Value
	case gardener.ByCSS:
		fp.ID, fp.ClassList, fp.Tag = cssHints(l.Value)
	}
	return fp, "element the locator " + l.String() + " describes (no green run was recorded)"
}

// cssHints reads the id, classes and tag of the last compound selector of simple CSS.
func cssHints(sel string) (id string, classes []string, tag string) {
	parts := strings.Fields(strings.NewReplacer(">", " ", "+", " ", "~", " ").Replace(sel))
	if len(parts) == 0 {
		return "", nil, ""
	}
	last := parts[len(parts)-1]
	if i := strings.IndexAny(last, "[:"); i >= 0 {
		last = last[:i]
	}
	cur, kind := "", byte('t')
	flush := func() {
		switch kind {
		case 't':
			tag = strings.ToUpper(cur)
		case '#':
			id = cur
		case '.':
			classes = append(classes, cur)
		}
		cur = ""
	}
	for i := 0; i < len(last); i++ {
		ch := last[i]
		if ch == '#' || ch == '.' {
			flush()
			kind = ch
			continue
		}
		cur += string(ch)
	}
	flush()
	return id, classes, tag
}

// DeriveIntent re-derives a block by healing the recorded step of the block that failed; the
// ladder asks again if a later step of the block fails in turn.
func (e Engine) DeriveIntent(ctx context.Context, ask gardener.IntentAsk) (gardener.IntentAnswer, error) {
	out := gardener.IntentAnswer{Usage: usage()}
	inner := innerIndex(ask.Result.FailedStep)
	if inner < 0 || inner >= len(ask.Block.Steps) {
		out.Reason = "the failure is not inside the block's steps"
		return out, nil
	}
	step := ask.Block.Steps[inner]
	if !ask.Result.LocatorTrouble() || step.Target().IsZero() {
		out.Reason = fmt.Sprintf("step %s failed with %s, which re-deriving its element cannot fix", ask.Result.FailedStep, ask.Result.ErrorKind)
		return out, nil
	}
	la := gardener.LocatorAsk{Failure: ask.Failure, Index: ask.Index, Inner: inner, Step: step, Recorded: ask.LastGreen.Element(ask.Result.FailedStep)}
	ans, err := e.FixLocator(ctx, la)
	if err != nil || ans.Locator.IsZero() {
		out.Reason = ans.Reason
		return out, err
	}
	steps := gardener.CloneSteps(ask.Block.Steps)
	if steps[inner].Kind == gardener.A11yAudit {
		steps[inner].Scope = ans.Locator
	} else {
		steps[inner].Locator = ans.Locator
	}
	out.Steps = steps
	out.Reason = fmt.Sprintf("step %s re-derived: %s → %s (%s)", ask.Result.FailedStep, step.Target(), ans.Locator, ans.Reason)
	return out, nil
}

func innerIndex(path string) int {
	_, in, ok := strings.Cut(path, ".")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(in)
	if err != nil {
		return -1
	}
	return n - 1
}

// otherStepsElement names the step after the one being healed whose element on its last green
// run is candidate i of the page, or "". Only later steps count: moving this step onto a later
// step's element would do that step's action early (a "Continue" that became the form's only
// "Place order"). An earlier step's element is no such risk — the flow already did its action,
// and a login button on another page may well look like this page's submit button.
//
// An element that was inside the open modal dialog when its step ran is not one outside any
// modal now: a confirmation dialog's "Delete" is not the row's "Delete" that opens it.
func otherStepsElement(page *similo.Page, snap []gardener.Fingerprint, lastGreen *gardener.RunResult, recorded *gardener.Fingerprint, i int) string {
	if lastGreen == nil || recorded == nil {
		return ""
	}
	// The healed step's place in the run is where its recorded element first appears: the ask's
	// indices count steps of the test being repaired, which earlier ops may have shifted.
	after := false
	for _, r := range lastGreen.Steps {
		if r.Element == nil {
			continue
		}
		if sameElement(*r.Element, *recorded) {
			after = true
			continue
		}
		if !after || r.Kind != gardener.Click || r.Element.Modal && i < len(snap) && !snap[i].Modal {
			continue
		}
		if m := (similo.Engine{}).LocateOn(page, *r.Element); m.Index == i {
			return r.Path
		}
	}
	return ""
}

func sameElement(a, b gardener.Fingerprint) bool {
	return a.XPath == b.XPath && a.Tag == b.Tag && strings.Join(a.VisibleText, " ") == strings.Join(b.VisibleText, " ")
}
