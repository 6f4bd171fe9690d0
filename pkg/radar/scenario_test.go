package radar

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// staged lists the tests a pass staged a new proposal for.
func staged(ps PassResult) []string {
	var out []string
	for _, p := range ps.Proposed {
		if p.Staged == gardener.StagedNew {
			out = append(out, p.TestID)
		}
	}
	slices.Sort(out)
	return out
}

// sortedIDs lists, sorted, the test id of each row.
func sortedIDs[T any](rows []T, id func(T) string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, id(r))
	}
	slices.Sort(out)
	return out
}

func atRiskIDs(sw SweepResult) []string {
	return sortedIDs(sw.AtRisk, func(r TestAtRisk) string { return r.TestID })
}

// neutralSwept checks a sweep of the app under neutral-tips, the pass after it and the queue:
// the changes are seen, but no test merely visiting a changed page is at risk, nothing is
// proposed and the model is not asked.
func neutralSwept(t *testing.T, s *scene, sw SweepResult) {
	t.Helper()
	changedPages := 0
	for _, p := range sw.Pages {
		if p.Changed {
			changedPages++
		}
	}
	if changedPages == 0 || len(sw.Changes) == 0 {
		t.Errorf("the sweep saw no change on the pages the variant changes: %+v", sw.Pages)
	}
	if len(sw.AtRisk) != 0 {
		t.Errorf("tests that merely visit a changed page are at risk: %+v", sw.AtRisk)
	}
	ps := s.pass()
	if len(ps.Proposed) != 0 || s.model.calls.Load() != 0 {
		t.Errorf("proposed %+v with %d model calls; want nothing and no call", ps.Proposed, s.model.calls.Load())
	}
	if q := s.queue(); q.Empty != EmptyNothingBroken {
		t.Errorf("queue %+v", q)
	}
}

// atRiskInQueue lists the at-risk tests the queue view shows.
func atRiskInQueue(q Queue) []string {
	return sortedIDs(q.AtRisk, func(r gardener.AtRisk) string { return r.TestID })
}

func TestAutoRepairProjectStagesNothing(t *testing.T) {
	t.Parallel()
	s, _ := newSweptScene(t, "button-wrapper")
	s.project(func(p *gardener.Project) { p.AutoRepair = true })
	ps := s.pass()
	if ps.Selection.Skipped == "" || len(ps.DryRuns) != 0 || len(ps.Proposed) != 0 || s.model.calls.Load() != 0 {
		t.Errorf("an auto-repair project's pass did something: %+v", ps)
	}
	q := s.queue()
	if q.Empty != EmptyRepairsItself || !slices.Contains(atRiskInQueue(q), "create-product") {
		t.Errorf("the queue of an auto-repair project should say so and keep the radar's at-risk list: %+v", q)
	}
}

func TestAutoRepairSwitchedOnMidPassIsRechecked(t *testing.T) {
	t.Parallel()
	s, _ := newSweptScene(t, "button-wrapper")
	sel, err := s.radar.Select(context.Background(), "demo")
	if err != nil || !slices.Contains(sel.Selected, "create-product") {
		t.Fatalf("selection %+v, %v", sel, err)
	}
	s.project(func(p *gardener.Project) { p.AutoRepair = true })
	d, err := s.radar.DryRun(context.Background(), "demo", "create-product")
	if err != nil || !strings.Contains(d.Skipped, "repairs itself") || d.RunID != "" {
		t.Errorf("dry-run after the switch: %+v, %v", d, err)
	}
	pr, err := s.radar.Propose(context.Background(), "demo", "create-product", nil)
	if err != nil || pr.Skipped == "" || s.model.calls.Load() != 0 {
		t.Errorf("propose after the switch: %+v, %v, %d calls", pr, err, s.model.calls.Load())
	}
}

func TestNoKeyKeepsRadarAndAtRiskList(t *testing.T) {
	t.Parallel()
	s, _ := newSweptScene(t, "button-wrapper")
	s.project(func(p *gardener.Project) { p.Model = "" })
	ps := s.pass()
	q := s.queue()
	if ps.Selection.Skipped == "" || q.Empty != EmptyNeedsKey || !slices.Contains(atRiskInQueue(q), "create-product") {
		t.Errorf("pass %+v, queue %+v", ps.Selection, q)
	}
}

func TestSecondSweepRestates(t *testing.T) {
	t.Parallel()
	// The shared scene passed once after the first sweep, then swept the same app again.
	s, made := newStagedScene(t)
	first, before, again := made.first, made.before, made.again
	if got := staged(first); !slices.Equal(got, []string{"create-product"}) {
		t.Fatalf("first pass staged %v: %+v", got, first.Proposed)
	}
	// The same app gives the same changes: nothing a sweep's own visits wrote to the app (a
	// product created on the way to its page, an order number) may read as a change.
	if got, want := changeDetails(again.Changes), changeDetails(before); !slices.Equal(got, want) {
		t.Errorf("the second sweep of the same app saw other changes:\n first: %q\nsecond: %q", want, got)
	}
	second := s.pass()
	q := s.queue()
	if len(q.Rows) != 1 {
		t.Fatalf("%d open rows after a second sweep over the same change, want 1: %+v", len(q.Rows), q.Rows)
	}
	row := q.Rows[0]
	if row.Restated != 1 || row.TestID != "create-product" {
		t.Errorf("row restated %d times, want 1: %+v (second pass %+v)", row.Restated, row, second.Proposed)
	}
	if len(row.Diff) == 0 || len(row.Triggers) == 0 || row.FailedStep != "4" || row.Error == "" {
		t.Errorf("row lacks its diff, trigger or failure: %+v", row)
	}
	for _, c := range row.Triggers {
		if c.URL != "/products/new" {
			t.Errorf("trigger on %s: %+v", c.URL, c)
		}
	}
	b, err := json.Marshal(q)
	if err != nil || !strings.Contains(string(b), `"restated":1`) {
		t.Errorf("queue JSON %s, %v", b, err)
	}
}

// changeDetails lists, sorted and without repeats, where and what each change is.
func changeDetails(cs []gardener.AppChange) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.URL+": "+c.Kind+" "+c.Detail)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestCapDefersToNextPass(t *testing.T) {
	t.Parallel()
	s := newScene(t, "cookie-banner")
	ctx := context.Background()
	sw, err := s.radar.Sweep(ctx, capID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.AtRisk) != 12 {
		t.Fatalf("%d cap tests at risk, want 12: %+v", len(sw.AtRisk), sw)
	}
	first, err := s.radar.Pass(ctx, capID)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.DryRuns) != 10 || !slices.Equal(first.Selection.Deferred, []string{"cap-11", "cap-12"}) {
		t.Fatalf("first pass dry-ran %d, deferred %v", len(first.DryRuns), first.Selection.Deferred)
	}
	var line struct {
		Msg      string   `json:"msg"`
		Deferred []string `json:"deferred"`
	}
	// The pass logs its selection when it starts and its summary when it ends: each one line,
	// each naming the deferred tests.
	logged := strings.Split(strings.TrimSpace(s.log.String()), "\n")
	var msgs []string
	for _, l := range logged {
		line.Deferred = nil
		if json.Unmarshal([]byte(l), &line) != nil || !slices.Equal(line.Deferred, []string{"cap-11", "cap-12"}) {
			t.Errorf("a log line of the pass does not name the deferred tests: %s", l)
		}
		msgs = append(msgs, line.Msg)
	}
	if !slices.Equal(msgs, []string{"staging pass", "staging pass summary"}) {
		t.Errorf("the pass logged %q, want its selection and its summary, one line each:\n%s", msgs, s.log.String())
	}
	left, _ := s.store.AtRisk(ctx, capID)
	if len(left) != 2 {
		t.Fatalf("ledger after the first pass: %+v", left)
	}
	// The next sweep sees the same change and marks all twelve again; the two deferred keep
	// their first-seen time, so the next pass takes them first.
	if _, err := s.radar.Sweep(ctx, capID); err != nil {
		t.Fatal(err)
	}
	// What the next pass takes is its selection; its dry-runs would be ten more replays of the
	// same passing test, which the first pass's ten already prove.
	second, err := s.radar.Select(ctx, capID)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Selected) != 10 || !slices.Equal(second.Selected[:2], []string{"cap-11", "cap-12"}) || len(second.Deferred) != 2 {
		t.Errorf("the next pass did not take the deferred tests first: selected %v, deferred %v", second.Selected, second.Deferred)
	}
	for _, d := range first.DryRuns {
		if !d.Passed {
			t.Errorf("dry-run of %s failed: %s", d.TestID, d.Error)
		}
	}
	if s.model.calls.Load() != 0 {
		t.Errorf("%d model calls for tests that still pass", s.model.calls.Load())
	}
}

// TestDriftStagesExactlyTheTouchedTests sweeps each drift variant of the demo app and runs a
// staging pass: proposals are staged for exactly the tests the variant breaks. "Selectors
// changed" is read as the radar reads it: a locator a test uses now finds nothing, several
// elements, a covered element, another element, or its page now ends elsewhere. That covers
// the cookie banner (the elements are covered) and the merged checkout and the new required
// field (the pages reached along the checkout test's own steps end elsewhere). It leaves out
// a change the radar cannot see by visiting pages: an element that only exists after an
// interaction (an alert after a failed submit) is "unseen" on the baseline and never judged.
//
// By default three variants run, one of each way a change reaches a locator (a selector that
// finds nothing, an element something covers, a page that now ends elsewhere); the whole table
// takes most of an hour on a loaded two-core machine and runs with GARDENER_FULL_MATRIX=1.
func TestDriftStagesExactlyTheTouchedTests(t *testing.T) {
	t.Parallel()
	full := os.Getenv("GARDENER_FULL_MATRIX") == "1"
	for _, v := range demoapp.Variants() {
		if v.Kind != demoapp.Drift || !full && !slices.Contains([]string{"id-renamed", "cookie-banner", "checkout-merged"}, v.Name) {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			s := newScene(t, v.Name)
			want := slices.Sorted(maps.Keys(v.Breaks))
			sw := s.sweep()
			for _, id := range want {
				if !slices.Contains(atRiskIDs(sw), id) {
					t.Errorf("%s breaks under %s but the sweep did not put it at risk (at risk: %v)", id, v.Name, atRiskIDs(sw))
				}
			}
			ps := s.pass()
			for _, p := range ps.Proposed {
				if p.Staged != gardener.StagedNew {
					t.Logf("%s: %s (%s)", p.TestID, p.Outcome, p.Reason)
				}
			}
			if got := staged(ps); !slices.Equal(got, want) {
				t.Errorf("staged %v, want %v", got, want)
			}
			for _, d := range ps.DryRuns {
				if d.Passed && slices.Contains(want, d.TestID) {
					t.Errorf("%s passed its dry-run under %s", d.TestID, v.Name)
				}
			}
			for _, r := range s.queue().Rows {
				if len(r.Triggers) == 0 || r.FailedStep != v.Breaks[r.TestID] {
					t.Errorf("row of %s: failed step %s (want %s), %d triggers", r.TestID, r.FailedStep, v.Breaks[r.TestID], len(r.Triggers))
				}
			}
		})
	}
}

// TestDismissedFixIsNotClimbedAgain: once a person dismissed the fix for a test version over
// some page changes, a later sweep over the same changes does not climb the ladder for it again
// (no replays, no model calls, no new row), and says why.
func TestDismissedFixIsNotClimbedAgain(t *testing.T) {
	t.Parallel()
	// The shared scene passed once after the first sweep, then swept the same app again: the
	// dismissal comes after that sweep, which reads nothing a dismissal writes (the baseline, the
	// tests, their green runs and the app), and before the pass that must respect it.
	s, made := newStagedScene(t)
	if got := staged(made.first); !slices.Equal(got, []string{"create-product"}) {
		t.Fatalf("first pass staged %v", got)
	}
	if !slices.Contains(atRiskIDs(made.again), "create-product") {
		t.Fatalf("the later sweep did not put create-product at risk again: %v", atRiskIDs(made.again))
	}
	q := s.queue()
	if len(q.Rows) != 1 {
		t.Fatalf("%d rows after the first pass, want 1", len(q.Rows))
	}
	if _, err := lifecycle.New(s.store, nil).Dismiss(context.Background(), q.Rows[0].ProposalID, "reviewer@example.com"); err != nil {
		t.Fatal(err)
	}
	calls := s.model.calls.Load()
	second := s.pass()
	var skipped string
	for _, p := range second.Proposed {
		if p.TestID == "create-product" {
			skipped = p.Skipped
			if p.Staged != "" || p.Outcome != "" {
				t.Errorf("the dismissed test was climbed again: %+v", p)
			}
		}
	}
	if !strings.Contains(skipped, "dismissed") {
		t.Errorf("the second pass should say the fix was dismissed, it said %q (%+v)", skipped, second.Proposed)
	}
	if n := s.model.calls.Load() - calls; n != 0 {
		t.Errorf("the second pass asked the model %d times for a dismissed test", n)
	}
	if rows := s.queue().Rows; len(rows) != 0 {
		t.Errorf("a dismissed fix is back in the queue: %+v", rows)
	}
}
