package spaapp_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/spaapp"
	"github.com/driftgardener/gardener/tests/testkit"
)

// lab is one Crewdesk with its own store holding the saved tests: the unit a variant's case
// works on, as the shop's end-to-end scenarios do.
type lab = testkit.Lab[spaapp.Event, *spaapp.App]

func newLab(t testing.TB) *lab {
	t.Helper()
	return crewdesk.NewLab(t, builtin.Engine{}, true)
}

// interactions is what the app saw a replay do to elements, in order.
func interactions(events []spaapp.Event) []string {
	var out []string
	for _, e := range events {
		switch e.Type {
		case spaapp.EventClick, spaapp.EventFill, spaapp.EventCheck:
			if n := len(out); n > 0 && e.Type == spaapp.EventFill && out[n-1] == e.Type+" "+e.Key+"="+e.Value {
				continue
			}
			out = append(out, e.Type+" "+e.Key+"="+e.Value)
		}
	}
	return out
}

func broken(v spaapp.Variant) []string {
	ids := make([]string, 0, len(v.Breaks))
	for id := range v.Breaks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// TestDriftVariantsAreRepaired: under every drift variant of Crewdesk, the applying gardener
// with the built-in engine repairs every test the variant breaks, the proof is green, no model
// is called, and the repaired test replayed on the drifted app hits the same elements with the
// same values as the original did on the baseline (plus at most one element per inserted step).
func TestDriftVariantsAreRepaired(t *testing.T) {
	t.Parallel()
	for _, v := range spaapp.Variants() {
		if v.Kind != demoapp.Drift {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			l := newLab(t)
			ctx := context.Background()
			was := map[string][]string{}
			for _, id := range broken(v) {
				was[id] = interactions(l.RecordBaseline(l.Test(id)))
			}
			if err := l.App.SetVariant(v.Name); err != nil {
				t.Fatal(err)
			}
			for _, id := range broken(v) {
				tt := l.Test(id)
				rep, _ := l.Replay(tt)
				if rep.Result.Passed {
					t.Fatalf("%s passes under %s before any repair", id, v.Name)
				}
				if rep.Result.FailedStep != v.Breaks[id] {
					t.Errorf("%s fails at step %s (%s); the variant says %s", id, rep.Result.FailedStep, rep.Result.Message, v.Breaks[id])
				}
				got := l.TendFailure(tt, rep, false)
				if o := got.Persisted.Outcome; o != ladder.Repaired && o != ladder.Staged {
					t.Fatalf("%s under %s: outcome %s (%s)%s", id, v.Name, o, got.Result.Reason, attempts(got.Result))
				}
				if got.Result.Proof == nil || !got.Result.Proof.Passed {
					t.Fatalf("%s: no green proof", id)
				}
				if got.Result.Usage.Calls != 0 || len(got.Result.ModelCalls) != 0 {
					t.Errorf("%s: the built-in engine made model calls: %+v", id, got.Result.Usage)
				}
				if got.Persisted.Staged != nil {
					if _, err := l.Life.Approve(ctx, got.Persisted.Staged.Proposal.ID, "reviewer"); err != nil {
						t.Fatalf("approve %s: %v", id, err)
					}
				}
				t.Logf("%s: %s\n%s", id, got.Persisted.Outcome, gardener.RenderDiff(got.Result.Diff))
			}
			for _, id := range broken(v) {
				fixed := l.Test(id)
				if fixed.Version == 1 {
					t.Errorf("%s was not repaired", id)
					continue
				}
				// The repair's green proof ran exactly these steps on this app under the variant:
				// what the app saw it do is the record to check. Only steps no green replay ran
				// (none, unless a person's approval changed them) are replayed here.
				events, red := l.Witness.GreenRunOr(fixed, l.Replay)
				if red != nil {
					t.Errorf("%s repaired but red under %s: step %s: %s", id, v.Name, red.FailedStep, red.Message)
					continue
				}
				sameElements(t, id, was[id], interactions(events), inserted(fixed))
			}
		})
	}
}

// attempts lists what each rung tried and how it ended, for a failure message.
func attempts(res ladder.Result) string {
	var b strings.Builder
	for _, r := range res.Rungs {
		for _, a := range r.Attempts {
			fmt.Fprintf(&b, "\n  %s: %s", r.Rung, a.Outcome)
		}
	}
	return b.String()
}

// inserted counts the steps a repair added.
func inserted(fixed gardener.Test) int {
	tests, _ := spaapp.Tests()
	for _, tt := range tests {
		if tt.ID == fixed.ID {
			return max(0, len(fixed.Steps)-len(tt.Steps))
		}
	}
	return 0
}

// sameElements: the repaired run, restricted to the elements the original touched, does what
// the original did, and touches at most one new element per inserted step.
func sameElements(t *testing.T, id string, was, now []string, added int) {
	t.Helper()
	key := func(s string) string { k, _, _ := strings.Cut(s, "="); return k }
	known := map[string]bool{}
	for _, e := range was {
		known[key(e)] = true
	}
	var got, extra []string
	for _, e := range now {
		if known[key(e)] {
			got = append(got, e)
		} else {
			extra = append(extra, e)
		}
	}
	if !slices.Equal(got, was) {
		t.Errorf("%s: the repaired test did not hit the intended elements\n baseline: %v\n repaired: %v", id, was, got)
	}
	if len(extra) > added {
		t.Errorf("%s: the repaired test touched %d elements the original never did, with %d inserted steps: %v", id, len(extra), added, extra)
	}
}

// TestRegressionVariantsAreRefused: under every regression variant, every broken test is
// triaged or refused, nothing is written to it and nothing is staged.
func TestRegressionVariantsAreRefused(t *testing.T) {
	t.Parallel()
	for _, v := range spaapp.Variants() {
		if v.Kind != demoapp.Regression {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			l := newLab(t)
			for _, id := range broken(v) {
				l.RecordBaseline(l.Test(id))
			}
			if err := l.App.SetVariant(v.Name); err != nil {
				t.Fatal(err)
			}
			for _, id := range broken(v) {
				tt := l.Test(id)
				rep, _ := l.Replay(tt)
				if rep.Result.Passed {
					t.Fatalf("%s passes under regression %s", id, v.Name)
				}
				if rep.Result.FailedStep != v.Breaks[id] {
					t.Errorf("%s fails at step %s (%s); the variant says %s", id, rep.Result.FailedStep, rep.Result.Message, v.Breaks[id])
				}
				refuses(l, tt, rep, v.Name)
			}
		})
	}
}

// refuses tends in l the failing run rep of tt under the regression named variant and checks
// that it is triaged or refused, with nothing written to the test and nothing staged.
func refuses(l *lab, tt gardener.Test, rep gardener.Replay, variant string) {
	t := l.T
	t.Helper()
	ctx := context.Background()
	id := tt.ID
	got := l.TendFailure(tt, rep, false)
	if o := got.Persisted.Outcome; o != ladder.Triaged && o != ladder.Refused {
		t.Fatalf("%s under regression %s: outcome %s, a repair was made: %s", id, variant, o, gardener.RenderDiff(got.Result.Diff))
	}
	if tr := got.Persisted.Triage; tr != nil {
		t.Logf("%s: %s: %s", id, tr.Classification, strings.Join(tr.Evidence, "; "))
		// A regression is never filed as the test's drift: that would tell a person to repair
		// the test of a broken app.
		if tr.Classification == gardener.TestDrift {
			t.Errorf("%s under regression %s: the triage issue says %s", id, variant, tr.Classification)
		}
	}
	if after := l.Test(id); after.Version != tt.Version {
		t.Errorf("%s was written under regression %s (version %d)", id, variant, after.Version)
	}
	if ps, err := l.Store.TestProposals(ctx, id); err != nil || len(ps) != 0 {
		t.Errorf("%s: %d proposals staged under regression %s (%v)", id, len(ps), variant, err)
	}
}

// TestAnotherRowsMenuIsNotOpened: with row actions in per-row menus (kebab-menu) and the first
// member's row left without its menu (owner-actions-missing), the cancelled delete of that
// member cannot be repaired: every other row's menu holds a Delete that acts on another member,
// and a test that opens one and cancels would pass its checks. It is refused with nothing
// written; the drift rules must not open the menu of another row.
func TestAnotherRowsMenuIsNotOpened(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	tt := l.Test("member-delete-cancel")
	l.RecordBaseline(tt)
	variant := "kebab-menu+owner-actions-missing"
	if err := l.App.SetVariant(variant); err != nil {
		t.Fatal(err)
	}
	rep, _ := l.Replay(tt)
	if rep.Result.Passed || rep.Result.FailedStep != "2" {
		t.Fatalf("member-delete-cancel under %s: passed %v, failed at step %s (%s); want a failure at step 2", variant, rep.Result.Passed, rep.Result.FailedStep, rep.Result.Message)
	}
	refuses(l, tt, rep, variant)
}
