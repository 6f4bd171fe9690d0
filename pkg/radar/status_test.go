package radar

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// unfixable is a model that finds nothing: no locator, no operations, no intent, and a
// diagnosis that the failure is the app's. Every climb ends in a triage issue.
type unfixable struct{ calls atomic.Int64 }

func (u *unfixable) Name() string { return "unfixable" }

func (u *unfixable) FixLocator(context.Context, gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	u.calls.Add(1)
	return gardener.LocatorAnswer{Reason: "no element on the page is the one the step used"}, nil
}

func (u *unfixable) SuggestOps(context.Context, gardener.OpsAsk) (gardener.OpsAnswer, error) {
	u.calls.Add(1)
	return gardener.OpsAnswer{Reason: "no change to the steps would pass"}, nil
}

func (u *unfixable) Diagnose(context.Context, gardener.DiagnoseAsk) (gardener.Diagnosis, error) {
	u.calls.Add(1)
	return gardener.Diagnosis{Classification: gardener.AppBug, Evidence: []string{"the page no longer does what the test expects"}}, nil
}

func (u *unfixable) DeriveIntent(context.Context, gardener.IntentAsk) (gardener.IntentAnswer, error) {
	u.calls.Add(1)
	return gardener.IntentAnswer{Reason: "no steps reach the goal"}, nil
}

// proposedOf is what a pass's Propose did for one test.
func proposedOf(ps PassResult, testID string) (Proposed, bool) {
	i := slices.IndexFunc(ps.Proposed, func(p Proposed) bool { return p.TestID == testID })
	if i < 0 {
		return Proposed{}, false
	}
	return ps.Proposed[i], true
}

// TestUnfixableTestIsNotClimbedAgain: once a climb over some page changes found no fix and filed
// a triage issue, later sweeps over the same changes, with the test unchanged, do not climb the
// ladder again (no model calls) and file no second issue; the queue says the test fails with no
// fix rather than "No repairs waiting". A new version of the test is climbed afresh.
func TestUnfixableTestIsNotClimbedAgain(t *testing.T) {
	t.Parallel()
	s, _ := newSweptScene(t, "button-wrapper")
	model := &unfixable{}
	s.radar.Tender.Ladder.Model = model
	ctx := context.Background()
	issues := func() []gardener.TriageIssue {
		t.Helper()
		all, err := s.store.TriageIssues(ctx, "demo")
		if err != nil {
			t.Fatal(err)
		}
		var out []gardener.TriageIssue
		for _, is := range all {
			if is.TestID == "create-product" {
				out = append(out, is)
			}
		}
		return out
	}

	first := s.pass()
	if p, ok := proposedOf(first, "create-product"); !ok || p.Staged != "" || p.Skipped != "" {
		t.Fatalf("the first pass should climb the ladder for create-product and stage nothing: %+v", first.Proposed)
	}
	filed := issues()
	if len(filed) != 1 || filed[0].Unchanged == nil {
		t.Fatalf("the first climb filed %+v, want one triage issue remembering the test version and page changes", filed)
	}
	if model.calls.Load() == 0 {
		t.Fatal("the first climb asked the model nothing: the test proves nothing about later climbs")
	}

	// The next sweep over the same changes (a third proved nothing more, for a sweep and a pass
	// of CI time).
	{
		const sweep = 2
		calls := model.calls.Load()
		s.sweep()
		ps := s.pass()
		p, ok := proposedOf(ps, "create-product")
		if !ok || !strings.Contains(p.Skipped, "no fix was found") || !strings.Contains(p.Skipped, filed[0].ID) {
			t.Errorf("sweep %d: the unfixable test was not skipped naming its triage issue: %+v", sweep, ps.Proposed)
		}
		if n := model.calls.Load() - calls; n != 0 {
			t.Errorf("sweep %d: %d model calls for a test whose climb found nothing over the same changes", sweep, n)
		}
		if got := issues(); len(got) != 1 {
			t.Errorf("sweep %d: %d triage issues for create-product, want still the one: %+v", sweep, len(got), got)
		}
		// The sweep reaches the page create-product makes along its own broken steps no more:
		// that page is named first; else the failing test with no fix.
		q := s.queue()
		switch {
		case q.LastSweep != nil && len(q.LastSweep.Unreached) > 0:
			if q.Empty != EmptyUnreached || !strings.Contains(q.Explain, q.LastSweep.Unreached[0].URL) {
				t.Errorf("sweep %d: the queue says %q (%s), want %q naming %s", sweep, q.Empty, q.Explain, EmptyUnreached, q.LastSweep.Unreached[0].URL)
			}
		case q.Empty != EmptyNoFix || !strings.Contains(q.Explain, "create-product"):
			t.Errorf("sweep %d: the queue says %q (%s), want %q naming create-product", sweep, q.Empty, q.Explain, EmptyNoFix)
		}
		if q.LastPass == nil || !slices.Contains(q.LastPass.NotStaged, "create-product") || !slices.Contains(q.LastPass.DryRun, "create-product") {
			t.Errorf("sweep %d: the stored pass summary %+v does not count create-product as dry-run and not staged", sweep, q.LastPass)
		}
	}

	// A person edits the test: the next sweep climbs for the new version.
	tt, err := s.store.Test(ctx, "create-product")
	if err != nil {
		t.Fatal(err)
	}
	tt.Name += " (edited)"
	if _, err := s.store.SaveTest(ctx, tt); err != nil {
		t.Fatal(err)
	}
	calls := model.calls.Load()
	s.sweep()
	again := s.pass()
	if p, ok := proposedOf(again, "create-product"); !ok || p.Skipped != "" {
		t.Errorf("an edited test was not climbed again: %+v", again.Proposed)
	}
	if model.calls.Load() == calls {
		t.Error("the climb for the edited test asked the model nothing")
	}
	if got := issues(); len(got) != 2 {
		t.Errorf("%d triage issues after the edited test's climb, want 2", len(got))
	}
}

// TestSweepThatReachesNoPageSaysSo: a sweep that cannot reach the app records the pages it
// missed, and the queue names them instead of "No repairs waiting". The app it comes back to
// has a neutral change, and that sweep is also the proof that a neutral change stages nothing
// (it was TestNeutralChangeStagesNothing, the same sweep of the same state on its own).
func TestSweepThatReachesNoPageSaysSo(t *testing.T) {
	t.Parallel()
	s := newScene(t, "neutral-tips")
	s.radar.BaseURL = "http://127.0.0.1:1"
	sw := s.sweep()
	if len(sw.Pages) == 0 {
		t.Fatal("the sweep tried no page")
	}
	q := s.queue()
	if q.LastSweep == nil || len(q.LastSweep.Unreached) != len(sw.Pages) || q.LastSweep.Pages != len(sw.Pages) {
		t.Fatalf("the stored sweep %+v should name all %d pages unreached", q.LastSweep, len(sw.Pages))
	}
	for _, u := range q.LastSweep.Unreached {
		if u.URL == "" || u.Why == "" {
			t.Errorf("an unreached page without its URL or why: %+v", u)
		}
	}
	if q.Empty != EmptyUnreached || !strings.Contains(q.Explain, q.LastSweep.Unreached[0].URL) {
		t.Errorf("the queue says %q (%s), want %q naming the pages", q.Empty, q.Explain, EmptyUnreached)
	}
	// The app is back: the next sweep's summary replaces the last, and the queue's reason
	// follows what it reached.
	s.radar.BaseURL = ""
	back := s.sweep()
	q = s.queue()
	if q.LastSweep == nil || !q.LastSweep.At.Equal(back.At) || len(q.LastSweep.Unreached) != len(back.Summary().Unreached) {
		t.Fatalf("the stored sweep %+v is not the newer sweep's (%v, %d unreached)", q.LastSweep, back.At, len(back.Summary().Unreached))
	}
	if len(q.LastSweep.Unreached) == len(sw.Pages) {
		t.Errorf("the sweep of the running app reached none of its %d pages: %+v", len(sw.Pages), q.LastSweep.Unreached)
	}
	if (q.Empty == EmptyUnreached) != (len(q.LastSweep.Unreached) > 0) {
		t.Errorf("the queue says %q with %d pages unreached by the last sweep", q.Empty, len(q.LastSweep.Unreached))
	}
	neutralSwept(t, s, back)
}

// TestQueueReasonFromTheLastSweepAndPass: the stored last sweep and pass decide between "Pages
// could not be reached", "At-risk tests fail with no fix waiting" and "No repairs waiting"; a
// sweep older than the baseline says nothing about the pages the baseline reached since.
func TestQueueReasonFromTheLastSweepAndPass(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	watched := gardener.Baseline{ProjectID: "p", At: t0, Tests: map[string][]string{"t01": {"/a", "/b"}},
		Pages: map[string]gardener.PageBaseline{"/a": {URL: "/a"}, "/b": {URL: "/b"}}}
	missed := []gardener.UnreachedPage{{URL: "/b", Why: "net::ERR_CONNECTION_REFUSED"}}
	passed := gardener.NewPassSummary("p", t0.Add(2*time.Hour), nil)
	passed.Add("t01", gardener.PassPassing, "")
	unfixed := gardener.NewPassSummary("p", t0.Add(3*time.Hour), nil)
	unfixed.Add("t01", gardener.PassNotStaged, "")
	cases := []struct {
		name  string
		sweep *gardener.SweepSummary
		pass  *gardener.PassSummary
		want  string
	}{
		{"no sweep since the baseline", nil, nil, EmptyNothingBroken},
		{"the last sweep missed a page", &gardener.SweepSummary{ProjectID: "p", At: t0.Add(time.Hour), Pages: 2, Unreached: missed}, nil, EmptyUnreached},
		{"a sweep before the baseline missed a page", &gardener.SweepSummary{ProjectID: "p", At: t0.Add(-time.Hour), Pages: 2, Unreached: missed}, nil, EmptyNothingBroken},
		{"every dry-run green", &gardener.SweepSummary{ProjectID: "p", At: t0.Add(time.Hour), Pages: 2}, &passed, EmptyNothingBroken},
		{"a dry-run failed and nothing was staged", &gardener.SweepSummary{ProjectID: "p", At: t0.Add(time.Hour), Pages: 2}, &unfixed, EmptyNoFix},
		{"unreached pages before no fix", &gardener.SweepSummary{ProjectID: "p", At: t0.Add(time.Hour), Pages: 2, Unreached: missed}, &unfixed, EmptyUnreached},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store, _, r := ledger(t, 0, nil)
			ctx := context.Background()
			if err := store.PutBaseline(ctx, watched); err != nil {
				t.Fatal(err)
			}
			if c.sweep != nil {
				if err := store.PutSweepSummary(ctx, *c.sweep); err != nil {
					t.Fatal(err)
				}
			}
			if c.pass != nil {
				if err := store.PutPassSummary(ctx, *c.pass); err != nil {
					t.Fatal(err)
				}
			}
			q, err := r.Queue(ctx, "p")
			if err != nil {
				t.Fatal(err)
			}
			if q.Empty != c.want {
				t.Errorf("empty %q (%s), want %q", q.Empty, q.Explain, c.want)
			}
			if (c.sweep == nil) != (q.LastSweep == nil) || (c.pass == nil) != (q.LastPass == nil) {
				t.Errorf("the queue shows last sweep %+v and last pass %+v", q.LastSweep, q.LastPass)
			}
		})
	}
}

// TestPassStoresItsSummary: a local pass stores what it dry-ran, staged and deferred, and a
// skipped pass says why.
func TestPassStoresItsSummary(t *testing.T) {
	store, _, r := ledger(t, 2, func(p *gardener.Project) { p.AutoRepair = true })
	ctx := context.Background()
	if _, err := r.Pass(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	got, err := store.PassSummary(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got.Skipped == "" || len(got.DryRun) != 0 || got.At.IsZero() {
		t.Errorf("the skipped pass was stored as %+v", got)
	}
}
