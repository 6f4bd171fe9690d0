package similo

import (
	"math"
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
	sigLocation
	sigArea
	sigShape
	sigButton
	sigType
	sigRole
	sigForm
	sigFrame
	numSignals
)

var signalNames = [numSignals]string{
	"tag", "id", "name", "href", "text", "alt", "test id", "accessible name", "label",
	"placeholder", "title", "text words", "neighbour text", "classes", "href words", "id words",
	"xpath", "idxpath", "location", "area", "shape", "button-ness", "input type", "role",
	"form", "frame",
}

// exactSignal maps an exact-valued field to its signal.
var exactSignal = [numExact]signal{
	exID: sigID, exName: sigName, exHref: sigHref, exText: sigText, exAlt: sigAlt,
	exTestID: sigTestID, exAccName: sigAccName, exLabel: sigLabel,
	exPlaceholder: sigPlaceholder, exTitle: sigTitle,
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
	// Tags almost never change for the same element; a different tag is evidence against.
	wTag, wTagMismatch = 1.0, 1.5
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
	// Position and size move with every layout change but separate twins that agree on all
	// else; kept small so that a moved element is still found.
	wLocation, wArea, wShape = 1.0, 0.5, 0.5
	wButton                  = 0.3
	// An input's type (email, password, checkbox) is semantic: a password field never becomes
	// a search box.
	wType, wTypeMismatch = 1.0, 1.5
	wRole, wForm, wFrame = 1.0, 0.5, 0.5
	// Distance in CSS pixels at which location similarity halves.
	locationScale = 150.0
)

// score adds up the evidence that candidate c is the element recorded as t. When parts is not
// nil it receives each signal's contribution, for explaining a choice.
func (p *Page) score(t, c *features, parts *[numSignals]float64) float64 {
	var v [numSignals]float64

	if t.tag != "" && c.tag != "" {
		if t.tag == c.tag {
			v[sigTag] = wTag
		} else {
			v[sigTag] = -wTagMismatch
		}
	}
	for k := range numExact {
		tv, cv := t.exact[k], c.exact[k]
		if tv == "" || cv == "" {
			continue
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
	if len(t.idxpath) > 0 && slices.Equal(t.idxpath, c.idxpath) {
		v[sigIdxPath] = wIdxPath + wIdxPathExact
	} else {
		v[sigIdxPath] = wIdxPath * seqSim(t.idxpath, c.idxpath)
	}
	if t.area > 0 && c.area > 0 {
		d := math.Hypot(t.x-c.x, t.y-c.y)
		v[sigLocation] = wLocation * locationScale / (locationScale + d)
		v[sigArea] = wArea * ratio(t.area, c.area)
	}
	v[sigShape] = wShape * ratio(t.shape, c.shape)
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

	var s float64
	for _, x := range v {
		s += x
	}
	if parts != nil {
		*parts = v
	}
	return s
}

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
func seqSim(a, b []int32) float64 {
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

func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return min(a, b) / max(a, b)
}
