// Package similo finds an element again on a changed page without a model call: given the
// fingerprint a green run recorded for an element and the fingerprints of the current page's
// candidate elements, it ranks the candidates by similarity and either names the element with a
// calibrated confidence or abstains.
//
// The idea follows Similo (Nass et al., "Similarity-based Web Element Localization for Robust
// Test Automation", TOSEM 2023): a weighted sum of per-attribute similarities. It goes beyond it
// in three ways. Agreements are weighted by how rare the agreeing value is on the page (a shared
// class says little, a unique href a lot). Modern attributes (test id, role, accessible name,
// label, placeholder, input type) take part. And the confidence is a posterior probability over
// "which candidate, if any, is the element", so it falls when the winner is weak, when a
// runner-up is close, and when many candidates tie. The weights, the absent element's score
// and the threshold are fitted as that model and chosen by a procedure validated by leaving
// each website of the development benchmark out in turn (weights.go). One rule stands beside
// the weights: a row twin, the same control on another row of the page, is never chosen
// (twin.go).
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
	Confidence float64 // the best candidate's posterior probability
	Margin     float64 // the best score minus the runner-up's
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
	raw, pb := p.scores(&t)
	best, second := -1, -1
	var bestS, secondS float64
	scores := make([]Scored, len(raw))
	for i, s := range raw {
		scores[i] = Scored{Index: i, Score: s}
		switch {
		case best < 0 || s > bestS:
			second, secondS = best, bestS
			best, bestS = i, s
		case second < 0 || s > secondS:
			second, secondS = i, s
		}
	}
	m.Best, m.Score, m.RunnerUp = best, bestS, second
	absent := absentFor(&t)
	m.Confidence = math.Exp(bestS - normaliser(scores, absent))
	if second >= 0 {
		m.Margin = bestS - secondS
	} else {
		m.Margin = bestS - absent
	}
	if m.Confidence >= e.threshold() && m.Margin >= e.minMargin() {
		m.Index = best
	}
	sib := -1
	if e.Threshold >= 0 {
		if j, twin := p.twin(&t, best); twin {
			m.Index, sib = -1, j
			if own := p.ownRow(&t, target.XPath); own >= 0 {
				// The rows moved (sorted, rotated, paged): the twin sits where the element
				// was, and the element itself, by its whole recorded name, is elsewhere in
				// the family.
				m.Index, m.Confidence = own, math.Exp(raw[own]-normaliser(scores, absent))
				m.Reason = p.reason(&t, &pb, m, e, sib) + fmt.Sprintf("; candidate %d, the one of the family with the whole recorded name, is chosen: the rows moved", own)
				return m
			}
		}
	}
	m.Reason = p.reason(&t, &pb, m, e, sib)
	return m
}

// reason says which signals carried the best candidate and why it was or was not chosen;
// sibling, when not -1, is the candidate that showed the best one to be a row twin (twin.go).
func (p *Page) reason(t *features, pb *pageBest, m Match, e Engine, sibling int) string {
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
	case sibling >= 0:
		verdict = fmt.Sprintf("abstained (a row twin: its name swaps words of the recorded name that still stand on the page for its own, as candidate %d's does)", sibling)
	case m.Confidence < e.threshold():
		verdict = fmt.Sprintf("abstained (confidence below %.2f)", e.threshold())
	default:
		verdict = fmt.Sprintf("abstained (margin below %.1f)", e.minMargin())
	}
	return fmt.Sprintf("candidate %d %s; confidence %.2f, margin %.1f over candidate %d; %s",
		m.Best, agreed, m.Confidence, m.Margin, m.RunnerUp, verdict)
}
