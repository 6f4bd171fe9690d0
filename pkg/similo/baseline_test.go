package similo

import (
	"math"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// The Similo baseline, as Nass et al. describe it and as the public JavaScript port measured on
// this benchmark's crawl scores it: a weighted sum of 14 attribute similarities with fixed
// weights (1.5 for tag, name, id, visible text and neighbour text; 0.5 for the rest), the best
// candidate always chosen. It is here only to be measured beside the engine in the same run.

// similoScore is the Similo similarity of candidate c to target t.
func similoScore(t, c *gardener.Fingerprint) float64 {
	eq := func(a, b string) float64 {
		if a != "" && strings.EqualFold(a, b) {
			return 1
		}
		return 0
	}
	joined := func(s []string) string { return strings.ToLower(strings.Join(s, " ")) }
	s := 1.5*eq(t.Tag, c.Tag) + 1.5*eq(t.Name, c.Name) + 1.5*eq(t.ID, c.ID) +
		1.5*levSim(joined(t.VisibleText), joined(c.VisibleText)) +
		1.5*levSim(joined(t.NeighborText), joined(c.NeighborText)) +
		0.5*levSim(joined(t.ClassList), joined(c.ClassList)) +
		0.5*levSim(t.Href, c.Href) + 0.5*levSim(t.Alt, c.Alt) +
		0.5*levSim(t.XPath, c.XPath) + 0.5*levSim(t.IdxPath, c.IdxPath)
	if t.IsButton == c.IsButton {
		s += 0.5
	}
	d := math.Hypot(t.Location.X-c.Location.X, t.Location.Y-c.Location.Y)
	s += 0.5 * round2(max(100-d, 0)/100)
	s += 0.5*intSim(t.Area, c.Area) + 0.5*intSim(t.Shape, c.Shape)
	return s
}

// levSim is 1 minus the edit distance over the longer length, rounded to two decimals; 0 when
// either side is empty.
func levSim(a, b string) float64 {
	ra, rb := []rune(strings.TrimSpace(a)), []rune(strings.TrimSpace(b))
	if len(ra) == 0 || len(rb) == 0 {
		return 0
	}
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range ra {
		cur[0] = i + 1
		for j := range rb {
			cost := 1
			if ra[i] == rb[j] {
				cost = 0
			}
			cur[j+1] = min(prev[j]+cost, prev[j+1]+1, cur[j]+1)
		}
		prev, cur = cur, prev
	}
	return round2(float64(len(ra)-prev[len(rb)]) / float64(len(ra)))
}

// intSim is how close two sizes are: 1 when equal, falling linearly to 0 at a difference as
// large as the larger.
func intSim(a, b float64) float64 {
	m := max(a, b)
	if m <= 0 {
		return 0
	}
	return round2((m - math.Abs(a-b)) / m)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// similoTop1 is, per website, how often Similo ranks the expected element first (ties go to
// the first candidate).
func similoTop1(lines []benchLine) map[string]tally {
	out := map[string]tally{}
	for _, l := range lines {
		t := out[l.App]
		for i := range l.Targets {
			if l.Expected[i] < 0 {
				continue
			}
			best, bestS := -1, math.Inf(-1)
			for j := range l.Candidates {
				if s := similoScore(&l.Targets[i], &l.Candidates[j]); s > bestS {
					best, bestS = j, s
				}
			}
			t.n++
			if best == l.Expected[i] {
				t.top1++
			}
		}
		out[l.App] = t
	}
	return out
}
