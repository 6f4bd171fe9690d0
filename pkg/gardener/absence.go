package gardener

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// NamedByStart finds, among the elements a page showed, the control an absence check names by
// the start of its name: the check's locator is a role locator with a name, and an element of
// that role (any role, for AnyRole) shows a longer accessible name that begins with it and goes
// on after a word boundary ("Firstname" and a textbox named "Firstname Required"). A role
// locator matches a name whole, so such a check finds nothing on that page and holds whatever
// the page does: it answers that element's locator, its name in full, for a note to name.
// Inert elements (on screen, but not usable) are passed over.
func NamedByStart(check Locator, shown []Fingerprint) (Locator, bool) {
	if check.Kind != ByRole || strings.TrimSpace(check.Name) == "" || check.NameContains {
		return Locator{}, false // name*= already finds a longer name: its check found what is there
	}
	want := strings.ToLower(strings.TrimSpace(check.Name))
	for _, f := range shown {
		if f.Inert || f.Role == "" || f.Frame != check.Frame || (check.Role != AnyRole && f.Role != check.Role) {
			continue
		}
		name := strings.TrimSpace(f.AccessibleName)
		low := strings.ToLower(name)
		if len(low) <= len(want) || !strings.HasPrefix(low, want) || len(low) != len(name) {
			continue
		}
		next, _ := utf8.DecodeRuneInString(low[len(want):])
		if unicode.IsLetter(next) || unicode.IsDigit(next) {
			continue // "Firstnames" is another word, not the same name with more after it
		}
		return Locator{Kind: ByRole, Role: f.Role, Name: name, Frame: check.Frame}, true
	}
	return Locator{}, false
}
