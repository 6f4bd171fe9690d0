package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// stagers is how many sweeps stage for one test at the same moment in the race cases.
const stagers = 20

// raceCases run the lifecycle's conditional steps from many goroutines at once; each must end in
// exactly one winner, and every loser with a typed error, whatever the interleaving.
var raceCases = []testCase{
	{name: "RaceStaging", atomic: true, run: func(t *testing.T, f *fixture) {
		counts := stageAtOnce(t, f, stagers, func(i int) gardener.Proposal {
			return proposal(fmt.Sprintf("pr-%02d", i), 3, change(fmt.Sprintf("c-%02d", i), "http://app.test/login", fmt.Sprintf("f%d", i)))
		})
		if counts[gardener.StagedNew] != 1 || counts[gardener.StagedRestated] != stagers-1 {
			t.Fatalf("outcomes %v, want 1 staged and %d restated", counts, stagers-1)
		}
		open, err := f.store.OpenProposals(f.ctx, "p-queue")
		if err != nil {
			t.Fatal(err)
		}
		if len(open) != 1 {
			t.Fatalf("%d open rows, want 1: %+v", len(open), open)
		}
		if open[0].Restated != stagers-1 || len(open[0].Triggers) != stagers {
			t.Fatalf("open row restated %d times with %d triggers; want %d and %d", open[0].Restated, len(open[0].Triggers), stagers-1, stagers)
		}
		if rows, _ := f.store.TestProposals(f.ctx, "t-login"); len(rows) != 1 {
			t.Fatalf("%d rows for the test, want 1", len(rows))
		}
	}},
	{name: "RaceApproveDismiss", atomic: true, run: func(t *testing.T, f *fixture) {
		for round := range 5 {
			id := fmt.Sprintf("pr-%d", round)
			base := f.test(t, "t-login").Version
			if _, err := f.svc.Stage(f.ctx, proposal(id, base, change("c-"+id, "http://app.test/login", "f-"+id))); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var approveErr, dismissErr error
			wg.Go(func() { _, approveErr = f.svc.Approve(f.ctx, id, "grace@example.com") })
			wg.Go(func() { _, dismissErr = f.svc.Dismiss(f.ctx, id, "alan@example.com") })
			wg.Wait()
			if (approveErr == nil) == (dismissErr == nil) {
				t.Fatalf("round %d: approve %v, dismiss %v; want exactly one to win", round, approveErr, dismissErr)
			}
			loser := errors.Join(approveErr, dismissErr)
			wantAs[*gardener.ConflictError](t, fmt.Sprintf("round %d loser", round), loser)
			row := f.proposal(t, id)
			after := f.test(t, "t-login")
			_, repairErr := f.store.Repair(f.ctx, "proposal-"+id)
			remembered, err := f.store.Dismissed(f.ctx, gardener.DismissalOf(row))
			if err != nil {
				t.Fatal(err)
			}
			// The loser must have written nothing: no dismissal memory beside an applied row,
			// no repair or new version beside a dismissed one.
			if approveErr == nil {
				if row.Status != gardener.ProposalApplied || after.Version != base+1 || repairErr != nil || remembered {
					t.Fatalf("round %d, approve won: row %s, version %d, repair %v, dismissal remembered %v", round, row.Status, after.Version, repairErr, remembered)
				}
			} else if row.Status != gardener.ProposalDismissed || after.Version != base || !errors.Is(repairErr, gardener.ErrNotFound) || !remembered {
				t.Fatalf("round %d, dismiss won: row %s, version %d, repair %v, dismissal remembered %v", round, row.Status, after.Version, repairErr, remembered)
			}
		}
	}},
	{name: "RaceSameProposal", atomic: true, run: func(t *testing.T, f *fixture) {
		// A redelivered event stages the same proposal id from several workers at once.
		counts := stageAtOnce(t, f, stagers, func(int) gardener.Proposal {
			return proposal("pr-same", 3, change("c-1", "http://app.test/login", "f1"))
		})
		if counts[gardener.StagedNew] != 1 || counts[gardener.StagedDuplicate] != stagers-1 {
			t.Fatalf("outcomes %v, want 1 staged and %d duplicates", counts, stagers-1)
		}
		rows, err := f.store.TestProposals(f.ctx, "t-login")
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].ID != "pr-same" || rows[0].Restated != 0 || len(rows[0].Triggers) != 1 {
			t.Fatalf("rows %+v, want pr-same once, never restated", rows)
		}
	}},
	{name: "RaceDuplicateApply", atomic: true, run: func(t *testing.T, f *fixture) {
		// At-least-once delivery: the same failed run's repair arrives at several workers at once.
		before := f.test(t, "t-auto")
		run := f.failedRun(t, "run-1", "t-auto", nil)
		const workers = 8
		var wg sync.WaitGroup
		results := make([]lifecycle.Applied, workers)
		errs := make([]error, workers)
		for i := range workers {
			wg.Go(func() {
				results[i], errs[i] = f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: run, BaseVersion: before.Version, Verdict: verdict("#signin")})
			})
		}
		wg.Wait()
		written := 0
		for i, err := range errs {
			if err != nil {
				t.Fatalf("worker %d: %v", i, err)
			}
			if !results[i].Duplicate {
				written++
			}
			if results[i].Repair.ID != "run-run-1" {
				t.Fatalf("worker %d answered with repair %q", i, results[i].Repair.ID)
			}
		}
		if written != 1 {
			t.Fatalf("%d workers wrote the repair, want 1", written)
		}
		after := f.test(t, "t-auto")
		if after.Version != before.Version+1 {
			t.Fatalf("version %d, want %d: the run's fix must change the test once", after.Version, before.Version+1)
		}
		wantSteps(t, "repaired once", after.Steps, mustApply(t, before.Steps, verdict("#signin").Ops))
		if rs, _ := f.store.Repairs(f.ctx, "t-auto"); len(rs) != 1 {
			t.Fatalf("%d repairs, want 1", len(rs))
		}
	}},
	{name: "RaceApproveEdit", atomic: true, run: func(t *testing.T, f *fixture) {
		for round := range 5 {
			id := fmt.Sprintf("pr-%d", round)
			before := f.test(t, "t-login")
			if _, err := f.svc.Stage(f.ctx, proposal(id, before.Version)); err != nil {
				t.Fatal(err)
			}
			edit := before.Clone()
			edit.Steps = append(edit.Steps, gardener.Step{Kind: gardener.Screenshot, Name: fmt.Sprintf("round-%d.png", round)})
			var wg sync.WaitGroup
			var approveErr, editErr error
			wg.Go(func() { _, approveErr = f.svc.Approve(f.ctx, id, "grace@example.com") })
			wg.Go(func() { _, editErr = f.svc.EditTest(f.ctx, edit) })
			wg.Wait()
			after := f.test(t, "t-login")
			row := f.proposal(t, id)
			repairs, _ := f.store.Repairs(f.ctx, "t-login")
			approved := len(repairs) > 0 && repairs[0].ProposalID == id
			switch {
			case approveErr == nil && editErr != nil:
				wantErr(t, "edit lost to approve", editErr, gardener.ErrConflict)
				if row.Status != gardener.ProposalApplied || !approved || after.Version != before.Version+1 {
					t.Fatalf("round %d, approve won: row %s, repair %v, version %d", round, row.Status, approved, after.Version)
				}
				wantSteps(t, "approved steps", after.Steps, mustApply(t, before.Steps, row.Verdict.Ops))
			case editErr == nil && approveErr != nil:
				wantAs[*gardener.StaleError](t, "approve lost to edit", approveErr)
				if row.Status != gardener.ProposalStale || approved || after.Version != before.Version+1 {
					t.Fatalf("round %d, edit won: row %s, repair %v, version %d", round, row.Status, approved, after.Version)
				}
				wantSteps(t, "edited steps", after.Steps, edit.Steps)
			default:
				t.Fatalf("round %d: approve %v, edit %v; want exactly one to win", round, approveErr, editErr)
			}
		}
	}},
	{name: "RaceRevertOneRepair", atomic: true, run: func(t *testing.T, f *fixture) {
		before, r := f.autoRepair(t)
		errs := make([]error, stagers)
		var wg sync.WaitGroup
		for i := range stagers {
			wg.Go(func() {
				_, errs[i] = f.store.RevertRepair(f.ctx, gardener.RevertRepair{RepairID: r.ID, By: fmt.Sprintf("person-%02d", i), At: f.now()})
			})
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			var stale *gardener.StaleError
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("reverters %d and %d both won", winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, gardener.ErrConflict) && !errors.As(err, &stale):
				t.Fatalf("reverter %d lost with %v (%T), want a *ConflictError or *StaleError", i, err, err)
			}
		}
		if winner < 0 {
			t.Fatalf("no reverter won: %v", errors.Join(errs...))
		}
		after := f.test(t, "t-auto")
		if after.Version != r.ToVersion+1 {
			t.Fatalf("version %d after %d reverts, want %d: the pre-repair steps are written exactly once", after.Version, stagers, r.ToVersion+1)
		}
		wantSteps(t, "reverted", after.Steps, before.Steps)
		got, err := f.store.Repair(f.ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("person-%02d", winner); got.RevertedBy != want || got.RevertedAt.IsZero() || got.Badge {
			t.Fatalf("repair after the race: reverted by %q at %v, badge %v; want reverted by the winner %s, badge cleared", got.RevertedBy, got.RevertedAt, got.Badge, want)
		}
	}},
	{name: "RaceRevertMarkReviewed", atomic: true, run: func(t *testing.T, f *fixture) {
		// Both may win when the review comes first; a review after the revert is refused (there
		// is no fix left to review). Either way neither may erase what the other wrote.
		before, r := f.autoRepair(t)
		var wg sync.WaitGroup
		var revertErr, reviewErr error
		wg.Go(func() {
			_, revertErr = f.store.RevertRepair(f.ctx, gardener.RevertRepair{RepairID: r.ID, By: "alan@example.com", At: f.now()})
		})
		wg.Go(func() { _, reviewErr = f.store.MarkReviewed(f.ctx, r.ID, "grace@example.com") })
		wg.Wait()
		if revertErr != nil || reviewErr != nil && !errors.Is(reviewErr, gardener.ErrConflict) {
			t.Fatalf("revert %v, mark reviewed %v; want the revert to succeed and the review to succeed or conflict", revertErr, reviewErr)
		}
		got, err := f.store.Repair(f.ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantReviewer := "grace@example.com"
		if reviewErr != nil {
			wantReviewer = ""
		}
		if got.RevertedBy != "alan@example.com" || got.RevertedAt.IsZero() || got.ReviewedBy != wantReviewer || got.Badge {
			t.Fatalf("repair after both (review error %v): reverted by %q at %v, reviewed by %q, badge %v; a field was lost", reviewErr, got.RevertedBy, got.RevertedAt, got.ReviewedBy, got.Badge)
		}
		after := f.test(t, "t-auto")
		if after.Version != r.ToVersion+1 {
			t.Fatalf("version %d, want %d", after.Version, r.ToVersion+1)
		}
		wantSteps(t, "reverted", after.Steps, before.Steps)
	}},
	{name: "RaceExecutionClaim", run: func(t *testing.T, f *fixture) {
		// Every API instance serving one person's requests for one run claims at once; then
		// every one of them supersedes the ended winner at once.
		const starters = 20
		supersede := ""
		for round := range 3 {
			helds := make([]gardener.ExecutionClaim, starters)
			errs := make([]error, starters)
			var wg sync.WaitGroup
			for i := range starters {
				wg.Go(func() {
					helds[i], errs[i] = f.store.ClaimExecution(f.ctx, claim("r-1", "ada@example.com", fmt.Sprintf("manual-%d-%02d", round, i)), supersede)
				})
			}
			wg.Wait()
			winners := 0
			for i, err := range errs {
				if err == nil {
					winners++
					continue
				}
				wantAs[*gardener.ConflictError](t, fmt.Sprintf("round %d starter %d", round, i), err)
			}
			if winners != 1 {
				t.Fatalf("round %d: %d starters won the claim, want 1", round, winners)
			}
			for i, h := range helds {
				if h.Name != helds[0].Name {
					t.Fatalf("round %d: starter %d was answered with %q, starter 0 with %q; want the one winner", round, i, h.Name, helds[0].Name)
				}
			}
			supersede = helds[0].Name
		}
	}},
	{name: "RaceSaveTest", run: func(t *testing.T, f *fixture) {
		// Editors who all read version 3 save at once: a save is conditional on the version it
		// was made against, so one wins and the others are told, never silently overwritten.
		base := f.test(t, "t-login")
		edits := make([]gardener.Test, stagers)
		errs := make([]error, stagers)
		var wg sync.WaitGroup
		for i := range stagers {
			edits[i] = base.Clone()
			edits[i].Name = fmt.Sprintf("edit %02d", i)
			edits[i].Steps = append(edits[i].Steps, gardener.Step{Kind: gardener.Screenshot, Name: fmt.Sprintf("edit-%02d.png", i)})
			wg.Go(func() { _, errs[i] = f.store.SaveTest(f.ctx, edits[i]) })
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("editors %d and %d both saved against version %d", winner, i, base.Version)
			case err == nil:
				winner = i
			default:
				wantAs[*gardener.ConflictError](t, fmt.Sprintf("editor %d", i), err)
			}
		}
		if winner < 0 {
			t.Fatalf("no editor saved: %v", errors.Join(errs...))
		}
		after := f.test(t, "t-login")
		if after.Version != base.Version+1 || after.Name != edits[winner].Name {
			t.Fatalf("after the race: version %d, name %q; want version %d with the winner's edit %q", after.Version, after.Name, base.Version+1, edits[winner].Name)
		}
		wantSteps(t, "saved", after.Steps, edits[winner].Steps)
	}},
}

// autoRepair writes an auto-applied repair of t-auto and returns the test before it and the
// repair as stored.
func (f *fixture) autoRepair(t *testing.T) (gardener.Test, gardener.Repair) {
	t.Helper()
	before := f.test(t, "t-auto")
	run := f.failedRun(t, "run-1", "t-auto", nil)
	got, err := f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: run, BaseVersion: before.Version, Verdict: verdict("#signin")})
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.store.Repair(f.ctx, got.Repair.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.ToVersion != before.Version+1 || !r.Badge {
		t.Fatalf("auto repair: to version %d, badge %v", r.ToVersion, r.Badge)
	}
	if after := f.test(t, "t-auto"); after.Viewport != before.Viewport {
		t.Fatalf("auto repair: the test's viewport went from %v to %v", before.Viewport, after.Viewport)
	}
	return before, r
}

// stageAtOnce stages n proposals from n goroutines at once and counts the outcomes; any error
// fails the test.
func stageAtOnce(t *testing.T, f *fixture, n int, of func(i int) gardener.Proposal) map[gardener.StageOutcome]int {
	t.Helper()
	var wg sync.WaitGroup
	outcomes := make([]gardener.StageOutcome, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			st, err := f.svc.Stage(f.ctx, of(i))
			outcomes[i], errs[i] = st.Outcome, err
		})
	}
	wg.Wait()
	counts := map[gardener.StageOutcome]int{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("stager %d: %v", i, err)
		}
		counts[outcomes[i]]++
	}
	return counts
}
