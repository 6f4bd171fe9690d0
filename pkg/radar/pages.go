package radar

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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

// pageFingerprint summarises a page's structure: the sorted tag, role, name, id, test id and
// classes of its candidate elements, numbers blanked. A different value means the page changed.
func pageFingerprint(cands []gardener.Fingerprint) string {
	lines := make([]string, 0, len(cands))
	for _, c := range cands {
		cls := slices.Clone(c.ClassList)
		slices.Sort(cls)
		lines = append(lines, strings.Join([]string{c.Tag, c.Role, stable(c.AccessibleName), c.ID, c.TestID, c.Name, c.Type, strings.Join(cls, " ")}, "|"))
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
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
	var out []elementChange
	for i, b := range base {
		j := pair[i]
		switch {
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
		if !taken[j] {
			out = append(out, elementChange{Kind: Added, Detail: describe(c) + " is new", Base: -1, Now: j})
		}
	}
	return out
}
