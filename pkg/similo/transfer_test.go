package similo

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestSimiloTransfer estimates how the engine does on websites it never saw, the way the
// shipped model is made: for each outer split, the whole procedure (weights by maximum
// likelihood, the decision threshold on inner held-out verdicts) runs on the training websites
// only, and the held-out websites are measured with what it made. Two splits: leave one website
// out (18 folds), and leave a third of the websites out (l3oGroups folds of 6 websites, dealt
// by size), which trains on fewer and more different websites and so is the harder estimate of
// transfer; and the websites Similo finds hardest held out, trained on the others, which
// imitates moving to harder websites. Each engine variant's feature set and the twin guard are fixed before the run;
// nothing in a variant is chosen on the websites it is measured on. Similo, with its published
// fixed weights, is measured on the same folds in the same run. The figures are printed with
// -v; by default the run is on the fixed small subset (cvSubset), and -similo.cv runs it on
// all websites (make bench). It fails when the shipped variant ranks below Similo on the held-out
// websites of a split or chooses wrong more often than the shipping goal allows.
func TestSimiloTransfer(t *testing.T) {
	dev, d := cvData(t)
	sites := d.sortedSites()
	similo := similoTop1(dev)

	splits := transferSplits(d, sites, similo)

	// The variants: the shipped feature set (the hand-chosen features: TestSimiloCV leaves the
	// extension out), and the same with the page-relative features; each measured without and
	// with the twin guard.
	withoutRel := map[feature]bool{}
	for f := range extension {
		if !pageRelative[f] {
			withoutRel[f] = true
		}
	}
	variants := []struct {
		name string
		d    *fitData
	}{
		{"shipped features", &fitData{cols: d.cols, cases: d.cases, frozen: extension}},
		{"shipped + page-relative features", &fitData{cols: d.cols, cases: d.cases, frozen: withoutRel}},
	}
	all := map[string]bool{}
	for _, s := range sites {
		all[s] = true
	}
	for _, sp := range splits {
		var sim tally
		for _, fd := range sp.folds {
			for _, s := range fd {
				sim.merge(similo[s])
			}
		}
		t.Logf("== %s: Similo baseline (fixed weights, never abstains) top-1 %.1f%% (%d/%d)", sp.name, pct(sim.top1, sim.n), sim.top1, sim.n)
		for _, v := range variants {
			start := v.d.fit(all, nil)
			type result struct {
				r    rule
				test []verdict
			}
			// per fold, without [0] and with [1] the twin guard, each with its own threshold
			res := make([][2]result, len(sp.folds))
			parallel(len(sp.folds), func(i int) {
				out := map[string]bool{}
				var train []string
				for _, s := range sp.folds[i] {
					out[s] = true
				}
				for _, s := range sites {
					if !out[s] {
						train = append(train, s)
					}
				}
				f := procedureFrom(v.d, train, start)
				test := v.d.predictSites(f.p, out)
				res[i][1] = result{f.model(false).r, test}
				f.oof = noTwin(f.oof)
				res[i][0] = result{f.model(false).r, noTwin(test)}
			})
			for k, guard := range []string{"no twin guard", "twin guard"} {
				var sum tally
				var pooled []verdict
				per := make([]tally, len(sp.folds))
				for i := range res {
					per[i] = tallyOf(res[i][k].test, res[i][k].r)
					sum.merge(per[i])
					pooled = append(pooled, res[i][k].test...)
				}
				name := v.name + ", " + guard
				t.Logf("%-42s outer %v", name, sum)
				t.Logf("%-42s spread over folds: %s", "", spread(per))
				for i, fd := range sp.folds {
					var st tally
					for _, s := range fd {
						st.merge(similo[s])
					}
					t.Logf("    %-44s threshold %.2f  %v | Similo top-1 %5.1f%%", strings.Join(fd, ","), res[i][k].r.threshold, per[i], pct(st.top1, st.n))
				}
				if k == 1 {
					t.Logf("%-42s reliability of the held-out confidence (the best candidate is the element; removed count as not): %s", "", reliability(pooled))
				}
				if v.name == variants[0].name && k == 1 {
					// The shipped engine, on websites its procedure never saw: it must rank at
					// least as well as the Similo baseline it extends, on the same folds, and
					// keep wrong choices at the threshold within the shipping goal.
					if sum.top1*sim.n < sim.top1*sum.n {
						t.Errorf("%s, %s: held-out top-1 %.1f%% is below Similo's %.1f%% on the same websites", sp.name, name, pct(sum.top1, sum.n), pct(sim.top1, sim.n))
					}
					if float64(sum.wrong) > transferWrong*float64(sum.n) {
						t.Errorf("%s, %s: %.1f%% of held-out choices at the threshold are wrong; the goal on unseen websites is at most %.0f%%", sp.name, name, pct(sum.wrong, sum.n), 100*transferWrong)
					}
				}
			}
		}
	}
}

// split is a way of holding websites out: each fold is the websites held out together.
type split struct {
	name  string
	folds [][]string
}

// transferSplits are the outer splits of the transfer estimates: leave one website out, leave a
// third out, and the websites Similo finds hardest held out.
func transferSplits(d *fitData, sites []string, similo map[string]tally) []split {
	splits := []split{{"leave one website out", leaveOneOut(sites)}}
	if len(sites) >= 2*l3oGroups {
		splits = append(splits, split{fmt.Sprintf("leave a third out (%d folds)", l3oGroups), dealt(d, sites, l3oGroups)})
	}
	// The shift to websites nobody here has seen: the held-out websites of the issue were
	// harder (Similo 88.3% top-1 there, 95.0% here). Holding out the websites where Similo,
	// which nothing here tunes, ranks worst and training on the rest imitates that shift.
	var hard []string
	for _, s := range sites {
		if tl := similo[s]; tl.n > 0 && pct(tl.top1, tl.n) < hardBelow {
			hard = append(hard, s)
		}
	}
	if len(hard) > 0 && len(hard) < len(sites) {
		splits = append(splits, split{fmt.Sprintf("the websites where Similo's top-1 is below %.0f%% held out", hardBelow), [][]string{hard}})
	}
	return splits
}

// transferWrong is the most wrong choices at the threshold, as a share of the held-out
// elements, that the shipped engine may make on websites it never saw.
const transferWrong = 0.01

// hardBelow is the Similo top-1 (percent) under which a website counts as hard.
const hardBelow = 95.0

// l3oGroups is how many folds the harder split makes: a third of the 18 websites held out in each.
const l3oGroups = 3

func leaveOneOut(sites []string) (out [][]string) {
	for _, s := range sites {
		out = append(out, []string{s})
	}
	return out
}

// dealt deals the websites, largest first, into k groups of similar size, in a fixed order.
func dealt(d *fitData, sites []string, k int) [][]string {
	n := map[string]int{}
	for _, c := range d.cases {
		n[c.site]++
	}
	order := slices.Clone(sites)
	slices.SortStableFunc(order, func(a, b string) int { return n[b] - n[a] })
	out := make([][]string, k)
	for i, s := range order {
		out[i%k] = append(out[i%k], s)
	}
	return out
}

func noTwin(vs []verdict) []verdict {
	out := slices.Clone(vs)
	for i := range out {
		out[i].twin = false
	}
	return out
}

// spread summarises per-fold figures: the range and median of correct choices and of removed
// elements abstained, and how many folds made any wrong choice or picked a removed element.
func spread(per []tally) string {
	var correct, abst []float64
	wrongFolds, pickedFolds, maxWrong := 0, 0, 0.0
	for _, t := range per {
		if t.n > 0 {
			correct = append(correct, pct(t.correct, t.n))
			maxWrong = max(maxWrong, pct(t.wrong, t.n))
		}
		if t.removed > 0 {
			abst = append(abst, pct(t.abstainRemoved, t.removed))
		}
		if t.wrong > 0 {
			wrongFolds++
		}
		if t.picked > 0 {
			pickedFolds++
		}
	}
	return fmt.Sprintf("correct min %.1f%% median %.1f%% max %.1f%%; wrong max %.1f%% (%d folds with any); removed abstained min %.1f%% median %.1f%% (%d folds picked any)",
		minOf(correct), median(correct), maxOf(correct), maxWrong, wrongFolds, minOf(abst), median(abst), pickedFolds)
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func minOf(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return slices.Min(x)
}

func maxOf(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return slices.Max(x)
}

// reliability bins held-out verdicts by confidence and gives, per bin, how many, the mean
// confidence and how often the best candidate was the element: a calibrated confidence has
// the two close.
func reliability(vs []verdict) string {
	edges := []float64{0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0001}
	var b strings.Builder
	for i := 0; i+1 < len(edges); i++ {
		var n, right int
		var sum float64
		for _, v := range vs {
			if v.confidence >= edges[i] && v.confidence < edges[i+1] {
				n++
				sum += v.confidence
				if v.right {
					right++
				}
			}
		}
		if n > 0 {
			fmt.Fprintf(&b, "[%.2f,%.2f) n=%d conf %.2f right %.2f; ", edges[i], min(1, edges[i+1]), n, sum/float64(n), float64(right)/float64(n))
		}
	}
	return b.String()
}
