package similo

import (
	"flag"
	"fmt"
	"go/format"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

var (
	cvFull  = flag.Bool("similo.cv", false, "TestSimiloCV: nested cross-validation on all websites of the benchmark, not a small fixed subset")
	cvWrite = flag.String("similo.write", "", "TestSimiloCV: write the model the procedure makes from all websites as Go source to `FILE` (weights.go)")
)

// The goals on websites the engine has never seen (issue 30): the right element ranked first
// for at least 94% of the elements that still exist; at the shipping threshold at most 1% of
// them answered with a wrong element and at least 80% with the right one; at least 95% of
// removed elements answered with an abstention.
const goalTop1, goalCorrect, goalWrong, goalAbstain = 0.94, 0.80, 0.01, 0.95

// The decision rule is chosen on the training websites with half the allowed error on both
// sides: at most 0.5% wrong choices and at most 2.5% choices among removed elements. Figures
// measured where the rule was chosen are better than on new websites, and half is room for
// that. Fixed before any figure of this procedure was seen.
const trainWrong, trainPicked = goalWrong / 2, (1 - goalAbstain) / 2

// rule is the decision: choose the best candidate when its calibrated confidence and its lead
// over the runner-up are both high enough. The procedure uses the margin only through the
// confidence (margin 0); the second form is kept for Engine.MinMargin.
type rule struct{ threshold, margin float64 }

func (r rule) chooses(v verdict) bool { return v.confidence >= r.threshold && v.margin >= r.margin }

// tally counts outcomes: on cases whose element exists, correct, wrong and abstained choices;
// on cases whose element was removed, picked (a false heal) and abstained.
type tally struct{ top1, correct, wrong, abstain, n, picked, abstainRemoved, removed int }

func (t *tally) add(v verdict, r rule) {
	if v.removed {
		t.removed++
		if r.chooses(v) {
			t.picked++
		} else {
			t.abstainRemoved++
		}
		return
	}
	t.n++
	if v.right {
		t.top1++
	}
	switch {
	case !r.chooses(v):
		t.abstain++
	case v.right:
		t.correct++
	default:
		t.wrong++
	}
}

func (t *tally) merge(o tally) {
	t.top1, t.correct, t.wrong, t.abstain, t.n = t.top1+o.top1, t.correct+o.correct, t.wrong+o.wrong, t.abstain+o.abstain, t.n+o.n
	t.picked, t.abstainRemoved, t.removed = t.picked+o.picked, t.abstainRemoved+o.abstainRemoved, t.removed+o.removed
}

func tallyOf(vs []verdict, r rule) tally {
	var t tally
	for _, v := range vs {
		t.add(v, r)
	}
	return t
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}

func (t tally) String() string {
	return fmt.Sprintf("top-1 %5.1f%% | correct %5.1f%%  wrong %4.1f%%  abstain %5.1f%% | removed: abstain %5.1f%%  picked %4.1f%%",
		pct(t.top1, t.n), pct(t.correct, t.n), pct(t.wrong, t.n), pct(t.abstain, t.n),
		pct(t.abstainRemoved, t.removed), pct(t.picked, t.removed))
}

// meetsGoals reports whether the figures reach the goals.
func (t tally) meetsGoals() bool {
	n := float64(t.n)
	return float64(t.top1) >= goalTop1*n && float64(t.correct) >= goalCorrect*n && float64(t.wrong) <= goalWrong*n &&
		float64(t.abstainRemoved) >= goalAbstain*float64(t.removed)
}

// chooseRule picks the decision rule on verdicts the rule's model did not see: among the
// thresholds (at least 0.5, so that a choice is always more likely right than not) and, when
// withMargin, the margins, the one that is most often correct while within trainWrong and
// trainPicked; ties go to the more cautious rule. When no rule is within both, the one with
// the fewest false choices (wrong plus picked) wins.
func chooseRule(vs []verdict, withMargin bool) rule {
	margins := []float64{0}
	if withMargin {
		margins = []float64{0, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 4}
	}
	best, bestT, feasible := rule{threshold: 0.99}, tally{}, false
	for i := 50; i <= 99; i++ {
		for _, m := range margins {
			r := rule{threshold: float64(i) / 100, margin: m}
			t := tallyOf(vs, r)
			ok := float64(t.wrong) <= trainWrong*float64(t.n) && float64(t.picked) <= trainPicked*float64(t.removed)
			var better bool
			switch {
			case ok && !feasible:
				better = true
			case ok:
				better = t.correct >= bestT.correct
			case !feasible:
				f, bf := t.wrong+t.picked, bestT.wrong+bestT.picked
				better = bestT.n == 0 || f < bf || f == bf && t.correct >= bestT.correct
			}
			if better {
				best, bestT, feasible = r, t, feasible || ok
			}
		}
	}
	return best
}

// fitCalibration fits the logistic curve of Confidence to verdicts: the probability that the
// best candidate is right (never, when the element was removed) from its margin and strength,
// by Newton's method on the mean log-likelihood. calRidge keeps the curve finite when the
// verdicts separate perfectly; like ridge it was set before any fit was looked at.
func fitCalibration(vs []verdict) [3]float64 {
	const calRidge = 1e-3
	var c [3]float64
	if len(vs) == 0 {
		return c
	}
	n := float64(len(vs))
	for range 100 {
		var g [3]float64
		var h [3][3]float64
		for _, v := range vs {
			x := [3]float64{1, v.margin, v.strength}
			p := curve{c: [4]float64{c[0], c[1], c[2], 0}}.at(v.margin, v.strength)
			y := 0.0
			if v.right && !v.removed {
				y = 1
			}
			w := max(p*(1-p), 1e-12)
			for i := range x {
				g[i] += (p - y) * x[i] / n
				for j := range x {
					h[i][j] += w * x[i] * x[j] / n
				}
			}
		}
		for i := 1; i < 3; i++ {
			g[i] += calRidge * c[i]
			h[i][i] += calRidge
		}
		h[0][0] += 1e-9
		step := solve3(h, g)
		var norm float64
		for i := range c {
			c[i] -= step[i]
			norm += step[i] * step[i]
		}
		if norm < 1e-20 {
			break
		}
	}
	return c
}

// calForm is a form of Confidence's curve the procedure chooses between (see curve): one
// logistic curve of margin and strength, or the factored curve assuming a share of removed
// elements among the elements a caller looks for (its prior). The benchmark has as many removed
// as present; how many are removed among the failing steps of real suites is not known, so the
// prior is chosen like the rest, on the inner held-out verdicts. Fixed before any figure of this
// procedure was seen: the two forms and the four shares.
type calForm struct {
	name     string
	factored bool
	removed  float64 // the share of removed elements the factored curve assumes
}

var calForms = []calForm{
	{"one curve of margin and strength", false, 0},
	{"factored, removed share 0.50", true, 0.50},
	{"factored, removed share 0.25", true, 0.25},
	{"factored, removed share 0.10", true, 0.10},
	{"factored, removed share 0.05", true, 0.05},
}

// fitCurve fits Confidence's curve of a form to verdicts. The factored curve is two logistic
// fits: "the element is there" on strength over all verdicts, then "the best candidate is
// right" on margin over those whose element is there; the first's intercept is then moved from
// the verdicts' share of removed elements to the form's.
func fitCurve(f calForm, vs []verdict) curve {
	if !f.factored {
		c := fitCalibration(vs)
		return curve{c: [4]float64{c[0], c[1], c[2], 0}}
	}
	var there, here []float64
	var strength, margin []float64
	var removed int
	for _, v := range vs {
		strength = append(strength, v.strength)
		there = append(there, float64(boolInt(!v.removed)))
		if v.removed {
			removed++
			continue
		}
		margin = append(margin, v.margin)
		here = append(here, float64(boolInt(v.right)))
	}
	a, b := fitLogistic(strength, there), fitLogistic(margin, here)
	if removed > 0 && removed < len(vs) {
		share := float64(removed) / float64(len(vs))
		a[0] += math.Log((1-f.removed)/f.removed) - math.Log((1-share)/share)
	}
	return curve{factored: true, c: [4]float64{a[0], a[1], b[0], b[1]}}
}

// fitLogistic fits P(y) = σ(c0 + c1·x) by Newton's method on the mean log-likelihood, with
// the same small penalty on the slope as fitCalibration.
func fitLogistic(x, y []float64) [2]float64 {
	const calRidge = 1e-3
	var c [2]float64
	if len(x) == 0 {
		return c
	}
	n := float64(len(x))
	for range 100 {
		var g [3]float64
		var h [3][3]float64
		for i := range x {
			p := sigmoid(c[0] + c[1]*x[i])
			w := max(p*(1-p), 1e-12)
			g[0] += (p - y[i]) / n
			g[1] += (p - y[i]) * x[i] / n
			h[0][0] += w / n
			h[0][1] += w * x[i] / n
			h[1][1] += w * x[i] * x[i] / n
		}
		h[1][0] = h[0][1]
		g[1] += calRidge * c[1]
		h[1][1] += calRidge
		h[0][0] += 1e-9
		h[2][2] = 1
		step := solve3(h, g)
		c[0] -= step[0]
		c[1] -= step[1]
		if step[0]*step[0]+step[1]*step[1] < 1e-20 {
			break
		}
	}
	return c
}

// solve3 solves h·x = g by Gaussian elimination with partial pivoting.
func solve3(h [3][3]float64, g [3]float64) (x [3]float64) {
	for col := range 3 {
		p := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(h[r][col]) > math.Abs(h[p][col]) {
				p = r
			}
		}
		h[col], h[p] = h[p], h[col]
		g[col], g[p] = g[p], g[col]
		for r := col + 1; r < 3; r++ {
			f := h[r][col] / h[col][col]
			for k := col; k < 3; k++ {
				h[r][k] -= f * h[col][k]
			}
			g[r] -= f * g[col]
		}
	}
	for r := 2; r >= 0; r-- {
		s := g[r]
		for k := r + 1; k < 3; k++ {
			s -= h[r][k] * x[k]
		}
		x[r] = s / h[r][r]
	}
	return x
}

// featureSet is a choice of features the inner validation makes: the features it leaves out
// stay at weight 0.
type featureSet struct {
	name   string
	frozen map[feature]bool
}

// unweighted are disagreements no model weighs: visible text, hrefs and their page change with
// copy edits and tracking parameters while the element stays. (The previous, not nested,
// selection left them out after trying them on all 18 websites; this procedure inherits that
// choice rather than making it again.)
var unweighted = map[feature]bool{fDiffer + feature(exHref): true, fDiffer + feature(exText): true, fDiffer + feature(exHrefPage): true}

// featureSets are the candidates of the inner validation's one feature choice: with or
// without the page-relative features (fTextBest...fNearest).
var featureSets = func() []featureSet {
	without := map[feature]bool{}
	for f := range unweighted {
		without[f] = true
	}
	for k := range numRel {
		without[fTextBest+feature(k)] = true
	}
	return []featureSet{{"without page-relative features", without}, {"with page-relative features", unweighted}}
}()

// shipped is what the procedure makes from a set of websites.
type shipped struct {
	set   int       // the feature set chosen, in featureSets
	p     params    // the ranking weights and absent score, fitted on all the websites
	form  int       // the form of Confidence's curve chosen, in calForms
	cal   curve     // the calibration of Confidence
	r     rule      // the decision rule
	nll   []float64 // per feature set, the mean negative log-likelihood on websites left out
	forms []string  // per form, its inner figures, for the log
	inner tally     // the inner validation's figures for the chosen form and rule
}

// fitMemo remembers fits by feature set and websites. The nested validation needs the fit
// without websites a and b twice (a held out outside and b inside, and the other way round),
// and the fit without one website in every outer fold and in the run on all of them: each is
// made once. The objective is convex, so a fit from another start is the same fit.
type fitMemo struct {
	mu   sync.Mutex
	fits map[string]*memoFit
}

type memoFit struct {
	once sync.Once
	p    params
}

// fitMemo is fit through d's memo, when it has one; k names the feature set d fits.
func (d *fitData) fitMemo(k int, sites map[string]bool, start params) params {
	if d.memo == nil {
		return d.fit(sites, start)
	}
	names := make([]string, 0, len(sites))
	for s, in := range sites {
		if in {
			names = append(names, s)
		}
	}
	slices.Sort(names)
	key := fmt.Sprint(k, names)
	d.memo.mu.Lock()
	e := d.memo.fits[key]
	if e == nil {
		e = &memoFit{}
		d.memo.fits[key] = e
	}
	d.memo.mu.Unlock()
	e.once.Do(func() { e.p = d.fit(sites, start) })
	return e.p
}

func siteSet(sites []string, without string) map[string]bool {
	m := map[string]bool{}
	for _, s := range sites {
		if s != without {
			m[s] = true
		}
	}
	return m
}

// procedure is how a model is made from a set of websites, every choice in it made by leaving
// each of those websites out in turn (the inner validation):
//
//  1. the feature set: the one whose weights, fitted without a website, give that website's
//     cases the highest likelihood, over all websites in turn;
//  2. the ranking weights and absent score: maximum likelihood on all the websites with the
//     chosen features;
//  3. the calibration's form (calForms: one curve of margin and strength, or the factored
//     curve with one of four shares of removed elements assumed) and the threshold, together:
//     for each form, the threshold the most accurate within trainWrong and trainPicked on the
//     verdicts of step 1 (each website's cases scored by weights fitted without it), each
//     website's calibrated by a curve fitted without it; then the form whose threshold does
//     best there (chooseCurve);
//  4. the calibration: the chosen form's curve fitted to all the verdicts of step 1, since a
//     model's confidence on its own training cases is flattering.
//
// start, when not nil, is where the fits start: the objective is convex, so it only saves
// iterations, and the optimum found does not depend on it.
func procedure(d *fitData, train []string, start []params) shipped {
	sh := shipped{set: -1}
	var oof []verdict
	bestNLL := math.Inf(1)
	all := siteSet(train, "")
	for k, fs := range featureSets {
		dk := d.with(fs.frozen)
		var st params
		if start != nil {
			st = start[k]
		}
		full := dk.fitMemo(k, all, st)
		var vs []verdict
		var nll float64
		for _, s := range train {
			p := dk.fitMemo(k, siteSet(train, s), full)
			for _, v := range dk.predictSites(p, map[string]bool{s: true}) {
				nll += v.nll
				vs = append(vs, v)
			}
		}
		nll /= float64(max(1, len(vs)))
		sh.nll = append(sh.nll, nll)
		if nll < bestNLL {
			bestNLL, sh.set, sh.p, oof = nll, k, full, vs
		}
	}
	best, forms := chooseCurve(train, oof)
	sh.form, sh.r, sh.inner, sh.forms = best.form, best.r, best.t, forms
	sh.cal = fitCurve(calForms[sh.form], oof)
	return sh
}

// chooseCurve chooses the form of Confidence's curve and the threshold together, on held-out
// verdicts of the websites train: each website's verdicts calibrated by a curve fitted without
// it, the threshold chosen for each form by chooseRule, and the form by calChoice.better. It
// returns a line of inner figures per form, for the log.
func chooseCurve(train []string, oof []verdict) (calChoice, []string) {
	var best calChoice
	var lines []string
	for k, f := range calForms {
		var inner []verdict
		for _, s := range train {
			var fit, test []verdict
			for _, v := range oof {
				if v.site == s {
					test = append(test, v)
				} else {
					fit = append(fit, v)
				}
			}
			inner = append(inner, calibrate(test, fitCurve(f, fit))...)
		}
		c := calChoice{form: k, r: chooseRule(inner, false)}
		c.t = tallyOf(inner, c.r)
		c.ll = meanLogLik(inner)
		c.fits = float64(c.t.wrong) <= trainWrong*float64(c.t.n) && float64(c.t.picked) <= trainPicked*float64(c.t.removed)
		lines = append(lines, fmt.Sprintf("%s: threshold %.2f, %v, log-likelihood %.4f", f.name, c.r.threshold, c.t, c.ll))
		if k == 0 || c.better(best) {
			best = c
		}
	}
	return best, lines
}

// better orders the procedure's choices of curve and threshold: within the training limits
// first, then the most correct, then the fewest false choices (wrong plus picked), then the
// curve that gives the held-out verdicts the higher likelihood.
func (c calChoice) better(o calChoice) bool {
	switch {
	case c.fits != o.fits:
		return c.fits
	case c.t.correct != o.t.correct:
		return c.t.correct > o.t.correct
	case c.t.wrong+c.t.picked != o.t.wrong+o.t.picked:
		return c.t.wrong+c.t.picked < o.t.wrong+o.t.picked
	}
	return c.ll > o.ll
}

// calChoice is one form of the curve with the threshold chosen for it, and its inner figures.
type calChoice struct {
	form int
	r    rule
	t    tally
	ll   float64
	fits bool
}

// meanLogLik is the mean log-likelihood of the verdicts' outcomes (right, or not) under their
// confidences.
func meanLogLik(vs []verdict) float64 {
	var s float64
	for _, v := range vs {
		p := v.confidence
		if !v.right || v.removed {
			p = 1 - p
		}
		s += math.Log(max(p, 1e-12))
	}
	return s / float64(max(1, len(vs)))
}

// evaluate is how a shipped model does on the cases of sites.
func (d *fitData) evaluate(sh shipped, sites map[string]bool) []verdict {
	return calibrate(d.with(featureSets[sh.set].frozen).predictSites(sh.p, sites), sh.cal)
}

// outerFold is one website held out: what the procedure made without it, and how that did on it.
type outerFold struct {
	site string
	sh   shipped
	t    tally
}

// nestedCV validates the procedure: for each website, run it on the others (with its own inner
// validation on those only) and measure the one left out with what it made. The sum is the
// estimate of how the shipped model does on websites nobody has seen.
func nestedCV(d *fitData, sites []string, start []params) []outerFold {
	out := make([]outerFold, len(sites))
	parallel(len(sites), func(i int) {
		var train []string
		for _, s := range sites {
			if s != sites[i] {
				train = append(train, s)
			}
		}
		sh := procedure(d, train, start)
		held := map[string]bool{sites[i]: true}
		out[i] = outerFold{site: sites[i], sh: sh, t: tallyOf(d.evaluate(sh, held), sh.r)}
		if *cvFull { // progress of a long run
			fmt.Fprintf(os.Stderr, "similo cv: held out %s: %v\n", sites[i], out[i].t)
		}
	})
	return out
}

// asParams puts a full weight vector into the fitted columns' order.
func (d *fitData) asParams(w [numFeatures]float64, absent float64) params {
	p := make(params, len(d.cols)+1)
	for i, f := range d.cols {
		p[i] = w[f]
	}
	p[len(d.cols)] = absent
	return p
}

// tiedWeights give the features the benchmark cannot fit, because it does not record the
// field, the weight of the fitted feature closest in meaning, times a ratio: accessible name,
// label, placeholder, alt and title are text a user reads, like visible text; an input type and
// a role are kinds of element, like the tag; a form and a frame are a coarse place, like half a
// tag. A test id exists only to be found again by tests, so a unique one agreeing is by itself
// as much evidence as the absent element's score (tieAbsent), and a different one counts half
// as much against, since a change may rename it too.
var tiedWeights = map[feature]struct {
	to    feature
	ratio float64
}{
	fAgree + feature(exAccName):      {fAgree + feature(exText), 1},
	fAgree + feature(exLabel):        {fAgree + feature(exText), 1},
	fAgree + feature(exPlaceholder):  {fAgree + feature(exText), 1},
	fAgree + feature(exAlt):          {fAgree + feature(exText), 1},
	fAgree + feature(exTitle):        {fAgree + feature(exText), 1},
	fDiffer + feature(exAccName):     {fDiffer + feature(exText), 1},
	fDiffer + feature(exLabel):       {fDiffer + feature(exText), 1},
	fDiffer + feature(exPlaceholder): {fDiffer + feature(exText), 1},
	fDiffer + feature(exAlt):         {fDiffer + feature(exText), 1},
	fDiffer + feature(exTitle):       {fDiffer + feature(exText), 1},
	fAgree + feature(exTestID):       {tieAbsent, 1},
	fDiffer + feature(exTestID):      {tieAbsent, -0.5},
	fTypeSame:                        {fTagSame, 1},
	fTypeDiffer:                      {fTagOther, 0.5},
	fRole:                            {fTagSame, 1},
	fForm:                            {fTagSame, 0.5},
	fFrameDiffer:                     {fTagSame, -0.5},
}

// tieAbsent in tiedWeights stands for the absent score.
const tieAbsent = numFeatures

// weightsOf spreads fitted params over all features, filling in the tied ones.
func (d *fitData) weightsOf(p params) (w [numFeatures]float64, absent float64) {
	fitted := map[feature]bool{}
	for i, f := range d.cols {
		if !d.frozen[f] {
			w[f] = p[i]
			fitted[f] = true
		}
	}
	absent = p[len(d.cols)]
	for f, t := range tiedWeights {
		switch {
		case fitted[f] || d.frozen[f]:
		case t.to == tieAbsent:
			w[f] = t.ratio * absent
		default:
			w[f] = t.ratio * w[t.to]
		}
	}
	return w, absent
}

// missingEvidence is what position and size (fLocation, fArea, fDepth, fNearest) and shape (fShape)
// contribute on average to the score of the right candidate on the websites' cases: what a
// target recorded without them cannot show (see absentFor).
func (d *fitData) missingEvidence(p params, sites map[string]bool) (position, shape float64) {
	var n int
	for ci := range d.cases {
		c := &d.cases[ci]
		if !sites[c.site] || c.label < 0 {
			continue
		}
		n++
		for i := c.row[c.label]; i < c.row[c.label+1]; i++ {
			switch d.cols[c.col[i]] {
			case fLocation, fArea, fDepth, fNearest:
				position += p[c.col[i]] * float64(c.val[i])
			case fShape:
				shape += p[c.col[i]] * float64(c.val[i])
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return position / float64(n), shape / float64(n)
}

// featureName is how weights.go spells a feature.
func featureName(f feature) string {
	names := []string{"fTagSame", "fTagControl", "fTagOther", "fTextWords", "fNeighbours", "fClasses",
		"fHrefWords", "fIdentWords", "fXPath", "fIdxPath", "fIdxPathExact", "fRegionShare", "fRegionNone",
		"fLocation", "fArea", "fShape", "fDepth", "fButtonDiffer", "fTypeSame", "fTypeDiffer", "fRole",
		"fForm", "fFrameDiffer", "fNested", "fTextBest", "fNearBest", "fClassBest", "fHrefBest", "fIdentBest",
		"fXPathBest", "fNearest"}
	fields := []string{"exID", "exName", "exHref", "exText", "exAlt", "exTestID", "exAccName", "exLabel",
		"exPlaceholder", "exTitle", "exHrefPage"}
	switch {
	case f < fAgree:
		return names[f]
	case f < fDiffer:
		return "fAgree + feature(" + fields[f-fAgree] + ")"
	}
	return "fDiffer + feature(" + fields[f-fDiffer] + ")"
}

// source is weights.go for a shipped model.
func source(d *fitData, sh shipped, figures []string, position, shape float64) ([]byte, error) {
	w, absent := d.with(featureSets[sh.set].frozen).weightsOf(sh.p)
	var b strings.Builder
	b.WriteString("// Code generated by TestSimiloCV -similo.write; DO NOT EDIT.\n\n")
	b.WriteString("package similo\n\n")
	b.WriteString(`// The model below was made by one procedure (procedure in cv_test.go, run by make bench) from
// the 18 websites of the development benchmark, with and without each expected element:
// the feature set chosen by leave-one-website-out likelihood, the weights by maximum
// likelihood of the engine's posterior, the calibration of Confidence (its form and the share
// of removed elements it assumes, and its curve) fitted to verdicts of websites left out of the
// weights' fit, and the threshold the most accurate that keeps wrong choices and choices among
// removed elements within half the goals on those verdicts, chosen with the form. Every
// choice is made by leaving each website out in turn. The procedure itself was validated by
// nested leave-one-website-out: for each website, the whole procedure (its own inner
// validation included) run on the other 17, and the one left out measured; those outer figures
// are the estimate for websites never seen. Weights of features the benchmark does not record
// are tied to the closest recorded one (tiedWeights in cv_test.go). Figures:
//
`)
	for _, l := range figures {
		b.WriteString("//   " + strings.TrimSpace(l) + "\n")
	}
	b.WriteString("var weights = [numFeatures]float64{\n")
	for f := range numFeatures {
		if w[f] != 0 {
			fmt.Fprintf(&b, "\t%s: %.4f,\n", featureName(f), w[f])
		}
	}
	b.WriteString("}\n\n")
	b.WriteString("// absentScore is the score of \"the element is gone\" in the posterior.\n")
	fmt.Fprintf(&b, "const absentScore = %.4f\n\n", absent)
	b.WriteString("// positionEvidence and shapeEvidence are what position and size, and shape, add on average\n// to the right candidate's score: see absentFor.\n")
	fmt.Fprintf(&b, "const positionEvidence, shapeEvidence = %.4f, %.4f\n\n", position, shape)
	f := calForms[sh.form]
	if f.factored {
		fmt.Fprintf(&b, "// calibration is Confidence's curve, factored (see curve), assuming a share %.2f of removed\n", f.removed)
		b.WriteString("// elements: σ(c0 + c1·strength) · σ(c2 + c3·margin).\n")
	} else {
		b.WriteString("// calibration is Confidence's curve, one logistic curve of both numbers (see curve):\n")
		b.WriteString("// σ(c0 + c1·margin + c2·strength).\n")
	}
	fmt.Fprintf(&b, "var calibration = curve{factored: %v, c: [4]float64{%.4f, %.4f, %.4f, %.4f}}\n\n", f.factored, sh.cal.c[0], sh.cal.c[1], sh.cal.c[2], sh.cal.c[3])
	b.WriteString("// ShippingThreshold is the confidence a choice needs unless an Engine says otherwise.\n")
	fmt.Fprintf(&b, "const ShippingThreshold = %.2f\n\n", sh.r.threshold)
	b.WriteString("// ShippingMargin is the lead in score points over the runner-up a choice needs unless an\n// Engine says otherwise.\n")
	b.WriteString("const ShippingMargin = 0.0 // none: the margin enters through the calibrated confidence\n")
	return format.Source([]byte(b.String()))
}

// cvSubset is the fixed small set of websites the default (make test) run cross-validates on:
// the smallest pages, so that it takes seconds; make bench runs it on all of them.
var cvSubset = map[string]bool{"Google": true, "Spotify": true, "Zillow": true, "Netflix": true}

func subset(ls []benchLine) (out []benchLine) {
	for _, l := range ls {
		if cvSubset[l.App] {
			out = append(out, l)
		}
	}
	return out
}

// TestSimiloCV validates the procedure that makes the engine's model by nested
// leave-one-website-out cross-validation and prints the outer figures beside the Similo
// baseline's, per website and in sum (run with -v). By default it runs on a small fixed subset
// of the benchmark's websites, in seconds; -similo.cv runs it on all of them (make bench), and
// -similo.write FILE writes the model the procedure makes from all of them, which is how
// weights.go was made.
func TestSimiloCV(t *testing.T) {
	dev, removed := loadBench(t, "similo-dev.jsonl"), loadBench(t, "similo-dev-removed.jsonl")
	if !*cvFull {
		dev, removed = subset(dev), subset(removed)
		t.Logf("on the fixed subset of %d websites; -similo.cv runs on all", len(cvSubset))
	}
	d := &fitData{}
	*d = extract(dev, removed)
	d.memo = &fitMemo{fits: map[string]*memoFit{}}
	sites := d.sortedSites()
	all := siteSet(sites, "")
	sim := similoTop1(dev)

	// Every fit starts from the fit on all websites with the same features: the objective
	// is convex, so this saves iterations without changing what any fit finds.
	start := make([]params, len(featureSets))
	for k, fs := range featureSets {
		start[k] = d.with(fs.frozen).fitMemo(k, all, nil)
	}
	folds := nestedCV(d, sites, start)

	var figures []string
	row := func(format string, args ...any) {
		l := fmt.Sprintf(format, args...)
		figures = append(figures, l)
		t.Log(l)
	}
	var outer, baseline tally
	var perTop1, perCorrect []float64
	for _, f := range folds {
		s := sim[f.site]
		outer.merge(f.t)
		baseline.merge(s)
		if f.t.n > 0 {
			perTop1 = append(perTop1, pct(f.t.top1, f.t.n))
			perCorrect = append(perCorrect, pct(f.t.correct, f.t.n))
		}
		t.Logf("held out %-11s n %3d  features %d  curve %d  threshold %.2f  %v | Similo top-1 %5.1f%%",
			f.site, f.t.n, f.sh.set, f.sh.form, f.sh.r.threshold, f.t, pct(s.top1, s.n))
	}
	row("nested LOSO, outer:  %v", outer)
	row("Similo baseline:     top-1 %5.1f%% (never abstains: wrong %4.1f%%, removed picked 100%%)", pct(baseline.top1, baseline.n), pct(baseline.n-baseline.top1, baseline.n))
	row("per website (outer): top-1 %s; correct %s", spread(perTop1), spread(perCorrect))

	sh := procedure(d, sites, start)
	row("shipped (all %d websites): features %q, curve %q %.3f %.3f %.3f %.3f, threshold %.2f; inner figures %v",
		len(sites), featureSets[sh.set].name, calForms[sh.form].name, sh.cal.c[0], sh.cal.c[1], sh.cal.c[2], sh.cal.c[3], sh.r.threshold, sh.inner)
	for _, l := range sh.forms {
		t.Logf("inner, %s", l)
	}
	for k, fs := range featureSets {
		t.Logf("inner held-out log-likelihood per case, %s: %.4f", fs.name, -sh.nll[k])
	}

	// The fit must have reached the optimum: the gradient vanishes there.
	ds := d.with(featureSets[sh.set].frozen)
	g := make([]float64, len(sh.p))
	ds.objective(sh.p, func(c *fitCase) bool { return all[c.site] }, g)
	if n := math.Sqrt(dotF(g, g)); n > 1e-4 {
		t.Errorf("the fit stopped with gradient norm %v, not at the optimum", n)
	}

	if !*cvFull {
		return
	}
	position, shape := ds.missingEvidence(sh.p, all)
	if *cvWrite != "" {
		src, err := source(d, sh, figures, position, shape)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*cvWrite, src, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", *cvWrite)
	} else {
		// What ships is what the procedure makes: weights.go is not stale.
		w, absent := ds.weightsOf(sh.p)
		for f := range numFeatures {
			if math.Abs(w[f]-weights[f]) > 1e-3 {
				t.Errorf("weights.go gives %s %.4f, the procedure %.4f: rerun with -similo.write", featureName(f), weights[f], w[f])
			}
		}
		if math.Abs(position-positionEvidence) > 1e-3 || math.Abs(shape-shapeEvidence) > 1e-3 {
			t.Errorf("weights.go gives position and shape evidence %.4f, %.4f, the procedure %.4f, %.4f: rerun with -similo.write",
				positionEvidence, shapeEvidence, position, shape)
		}
		for i := range sh.cal.c {
			if sh.cal.factored != calibration.factored || math.Abs(sh.cal.c[i]-calibration.c[i]) > 1e-3 {
				t.Errorf("weights.go gives calibration %+v, the procedure %+v: rerun with -similo.write", calibration, sh.cal)
				break
			}
		}
		if math.Abs(absent-absentScore) > 1e-3 || sh.r.threshold != ShippingThreshold || ShippingMargin != 0 {
			t.Errorf("weights.go ships absent %.4f threshold %.2f margin %.2f, the procedure %.4f %.2f 0: rerun with -similo.write",
				absentScore, ShippingThreshold, ShippingMargin, absent, sh.r.threshold)
		}
	}
	// The goals are for websites never seen; the outer figures are the honest estimate of
	// them here, and a miss is reported, not hidden.
	if !outer.meetsGoals() {
		t.Logf("nested leave-one-website-out figures MISS the goals (top-1 ≥ %.0f%%, correct ≥ %.0f%%, wrong ≤ %.0f%%, removed abstain ≥ %.0f%%)",
			100*goalTop1, 100*goalCorrect, 100*goalWrong, 100*goalAbstain)
	}
}

// spread is the minimum, median and maximum of per-website percentages.
func spread(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	return fmt.Sprintf("min %.1f%% median %.1f%% max %.1f%%", s[0], s[len(s)/2], s[len(s)-1])
}
