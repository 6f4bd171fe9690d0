package ladder

import (
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// failureOn is the evidence of a red proof of candidate t, whose top-level steps came from the
// base steps origin names (-1: inserted by the candidate): the last green run's records are
// renumbered to t's steps, so a rung that looks up what the green run did at the failing step
// reads that step's record, not the one of whatever step was there before the candidate
// inserted another (a dismissal, a required field).
func (c *climb) failureOn(t gardener.Test, rep gardener.Replay, origin []int) gardener.Failure {
	f := c.failure(t, rep)
	f.LastGreen = repath(c.req.LastGreen, c.base.Steps, t.Steps, origin)
	return f
}

// repath renumbers green's step records from base's paths to cand's. A record of a base step
// the candidate deleted is dropped; inside an intent block the candidate changed, the block's
// own steps are lined up with gardener.Align.
func repath(green *gardener.RunResult, base, cand []gardener.Step, origin []int) *gardener.RunResult {
	if green == nil || len(origin) != len(cand) {
		return green
	}
	at := map[int]int{} // base top-level index -> candidate index
	for k, b := range origin {
		if b >= 0 {
			at[b] = k
		}
	}
	out := *green
	out.Steps = make([]gardener.StepRecord, 0, len(green.Steps))
	inner := map[int]map[int]int{} // base block index -> base inner index -> candidate inner index
	for _, r := range green.Steps {
		head, rest, nested := strings.Cut(r.Path, ".")
		b, err := strconv.Atoi(head)
		if err != nil {
			continue
		}
		k, ok := at[b-1]
		if !ok {
			continue
		}
		r.Path = strconv.Itoa(k + 1)
		if nested {
			j, err := strconv.Atoi(rest)
			if err != nil || b-1 >= len(base) || base[b-1].Kind != gardener.Intent || cand[k].Kind != gardener.Intent {
				continue
			}
			m, ok := inner[b-1]
			if !ok {
				m = map[int]int{}
				for _, p := range gardener.Align(base[b-1].Steps, cand[k].Steps) {
					if p.Before >= 0 && p.After >= 0 {
						m[p.Before] = p.After
					}
				}
				inner[b-1] = m
			}
			a, ok := m[j-1]
			if !ok {
				continue
			}
			r.Path += "." + strconv.Itoa(a+1)
		}
		out.Steps = append(out.Steps, r)
	}
	return &out
}
