package gardener

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Volatility says why a locator will stop matching its element on a later run although
// nothing about the page's design changed, or "" when it names nothing that moves. Two classes
// of value move: live data inside a name, text or label (a count, a price, a percentage, a
// date, a time), which changes with what a user or the shop did; and a generated part of an id,
// class or test id (a run of digits, a styling library's hash, a long hex string), which
// changes with the next build. A heal that writes such a locator is proven on this run's data
// and fails on the next; it is the case a volatile-locator note names.
func Volatility(l Locator) string {
	for _, f := range Frames(l.Frame) {
		if why := volatileCSS(f); why != "" {
			return "its frame " + why
		}
	}
	switch l.Kind {
	case ByRole:
		if why := liveData(l.Name); why != "" {
			return "its accessible name " + quoteWords(l.Name) + " carries " + why
		}
	case ByText:
		if why := liveData(l.Value); why != "" {
			return "its text " + quoteWords(l.Value) + " carries " + why
		}
	case ByLabel:
		if why := liveData(l.Value); why != "" {
			return "its label " + quoteWords(l.Value) + " carries " + why
		}
	case ByTestID:
		if why := GeneratedIdent(l.Value); why != "" {
			return "its test id " + quoteWords(l.Value) + " has " + why
		}
	case ByCSS:
		return volatileCSS(l.Value)
	case ByXPath:
		for _, m := range xpathIdent.FindAllStringSubmatch(l.Value, -1) {
			for _, v := range strings.Fields(m[2]) {
				if why := GeneratedIdent(v); why != "" {
					return "its " + m[1] + " " + quoteWords(v) + " has " + why
				}
			}
		}
		// A text() or contains() in a path is a name like any other.
		for _, m := range xpathText.FindAllStringSubmatch(l.Value, -1) {
			if why := liveData(m[1]); why != "" {
				return "its text " + quoteWords(m[1]) + " carries " + why
			}
		}
	}
	return ""
}

// VolatileNote is the note a repaired step earns when the repair wrote its locator and that
// locator is volatile: the step is classed review (RaiseNoted) and the fix waits for a person,
// who can pick a stable form the page does not offer yet (a test id) or accept the risk. A step
// whose locator the repair did not change earns none: the recording chose it, and it passed.
// path is the repaired step's path; before is the step it repairs, nil for an added step.
func VolatileNote(path string, before *Step, after Step) (Note, bool) {
	l := after.Target()
	if l.IsZero() || (before != nil && before.Target() == l) {
		return Note{}, false
	}
	why := Volatility(l)
	if why == "" {
		return Note{}, false
	}
	return Note{Kind: NoteVolatileLocator, Step: path, Text: fmt.Sprintf(
		"volatile locator: step %s now finds its element by %s, and %s, which may change on the next run; no stable form (a test id, a label, a name without live data, a structural selector) matched the element",
		path, l, why)}, true
}

// Placeholders are left out on purpose: a placeholder is the author's example ("MM/YY", "e.g.
// FERN-001"), fixed in the page's source, never live data.

func quoteWords(s string) string { return `"` + s + `"` }

// liveDataRules are the classes of live data a name can carry, each with what it is called.
// They match values, not words of a particular site: a number in brackets is a count whatever
// it counts.
var liveDataRules = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a price", regexp.MustCompile(`[$€£¥₹]\s*\d|\d\s*[$€£¥₹]|(?i)\b(usd|eur|gbp|chf|jpy)\s*\d|\d\s*(?i)(usd|eur|gbp|chf|jpy)\b`)},
	{"a count", regexp.MustCompile(`[(\[{]\s*\d+\+?\s*[)\]}]|(?i)\b\d+\+?\s+(items?|results?|products?|new|unread|notifications?|messages?|comments?|likes?|views?|left|remaining|selected|matches|rows?|records?)\b`)},
	{"a percentage", regexp.MustCompile(`\d\s*%`)},
	{"a date", regexp.MustCompile(`\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b|(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(st|nd|rd|th)?\b|(?i)\b\d{1,2}(st|nd|rd|th)?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|(?i)\b\d+\s+(seconds?|minutes?|mins?|hours?|days?|weeks?|months?|years?)\s+ago\b`)},
	// A time's seconds and its am/pm are part of it: "02:00 pm" is one time, and "pm" left
	// over as a name's stable part matched any name holding the letters (a heal wrote
	// role=radio[name*="pm"] for the 14:00 slot).
	{"a time", regexp.MustCompile(`\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?(?i:[ap]\.?m)\b\.?)?`)},
}

// liveData names the live data a name carries, "" when none.
func liveData(s string) string {
	for _, r := range liveDataRules {
		if r.re.MatchString(s) {
			return r.what
		}
	}
	return ""
}

// WithoutLiveData is s with the live data it carries (counts, prices, percentages, dates,
// times) taken out: the part of a name that stays from one run to the next ("Cart (3)" and
// "Cart (5)" are both "Cart").
func WithoutLiveData(s string) string {
	return strings.Join(strings.Fields(cutLiveData(s, " ")), " ")
}

// LongestStablePart is the longest run of s between pieces of live data, trimmed of the
// punctuation that joined it to them, when s carries live data and that run holds a letter;
// "" otherwise. It is what a locator matching part of a name can name: "Delete Grace Hopper"
// of "Delete Grace Hopper (5)", "Cart" of "Cart (3)". Unlike WithoutLiveData it is a piece
// of s as written, so a name containing it is the name with only its live data changed.
func LongestStablePart(s string) string {
	cut := cutLiveData(s, "\x00")
	if !strings.Contains(cut, "\x00") {
		return ""
	}
	best := ""
	for _, part := range strings.Split(cut, "\x00") {
		part = strings.TrimFunc(strings.Join(strings.Fields(part), " "), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})
		if len(part) > len(best) && strings.IndexFunc(part, unicode.IsLetter) >= 0 {
			best = part
		}
	}
	return best
}

// cutLiveData replaces each piece of live data in s with sep.
func cutLiveData(s, sep string) string {
	for _, r := range liveDataRules {
		// A rule matches where live data starts ("$1" of "$12.40"); the whole number goes.
		var b strings.Builder
		last := 0
		for _, m := range r.re.FindAllStringIndex(s, -1) {
			from, to := m[0], m[1]
			if from < last {
				continue
			}
			for from > last && strings.IndexByte(numberChars, s[from-1]) >= 0 {
				from--
			}
			for to < len(s) && strings.IndexByte(numberChars, s[to]) >= 0 {
				to++
			}
			b.WriteString(s[last:from])
			b.WriteString(sep)
			last = to
		}
		b.WriteString(s[last:])
		s = b.String()
	}
	return s
}

// numberChars are what a number's digits run on with: a price's "12.40", a count's "1,200".
const numberChars = "0123456789.,"

var (
	// cssIDClass picks the ids and classes out of a CSS selector, and attribute values naming an
	// id, a class or a test id.
	cssIDClass = regexp.MustCompile(`([#.])((?:\\.|[A-Za-z0-9_-])+)`)
	cssAttr    = regexp.MustCompile(`\[\s*(id|class|data-testid|data-test-id|data-test|data-cy|data-qa)\s*[~|^$*]?=\s*["']?([^"'\]]*)["']?\s*\]`)
	cssAttrAny = regexp.MustCompile(`\[[^\]]*\]`)
	xpathIdent = regexp.MustCompile(`@(id|class|data-testid|data-test-id|data-test|data-cy|data-qa)\s*=\s*["']([^"']*)["']`)
	xpathText  = regexp.MustCompile(`(?:text\(\)|\.)\s*[,=]\s*["']([^"']*)["']`)
)

func volatileCSS(sel string) string {
	// A [attr="value"] is read first and then blanked, so a "." inside its value ("12.99") is
	// not taken for a class.
	for _, m := range cssAttr.FindAllStringSubmatch(sel, -1) {
		for _, v := range strings.Fields(m[2]) {
			if why := GeneratedIdent(v); why != "" {
				return "its " + m[1] + " " + quoteWords(v) + " has " + why
			}
		}
	}
	sel = cssAttrAny.ReplaceAllString(sel, "")
	for _, m := range cssIDClass.FindAllStringSubmatch(sel, -1) {
		v := strings.ReplaceAll(m[2], `\`, "")
		if why := GeneratedIdent(v); why != "" {
			kind := "id"
			if m[1] == "." {
				kind = "class"
			}
			return "its " + kind + " " + quoteWords(v) + " has " + why
		}
	}
	return ""
}

var (
	digitRun     = regexp.MustCompile(`\d{3,}`)
	hexRun       = regexp.MustCompile(`(?i)[0-9a-f]{8,}`)
	hashPrefixed = regexp.MustCompile(`^(css|sc|jsx|svelte|emotion|styled|chakra|mui|makeStyles)-[A-Za-z0-9]+$`)
)

// GeneratedIdent says what in an id, class or test id a framework or build generates, "" when
// nothing: a run of three or more digits ("ember1234", "row-20871"), a long hex string, a
// styling library's hash ("css-1x2y3z", "sc-aBcDe"), a React useId (":r1:"), or a part that
// interleaves letters and digits or switches case like a hash does ("Button_root__3xKf9").
// Short numbers a designer writes ("col-6", "h2", "step-2", "product-row-4") are not generated.
func GeneratedIdent(v string) string {
	switch {
	case v == "":
		return ""
	case strings.HasPrefix(v, ":"):
		return "a generated id"
	case hashPrefixed.MatchString(v):
		return "a styling library's generated hash"
	case hexRun.MatchString(v) && strings.ContainsAny(v, "0123456789"):
		return "a long hex string"
	case digitRun.MatchString(v):
		return "a run of digits"
	}
	if i := strings.LastIndexByte(v, '_'); i > 0 && moduleHash(v[i+1:]) {
		return "a build's hash suffix " + quoteWords(v[i+1:])
	}
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' }) {
		if hashLike(part) {
			return "a hash-like part " + quoteWords(part)
		}
	}
	return ""
}

// moduleHash reports whether the part after a class name's last underscore is what CSS modules
// and similar build tools append ("btn_a81f3", "cart-link_57ad5", "root__3xKf9"): five to eight
// letters and digits with at least two digits and a letter. A designer's suffix is a word or a
// short number ("_primary", "_2", "_v2").
func moduleHash(p string) bool {
	if len(p) < 5 || len(p) > 8 {
		return false
	}
	digits, letters := 0, 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters++
		default:
			return false
		}
	}
	return digits >= 2 && letters >= 1
}

// hashLike reports whether a part of a name reads like a hash rather than a word: letters and
// digits alternating ("1x2y3z", "3xKf9" with its case too), or case switching more often than camelCase does
// ("aBcDe", "bdVaJa").
func hashLike(p string) bool {
	if len(p) < 4 {
		return false
	}
	digits, digitSwitch, caseSwitch := 0, 0, 0
	prev := byte(0) // 'd' digit, 'l' lower, 'u' upper
	for i := 0; i < len(p); i++ {
		c := p[i]
		var k byte
		switch {
		case c >= '0' && c <= '9':
			k = 'd'
			digits++
		case c >= 'a' && c <= 'z':
			k = 'l'
		case c >= 'A' && c <= 'Z':
			k = 'u'
		default:
			return false
		}
		if prev != 0 && k != prev {
			if k == 'd' || prev == 'd' {
				digitSwitch++
			} else {
				caseSwitch++
			}
		}
		prev = k
	}
	// camelCase switches case once per word, so its runs are long ("myShoppingCart"); a hash's
	// are one or two letters long.
	switches := digitSwitch + caseSwitch
	short := len(p) < 2*(switches+1)
	return (digits >= 2 && digitSwitch >= 3) || (caseSwitch >= 3 && short) || (digits >= 2 && switches >= 3 && short)
}
