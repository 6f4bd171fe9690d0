package similo

import (
	"math"
	"slices"
	"testing"
)

func TestChooseRule(t *testing.T) {
	var vs []verdict
	add := func(n int, v verdict) {
		for range n {
			vs = append(vs, v)
		}
	}
	// 98 right and confident, 2 wrong at 0.6, removed elements at 0.3: the threshold must pass
	// 0.6, and of the thresholds as accurate the most cautious wins.
	add(98, verdict{right: true, confidence: 0.9, margin: 2})
	add(2, verdict{confidence: 0.6, margin: 0.2})
	add(20, verdict{removed: true, confidence: 0.3})
	if r := chooseRule(vs, false); r != (rule{threshold: 0.9}) {
		t.Errorf("chooseRule = %+v, want threshold 0.9 and no margin", r)
	}

	// Right choices no more confident than wrong ones: only the margin tells them apart.
	vs = nil
	add(98, verdict{right: true, confidence: 0.55, margin: 2})
	add(2, verdict{confidence: 0.6, margin: 0.2})
	add(20, verdict{removed: true, confidence: 0.3, margin: 0.1})
	if r, tl := chooseRule(vs, false), tallyOf(vs, chooseRule(vs, false)); tl.wrong > 0 || tl.correct > 0 {
		t.Errorf("without a margin chooseRule = %+v, which gives %v; want everything abstained", r, tl)
	}
	r := chooseRule(vs, true)
	if tl := tallyOf(vs, r); tl.correct != 98 || tl.wrong != 0 || tl.picked != 0 {
		t.Errorf("with a margin chooseRule = %+v, which gives %v; want the 98 right ones only", r, tl)
	}

	// Nothing within the limits: the rule with the fewest false choices.
	vs = nil
	add(10, verdict{confidence: 0.99, margin: 5})
	add(10, verdict{right: true, confidence: 0.7, margin: 5})
	if tl := tallyOf(vs, chooseRule(vs, false)); tl.wrong != 10 || tl.correct != 10 {
		t.Errorf("infeasible: %v, want the unavoidable 10 wrong and the 10 right", tl)
	}
}

// TestFit fits cases made from known weights and checks that the fit is at the optimum, puts
// the label first where the true weights do, and is deterministic.
func TestFit(t *testing.T) {
	seed := uint64(1)
	rnd := func() float64 { // a fixed LCG, so the cases are the same on every run
		seed = seed*6364136223846793005 + 1442695040888963407
		return float64(seed>>11) / (1 << 53)
	}
	truth := []float64{3, -2, 1}
	const absent = 2.5
	d := &fitData{cols: []feature{fTagSame, fTagOther, fLocation}}
	for i := range 60 {
		c := fitCase{site: []string{"a", "b", "c"}[i%3], n: 8, row: []int32{0}, label: -1}
		best, bestS := -1, absent
		for j := range c.n {
			var s float64
			for k := range truth {
				x := float32(rnd())
				c.col, c.val = append(c.col, uint8(k)), append(c.val, x)
				s += truth[k] * float64(x)
			}
			c.row = append(c.row, int32(len(c.val)))
			if j == 0 && i%4 != 0 {
				// the element exists in three cases of four, and stands out
				for k := range truth {
					c.val[k] = float32(math.Max(0, truth[k]))
				}
				s = truth[0] + truth[2]
			}
			if s > bestS {
				best, bestS = j, s
			}
		}
		c.label = best
		d.cases = append(d.cases, c)
	}
	all := map[string]bool{"a": true, "b": true, "c": true}
	p := d.fit(all, nil)
	g := make([]float64, len(p))
	d.objective(p, func(*fitCase) bool { return true }, g)
	if n := math.Sqrt(dotF(g, g)); n > 1e-5 {
		t.Errorf("gradient norm %v at the fit, want ~0", n)
	}
	for _, v := range d.predictSites(p, all) {
		if !v.removed && !v.right {
			t.Errorf("fitted weights %v rank a case's label second", p)
			break
		}
	}
	if q := d.fit(all, nil); !slices.Equal(p, q) {
		t.Errorf("two fits differ: %v and %v", p, q)
	}
	var labelled int
	for _, c := range d.cases {
		if c.label >= 0 {
			labelled++
		}
	}
	if labelled < 30 || labelled == len(d.cases) {
		t.Fatalf("%d of %d cases have the element: the data does not test both outcomes", labelled, len(d.cases))
	}
	if p[0] <= 0 || p[1] >= 0 {
		t.Errorf("fitted weights %v, want the signs of %v", p, truth)
	}
}
