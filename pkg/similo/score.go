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

// feature is one term of the score: the score is the sum over features of a weight times the
// feature's value, so the weights can be fitted (see weights.go) while the features say what
// is compared and how.
type feature int

const (
	fTagSame      feature = iota // the same tag
	fTagControl                  // another control's tag (a link restyled into a button)
	fTagOther                    // any other tag
	fTextWords                   // idf-weighted words shared by the visible text
	fNeighbours                  // idf-weighted words shared by the surrounding text
	fClasses                     // idf-weighted classes shared
	fHrefWords                   // words of the href: they survive host and query changes
	fIdentWords                  // words of id and name: "login-email" and "loginEmail"
	fXPath                       // common subsequence of the absolute paths
	fIdxPath                     // common subsequence of the paths from the nearest id
	fIdxPathExact                // the path from the nearest id is identical
	fRegionShare                 // share of page regions (header, nav, form, ...) in common
	fRegionNone                  // both sit in some region and share none
	fLocation                    // near (1) to across the page (-1)
	fArea                        // the same area (1) to far off (-1)
	fShape                       // the same width/height ratio (1) to far off (-1)
	fDepth                       // how much further down or up the page, on a log scale
	fButtonDiffer                // one is button-like and the other not
	fTypeSame                    // the same input type
	fTypeDiffer                  // another input type
	fRole                        // the same ARIA role
	fForm                        // the same form
	fFrameDiffer                 // another frame
	fNested                      // looks like the element's wrapper or part: see nested
	// Page-relative features: 1 when no other candidate of this page comes closer to the
	// recorded element on that comparison (ties all count). Raw similarities shift from site
	// to site with how much the site changed and how it writes its pages; being the page's
	// closest is on the same scale everywhere. See relSource.
	fTextBest
	fNearBest
	fClassBest
	fHrefBest
	fIdentBest
	fXPathBest
	fNearest
	// fAgree+k is an exact agreement on field k, discounted by how common the value is on the
	// page (a shared class says little, a unique href a lot); fDiffer+k is 1 when both
	// elements have field k and the values differ.
	fAgree
	fDiffer     = fAgree + feature(numExact)
	numFeatures = fDiffer + feature(numExact)
)

// featureSignal is the signal each feature is reported under when a choice is explained.
var featureSignal = func() (m [numFeatures]signal) {
	m[fTagSame], m[fTagControl], m[fTagOther] = sigTag, sigTag, sigTag
	for k := range numExact {
		m[fAgree+feature(k)], m[fDiffer+feature(k)] = exactSignal[k], exactSignal[k]
	}
	for f, s := range map[feature]signal{
		fTextWords: sigTextWords, fNeighbours: sigNeighbours, fClasses: sigClasses,
		fHrefWords: sigHrefWords, fIdentWords: sigIdentWords, fXPath: sigXPath, fIdxPath: sigIdxPath,
		fIdxPathExact: sigIdxPath, fRegionShare: sigRegion, fRegionNone: sigRegion,
		fLocation: sigLocation, fArea: sigArea, fShape: sigShape, fDepth: sigDepth,
		fButtonDiffer: sigButton, fTypeSame: sigType, fTypeDiffer: sigType, fRole: sigRole,
		fForm: sigForm, fFrameDiffer: sigFrame, fNested: sigNesting,
		fTextBest: sigTextWords, fNearBest: sigNeighbours, fClassBest: sigClasses, fHrefBest: sigHrefWords,
		fIdentBest: sigIdentWords, fXPathBest: sigXPath, fNearest: sigLocation,
	} {
		m[f] = s
	}
	return m
}()

// The shapes of the graded features are fixed by how pages change, not fitted; only how much
// each feature counts is (see weights.go).
const (
	// Position and size move with layout changes, but mostly a little: a small move is
	// evidence for, a move across the page (the footer's copy of a header link) evidence
	// against. Distance (px) within which location counts fully for, and beyond which fully
	// against, on a log scale between.
	locationNear, locationFar = 50.0, 1000.0
	// Size ratios at which area and shape (width/height) stop counting for.
	areaFar, shapeFar = 4.0, 3.0
	// How far down the page an element sits is compared as log(1 + y/depthScale): a header
	// link stays within the first hundred pixels however the page changes, while everything
	// below moves with the content above it, which stretches positions by a factor more than
	// it shifts them. Within a factor of e (depthNear) it says nothing, since pages that grew
	// stretch that much, and at a factor of e² (depthFar) it counts fully. It separates a
	// header link from its copy in the footer, which the absolute distance, capped at
	// locationFar, cannot tell from a footer link that moved up with a shorter page.
	depthScale, depthNear, depthFar = 100.0, 1.0, 2.0
)

// features computes the value of every feature for candidate c against the element recorded
// as t.
func (p *Page) features(t, c *features) (v [numFeatures]float64) {
	if t.tag != "" && c.tag != "" {
		switch {
		case t.tag == c.tag:
			v[fTagSame] = 1
		case controls[t.tag] && controls[c.tag]:
			v[fTagControl] = 1
		default:
			v[fTagOther] = 1
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
			v[fAgree+feature(k)] = p.rarity(exactField(k), cv)
		} else {
			v[fDiffer+feature(k)] = 1
		}
	}
	v[fTextWords] = dice(&p.text, t.text, c.text)
	v[fNeighbours] = dice(&p.near, t.near, c.near)
	v[fClasses] = dice(&p.class, t.class, c.class)
	v[fHrefWords] = dice(&p.href, t.href, c.href)
	v[fIdentWords] = dice(&p.ident, t.ident, c.ident)
	v[fXPath] = seqSim(t.xpath, c.xpath)
	switch {
	case t.idAnchored || c.idAnchored || t.absolute:
		// the id feature or the xpath feature has judged it already
	case len(t.idxpath) > 0 && slices.Equal(t.idxpath, c.idxpath):
		v[fIdxPath], v[fIdxPathExact] = 1, 1
	default:
		v[fIdxPath] = seqSim(t.idxpath, c.idxpath)
	}
	switch {
	case t.landmarks != 0 && c.landmarks != 0 && t.landmarks&c.landmarks == 0:
		v[fRegionNone] = 1
	case t.landmarks != 0 || c.landmarks != 0:
		v[fRegionShare] = float64(bits.OnesCount8(uint8(t.landmarks&c.landmarks))) /
			float64(bits.OnesCount8(uint8(t.landmarks|c.landmarks)))
	}
	if t.area > 0 && c.area > 0 {
		d := math.Hypot(t.x-c.x, t.y-c.y)
		v[fLocation] = 1 - 2*min(1, math.Log1p(d/locationNear)/math.Log1p(locationFar/locationNear))
		v[fArea] = logRatioSim(t.area, c.area, areaFar)
		v[fDepth] = min(1, max(0, (math.Abs(t.depth-c.depth)-depthNear)/(depthFar-depthNear)))
	}
	if t.shape > 0 && c.shape > 0 {
		v[fShape] = logRatioSim(t.shape, c.shape, shapeFar)
	}
	if t.isButton != c.isButton {
		v[fButtonDiffer] = 1
	}
	if t.typ != "" && c.typ != "" {
		if t.typ == c.typ {
			v[fTypeSame] = 1
		} else {
			v[fTypeDiffer] = 1
		}
	}
	if t.role != "" && t.role == c.role {
		v[fRole] = 1
	}
	if t.form != "" && t.form == c.form {
		v[fForm] = 1
	}
	if t.frame != c.frame {
		v[fFrameDiffer] = 1
	}
	if nested(t, c) {
		v[fNested] = 1
	}
	return v
}

// relSource are the graded features the page-relative ones are taken from: relSource[k] gives
// feature fTextBest+k.
var relSource = [numRel]feature{fTextWords, fNeighbours, fClasses, fHrefWords, fIdentWords, fXPath, fLocation}

const numRel = int(fNearest-fTextBest) + 1

// relValues are one candidate's values of the relSource features, NaN where the comparison
// does not apply (nothing in common, or no position on one side): a candidate is the page's
// closest only on a comparison that says something.
type relValues [numRel]float64

func relOf(t, c *features, v *[numFeatures]float64) (r relValues) {
	for k, f := range relSource {
		r[k] = v[f]
		if f == fLocation {
			if t.area <= 0 || c.area <= 0 {
				r[k] = math.NaN()
			}
		} else if v[f] <= 0 {
			r[k] = math.NaN()
		}
	}
	return r
}

// pageBest is the highest value of each relSource feature over a page's candidates.
type pageBest relValues

func newPageBest() (b pageBest) {
	for k := range b {
		b[k] = math.Inf(-1)
	}
	return b
}

func (b *pageBest) add(r *relValues) {
	for k, x := range r {
		if x > b[k] { // false for NaN
			b[k] = x
		}
	}
}

// set fills the page-relative features of a candidate with values r.
func (b *pageBest) set(r *relValues, v *[numFeatures]float64) {
	for k, x := range r {
		if x == b[k] { // false for NaN
			v[fTextBest+feature(k)] = 1
		}
	}
}

// rows computes every feature of every candidate against the element recorded as t, the
// page-relative ones included.
func (p *Page) rows(t *features) ([][numFeatures]float64, pageBest) {
	out := make([][numFeatures]float64, len(p.feats))
	rel := make([]relValues, len(p.feats))
	best := newPageBest()
	for i := range p.feats {
		out[i] = p.features(t, &p.feats[i])
		rel[i] = relOf(t, &p.feats[i], &out[i])
		best.add(&rel[i])
	}
	for i := range out {
		best.set(&rel[i], &out[i])
	}
	return out, best
}

// scores adds up, for every candidate, the evidence that it is the element recorded as t, in
// log-odds: a difference of 1 means e times more likely. It is rows followed by the weighted
// sum, without keeping every row.
func (p *Page) scores(t *features) ([]float64, pageBest) {
	s := make([]float64, len(p.feats))
	best := newPageBest()
	if !relWeighed {
		for i := range p.feats {
			v := p.features(t, &p.feats[i])
			for f, x := range v {
				if x != 0 {
					s[i] += weights[f] * x
				}
			}
		}
		return s, best
	}
	rel := make([]relValues, len(p.feats))
	for i := range p.feats {
		v := p.features(t, &p.feats[i])
		for f, x := range v {
			if x != 0 {
				s[i] += weights[f] * x
			}
		}
		rel[i] = relOf(t, &p.feats[i], &v)
		best.add(&rel[i])
	}
	for i := range s {
		for k, x := range rel[i] {
			if x == best[k] {
				s[i] += weights[fTextBest+feature(k)]
			}
		}
	}
	return s, best
}

// relWeighed is whether any page-relative feature has a weight; when none has (the shipped
// model: validation did not support them), scores skips computing them.
var relWeighed = func() bool {
	for f := fTextBest; f <= fNearest; f++ {
		if weights[f] != 0 {
			return true
		}
	}
	return false
}()

// parts is each signal's contribution to candidate c's score, for explaining a choice; best
// is the page's, from scores.
func (p *Page) parts(t, c *features, best *pageBest) (parts [numSignals]float64) {
	v := p.features(t, c)
	r := relOf(t, c, &v)
	best.set(&r, &v)
	for f, x := range v {
		if x != 0 {
			parts[featureSignal[f]] += weights[f] * x
		}
	}
	return parts
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
// part of it, rather than the element. A wrapper and its content (the list item around a link, the icon
// inside it) share their box, their text and their neighbours, so all that evidence cannot tell
// them apart, and when the element itself is gone its wrapper is the most tempting false heal.
// So when the candidate's tag is the tag of one of the element's own recorded ancestors, or the
// element's tag is one of the candidate's ancestors, or one xpath is a proper prefix of the
// other, the candidate is most likely the element's wrapper or part.
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
