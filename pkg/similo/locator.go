package similo

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Locators returns locator strings (the test format's syntax) for candidate i of the page, most
// robust first: test id, role and accessible name (or the part of it without live data),
// label, placeholder, id, name, visible text,
// a tag and class — each of these that names live data or a generated part after all that do
// not — and only then positional xpaths. Every stable locator returned matches
// exactly candidate i among the page's candidates; the positional ones come last, as a fallback
// for elements with nothing stable, and only when nothing stable exists.
//
// Contract with the browser layer: the candidates are a page's listed elements, not its whole
// DOM, and text matching on a live page can also hit an ancestor. So the caller resolves the
// locators on the live page in order and keeps the first that matches exactly one element, that
// element being the chosen one; it must not trust the first locator blindly.
func (p *Page) Locators(i int) []string {
	if i < 0 || i >= len(p.cands) {
		return nil
	}
	var out []string
	c := &p.cands[i]
	// An element inside an iframe is named within its frame's document, after the frame path.
	prefix := ""
	for _, f := range gardener.Frames(c.Frame) {
		prefix += "frame=" + f + gardener.FrameSeparator
	}
	try := func(loc string, match func(fp *gardener.Fingerprint) bool) {
		if loc == "" {
			return
		}
		n := 0
		for j := range p.cands {
			if p.cands[j].Frame == c.Frame && match(&p.cands[j]) {
				n++
			}
		}
		if n == 1 && match(&p.cands[i]) {
			out = append(out, prefix+loc)
		}
	}

	if v := strings.TrimSpace(c.TestID); v != "" {
		try("testid="+v, func(fp *gardener.Fingerprint) bool { return strings.TrimSpace(fp.TestID) == v })
	}
	if role, name := roleOf(c), nameOf(c); role != "" && name != "" {
		try(fmt.Sprintf("role=%s[name=%s]", role, quote(name)), func(fp *gardener.Fingerprint) bool {
			return roleOf(fp) == role && nameOf(fp) == name
		})
	}
	// A name carrying live data ("Delete Grace Hopper (5)") is proven on this run's data and
	// fails on the next; the part of it that stays names the control as long as it is the only
	// one of its role holding that part.
	if role, name := roleOf(c), nameOf(c); role != "" && name != "" {
		if part := gardener.LongestStablePart(name); part != "" {
			want := strings.ToLower(part)
			try(fmt.Sprintf("role=%s[name*=%s]", role, quote(part)), func(fp *gardener.Fingerprint) bool {
				return roleOf(fp) == role && strings.Contains(strings.ToLower(nameOf(fp)), want)
			})
		}
	}
	if v := collapse(c.Label); v != "" {
		try("label="+v, func(fp *gardener.Fingerprint) bool { return collapse(fp.Label) == v })
	}
	if v := collapse(c.Placeholder); v != "" {
		try("placeholder="+v, func(fp *gardener.Fingerprint) bool { return collapse(fp.Placeholder) == v })
	}
	if v := c.ID; v != "" && !generated(v) {
		try("css="+cssID(v), func(fp *gardener.Fingerprint) bool { return fp.ID == v })
	}
	if v := c.Name; v != "" {
		tag := strings.ToLower(c.Tag)
		try(fmt.Sprintf("css=%s[name=%s]", tag, quote(v)), func(fp *gardener.Fingerprint) bool {
			return fp.Name == v && strings.ToLower(fp.Tag) == tag
		})
	}
	// A radio button or checkbox is one choice of its group: the group's name and the value
	// its form sends for the choice name it when its label carries a time or a price, or its
	// id a generated part.
	if n, v := c.Name, c.Value; n != "" && v != "" {
		tag := strings.ToLower(c.Tag)
		try(fmt.Sprintf("css=%s[name=%s][value=%s]", tag, quote(n), quote(v)), func(fp *gardener.Fingerprint) bool {
			return fp.Name == n && fp.Value == v && strings.ToLower(fp.Tag) == tag
		})
	}
	if v := collapse(strings.Join(c.VisibleText, " ")); v != "" {
		try("text="+v, func(fp *gardener.Fingerprint) bool { return collapse(strings.Join(fp.VisibleText, " ")) == v })
	}
	tag := strings.ToLower(c.Tag)
	for _, cls := range c.ClassList {
		if !cssIdent.MatchString(cls) || generated(cls) || tag == "" {
			continue
		}
		try("css="+tag+"."+cls, func(fp *gardener.Fingerprint) bool {
			return strings.ToLower(fp.Tag) == tag && slices.Contains(fp.ClassList, cls)
		})
	}
	if len(out) > 0 {
		return lastingFirst(out)
	}
	// Nothing stable: positional paths, the one anchored on the nearest id first because it
	// survives changes outside that subtree.
	if c.IdxPath != "" && c.IdxPath != c.XPath {
		try("xpath="+c.IdxPath, func(fp *gardener.Fingerprint) bool { return fp.IdxPath == c.IdxPath })
	}
	if c.XPath != "" {
		try("xpath="+c.XPath, func(fp *gardener.Fingerprint) bool { return fp.XPath == c.XPath })
	}
	return out
}

// lastingFirst moves the locators that name live data or a generated part (gardener.Volatility:
// "Cart (3)", "Pay $120.00") after the ones that do not, keeping each group's order: the first
// locator that resolves is the one a heal writes, and a name with a count in it is proven on
// this run's data and fails on the next. A volatile locator is still returned, last, so an
// element with nothing else is still named; the heal's verdict then carries a volatile-locator
// note.
func lastingFirst(locs []string) []string {
	volatile := func(s string) bool {
		l, err := gardener.ParseLocator(s)
		return err == nil && gardener.Volatility(l) != ""
	}
	slices.SortStableFunc(locs, func(a, b string) int {
		return boolInt(volatile(a)) - boolInt(volatile(b))
	})
	return locs
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// roleOf is the element's ARIA role: the recorded one, else the implicit role of its tag.
func roleOf(fp *gardener.Fingerprint) string {
	if r := strings.ToLower(strings.TrimSpace(fp.Role)); r != "" {
		return r
	}
	switch strings.ToLower(fp.Tag) {
	case "a":
		if fp.Href != "" {
			return "link"
		}
	case "button":
		return "button"
	case "select":
		return "combobox"
	case "textarea":
		return "textbox"
	case "h1", "h2", "h3", "h4", "h5", "h6":
		return "heading"
	case "input":
		switch strings.ToLower(fp.Type) {
		case "submit", "button", "reset", "image":
			return "button"
		case "checkbox":
			return "checkbox"
		case "radio":
			return "radio"
		case "", "text", "email", "search", "tel", "url":
			return "textbox"
		}
	}
	return ""
}

// nameOf is the element's accessible name: the recorded one, else for links, buttons and
// headings their visible text, which is where the browser computes it from.
func nameOf(fp *gardener.Fingerprint) string {
	if n := collapse(fp.AccessibleName); n != "" {
		return n
	}
	switch roleOf(fp) {
	case "link", "button", "heading":
		return collapse(strings.Join(fp.VisibleText, " "))
	}
	return ""
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// quote writes a locator attribute value in double quotes.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

var cssIdent = regexp.MustCompile(`^-?[A-Za-z_][A-Za-z0-9_-]*$`)

func cssID(id string) string {
	if cssIdent.MatchString(id) {
		return "#" + id
	}
	return "[id=" + quote(id) + "]"
}

// generatedName matches values a framework or build generates and regenerates: a run of three
// or more digits ("ember123"), a styling library's hash ("css-1x2y3z", "sc-bdVaJa"), or a
// leading colon (React's useId).
var generatedName = regexp.MustCompile(`\d{3,}|^(css|sc|jsx|svelte)-[a-zA-Z0-9]+$|^:`)

// generated reports whether an id or class looks machine-made and so will change on the next
// build; a locator built on it would break with the next deploy.
func generated(v string) bool { return generatedName.MatchString(v) }

// RoleOf is an element's ARIA role as locators name it: the recorded one, else the implicit
// role of its tag.
func RoleOf(fp *gardener.Fingerprint) string { return roleOf(fp) }

// Generated reports whether an id, class or name looks machine-made (see generatedName): it
// names nothing a later build keeps.
func Generated(v string) bool { return generated(v) }
