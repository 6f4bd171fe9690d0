package gardener

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Typed holds the values a test types into the page, as its steps give them and as its runs
// recorded them (a variable's value, an option's label). Text for people and agents names page
// elements by what the page shows, and a page may show what was typed elsewhere (the "Delete
// Grace Hopper" of a row the test just created): such a name is left out, never shown.
type Typed []string

// TypedBy collects what test t types, and what the runs recorded it typing.
func TypedBy(t Test, runs ...*RunResult) Typed {
	var out Typed
	var walk func([]Step)
	walk = func(ss []Step) {
		for _, s := range ss {
			if s.Enters() {
				out = append(out, s.Value)
			}
			for _, v := range s.Values {
				out = append(out, v)
			}
			walk(s.Steps)
		}
	}
	walk(t.Steps)
	for _, r := range runs {
		if r == nil {
			continue
		}
		for _, rec := range r.Steps {
			// A goto records its URL and a key press its keys: neither is typed into the page.
			if rec.Kind != Goto && rec.Kind != Press {
				out = append(out, rec.Values...)
			}
		}
	}
	return out
}

// In reports whether text holds one of the typed values, compared as text and word by word,
// so an id built from a typed name ("row-ada-lovelace") is caught as well as a label quoting it.
func (ty Typed) In(text string) bool {
	tw := typedWords(text)
	return slices.ContainsFunc(ty, func(v string) bool {
		if vw := typedWords(v); len(vw) > 0 && containsWords(tw, vw) {
			return true
		}
		v = strings.ToLower(strings.TrimSpace(v))
		return v != "" && strings.Contains(strings.ToLower(text), v)
	})
}

// LeftOut is what text for people says in place of page words that hold a typed value.
const LeftOut = "(words left out: they hold a value the test types)"

// Quote is s quoted for text for people, or LeftOut when s holds a typed value: every quote
// of a page's words in a reason goes through it, so the rule is kept in one place.
func (ty Typed) Quote(s string) string {
	if ty.In(s) {
		return LeftOut
	}
	return strconv.Quote(s)
}

// Typed is what the failing test types, by its steps and by the runs the failure carries.
func (f Failure) Typed() Typed { return TypedBy(f.Test, &f.Result, f.LastGreen) }

func typedWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// containsWords reports whether want occurs in have as consecutive words.
func containsWords(have, want []string) bool {
	for i := 0; i+len(want) <= len(have); i++ {
		if slices.Equal(have[i:i+len(want)], want) {
			return true
		}
	}
	return false
}
