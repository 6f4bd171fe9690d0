package builtin

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

// With no green run recorded, the only description of a step's element is its locator. What a
// locator says in words — the id, name and class tokens of a CSS selector or an XPath, the
// text, label, placeholder or test id it names, a role's name — still names the element when
// the handle the locator used is gone: an id renamed under a label that stayed, a test id
// renamed beside a name attribute that stayed. So an element of a kind that can take the step
// that is still called by those words is the element under another handle. "Called by" is one
// of two things, both about one name of the element, never words gathered from several:
//
//   - one of the names people read it by (its label, accessible name, placeholder, title, alt,
//     and for a control a person clicks its text) has exactly the locator's words: "#password"
//     and the field labelled "Password", "testid=settings-save" and the button "Save settings";
//     a name with more words is another name ("Delete" is not "Delete account");
//   - for a locator of code identifiers (CSS, XPath, test id), one of the element's own
//     identifiers (id, name attribute, test id) holds all the locator's words: renames add to
//     identifiers ("password" became "current-password").
//
// It is a structural rule with no tuned number: every word must be found, one element and only
// one may be called by them (two are a guess), a check is never moved by it (what a check reads
// is known only from a green run), and a locator that still matches its element out of sight
// moves nothing. The locate engine's similarity cannot do this: its weights and its
// absent-element score are fitted to fingerprints a green run recorded, and a target made from
// a locator alone carries so few of the features that it never beats the absent element (see
// TestLocatorWordsBench for both on the development benchmark).

// named is what the words of a locator found among a page's candidates.
type named struct {
	// words are the locator's words; empty when it names none (an XPath of positions, a
	// generated id).
	words []string
	// matches are the usable candidates (indices into the snapshot) of a kind that can take
	// the step and that are called by the words (see calledBy).
	matches []int
}

// unique is the one candidate the words name, or -1.
func (n named) unique() int {
	if len(n.words) > 0 && len(n.matches) == 1 {
		return n.matches[0]
	}
	return -1
}

// say is the finding in one line for a person, about step path and its locator l; it names
// the element found without the names that hold a typed value.
func (n named) say(snap []gardener.Fingerprint, path string, l gardener.Locator, typed gardener.Typed) string {
	w := strings.Join(n.words, " ")
	switch {
	case len(n.words) == 0:
		return fmt.Sprintf("the locator of step %s (%s) names no words a person could find the element by", path, l)
	case len(n.matches) == 0:
		return fmt.Sprintf("no element on the page that can take step %s answers to the words %q its locator (%s) names", path, w, l)
	case len(n.matches) > 1:
		return fmt.Sprintf("%d elements on the page that can take step %s answer to the words %q its locator (%s) names; which one is meant only a green run could tell", len(n.matches), path, w, l)
	}
	return fmt.Sprintf("the element of step %s is still on the page under another handle: %s answers to the words %q its locator (%s) names", path, describeMasked(snap[n.matches[0]], typed), w, l)
}

// describe names a candidate for a person: its tag and the names it answers to.
func describe(c gardener.Fingerprint) string {
	var parts []string
	add := func(k, v string) {
		if v = strings.TrimSpace(v); v != "" {
			parts = append(parts, fmt.Sprintf("%s %q", k, v))
		}
	}
	add("label", c.Label)
	if c.AccessibleName != c.Label {
		add("name", c.AccessibleName)
	}
	add("id", c.ID)
	add("name attribute", c.Name)
	add("placeholder", c.Placeholder)
	add("test id", c.TestID)
	if len(parts) == 0 {
		return strings.ToLower(c.Tag)
	}
	return strings.ToLower(c.Tag) + " (" + strings.Join(parts, ", ") + ")"
}

// namedBy looks among the usable candidates of snap for the element step s's locator names by
// its words.
func namedBy(snap []gardener.Fingerprint, s gardener.Step) named {
	l := s.Target()
	n := named{words: locatorWords(l)}
	if len(n.words) == 0 || !s.IsAction() {
		return n
	}
	idents := l.Kind == gardener.ByCSS || l.Kind == gardener.ByXPath || l.Kind == gardener.ByTestID
	for i, c := range snap {
		if c.Inert || !canTake(s, c) {
			continue
		}
		if calledBy(s, c, n.words, idents) {
			n.matches = append(n.matches, i)
		}
	}
	return n
}

// calledBy reports whether candidate c is called by want: one of the names people read it by
// has exactly those words, or, for a locator of identifiers, one of its own identifiers holds
// them all.
func calledBy(s gardener.Step, c gardener.Fingerprint, want []string, idents bool) bool {
	names := []string{c.AccessibleName, c.Label, c.Placeholder, c.Title, c.Alt, c.ARIA["aria-label"]}
	if s.Kind == gardener.Click || s.Kind == gardener.Hover {
		// A control a person clicks is known by its text; a field's text is what was typed.
		names = append(names, strings.Join(c.VisibleText, " "))
	}
	for _, v := range names {
		if sameWords(words(v), want) {
			return true
		}
	}
	if !idents {
		return false
	}
	for _, v := range []string{c.ID, c.Name, c.TestID} {
		have := map[string]bool{}
		for _, w := range identWords(v) {
			have[w] = true
		}
		if holdsAll(have, want) {
			return true
		}
	}
	return false
}

// sameWords reports whether a and b hold the same words, in any order.
func sameWords(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	in := map[string]bool{}
	for _, w := range a {
		in[w] = true
	}
	for _, w := range b {
		if !in[w] {
			return false
		}
	}
	for _, w := range b {
		delete(in, w)
	}
	return len(in) == 0
}

// canTake reports whether candidate c is of a kind that can take step s: a field for a fill, a
// select for a select, a checkbox or radio for a check, a control for a click.
func canTake(s gardener.Step, c gardener.Fingerprint) bool {
	switch s.Kind {
	case gardener.Fill:
		return fillable(c)
	case gardener.Select:
		return strings.EqualFold(c.Tag, "select") || c.Role == "listbox" || c.Role == "combobox"
	case gardener.Check, gardener.Uncheck:
		return checkable(c)
	case gardener.Click, gardener.Hover:
		return clickable(c) || checkable(c) || actionRoles[c.Role] || strings.EqualFold(c.Tag, "summary") ||
			strings.EqualFold(c.Tag, "input") && buttonTypes[strings.ToLower(c.Type)]
	case gardener.Press:
		return fillable(c) || clickable(c)
	}
	return false
}

var (
	actionRoles = map[string]bool{"menuitem": true, "menuitemcheckbox": true, "menuitemradio": true, "tab": true, "option": true, "switch": true, "treeitem": true, "checkbox": true, "radio": true}
	buttonTypes = map[string]bool{"submit": true, "button": true, "reset": true, "image": true}
	// notText are the input types a fill cannot type into.
	notText = map[string]bool{"checkbox": true, "radio": true, "submit": true, "button": true, "reset": true, "image": true, "hidden": true, "file": true, "range": true, "color": true}
)

func fillable(c gardener.Fingerprint) bool {
	switch strings.ToUpper(c.Tag) {
	case "INPUT":
		return !notText[strings.ToLower(c.Type)]
	case "TEXTAREA":
		return true
	}
	return c.Role == "textbox" || c.Role == "searchbox"
}

func checkable(c gardener.Fingerprint) bool {
	if strings.EqualFold(c.Tag, "input") {
		t := strings.ToLower(c.Type)
		return t == "checkbox" || t == "radio"
	}
	return c.Role == "checkbox" || c.Role == "radio" || c.Role == "switch"
}

// locatorWords are the words locator l names its element by. A text, label, placeholder or
// role name is a person's words and counts whole; the identifiers a CSS selector or XPath
// names (id, name, classes, test id, aria-label, placeholder, title) are split into their
// words, without those that only say what kind of control it is ("btn", "input": the step's
// kind says that) and without values a build generates ("ember123"), which name nothing.
func locatorWords(l gardener.Locator) []string {
	var out []string
	switch l.Kind {
	case gardener.ByText, gardener.ByLabel, gardener.ByPlaceholder:
		out = words(l.Value)
	case gardener.ByRole:
		out = words(l.Name)
	case gardener.ByTestID:
		out = identWords(l.Value)
	case gardener.ByCSS:
		for _, v := range cssNames(l.Value) {
			out = append(out, identWords(v)...)
		}
	case gardener.ByXPath:
		idents, texts := xpathNames(l.Value)
		for _, v := range idents {
			out = append(out, identWords(v)...)
		}
		for _, v := range texts {
			out = append(out, words(v)...)
		}
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(w string) bool {
		dup := seen[w]
		seen[w] = true
		return dup
	})
}

// kindWords say what kind of control an identifier names, not which one.
var kindWords = map[string]bool{"btn": true, "button": true, "input": true, "inp": true, "field": true, "fld": true, "txt": true,
	"textbox": true, "textarea": true, "link": true, "lnk": true, "ctrl": true, "control": true, "el": true, "elem": true, "element": true}

// identWords splits an identifier into its lower-case words: at punctuation, at a lower-case
// letter followed by a capital ("loginEmail"), and between letters and digits. A value a build
// generates names nothing and gives none.
func identWords(v string) []string {
	if v = strings.TrimSpace(v); v == "" || similo.Generated(v) {
		return nil
	}
	var out []string
	var cur []rune
	flush := func() {
		if w := strings.ToLower(string(cur)); w != "" && !kindWords[w] {
			out = append(out, w)
		}
		cur = cur[:0]
	}
	rs := []rune(v)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case i > 0 && unicode.IsUpper(r) && unicode.IsLower(rs[i-1]),
			i > 0 && unicode.IsDigit(r) != unicode.IsDigit(rs[i-1]):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// namingAttrs are the attributes whose values name an element rather than style or place it.
var namingAttrs = map[string]bool{"id": true, "name": true, "class": true, "aria-label": true, "placeholder": true, "title": true, "alt": true, "for": true}

func namingAttr(a string) bool {
	a = strings.ToLower(a)
	return namingAttrs[a] || strings.HasPrefix(a, "data-test") || strings.HasPrefix(a, "data-qa") || strings.HasPrefix(a, "data-cy")
}

// cssNames are the naming values of the last compound selector of sel (the element itself, not
// its ancestors): its id, classes and naming attributes. A selector list ("a, b") names more
// than one element and gives none.
func cssNames(sel string) []string {
	last, ok := lastCompound(sel)
	if !ok {
		return nil
	}
	var out []string
	for i := 0; i < len(last); {
		switch ch := last[i]; ch {
		case '#', '.':
			j := i + 1
			for j < len(last) && (last[j] == '-' || last[j] == '_' || last[j] == '\\' || isAlnum(last[j]) || last[j] >= 0x80) {
				j++
			}
			out = append(out, strings.ReplaceAll(last[i+1:j], `\`, ""))
			i = j
		case '[':
			j := closing(last, i, '[', ']')
			if name, val, ok := attrSelector(last[i+1 : j]); ok && namingAttr(name) {
				out = append(out, val)
			}
			i = j + 1
		case ':':
			// A pseudo-class says where or in which state, not which element; its argument
			// (":not(.x)") names other elements.
			j := i + 1
			for j < len(last) && last[j] != '(' && last[j] != '#' && last[j] != '.' && last[j] != '[' && last[j] != ':' {
				j++
			}
			if j < len(last) && last[j] == '(' {
				j = closing(last, j, '(', ')') + 1
			}
			i = j
		default:
			i++
		}
	}
	return out
}

// lastCompound is the compound selector after the last combinator of sel, outside brackets,
// parentheses and quotes; false for a selector list.
func lastCompound(sel string) (string, bool) {
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(sel); i++ {
		ch := sel[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == '[' || ch == '(':
			depth++
		case ch == ']' || ch == ')':
			depth--
		case depth > 0:
		case ch == ',':
			return "", false
		case ch == ' ' || ch == '>' || ch == '+' || ch == '~' || ch == '\t' || ch == '\n':
			start = i + 1
		}
	}
	return strings.TrimSpace(sel[start:]), true
}

// closing is the index of the bracket that closes the one at i (or the end), skipping quotes.
func closing(s string, i int, open, close byte) int {
	depth := 0
	var quote byte
	for j := i; j < len(s); j++ {
		ch := s[j]
		switch {
		case quote != 0:
			if ch == '\\' {
				j++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == open:
			depth++
		case ch == close:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(s) - 1
}

// attrSelector reads `name`, `name=value`, `name~="value" i` and the like.
var attrSel = regexp.MustCompile(`^\s*([A-Za-z_][\w:-]*)\s*(?:[~|^$*]?=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\s\]]+)))?\s*[iIsS]?\s*$`)

func attrSelector(in string) (name, val string, ok bool) {
	m := attrSel.FindStringSubmatch(in)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2] + m[3] + m[4], m[2]+m[3]+m[4] != ""
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

var (
	// xpathAttr is an attribute compared with a string: @id='x', contains(@class, 'x').
	xpathAttr = regexp.MustCompile(`@([\w:-]+)\s*[,=]\s*(?:"([^"]*)"|'([^']*)')`)
	// xpathText is the element's text compared with a string: text()='x', contains(., 'x').
	xpathText = regexp.MustCompile(`(?:text\(\)|normalize-space\([^)]*\)|\.)\s*[,=]\s*(?:"([^"]*)"|'([^']*)')`)
)

// xpathNames are the naming values the last step of an XPath compares: the attributes that
// name (id, name, class, …) and the texts.
func xpathNames(xp string) (idents, texts []string) {
	last := xp
	depth := 0
	var quote byte
	for i := 0; i < len(xp); i++ {
		ch := xp[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == '[' || ch == '(':
			depth++
		case ch == ']' || ch == ')':
			depth--
		case ch == '/' && depth == 0:
			last = xp[i+1:]
		}
	}
	for _, m := range xpathAttr.FindAllStringSubmatch(last, -1) {
		if namingAttr(m[1]) {
			idents = append(idents, m[2]+m[3])
		}
	}
	for _, m := range xpathText.FindAllStringSubmatch(last, -1) {
		texts = append(texts, m[1]+m[2])
	}
	return idents, texts
}
