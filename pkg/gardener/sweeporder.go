package gardener

import (
	"cmp"
	"slices"
	"time"
)

// SweepOrder is the order the radar's schedule sweeps projects in: those never swept first,
// then the longest since their last sweep, ties by id. A run of the schedule has a time budget
// (its function's timeout) and may not reach every project; a project it did not reach keeps
// its old last sweep and so comes before every project the run did sweep, and successive runs
// cover every project before sweeping any twice. lastSwept maps a project to its last sweep;
// a project absent from it (or with a zero time) was never swept.
func SweepOrder(ids []string, lastSwept map[string]time.Time) []string {
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(a, b string) int {
		ta, tb := lastSwept[a], lastSwept[b]
		switch {
		case ta.IsZero() != tb.IsZero():
			if ta.IsZero() {
				return -1
			}
			return 1
		case !ta.Equal(tb):
			return ta.Compare(tb)
		}
		return cmp.Compare(a, b)
	})
	return out
}
