package similo

import (
	"math"
	"math/bits"
	"slices"
)

// signal is one independent piece of evidence that a candidate is the recorded element.
type signal int

const (
	sigTag signal = iota
	sigID
	sigName
	sigHref
	sigText
	sigAlt
	sigTestID
	sigAccName
	sigLabel
	sigPlaceholder
	sigTitle
	sigTextWords
	sigNeighbours
	sigClasses
	sigHrefWords
	sigIdentWords
	sigXPath
	sigIdxPath
	sigRegion
	sigLocation
	sigArea
	sigShape
	sigButton
	sigType
	sigRole
	sigForm
	sigFrame
	sigNesting
	sigDepth
	numSignals
)

var signalNames = [numSignals]string{
	"tag", "id", "name", "href", "text", "alt", "test id", "accessible name", "label",
	"placeholder", "title", "text words", "neighbour text", "classes", "href words", "id words",
	"xpath", "idxpath", "page region", "location", "area", "shape", "button-ness", "input type", "role",
	"form", "frame", "nesting", "depth on page",
}

// exactSignal maps an exact-valued field to its signal.
var exactSignal = [numExact]signal{
	exID: sigID, exName: sigName, exHref: sigHref, exText: sigText, exAlt: sigAlt,
	exTestID: sigTestID, exAccName: sigAccName, exLabel: sigLabel,
	exPlaceholder: sigPlaceholder, exTitle: sigTitle, exHrefPage: sigHref,
}

// exactWeight is what an exact agreement of a field is worth when the value is unique on the
// page (a common value is discounted by its rarity). The scale is log-odds-like: a score
// difference of 1 means roughly e times more likely. The order follows how deliberately a
// value is chosen and how rarely it changes when a page is restyled:
//   - a test id exists only to be found again by tests, so agreeing on it is nearly proof;
//   - ids and names are chosen by developers and survive restyling, but frameworks generate
//     some of them, so a little less;
//   - an accessible name, a label or a placeholder is what a user reads to find the element,
//     which product owners keep stable;
//   - visible text and hrefs are just as stable but shared more often (two "Delete" buttons,
//     a logo and a "Home" link to the same place), which the rarity discount handles;
//   - alt and title are often left empty or boilerplate.
var exactWeight = [numExact]float64{
	exTestID:      6,
	exID:          4,
	exName:        3,
	exAccName:     3,
	exLabel:       3,
	exPlaceholder: 3,
	exText:        3,
	exHref:        3,
	exAlt:         2,
	exTitle:       2,
	// the same linked page with other query parameters: tracking parameters change with
	// every campaign, but a query can also select the content, so a little less than an href.
	exHrefPage: 2,
}

// exactMismatch is what it costs when both elements have the field and the values differ.
// Only deliberately chosen identifiers are penalised: text and hrefs change with copy edits and
// tracking parameters, while a test id that differs really is another element.
var exactMismatch = [numExact]float64{
	exTestID: 4,
	exID:     0.5,
	exName:   1,
}

// Weights of the graded signals, each multiplied by a similarity in [0, 1].
const (
	// Tags almost never change for the same element (3% of the development benchmark's
	// matches), while a random element of the page shares the tag perhaps a third of the
	// time: agreement is worth a little (log(0.97/0.3) ≈ 1), disagreement a lot
	// (log(0.03/0.7) ≈ -3). It is what tells a link from the list item wrapping it, which
	// have the same box and text. A change between two kinds of control (a link restyled
	// into a button) is a common redesign and costs half.
	wTag, wTagMismatch = 1.0, 3.0
	// Words shared by the visible text when the whole text is not identical: a button
	// relabelled from "Sign in" to "Sign in now" is still likely the same.
	wTextWords = 2.0
	// Surrounding text identifies a row or a section: it tells two "Delete" buttons apart.
	wNeighbours = 1.5
	// Classes change with every restyle and are shared widely; idf weighting keeps the rare
	// semantic ones ("search-submit") above the layout ones ("col-6").
	wClasses = 1.0
	// Words of the href survive host and query changes.
	wHrefWords = 1.0
	// Words of id and name survive renames such as "login-email" to "loginEmail".
	wIdentWords = 1.5
	// The absolute path changes whenever a wrapper is added, so it is a weak tie-breaker;
	// a path relative to the nearest id is more local and so more stable.
	wXPath, wIdxPath, wIdxPathExact = 1.0, 1.0, 1.0
	// The page regions (header, footer, nav, form, ...) the element sits in, compared like the
	// tag: sharing them is evidence for, and sharing none, when both sit in some region, is
	// evidence against. On the development benchmark 3 of the 179 matches with regions on both
	// sides share none (1.7%; each a layout table that became a nav), against 65% of all
	// candidates: agreement is worth about log(0.98/0.35) ≈ 1 and disagreement
	// log(0.017/0.65) ≈ -3.6. The xpath signal already sees part of that disagreement (other
	// regions are other steps), so it costs less than half of it. It is what keeps a login
	// form's "Sign in" button, moved from the header bar into the page, the form's button
	// rather than the nav's "Sign in" link that now sits where it was.
	wRegion, wRegionMismatch = 1.0, 1.5
	// Position and size move with layout changes, but mostly a little: on the development
	// benchmark half of the matches moved less than 30 px and a quarter more than 110 px, and
	// half kept their area exactly, a tenth changed it by more than 2x. So a small move is
	// evidence for, a move across the page (the footer's copy of a header link) or a very
	// different size evidence against, and each stays small next to the identifiers.
	wLocation, wArea, wShape = 1.5, 1.0, 0.5
	// Distance (px) within which location counts fully for, and beyond which fully against.
	locationNear, locationFar = 50.0, 1000.0
	// Size ratios at which area and shape (width/height) stop counting for.
	areaFar, shapeFar = 4.0, 3.0
	wButton           = 0.3
	// An input's type (email, password, checkbox) is semantic: a password field never becomes
	// a search box.
	wType, wTypeMismatch = 1.0, 1.5
	wRole, wForm, wFrame = 1.0, 0.5, 0.5
	// A wrapper and its content (the list item around a link, the icon inside it) share their
	// box, their text and their neighbours, so all that evidence cannot tell them apart, and
	// when the element itself is gone its wrapper is the most tempting false heal. The tag
	// does tell them apart, but a tag change alone is also what a redesign does. So when the
	// candidate's tag is the tag of one of the element's own recorded ancestors, or the
	// element's tag is one of the candidate's ancestors, the candidate is most likely the
	// element's wrapper or part, and it costs as much as the shared text was worth. The same
	// holds, whatever the tags, when one xpath is a proper prefix of the other.
	wNested = 3.0
	// How far down the page an element sits, on a log scale: a header link stays within the
	// first hundred pixels however the page changes, while everything below moves with the
	// content above it, which stretches positions by a factor more than it shifts them (a
	// footer at 3,300 px is at 1,500 px once the page is half as long). So the depths are
	// compared as log(1 + y/depthScale). It is evidence only against: within a factor of e
	// (depthNear) it says nothing, since pages that grew stretch that much, and at a factor
	// of e² (depthFar) it counts fully against (a header link at 20 px against a footer link
	// at 4,000 px). It separates a header link from its copy in the footer, which the
	// absolute distance, capped at locationFar, cannot tell from a footer link that moved up
	// with a shorter page.
	wDepth, depthScale, depthNear, depthFar = 1.5, 100.0, 1.0, 2.0
)

// score adds up the evidence that candidate c is the element recorded as t. When parts is not
// nil it receives each signal's contribution, for explaining a choice.
func (p *Page) score(t, c *features, parts *[numSignals]float64) float64 {
	var v [numSignals]float64

	if t.tag != "" && c.tag != "" {
		switch {
		case t.tag == c.tag:
			v[sigTag] = wTag
		case controls[t.tag] && controls[c.tag]:
			v[sigTag] = -wTagMismatch / 2
		default:
			v[sigTag] = -wTagMismatch
		}
	}
	for k := range numExact {
		tv, cv := t.exact[k], c.exact[k]
		if tv == "" || cv == "" {
			continue
		}
		if k == exHrefPage && t.exact[exHref] == c.exact[exHref] {
			continue // the whole href agreed already
		}
		if tv == cv {
			v[exactSignal[k]] = exactWeight[k] * p.rarity(exactField(k), cv)
		} else {
			v[exactSignal[k]] = -exactMismatch[k]
		}
	}
	v[sigTextWords] = wTextWords * dice(&p.text, t.text, c.text)
	v[sigNeighbours] = wNeighbours * dice(&p.near, t.near, c.near)
	v[sigClasses] = wClasses * dice(&p.class, t.class, c.class)
	v[sigHrefWords] = wHrefWords * dice(&p.href, t.href, c.href)
	v[sigIdentWords] = wIdentWords * dice(&p.ident, t.ident, c.ident)
	v[sigXPath] = wXPath * seqSim(t.xpath, c.xpath)
	switch {
	case t.idAnchored || c.idAnchored || t.absolute:
		// the id signal or the xpath signal has judged it already
	case len(t.idxpath) > 0 && slices.Equal(t.idxpath, c.idxpath):
		v[sigIdxPath] = wIdxPath + wIdxPathExact
	default:
		v[sigIdxPath] = wIdxPath * seqSim(t.idxpath, c.idxpath)
	}
	switch {
	case t.landmarks != 0 && c.landmarks != 0 && t.landmarks&c.landmarks == 0:
		v[sigRegion] = -wRegionMismatch
	case t.landmarks != 0 || c.landmarks != 0:
		v[sigRegion] = wRegion * float64(bits.OnesCount8(uint8(t.landmarks&c.landmarks))) /
			float64(bits.OnesCount8(uint8(t.landmarks|c.landmarks)))
	}
	if t.area > 0 && c.area > 0 {
		d := math.Hypot(t.x-c.x, t.y-c.y)
		v[sigLocation] = wLocation * (1 - 2*min(1, math.Log1p(d/locationNear)/math.Log1p(locationFar/locationNear)))
		v[sigArea] = wArea * logRatioSim(t.area, c.area, areaFar)
		dd := math.Abs(t.depth - c.depth)
		v[sigDepth] = -wDepth * min(1, max(0, (dd-depthNear)/(depthFar-depthNear)))
	}
	if t.shape > 0 && c.shape > 0 {
		v[sigShape] = wShape * logRatioSim(t.shape, c.shape, shapeFar)
	}
	if t.isButton == c.isButton {
		v[sigButton] = wButton
	}
	if t.typ != "" && c.typ != "" {
		if t.typ == c.typ {
			v[sigType] = wType
		} else {
			v[sigType] = -wTypeMismatch
		}
	}
	if t.role != "" && t.role == c.role {
		v[sigRole] = wRole
	}
	if t.form != "" && t.form == c.form {
		v[sigForm] = wForm
	}
	if t.frame == c.frame {
		v[sigFrame] = wFrame
	}
	if nested(t, c) {
		v[sigNesting] = -wNested
	}

	var s float64
	for _, x := range v {
		s += x
	}
	if parts != nil {
		*parts = v
	}
	return s
}

// controls are the tags of elements a user operates; redesigns swap one for another.
var controls = map[string]bool{"a": true, "button": true, "input": true, "select": true, "textarea": true}

// rarity discounts an exact agreement by how many candidates share the value: 1 when unique,
// falling towards 0 as the value becomes as common as the page is large.
func (p *Page) rarity(k exactField, v string) float64 {
	n := p.exact[k][v]
	if n <= 1 {
		return 1
	}
	total := float64(len(p.cands))
	return math.Log(1+total/float64(n)) / math.Log(1+total)
}

// dice is the idf-weighted Dice coefficient of two token sets: rare shared words count more
// than common ones, and words only one side has count against.
func dice(v *vocab, a, b tokenSet) float64 {
	den := a.weight + b.weight
	if den == 0 {
		return 0
	}
	var common float64
	i, j := 0, 0
	for i < len(a.ids) && j < len(b.ids) {
		switch {
		case a.ids[i] < b.ids[j]:
			i++
		case a.ids[i] > b.ids[j]:
			j++
		default:
			common += v.idf[a.ids[i]]
			i++
			j++
		}
	}
	return 2 * common / den
}

// maxPath bounds the xpath length compared, keeping the steps nearest the element, which carry
// most of its identity; real pages rarely nest deeper.
const maxPath = 48

// seqSim is the longest common subsequence of two xpaths' steps over the longer length. A
// wrapper added around an element inserts one step and costs one step, where a prefix or
// position comparison would lose everything below it.
func seqSim(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(a) > maxPath {
		a = a[len(a)-maxPath:]
	}
	if len(b) > maxPath {
		b = b[len(b)-maxPath:]
	}
	var prev, cur [maxPath + 1]int8
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev = cur
	}
	return float64(prev[len(b)]) / float64(max(len(a), len(b)))
}

// logRatioSim is 1 for equal positive sizes, 0 when one is far times the other, and -1 when
// it is far² times: sizes vary multiplicatively, and a size far off is evidence against.
func logRatioSim(a, b, far float64) float64 {
	return max(-1, 1-math.Abs(math.Log(a/b))/math.Log(far))
}

// nested reports whether candidate c looks like the wrapper of the element recorded as t, or a
// part of it, rather than the element: see wNested.
func nested(t, c *features) bool {
	if t.tag != c.tag && t.tag != "" && c.tag != "" {
		if c.tag == t.outer[0] || c.tag == t.outer[1] || t.tag == c.outer[0] || t.tag == c.outer[1] {
			return true
		}
	}
	return properPrefix(t.xpath, c.xpath) || properPrefix(c.xpath, t.xpath)
}

func properPrefix(a, b []uint64) bool {
	return len(a) > 0 && len(a) < len(b) && slices.Equal(a, b[:len(a)])
}
