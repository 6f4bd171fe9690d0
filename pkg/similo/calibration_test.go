package similo

import (
	"math"
	"slices"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestFitCalibration fits Confidence's curve to verdicts drawn from a known one and checks it
// comes back, and that the fitted confidence means what it says: among cases given about p,
// about p are right.
func TestFitCalibration(t *testing.T) {
	seed := uint64(7)
	rnd := func() float64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return float64(seed>>11) / (1 << 53)
	}
	truth := [3]float64{-3, 0.8, 0.4}
	var vs []verdict
	for range 20000 {
		v := verdict{margin: 8 * rnd(), strength: 10*rnd() - 4}
		v.right = rnd() < curve{c: [4]float64{truth[0], truth[1], truth[2], 0}}.at(v.margin, v.strength)
		vs = append(vs, v)
	}
	c := fitCalibration(vs)
	for i := range c {
		if math.Abs(c[i]-truth[i]) > 0.15 {
			t.Errorf("fitted curve %v, want about %v", c, truth)
			break
		}
	}
	var n, right [10]float64
	for _, v := range calibrate(vs, curve{c: [4]float64{c[0], c[1], c[2], 0}}) {
		b := min(9, int(v.confidence*10))
		n[b]++
		if v.right {
			right[b]++
		}
	}
	for b := range n {
		if n[b] < 200 {
			continue
		}
		if got, want := right[b]/n[b], (float64(b)+0.5)/10; math.Abs(got-want) > 0.07 {
			t.Errorf("confidence %.1f–%.1f: %.2f right of %v cases", float64(b)/10, float64(b+1)/10, got, n[b])
		}
	}
	// Removed elements count as wrong whatever was chosen: with all of them removed, the
	// curve says no.
	for i := range vs {
		vs[i].removed = true
	}
	if c := fitCalibration(vs); (curve{c: [4]float64{c[0], c[1], c[2], 0}}).at(8, 6) > 0.01 {
		t.Errorf("trained on removed elements only, confidence %.3f at a large margin and strength, want ~0", (curve{c: [4]float64{c[0], c[1], c[2], 0}}).at(8, 6))
	}
}

// TestConfidenceFromMarginAndStrength checks that the engine's confidence is the calibrated
// curve of the best candidate's lead over the runner-up and over "gone", so the margin decides
// as well as the strength: a near twin lowers the confidence of an otherwise strong match.
func TestConfidenceFromMarginAndStrength(t *testing.T) {
	if k := calibration; k.factored && (k.c[1] <= 0 || k.c[3] <= 0) || !k.factored && (k.c[1] <= 0 || k.c[2] <= 0) {
		t.Fatalf("calibration %+v: confidence must rise with margin and strength", k)
	}
	target := page()[4]
	alone := page()
	twin := page()
	extra := twin[4]
	extra.ID, extra.TestID = "", ""
	extra.XPath = "/html[1]/body[1]/main[1]/form[1]/button[2]"
	extra.IdxPath = extra.XPath
	extra.Location.X += 90
	twin = append(twin, extra)
	a := Engine{}.Locate(target, alone)
	b := Engine{}.Locate(target, twin)
	for _, m := range []Match{a, b} {
		if got := Confidence(m.Margin, m.Strength); math.Abs(got-m.Confidence) > 1e-12 {
			t.Errorf("Match.Confidence %v, Confidence(margin %v, strength %v) = %v", m.Confidence, m.Margin, m.Strength, got)
		}
	}
	if a.Index != 4 {
		t.Errorf("alone: chose %d, want 4 (%s)", a.Index, a.Reason)
	}
	if !(b.Margin < a.Margin && b.Confidence < a.Confidence) {
		t.Errorf("a near twin left margin %.2f → %.2f and confidence %.3f → %.3f, want both lower", a.Margin, b.Margin, a.Confidence, b.Confidence)
	}
	// The twin without the test id and id: the recorded button still stands out by them.
	if b.Index != 4 {
		t.Errorf("with a twin lacking the test id: chose %d, want 4 (%s)", b.Index, b.Reason)
	}
}

// TestRemovedElementsAbstain removes each element of a small app page in turn and locates it on
// the page without it: every one must be an abstention, since choosing anything there is a
// false heal. The two Delete buttons of the table's rows are left out: with one removed, both
// the old and the current model choose the other row's button (confidence 0.99 and 1.00), told
// apart only by neighbour text. That is a known false heal the benchmark does not train away
// (issue 30, "Why" 5); TestRowTwinRemovedIsKnownFalseHeal keeps it in sight.
func TestRemovedElementsAbstain(t *testing.T) {
	for i, target := range page() {
		if i == 5 || i == 6 {
			continue
		}
		cands := slices.Delete(page(), i, i+1)
		if m := (Engine{}).Locate(target, cands); !m.Abstained() {
			t.Errorf("element %d removed: chose %d (%s)", i, m.Index, m.Reason)
		}
	}
}

// TestRowTwinRemovedIsKnownFalseHeal records the case above as it is: when one row's Delete
// button is gone, the engine picks the other row's. It fails when that changes, so that whoever
// fixes it moves the case into TestRemovedElementsAbstain.
func TestRowTwinRemovedIsKnownFalseHeal(t *testing.T) {
	for _, i := range []int{5, 6} {
		cands := slices.Delete(page(), i, i+1)
		if m := (Engine{}).Locate(page()[i], cands); m.Abstained() {
			t.Errorf("row %d's Delete removed: the engine now abstains (%s); move the case into TestRemovedElementsAbstain", i-4, m.Reason)
		}
	}
}

// TestPageRelativeFeatures checks the page-relative features: the candidate no other comes
// closer to on a comparison gets it, ties all get it, and a comparison that says nothing (no
// word in common, no position) gives it to none.
func TestPageRelativeFeatures(t *testing.T) {
	cands := []gardener.Fingerprint{
		el("A", "", "Cart total", "/html[1]/body[1]/a[1]", 10, 10),
		el("A", "", "Cart", "/html[1]/body[1]/a[2]", 400, 10),
		el("A", "", "Cart", "/html[1]/body[1]/a[3]", 800, 10),
		el("A", "", "Help", "/html[1]/body[1]/a[4]", 12, 900),
	}
	p := NewPage(cands)
	target := p.target(&gardener.Fingerprint{Tag: "A", VisibleText: []string{"Cart total"}, XPath: "/html[1]/body[1]/a[1]",
		Location: gardener.Rect{X: 10, Y: 10, Width: 80, Height: 30}})
	rows, _ := p.rows(&target)
	want := [][2]float64{{1, 1}, {0, 0}, {0, 0}, {0, 0}} // closest text, nearest
	for i, r := range rows {
		if got := [2]float64{r[fTextBest], r[fNearest]}; got != want[i] {
			t.Errorf("candidate %d: closest text, nearest = %v, want %v", i, got, want[i])
		}
	}
	target = p.target(&gardener.Fingerprint{Tag: "A", VisibleText: []string{"Cart"}})
	rows, _ = p.rows(&target)
	for i, r := range rows {
		// "Cart" alone matches candidates 1 and 2 fully and 0 in part; no position recorded.
		if got, want := r[fTextBest], float64(boolInt(i == 1 || i == 2)); got != want || r[fNearest] != 0 {
			t.Errorf("target without position, candidate %d: closest text %v nearest %v, want %v and 0", i, got, r[fNearest], want)
		}
	}
	// The engine scores what rows computes.
	s, _ := p.scores(&target)
	for i, r := range rows {
		var want float64
		for f, x := range r {
			want += weights[f] * x
		}
		if math.Abs(s[i]-want) > 1e-9 {
			t.Errorf("candidate %d: scores %v, rows·weights %v", i, s[i], want)
		}
	}
}

// TestFitFactoredCurve fits the factored curve to verdicts drawn from a known one and checks it
// comes back, and that the share of removed elements it assumes moves only the presence
// factor's intercept, by the change in prior log-odds.
func TestFitFactoredCurve(t *testing.T) {
	seed := uint64(11)
	rnd := func() float64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return float64(seed>>11) / (1 << 53)
	}
	truth := curve{factored: true, c: [4]float64{0.5, 0.9, -1.5, 1.2}}
	var vs []verdict
	for range 40000 {
		v := verdict{margin: 8 * rnd(), strength: 14*rnd() - 7}
		v.removed = rnd() >= sigmoid(truth.c[0]+truth.c[1]*v.strength)
		v.right = !v.removed && rnd() < sigmoid(truth.c[2]+truth.c[3]*v.margin)
		vs = append(vs, v)
	}
	var removed float64
	for _, v := range vs {
		removed += float64(boolInt(v.removed))
	}
	share := removed / float64(len(vs))
	// The verdicts' own share: the fit is the truth.
	got := fitCurve(calForm{factored: true, removed: share}, vs)
	for i := range got.c {
		if !got.factored || math.Abs(got.c[i]-truth.c[i]) > 0.1 {
			t.Fatalf("fitted %+v, want about %+v", got, truth)
		}
	}
	// Assuming a tenth removed instead: the presence intercept moves by the prior log-odds,
	// and nothing else.
	tenth := fitCurve(calForm{factored: true, removed: 0.1}, vs)
	if d, want := tenth.c[0]-got.c[0], math.Log(9)-math.Log((1-share)/share); math.Abs(d-want) > 1e-9 {
		t.Errorf("a tenth removed moved the intercept by %.4f, want %.4f", d, want)
	}
	for i := 1; i < 4; i++ {
		if tenth.c[i] != got.c[i] {
			t.Errorf("a tenth removed changed c%d: %v → %v", i, got.c[i], tenth.c[i])
		}
	}
}

// TestChooseCurveAsksForBoth: removed elements whose best remaining candidate stands out from
// the rest (a large margin, a strength short of "gone") and present ones whose best candidate
// is strong but has a near twin (a small margin, wrong) cannot both be kept off by a straight
// line in (margin, strength) without losing right matches that are only moderately strong;
// the factored curve asks for both and keeps them. The procedure must choose it, with more
// right choices and none wrong or picked.
func TestChooseCurveAsksForBoth(t *testing.T) {
	seed := uint64(5)
	rnd := func(lo, hi float64) float64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return lo + (hi-lo)*float64(seed>>11)/(1<<53)
	}
	sites := []string{"a", "b", "c", "d", "e", "f"}
	var vs []verdict
	for _, s := range sites {
		for range 20 {
			vs = append(vs, verdict{site: s, right: true, margin: rnd(3, 10), strength: rnd(2, 8)})
		}
		for range 6 {
			vs = append(vs, verdict{site: s, right: true, margin: rnd(2, 4), strength: rnd(0.3, 1.2)})
		}
		for range 2 {
			vs = append(vs, verdict{site: s, margin: rnd(0, 0.8), strength: rnd(3, 7)})
		}
		for range 28 {
			vs = append(vs, verdict{site: s, removed: true, margin: rnd(0, 9), strength: rnd(-7, -0.5)})
		}
	}
	best, lines := chooseCurve(sites, vs)
	for _, l := range lines {
		t.Log(l)
	}
	if !calForms[best.form].factored {
		t.Fatalf("chose %q", calForms[best.form].name)
	}
	if best.t.wrong != 0 || best.t.picked != 0 || best.t.correct < 6*26-6 {
		t.Errorf("factored: %v; want (almost) every right one, none wrong or picked", best.t)
	}
	// The straight line cannot: it loses right ones or lets wrong or removed through.
	var inner []verdict
	for _, s := range sites {
		var fit, test []verdict
		for _, v := range vs {
			if v.site == s {
				test = append(test, v)
			} else {
				fit = append(fit, v)
			}
		}
		inner = append(inner, calibrate(test, fitCurve(calForms[0], fit))...)
	}
	if line := tallyOf(inner, chooseRule(inner, false)); line.correct >= best.t.correct && line.wrong+line.picked == 0 {
		t.Errorf("one curve of margin and strength does as well (%v): the data does not test the choice", line)
	}
}
