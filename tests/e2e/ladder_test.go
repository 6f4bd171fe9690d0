package e2e

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// removedByVariant names elements a drift variant takes away for good: a correct repair no
// longer touches them (the merged checkout has no "Continue to payment").
var removedByVariant = map[string][]string{
	"checkout-merged": {"checkout-continue"},
}

func brokenTests(v demoapp.Variant) []string {
	ids := make([]string, 0, len(v.Breaks))
	for id := range v.Breaks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// longestFirst lists the variants of a kind, those whose broken tests have the most steps first:
// the package's scenarios run in parallel (as many at once as -parallel allows), a scenario's
// time follows the steps its repairs replay, and the longest started last would run alone at
// the end.
func longestFirst(t *testing.T, kind demoapp.Kind) []demoapp.Variant {
	saved, err := demoapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]int{}
	for _, tt := range saved {
		steps[tt.ID] = len(tt.Steps)
	}
	weight := func(v demoapp.Variant) int {
		n := 0
		for id := range v.Breaks {
			n += steps[id]
		}
		return n
	}
	var out []demoapp.Variant
	for _, v := range demoapp.Variants() {
		if v.Kind == kind {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b demoapp.Variant) int { return weight(b) - weight(a) })
	return out
}

// TestDriftVariantsAreRepaired: for every drift variant, the applying gardener with the built-in
// engine repairs every failing test (directly or by propagation), the proof is green, and the
// app's own record shows the repaired test hits the same elements with the same values as the
// original did on the baseline.
func TestDriftVariantsAreRepaired(t *testing.T) {
	t.Parallel()
	for _, v := range longestFirst(t, demoapp.Drift) {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			s := newShop(t, builtinModel(), true)
			ctx := context.Background()
			baseline := map[string][]demoapp.Event{}
			for _, id := range brokenTests(v) {
				baseline[id] = interactions(s.RecordBaseline(s.Test(id)))
			}
			if err := s.App.SetVariant(v.Name); err != nil {
				t.Fatal(err)
			}
			for _, id := range brokenTests(v) {
				tt := s.Test(id)
				if _, ok := s.Witness.GreenRun(tt.Steps); ok && tt.Version > 1 {
					// Repaired already, by propagation from an earlier test: the propagation's
					// green proof ran exactly these steps on this app under the variant.
					continue
				}
				rep, _ := s.Replay(tt)
				if rep.Result.Passed {
					if tt.Version == 1 {
						t.Errorf("%s passes under %s before any repair; the variant says it breaks at step %s", id, v.Name, v.Breaks[id])
					}
					continue // repaired already, by propagation from an earlier test
				}
				if rep.Result.FailedStep != v.Breaks[id] {
					t.Errorf("%s fails at step %s, the variant says %s", id, rep.Result.FailedStep, v.Breaks[id])
				}
				got := s.TendFailure(tt, rep, true)
				if o := got.Persisted.Outcome; o != ladder.Repaired && o != ladder.Staged {
					t.Fatalf("%s under %s: outcome %s (%s); rungs %+v", id, v.Name, o, got.Result.Reason, got.Result.Rungs)
				}
				if got.Result.Proof == nil || !got.Result.Proof.Passed {
					t.Fatalf("%s: no green proof", id)
				}
				if got.Result.Usage.Calls != 0 || len(got.Result.ModelCalls) != 0 {
					t.Errorf("%s: the built-in engine made model calls: %+v", id, got.Result.Usage)
				}
				if got.Persisted.Staged != nil {
					// Staged for a person even in apply mode: apply it as a person would, so
					// the record check below covers it too.
					approved, err := s.Life.Approve(ctx, got.Persisted.Staged.Proposal.ID, "reviewer")
					if err != nil {
						t.Fatalf("approve %s: %v", id, err)
					}
					// The repair record names the failed run the fix was computed from (a fix
					// propagated from another test's repair was computed from none of its own).
					p := got.Persisted.Staged.Proposal
					if approved.Repair.RunID != p.RunID || (p.RunID == "" && !strings.HasPrefix(p.Reason, "propagated from")) {
						t.Errorf("%s: the approved repair names run %q, the proposal %q (%s)", id, approved.Repair.RunID, p.RunID, p.Reason)
					}
				}
				t.Logf("%s: %s by %s\n%s", id, got.Persisted.Outcome, got.Result.Verdict.Strategy, gardener.RenderDiff(got.Result.Diff))
			}
			for _, id := range brokenTests(v) {
				fixed := s.Test(id)
				if fixed.Version == 1 {
					t.Errorf("%s was not repaired", id)
					continue
				}
				if fixed.Status != gardener.StatusActive {
					t.Errorf("%s: a repair moved the test to %s", id, fixed.Status)
				}
				// The repair's green proof ran exactly these steps on this app under the variant:
				// what the app saw it do is the record to check. Only steps no green replay ran
				// (none, unless a person's approval changed them) are replayed here.
				events, red := s.Witness.GreenRunOr(fixed, s.Replay)
				if red != nil {
					t.Errorf("%s repaired but red under %s: step %s: %s", id, v.Name, red.FailedStep, red.Message)
					continue
				}
				sameElements(t, id, baseline[id], interactions(events), removedByVariant[v.Name], inserts(t, s, id))
			}
		})
	}
}

// inserts counts the steps the repairs of a test added: each may hit one element the original
// never did (the cookie banner's accept button, a new required field).
func inserts(t testing.TB, s *shop, id string) int {
	repairs, err := s.Store.Repairs(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range repairs {
		for _, op := range r.Verdict.Ops {
			if op.Kind == gardener.OpInsert {
				n++
			}
		}
	}
	return n
}

// sameElements: the repaired run, restricted to elements the original touched, does exactly what
// the original did on the baseline (less the elements the variant removed), and touches at most
// one new element per inserted step.
func sameElements(t *testing.T, id string, was, now []demoapp.Event, removed []string, inserted int) {
	t.Helper()
	known := map[string]bool{}
	var want []demoapp.Event
	for _, e := range was {
		known[e.Key] = true
		if !slices.Contains(removed, e.Key) {
			want = append(want, e)
		}
	}
	var got, extra []demoapp.Event
	for _, e := range now {
		if known[e.Key] {
			got = append(got, e)
		} else {
			extra = append(extra, e)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: the repaired test did not hit the intended elements\n baseline: %v\n repaired: %v", id, want, got)
	}
	if len(extra) > inserted {
		t.Errorf("%s: the repaired test touched %d elements the original never did, with %d inserted steps: %v", id, len(extra), inserted, extra)
	}
}

// TestRegressionVariantsAreTriaged: for every regression variant, nothing is written to any test
// and a triage issue is filed for every failing test.
func TestRegressionVariantsAreTriaged(t *testing.T) {
	t.Parallel()
	for _, v := range longestFirst(t, demoapp.Regression) {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			s := newShop(t, builtinModel(), true)
			ctx := context.Background()
			for _, id := range brokenTests(v) {
				s.RecordBaseline(s.Test(id))
			}
			if err := s.App.SetVariant(v.Name); err != nil {
				t.Fatal(err)
			}
			for _, id := range brokenTests(v) {
				tt := s.Test(id)
				rep, _ := s.Replay(tt)
				if rep.Result.Passed {
					t.Fatalf("%s passes under regression %s", id, v.Name)
				}
				if rep.Result.FailedStep != v.Breaks[id] {
					t.Errorf("%s fails at step %s, the variant says %s", id, rep.Result.FailedStep, v.Breaks[id])
				}
				got := s.TendFailure(tt, rep, true)
				if o := got.Persisted.Outcome; o != ladder.Triaged && o != ladder.Refused {
					t.Fatalf("%s under regression %s: outcome %s, a repair was made: %s", id, v.Name, o, gardener.RenderDiff(got.Result.Diff))
				}
				if got.Persisted.Triage == nil {
					t.Errorf("%s: no triage issue filed", id)
				} else {
					t.Logf("%s: %s: %s", id, got.Persisted.Triage.Classification, strings.Join(got.Persisted.Triage.Evidence, "; "))
					// A regression is never filed as the test's drift: that would tell a person
					// to repair the test of a broken app.
					if c := got.Persisted.Triage.Classification; c == gardener.TestDrift {
						t.Errorf("%s under regression %s: the triage issue says %s", id, v.Name, c)
					}
				}
			}
			for _, id := range brokenTests(v) {
				if tt := s.Test(id); tt.Version != 1 {
					t.Errorf("%s was written under regression %s (version %d)", id, v.Name, tt.Version)
				}
				if ps, err := s.Store.TestProposals(ctx, id); err != nil || len(ps) != 0 {
					t.Errorf("%s: %d proposals staged under regression %s (%v)", id, len(ps), v.Name, err)
				}
			}
			issues, err := s.Store.TriageIssues(ctx, "demo")
			if err != nil {
				t.Fatal(err)
			}
			if len(issues) < len(v.Breaks) {
				t.Errorf("%d triage issues for %d failing tests", len(issues), len(v.Breaks))
			}
		})
	}
}
