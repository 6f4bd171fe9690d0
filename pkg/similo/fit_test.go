package similo

import (
	"math"
	"runtime"
	"slices"
	"sync"
)

// This file fits the engine's weights: the score is linear in the weights (score.go), and the
// engine's posterior (engine.go) is a softmax over the candidates plus "the element is gone",
// so fitting is a conditional logit: maximise the log-likelihood of the right candidate, or of
// "gone" when the element was removed, over the cases of the chosen websites. The objective is
// convex, so the optimum does not depend on where the optimiser starts, and the fit is
// deterministic: the cases are summed in a fixed order.

// fitCase is one target located on one page, reduced to the feature values of its candidates.
type fitCase struct {
	site string
	n    int // candidates
	// The feature values, sparse, since most candidates agree on few fields: candidate j's
	// non-zero values are val[row[j]:row[j+1]], in the fitted columns col.
	row   []int32
	col   []uint8
	val   []float32
	label int // the expected candidate, -1 when the element was removed
	// twin marks the candidates the engine never chooses, being row twins (twin.go).
	twin []bool
}

// fitColumns are the features the data can fit: those that are not zero on every candidate.
// The others (fields the benchmark does not record, such as test ids and accessible names)
// take their weights from tiedWeights.
type fitData struct {
	cols  []feature
	cases []fitCase
	// frozen marks features the fit keeps at weight 0, to measure what they add.
	frozen map[feature]bool
	// toward, a unit vector over the columns, and shrink add shrink/2 times the squared
	// distance of the weights from the line through toward to the objective: the fit is pulled
	// towards weights proportional to toward, at whatever scale fits best (TestSimiloRobust).
	toward []float64
	shrink float64
}

// extract computes every case's feature values. removed marks lines whose expected element
// was taken out of the page (expected -1).
func extract(sets ...[]benchLine) fitData {
	var raw []struct {
		site  string
		label int
		rows  [][numFeatures]float64
		twin  []bool
	}
	var used [numFeatures]bool
	for _, lines := range sets {
		for _, l := range lines {
			p := NewPage(l.Candidates)
			for i := range l.Targets {
				t := p.target(&l.Targets[i])
				rows, _ := p.rows(&t)
				twin := make([]bool, len(rows))
				for j := range rows {
					_, twin[j] = p.twin(&t, j)
					for f, v := range rows[j] {
						if v != 0 {
							used[f] = true
						}
					}
				}
				raw = append(raw, struct {
					site  string
					label int
					rows  [][numFeatures]float64
					twin  []bool
				}{l.App, l.Expected[i], rows, twin})
			}
		}
	}
	var d fitData
	for f := range numFeatures {
		if used[f] {
			d.cols = append(d.cols, f)
		}
	}
	for _, r := range raw {
		c := fitCase{site: r.site, n: len(r.rows), label: r.label, row: make([]int32, 1, len(r.rows)+1), twin: r.twin}
		for _, row := range r.rows {
			for i, f := range d.cols {
				if row[f] != 0 {
					c.col = append(c.col, uint8(i))
					c.val = append(c.val, float32(row[f]))
				}
			}
			c.row = append(c.row, int32(len(c.val)))
		}
		d.cases = append(d.cases, c)
	}
	return d
}

// dot is candidate j's score under p.
func (c *fitCase) dot(p params, j int) float64 {
	var v float64
	for i := c.row[j]; i < c.row[j+1]; i++ {
		v += p[c.col[i]] * float64(c.val[i])
	}
	return v
}

// ridge is the L2 penalty on the weights (not on the absent score) per unit of mean
// log-likelihood. It is there to keep weights finite when a feature separates the training
// cases perfectly, and small enough not to bias the others; it was set before any fit was
// looked at, not tuned.
const ridge = 1e-3

// params are the fitted values: one weight per fitted column, then the absent score.
type params []float64

// logits fills s with the case's candidate scores under p (p[k] is the absent score) and returns
// them with the log-sum-exp of all of them and "gone".
func (c *fitCase) logits(p params, k int, s []float64) ([]float64, float64) {
	s = s[:0]
	hi := p[k]
	for j := 0; j < c.n; j++ {
		s = append(s, c.dot(p, j))
		hi = max(hi, s[j])
	}
	z := math.Exp(p[k] - hi)
	for _, v := range s {
		z += math.Exp(v - hi)
	}
	return s, hi + math.Log(z)
}

// objective returns the mean negative log-likelihood plus the penalty over the cases for which
// use is true, and its gradient into grad.
func (d *fitData) objective(p params, use func(*fitCase) bool, grad []float64) float64 {
	k := len(d.cols)
	clear(grad)
	var nll float64
	var n int
	s := make([]float64, 0, 4096)
	for ci := range d.cases {
		c := &d.cases[ci]
		if !use(c) {
			continue
		}
		n++
		var lse float64
		s, lse = c.logits(p, k, s)
		if c.label >= 0 {
			nll += lse - s[c.label]
		} else {
			nll += lse - p[k]
		}
		for j := 0; j < c.n; j++ {
			q := math.Exp(s[j] - lse)
			if j == c.label {
				q--
			}
			if q == 0 {
				continue
			}
			for i := c.row[j]; i < c.row[j+1]; i++ {
				grad[c.col[i]] += q * float64(c.val[i])
			}
		}
		q := math.Exp(p[k] - lse)
		if c.label < 0 {
			q--
		}
		grad[k] += q
	}
	if n == 0 {
		return 0
	}
	var pen, along float64
	if d.shrink > 0 {
		along = dotF(p[:k], d.toward)
	}
	for f := range k {
		grad[f] = grad[f]/float64(n) + ridge*p[f]
		if d.shrink > 0 {
			grad[f] += d.shrink * (p[f] - along*d.toward[f])
		}
		if d.frozen[d.cols[f]] {
			grad[f] = 0 // and the weight stays where it starts: 0
		}
		pen += p[f] * p[f]
	}
	grad[k] /= float64(n)
	return nll/float64(n) + ridge/2*pen + d.shrink/2*(pen-along*along)
}

// fit minimises the objective over the cases of sites with L-BFGS, starting from start (nil
// for all zeros).
func (d *fitData) fit(sites map[string]bool, start params) params {
	use := func(c *fitCase) bool { return sites[c.site] }
	x := make(params, len(d.cols)+1)
	if start != nil {
		copy(x, start)
	}
	g := make([]float64, len(x))
	f := d.objective(x, use, g)
	const memory, maxIter = 10, 300
	var ss, ys [][]float64
	var rhos []float64
	dir := make([]float64, len(x))
	xn := make(params, len(x))
	gn := make([]float64, len(x))
	for range maxIter {
		// two-loop recursion: dir = -H·g
		copy(dir, g)
		alpha := make([]float64, len(ss))
		for i := len(ss) - 1; i >= 0; i-- {
			alpha[i] = rhos[i] * dotF(ss[i], dir)
			axpy(-alpha[i], ys[i], dir)
		}
		if n := len(ss); n > 0 {
			scale(dotF(ss[n-1], ys[n-1])/dotF(ys[n-1], ys[n-1]), dir)
		} else {
			scale(1/math.Max(1, math.Sqrt(dotF(g, g))), dir)
		}
		for i := range ss {
			b := rhos[i] * dotF(ys[i], dir)
			axpy(alpha[i]-b, ss[i], dir)
		}
		scale(-1, dir)
		slope := dotF(g, dir)
		if slope >= 0 { // not a descent direction: restart from the gradient
			ss, ys, rhos = nil, nil, nil
			copy(dir, g)
			scale(-1/math.Max(1, math.Sqrt(dotF(g, g))), dir)
			slope = dotF(g, dir)
		}
		step, fn := 1.0, 0.0
		for tries := 0; ; tries++ {
			for i := range x {
				xn[i] = x[i] + step*dir[i]
			}
			fn = d.objective(xn, use, gn)
			if fn <= f+1e-4*step*slope || tries == 30 {
				break
			}
			step /= 2
		}
		if fn > f {
			break
		}
		s, y := make([]float64, len(x)), make([]float64, len(x))
		for i := range x {
			s[i], y[i] = xn[i]-x[i], gn[i]-g[i]
		}
		if sy := dotF(s, y); sy > 1e-12 {
			ss, ys, rhos = append(ss, s), append(ys, y), append(rhos, 1/sy)
			if len(ss) > memory {
				ss, ys, rhos = ss[1:], ys[1:], rhos[1:]
			}
		}
		done := f-fn < 1e-10*math.Max(1, math.Abs(f))
		copy(x, xn)
		copy(g, gn)
		f = fn
		if done || math.Sqrt(dotF(g, g)) < 1e-7 {
			break
		}
	}
	return x
}

func dotF(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i := range x {
		y[i] += a * x[i]
	}
}

func scale(a float64, x []float64) {
	for i := range x {
		x[i] *= a
	}
}

// verdict is how a fitted model does on one case: whether its best candidate is the expected
// one (never, when the element was removed), its posterior, and its lead over the runner-up.
type verdict struct {
	site       string
	removed    bool
	right      bool
	confidence float64
	margin     float64
	twin       bool // the best candidate is a row twin, which the engine never chooses
	// best is the best candidate's index and ci the case's index in fitData.cases, for rules
	// that look at the case again (TestSimiloRobust).
	best, ci int
	// veto marks a verdict a decision rule under test declines whatever its confidence.
	veto bool
}

// predict applies params to one case the way Engine.LocateOn does.
func (d *fitData) predict(p params, c *fitCase) verdict {
	k := len(d.cols)
	best, bestS, secondS := -1, math.Inf(-1), math.Inf(-1)
	s := make([]float64, c.n)
	hi := p[k]
	for j := 0; j < c.n; j++ {
		v := c.dot(p, j)
		s[j] = v
		hi = max(hi, v)
		switch {
		case best < 0 || v > bestS:
			secondS, best, bestS = bestS, j, v
		case v > secondS:
			secondS = v
		}
	}
	z := math.Exp(p[k] - hi)
	for _, v := range s {
		z += math.Exp(v - hi)
	}
	out := verdict{site: c.site, removed: c.label < 0, right: best >= 0 && best == c.label, best: best}
	if best < 0 {
		return out
	}
	out.twin = c.twin != nil && c.twin[best]
	out.confidence = math.Exp(bestS - hi - math.Log(z))
	if c.n > 1 {
		out.margin = bestS - secondS
	} else {
		out.margin = bestS - p[k]
	}
	return out
}

// predictSites applies params to every case of sites, in data order.
func (d *fitData) predictSites(p params, sites map[string]bool) []verdict {
	var out []verdict
	for i := range d.cases {
		if sites[d.cases[i].site] {
			v := d.predict(p, &d.cases[i])
			v.ci = i
			out = append(out, v)
		}
	}
	return out
}

// parallel runs f(0..n-1) on all cores and waits; f must write only its own results.
func parallel(n int, f func(i int)) {
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}

// sortedSites lists the sites of the cases, in a fixed order.
func (d *fitData) sortedSites() []string {
	var out []string
	for _, c := range d.cases {
		if !slices.Contains(out, c.site) {
			out = append(out, c.site)
		}
	}
	slices.Sort(out)
	return out
}
