package radar

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

// Kinds of app change (gardener.AppChange.Kind).
const (
	Removed = "removed"
	Changed = "changed"
	Moved   = "moved"
	Added   = "added"
)

// numbers are volatile text: a cart count, a price, an order number change from visit to visit
// without the page changing.
var numbers = regexp.MustCompile(`[0-9]+([.,][0-9]+)*`)

func stable(s string) string {
	return numbers.ReplaceAllString(strings.Join(strings.Fields(s), " "), "#")
}

// samePage reports whether a visit that ended at got reached the baselined page want. A page
// reached along a test's first steps carries in its URL the ids those steps just created
// (/products/9, ?order=SS-1005): every replay of the route writes to the app afresh, so there
// the numbers are the app's bookkeeping, not which page it is. A page visited directly keeps
// its exact URL: ending at another number there is a real redirect.
func samePage(via *gardener.PageRoute, got, want string) bool {
	return got == want || via != nil && stable(got) == stable(want)
}

// pageFingerprint summarises a page's structure: the sorted tag, role, name, id, test id and
// classes of its candidate elements, numbers blanked. A different value means the page changed.
// The items of a list or table count by their shape alone, once: a row added or removed is
// the app's data (a product someone created), not its structure.
func pageFingerprint(cands []gardener.Fingerprint) string {
	lines := make([]string, 0, len(cands))
	rows := map[string]bool{}
	for _, c := range cands {
		if inRow(c) {
			rows[shape(c)] = true
			continue
		}
		cls := slices.Clone(c.ClassList)
		slices.Sort(cls)
		lines = append(lines, strings.Join([]string{c.Tag, c.Role, stable(c.AccessibleName), c.ID, c.TestID, c.Name, c.Type, strings.Join(cls, " ")}, "|"))
	}
	for r := range rows {
		lines = append(lines, "row:"+r)
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// rowItem matches the list-item and table-row steps of an XPath.
var rowItem = regexp.MustCompile(`/(tr|li)\[[0-9]+\]`)

// inRow reports whether an element is, or sits inside, an item of a list or a table row.
func inRow(c gardener.Fingerprint) bool { return rowItem.MatchString(c.XPath) }

// xpathIndices are the positions of an XPath's steps.
var xpathIndices = regexp.MustCompile(`\[[0-9]+\]`)

// shape is what an element is apart from its words and its place among its siblings: the same
// for every row of a product table, and for the same cell of each.
func shape(c gardener.Fingerprint) string {
	cls := slices.Clone(c.ClassList)
	slices.Sort(cls)
	return strings.Join([]string{strings.ToLower(c.Tag), c.Role, stable(c.ID), stable(c.TestID), c.Name, c.Type,
		stable(hrefPath(c.Href)), strings.Join(cls, " "), xpathIndices.ReplaceAllString(c.XPath, "")}, "|")
}

// hrefPath drops a link's origin, which changes with the app's port.
func hrefPath(h string) string {
	if u, err := url.Parse(h); err == nil && u.Host != "" {
		u.Scheme, u.Host = "", ""
		return u.String()
	}
	return h
}

// attr is one attribute by which a person would say an element changed.
type attr struct{ name, value string }

// attrs lists what identifies an element to a person and to a locator; location is left out
// (a banner above shifts everything without changing anything), and hrefs lose the app's
// origin so a baseline survives a change of port.
func attrs(c gardener.Fingerprint, origin string) []attr {
	cls := slices.Clone(c.ClassList)
	slices.Sort(cls)
	return []attr{
		{"tag", strings.ToLower(c.Tag)}, {"id", c.ID}, {"test id", c.TestID}, {"name", c.Name},
		{"role", c.Role}, {"accessible name", stable(c.AccessibleName)}, {"label", stable(c.Label)},
		{"placeholder", c.Placeholder}, {"type", c.Type}, {"href", strings.TrimPrefix(c.Href, origin)},
		{"classes", strings.Join(cls, " ")}, {"text", stable(strings.Join(c.VisibleText, " "))},
	}
}

// differences says what changed between two versions of one element, one phrase per attribute.
func differences(before, after gardener.Fingerprint, origin string) []string {
	a, b := attrs(before, origin), attrs(after, origin)
	var out []string
	for i := range a {
		if a[i].value != b[i].value {
			out = append(out, fmt.Sprintf("%s %q → %q", a[i].name, clip(a[i].value), clip(b[i].value)))
		}
	}
	return out
}

// sameElement reports whether two fingerprints are one element unchanged: same attributes at
// the same place in the document.
func sameElement(a, b gardener.Fingerprint, origin string) bool {
	return a.XPath == b.XPath && len(differences(a, b, origin)) == 0
}

func clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	return strings.ToValidUTF8(s[:57], "") + "…"
}

// describe names an element for a person: tag, id or test id, and its name or text.
func describe(c gardener.Fingerprint) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(c.Tag))
	if c.ID != "" {
		b.WriteString("#" + c.ID)
	} else if c.TestID != "" {
		b.WriteString(`[data-testid="` + c.TestID + `"]`)
	}
	name := c.AccessibleName
	if name == "" {
		name = strings.Join(c.VisibleText, " ")
	}
	if name = clip(strings.Join(strings.Fields(name), " ")); name != "" {
		b.WriteString(fmt.Sprintf(" %q", name))
	}
	return b.String()
}

// elementChange is one difference between a baseline page and the page now.
type elementChange struct {
	Kind   string
	Detail string
	Base   int // index into the baseline candidates, -1 for an added element
	Now    int // index into the current candidates, -1 for a removed element
}

// diffPage pairs the baseline candidates with the current ones and reports what was removed,
// changed, moved (same element elsewhere in the document) or added. Elements unchanged at the
// same place pair at once; the rest are located with similo, most confident pairing first, so
// one current element never stands for two baseline ones.
func diffPage(base, now []gardener.Fingerprint, origin string) []elementChange {
	pair := make([]int, len(base))
	taken := make([]bool, len(now))
	byXPath := map[string][]int{}
	for j, c := range now {
		byXPath[c.XPath] = append(byXPath[c.XPath], j)
	}
	var open []int
	for i, b := range base {
		pair[i] = -1
		for _, j := range byXPath[b.XPath] {
			if !taken[j] && sameElement(b, now[j], origin) {
				pair[i], taken[j] = j, true
				break
			}
		}
		if pair[i] < 0 {
			open = append(open, i)
		}
	}
	if len(open) > 0 && len(now) > 0 {
		page := similo.NewPage(now)
		type cand struct {
			i, j int
			conf float64
		}
		var cands []cand
		for _, i := range open {
			if m := (similo.Engine{}).LocateOn(page, base[i]); !m.Abstained() {
				cands = append(cands, cand{i, m.Index, m.Confidence})
			}
		}
		slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(b.conf, a.conf) })
		for _, c := range cands {
			if !taken[c.j] && pair[c.i] < 0 {
				pair[c.i], taken[c.j] = c.j, true
			}
		}
	}
	// A row of a list or table that comes or goes, where rows of its shape stay, is the app's
	// data changing (a product created, an order placed), not its structure.
	baseShapes, nowShapes := map[string]bool{}, map[string]bool{}
	for _, b := range base {
		if inRow(b) {
			baseShapes[shape(b)] = true
		}
	}
	for _, c := range now {
		if inRow(c) {
			nowShapes[shape(c)] = true
		}
	}
	var out []elementChange
	for i, b := range base {
		j := pair[i]
		switch {
		case j < 0 && inRow(b) && nowShapes[shape(b)]:
		case j < 0:
			out = append(out, elementChange{Kind: Removed, Detail: describe(b) + " is gone", Base: i, Now: -1})
		case sameElement(b, now[j], origin):
		case len(differences(b, now[j], origin)) > 0:
			out = append(out, elementChange{Kind: Changed, Detail: describe(b) + ": " + strings.Join(differences(b, now[j], origin), ", "), Base: i, Now: j})
		default:
			out = append(out, elementChange{Kind: Moved, Detail: fmt.Sprintf("%s moved from %s to %s", describe(b), b.XPath, now[j].XPath), Base: i, Now: j})
		}
	}
	for j, c := range now {
		if !taken[j] && !(inRow(c) && baseShapes[shape(c)]) {
			out = append(out, elementChange{Kind: Added, Detail: describe(c) + " is new", Base: -1, Now: j})
		}
	}
	return out
}
