// Package similo finds an element again on a changed page without a model call: given the
// fingerprint a green run recorded for an element and the fingerprints of the current page's
// candidate elements, it ranks the candidates by similarity and either names the element with a
// calibrated confidence or abstains.
//
// The idea follows Similo (Nass et al., "Similarity-based Web Element Localization for Robust
// Test Automation", TOSEM 2023): a weighted sum of per-attribute similarities. It goes beyond it
// in four ways. Agreements are weighted by how rare the agreeing value is on the page (a shared
// class says little, a unique href a lot). Some evidence is relative to the page: being the
// candidate closest in text, neighbours, classes, href, id words, path or position among this
// page's candidates, which means the same on every site however much it changed. Modern
// attributes (test id, role, accessible name, label, placeholder, input type) take part. And the
// decision rests on a calibrated confidence: the probability that the best candidate is the
// element, from its lead over the runner-up (margin) and over "the element is gone"
// (strength), fitted on websites the weights never saw, with removed elements counted as wrong
// whatever was chosen, so that it falls when the winner is weak or a runner-up is close and a
// threshold on it means the same on a new site. The weights, the calibration and the threshold
// are all chosen by one procedure, every choice in it by leaving each website of the
// development benchmark out in turn, and the procedure itself is validated by nested
// leave-one-website-out (weights.go, cv_test.go).
package similo

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// NeverAbstain as an Engine's Threshold makes Locate always name its best candidate.
const NeverAbstain = -1

// Engine ranks candidates and decides. The zero value uses ShippingThreshold and
// ShippingMargin.
type Engine struct {
	// Threshold is the confidence in (0, 1] a choice needs; 0 means ShippingThreshold and a
	// negative value (NeverAbstain) means always choose, whatever the margin.
	Threshold float64
	// MinMargin is how many score points the best candidate must lead the runner-up by; 0
	// means ShippingMargin and a negative value means any lead.
	MinMargin float64
}

// Scored is one candidate's standing.
type Scored struct {
	Index      int     // into the candidates
	Score      float64 // summed evidence; higher is more similar
	Confidence float64 // posterior probability that this candidate is the element
}

// Match is the outcome of locating one element.
type Match struct {
	Index      int     // the chosen candidate, or -1 when the engine abstains
	Best       int     // the best candidate even when abstaining, -1 when there are none
	Score      float64 // the best candidate's score
	Confidence float64 // calibrated probability that the best candidate is the element: see Confidence
	Margin     float64 // the best score minus the runner-up's (minus the absent element's when alone)
	Strength   float64 // the best score minus the absent element's
	RunnerUp   int     // the runner-up's index, -1 when there is none
	Reason     string  // one line for a person: what agreed, and why it was chosen or not
}

// Abstained reports whether the engine declined to choose.
func (m Match) Abstained() bool { return m.Index < 0 }

func (e Engine) threshold() float64 {
	if e.Threshold == 0 {
		return ShippingThreshold
	}
	return e.Threshold
}

func (e Engine) minMargin() float64 {
	switch {
	case e.Threshold < 0 || e.MinMargin < 0:
		return math.Inf(-1)
	case e.MinMargin == 0:
		return ShippingMargin
	}
	return e.MinMargin
}

// Rank scores every candidate against target, best first.
func (e Engine) Rank(target gardener.Fingerprint, candidates []gardener.Fingerprint) []Scored {
	return NewPage(candidates).Rank(target)
}

// Locate finds target among candidates.
func (e Engine) Locate(target gardener.Fingerprint, candidates []gardener.Fingerprint) Match {
	return e.LocateOn(NewPage(candidates), target)
}

// Rank scores every candidate of the page against target, best first; ties keep page order.
// A candidate's Confidence here is its share of the posterior over "which candidate, if any";
// Locate's Confidence is the calibrated probability that its choice is right.
func (p *Page) Rank(target gardener.Fingerprint) []Scored {
	t := p.target(&target)
	s, _ := p.scores(&t)
	out := make([]Scored, len(s))
	for i := range s {
		out[i] = Scored{Index: i, Score: s[i]}
	}
	norm := normaliser(out, absentFor(&t))
	for i := range out {
		out[i].Confidence = math.Exp(out[i].Score - norm)
	}
	slices.SortStableFunc(out, func(a, b Scored) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out
}

// Confidence is the calibrated probability that the best candidate is the element, from the
// two numbers that decide it: its lead over the runner-up (margin) and its lead over "the
// element is gone" (strength), both in score points. It is a curve fitted, on websites the
// weights were not fitted to, to whether the best candidate was right, with the cases whose
// element was removed counted as wrong whatever was chosen (see weights.go and curve). The
// raw posterior over candidates depends on how a site writes its pages, and its scale moved
// from site to site; a threshold on this one means the same on a site never seen, as far as
// validation on held-out websites can tell.
func Confidence(margin, strength float64) float64 {
	return calibration.at(margin, strength)
}

// curve is a calibration of Confidence, in one of two forms the procedure chooses between.
//
// One logistic curve of both numbers, σ(c0 + c1·margin + c2·strength): its threshold is a
// straight line in (margin, strength), so a large margin makes up for a weak strength. A
// removed element often leaves a best remaining candidate that stands out from the rest
// (a large margin) while falling short of "gone" (a weak strength), and a line must then be
// drawn far out to keep those off, past right matches that are only moderately strong.
//
// Factored, the product of the two questions the decision is made of: is the element there at
// all, σ(c0 + c1·strength), and if it is, is the best candidate it rather than the runner-up,
// σ(c2 + c3·margin), fitted on the cases whose element exists. Its threshold asks for both, so
// a large margin does not make up for an element that looks gone. The first factor's
// intercept holds the share of removed elements the curve assumes (the prior): the
// benchmark has as many removed as present, and the procedure chooses the prior it ships
// among several (weights.go).
type curve struct {
	factored bool
	c        [4]float64
}

func (k curve) at(margin, strength float64) float64 {
	if k.factored {
		return sigmoid(k.c[0]+k.c[1]*strength) * sigmoid(k.c[2]+k.c[3]*margin)
	}
	return sigmoid(k.c[0] + k.c[1]*margin + k.c[2]*strength)
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// The posterior treats "the element is gone" as one more candidate with a fixed score,
// absentScore, and turns scores into probabilities with a softmax:
// P(i) = exp(s_i) / (exp(s_0) + Σ exp(s_j)). A winner is then confident only if it beats the
// absent element clearly (absolute evidence), beats the runner-up clearly (margin) and has no
// crowd of near-twins (uniqueness), all in one number. The scores are log-odds because the
// weights are fitted as exactly this model (see weights.go).

// absentFor is the absent element's score for a target. A real match reaches absentScore
// partly through its position and size; a target recorded without them (a hidden element, a
// fingerprint written by hand) cannot show that part, so the bar is lowered by what it
// contributes to a typical match (positionEvidence and shapeEvidence, fitted with the weights).
// Otherwise every such element would look gone.
func absentFor(t *features) float64 {
	a := absentScore
	if t.area <= 0 {
		a -= positionEvidence
	}
	if t.shape <= 0 {
		a -= shapeEvidence
	}
	return a
}

// normaliser returns log(exp(s_0) + Σ exp(s_j)), computed stably.
func normaliser(s []Scored, absent float64) float64 {
	hi := absent
	for _, x := range s {
		hi = max(hi, x.Score)
	}
	sum := math.Exp(absent - hi)
	for _, x := range s {
		sum += math.Exp(x.Score - hi)
	}
	return hi + math.Log(sum)
}

// LocateOn finds target among the page's candidates, reusing the page's preparation.
func (e Engine) LocateOn(p *Page, target gardener.Fingerprint) Match {
	m := Match{Index: -1, Best: -1, RunnerUp: -1}
	if len(p.feats) == 0 {
		m.Reason = "no candidates on the page"
		return m
	}
	t := p.target(&target)
	s, pb := p.scores(&t)
	best, second := -1, -1
	var bestS, secondS float64
	for i, x := range s {
		switch {
		case best < 0 || x > bestS:
			second, secondS = best, bestS
			best, bestS = i, x
		case second < 0 || x > secondS:
			second, secondS = i, x
		}
	}
	m.Best, m.Score, m.RunnerUp = best, bestS, second
	absent := absentFor(&t)
	m.Strength = bestS - absent
	if second >= 0 {
		m.Margin = bestS - secondS
	} else {
		m.Margin = m.Strength
	}
	m.Confidence = Confidence(m.Margin, m.Strength)
	if m.Confidence >= e.threshold() && m.Margin >= e.minMargin() {
		m.Index = best
	}
	m.Reason = p.reason(&t, &pb, m, e)
	return m
}

// reason says which signals carried the best candidate and why it was or was not chosen.
func (p *Page) reason(t *features, pb *pageBest, m Match, e Engine) string {
	parts := p.parts(t, &p.feats[m.Best], pb)
	order := make([]signal, 0, numSignals)
	for s := range numSignals {
		if parts[s] >= 1 {
			order = append(order, signal(s))
		}
	}
	slices.SortStableFunc(order, func(a, b signal) int {
		switch {
		case parts[a] > parts[b]:
			return -1
		case parts[a] < parts[b]:
			return 1
		}
		return 0
	})
	if len(order) > 4 {
		order = order[:4]
	}
	names := make([]string, len(order))
	for i, s := range order {
		names[i] = signalNames[s]
	}
	agreed := "nothing strong agrees"
	if len(names) > 0 {
		agreed = "agrees on " + strings.Join(names, ", ")
	}
	verdict := "chosen"
	switch {
	case m.Index >= 0:
	case m.Confidence < e.threshold():
		verdict = fmt.Sprintf("abstained (confidence below %.2f)", e.threshold())
	default:
		verdict = fmt.Sprintf("abstained (margin below %.1f)", e.minMargin())
	}
	return fmt.Sprintf("candidate %d %s; confidence %.2f, margin %.1f over candidate %d, strength %.1f; %s",
		m.Best, agreed, m.Confidence, m.Margin, m.RunnerUp, m.Strength, verdict)
}
