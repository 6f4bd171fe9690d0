package similo

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// benchDir is where the development benchmark lives: outside the repository, beside it, unless
// SIMILO_BENCH_DIR says otherwise.
func benchDir() string {
	if d := os.Getenv("SIMILO_BENCH_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "bench")
}

type benchLine struct {
	App        string                 `json:"app"`
	Targets    []gardener.Fingerprint `json:"targets"`
	Candidates []gardener.Fingerprint `json:"candidates"`
	Expected   []int                  `json:"expected"`
}

func loadBench(t testing.TB, name string) []benchLine {
	t.Helper()
	path := filepath.Join(benchDir(), name)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("benchmark data %s not found; set SIMILO_BENCH_DIR to the directory holding %s", path, name)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []benchLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l benchLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// outcome is one case: whether the best candidate is the expected element, and its confidence.
type outcome struct {
	app        string
	right      bool // best candidate is the expected one (never, when the element was removed)
	confidence float64
	// best is the best score and lse[T] the log of the sum of exp(score/T) over all
	// candidates, for every temperature T on calibrationTemps: enough to recompute the
	// confidence under other calibration constants without scoring again.
	best float64
	lse  map[float64]float64
}

// calibrationTemps are the temperatures fitCalibration tries.
var calibrationTemps = []float64{1, 1.25, 1.5, 2}

func run(t testing.TB, lines []benchLine) []outcome {
	var out []outcome
	for _, l := range lines {
		p := NewPage(l.Candidates)
		for i, tg := range l.Targets {
			m := Engine{Threshold: NeverAbstain}.LocateOn(p, tg)
			r := p.Rank(tg)
			o := outcome{app: l.App, right: m.Best == l.Expected[i], confidence: m.Confidence,
				best: r[0].Score, lse: map[float64]float64{}}
			for _, tp := range append(calibrationTemps, temperature) {
				hi := r[0].Score / tp
				var sum float64
				for _, s := range r {
					sum += math.Exp(s.Score/tp - hi)
				}
				o.lse[tp] = hi + math.Log(sum)
			}
			if c := o.recalibrated(absentScore, temperature); math.Abs(c-m.Confidence) > 1e-6 {
				t.Fatalf("%s target %d: posterior from the top scores %v, engine said %v", l.App, i, c, m.Confidence)
			}
			out = append(out, o)
		}
	}
	return out
}

// recalibrated is the engine's posterior for the best candidate under other constants.
func (o outcome) recalibrated(absent, temp float64) float64 {
	a, l := absent/temp, o.lse[temp]
	hi := max(a, l)
	return math.Exp(o.best/temp - hi - math.Log(math.Exp(a-hi)+math.Exp(l-hi)))
}

func recalibrate(os []outcome, absent, temp float64) []outcome {
	out := slices.Clone(os)
	for i := range out {
		out[i].confidence = out[i].recalibrated(absent, temp)
	}
	return out
}

// meets reports whether the shipping targets hold at threshold th: at most 1% wrong choices on
// the cases with a right answer and at least 90% abstentions on those without.
func meets(dev, removed []outcome, th float64) bool {
	d, r := count(dev, th), count(removed, th)
	return float64(d.wrong) <= 0.01*float64(len(dev)) && float64(r.abstain) >= 0.9*float64(len(removed))
}

// fitCalibration chooses the posterior's two constants on a set of websites the way they were
// chosen for shipping: on a coarse grid, the pair that is most often right at ShippingThreshold
// while meeting the targets there (ties go to the larger absent score, the more cautious).
func fitCalibration(dev, removed []outcome) (absent, temp float64) {
	best := -1
	absent, temp = absentScore, temperature
	for _, tp := range calibrationTemps {
		for a := 4.0; a <= 12; a += 0.5 {
			d, r := recalibrate(dev, a, tp), recalibrate(removed, a, tp)
			if !meets(d, r, ShippingThreshold) {
				continue
			}
			if c := count(d, ShippingThreshold).correct; c >= best {
				best, absent, temp = c, a, tp
			}
		}
	}
	return absent, temp
}

type tally struct{ correct, wrong, abstain int }

func count(os []outcome, threshold float64) tally {
	var t tally
	for _, o := range os {
		switch {
		case o.confidence < threshold:
			t.abstain++
		case o.right:
			t.correct++
		default:
			t.wrong++
		}
	}
	return t
}

func (t tally) String() string {
	n := float64(t.correct + t.wrong + t.abstain)
	return fmt.Sprintf("correct %3d (%5.1f%%)  wrong %3d (%4.1f%%)  abstain %3d (%5.1f%%)",
		t.correct, 100*float64(t.correct)/n, t.wrong, 100*float64(t.wrong)/n, t.abstain, 100*float64(t.abstain)/n)
}

// pickThreshold is how the shipping threshold is chosen: the lowest confidence, and at least
// 0.5 so that two indistinguishable candidates always mean abstaining, at which wrong choices
// are at most 1% of the cases that have a right answer and at least 90% of the cases whose
// element was removed are abstentions.
func pickThreshold(dev, removed []outcome) float64 {
	cs := []float64{0.5}
	for _, o := range append(slices.Clone(dev), removed...) {
		if o.confidence > 0.5 {
			cs = append(cs, o.confidence)
		}
	}
	slices.Sort(cs)
	for _, c := range cs {
		if meets(dev, removed, c) {
			return c
		}
	}
	return 1
}

// TestSimiloBench prints the development benchmark figures (run it with -v to see them). It
// runs only when the data is present. Scoring is deterministic, so it also guards the figures
// reached on this fixed data: the shipping targets of issue 4 (at ShippingThreshold at least
// 90% correct with at most 1% wrong, and at least 90% abstentions on removed elements), and
// at threshold 0 the 97% target (291 of 299), reached so far.
func TestSimiloBench(t *testing.T) {
	dev := run(t, loadBench(t, "similo-dev.jsonl"))
	removed := run(t, loadBench(t, "similo-dev-removed.jsonl"))

	for _, th := range []float64{ShippingThreshold, 0} {
		t.Logf("threshold %.2f  similo-dev:         %v", th, count(dev, th))
		t.Logf("threshold %.2f  similo-dev-removed: %v", th, count(removed, th))
	}
	t.Logf("threshold the data would pick (see pickThreshold): %.3f", pickThreshold(dev, removed))
	if d, r := count(dev, ShippingThreshold), count(removed, ShippingThreshold); 10*d.correct < 9*len(dev) ||
		100*d.wrong > len(dev) || 10*r.abstain < 9*len(removed) {
		t.Errorf("shipping targets missed: similo-dev %v; similo-dev-removed %v", d, r)
	}
	if d := count(dev, 0); d.correct < 291 {
		t.Errorf("threshold 0 regressed below 291 correct (97%%): %v", d)
	}

	a, tp := fitCalibration(dev, removed)
	t.Logf("calibration the data would pick (see fitCalibration): absent score %.1f, temperature %.2f; shipped %.1f, %.2f",
		a, tp, absentScore, temperature)

	// Leave one website out: choose the posterior's constants (fitCalibration) on the other
	// 17 websites, measure the one left out at ShippingThreshold, and add up. The signal
	// weights are fixed by the reasoning in score.go's comments, not fitted; this is the
	// estimate of how the shipping figures hold on websites we do not have.
	apps := map[string]bool{}
	for _, o := range dev {
		apps[o.app] = true
	}
	var lDev, lRem tally
	for app := range apps {
		var trainDev, trainRem, testDev, testRem []outcome
		for _, o := range dev {
			if o.app == app {
				testDev = append(testDev, o)
			} else {
				trainDev = append(trainDev, o)
			}
		}
		for _, o := range removed {
			if o.app == app {
				testRem = append(testRem, o)
			} else {
				trainRem = append(trainRem, o)
			}
		}
		a, tp := fitCalibration(trainDev, trainRem)
		x, y := count(recalibrate(testDev, a, tp), ShippingThreshold), count(recalibrate(testRem, a, tp), ShippingThreshold)
		lDev.correct, lDev.wrong, lDev.abstain = lDev.correct+x.correct, lDev.wrong+x.wrong, lDev.abstain+x.abstain
		lRem.correct, lRem.wrong, lRem.abstain = lRem.correct+y.correct, lRem.wrong+y.wrong, lRem.abstain+y.abstain
	}
	t.Logf("leave-one-website-out calibration  similo-dev:         %v", lDev)
	t.Logf("leave-one-website-out calibration  similo-dev-removed: %v", lRem)

	if os.Getenv("SIMILO_SWEEP") != "" {
		for _, th := range []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9} {
			t.Logf("sweep %.2f  dev: %v  removed: %v", th, count(dev, th), count(removed, th))
		}
	}
}
