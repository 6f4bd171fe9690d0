package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// lifecycleCases drive the lifecycle services over the store: one open proposal per test,
// stale, the repair record, revert and review, and the spec's queue and repair-record sections.
var lifecycleCases = []testCase{
	{name: "StageRestateDuplicate", atomic: true, run: func(t *testing.T, f *fixture) {
		st, err := f.svc.Stage(f.ctx, proposal("pr-1", 3, change("c-1", "http://app.test/login", "f1")))
		if err != nil {
			t.Fatal(err)
		}
		if st.Outcome != gardener.StagedNew || st.Proposal.Status != gardener.ProposalProposed {
			t.Fatalf("first stage: %+v", st)
		}
		st, err = f.svc.Stage(f.ctx, proposal("pr-2", 3, change("c-2", "http://app.test/login", "f2")))
		if err != nil {
			t.Fatal(err)
		}
		if st.Outcome != gardener.StagedRestated || st.Proposal.ID != "pr-1" {
			t.Fatalf("second stage: %+v", st)
		}
		for _, id := range []string{"pr-1", "pr-2"} {
			st, err = f.svc.Stage(f.ctx, proposal(id, 3, change("c-9", "http://app.test/x", "f9")))
			if err != nil {
				t.Fatal(err)
			}
			if st.Outcome != gardener.StagedDuplicate {
				t.Fatalf("staging %s again: outcome %s, want duplicate", id, st.Outcome)
			}
		}
		open, err := f.store.OpenProposals(f.ctx, "p-queue")
		if err != nil {
			t.Fatal(err)
		}
		if len(open) != 1 || open[0].ID != "pr-1" || open[0].Restated != 1 || len(open[0].Triggers) != 2 || open[0].Triggers[1].ID != "c-2" {
			t.Fatalf("queue: %+v", open)
		}
		if open[0].Verdict.Ops[0].Step.Locator.String() != "css=#signin" || open[0].FailedStep != "3" || open[0].StagedAt.IsZero() {
			t.Fatalf("open row lost fields: %+v", open[0])
		}
		if _, err := f.store.Proposal(f.ctx, "pr-2"); !errors.Is(err, gardener.ErrNotFound) {
			t.Fatalf("a restatement must not leave a row of its own: %v", err)
		}
	}},
	{name: "StageRefusesStaleUnscreenedAndUnknown", atomic: true, run: func(t *testing.T, f *fixture) {
		_, err := f.svc.Stage(f.ctx, proposal("pr-old", 2))
		wantAs[*gardener.StaleError](t, "stage against an old version", err)
		bad := proposal("pr-floor", 3)
		flip := gardener.Step{Kind: gardener.Assert, Subject: gardener.SubjectURL, Condition: gardener.Contains, Expected: "/login"}
		bad.Verdict.Ops = []gardener.Op{{Kind: gardener.OpReplace, Index: 3, Step: &flip}}
		_, err = f.svc.Stage(f.ctx, bad)
		wantAs[*lifecycle.RefusedError](t, "stage a rewritten check", err)
		unknown := proposal("pr-nobody", 3)
		unknown.TestID = "t-nobody"
		_, err = f.svc.Stage(f.ctx, unknown)
		wantAs[*gardener.NotFoundError](t, "stage for an unknown test", err)
		if rows, err := f.store.TestProposals(f.ctx, "t-login"); err != nil || len(rows) != 0 {
			t.Fatalf("refused stages left rows: %+v, %v", rows, err)
		}
	}},
	{name: "SupersededByNewerVersion", atomic: true, run: func(t *testing.T, f *fixture) {
		if _, err := f.svc.Stage(f.ctx, proposal("pr-v3", 3, change("c-1", "http://app.test/login", "f1"))); err != nil {
			t.Fatal(err)
		}
		edit := f.test(t, "t-login")
		edit.Steps[0].URL = "/signin"
		if _, err := f.svc.EditTest(f.ctx, edit); err != nil {
			t.Fatal(err)
		}
		st, err := f.svc.Stage(f.ctx, proposal("pr-v4", 4, change("c-2", "http://app.test/signin", "f2")))
		if err != nil {
			t.Fatal(err)
		}
		if st.Outcome != gardener.StagedSuperseded || st.Superseded != "pr-v3" || st.Proposal.ID != "pr-v4" {
			t.Fatalf("stage after edit: %+v", st)
		}
		if p := f.proposal(t, "pr-v3"); p.Status != gardener.ProposalSuperseded {
			t.Fatalf("old row: %s, want superseded", p.Status)
		}
		rows, err := f.store.TestProposals(f.ctx, "t-login")
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].ID != "pr-v4" || rows[0].Status != gardener.ProposalProposed {
			t.Fatalf("rows of t-login, newest first: %+v", rows)
		}
		if open, err := f.svc.Queue(f.ctx, "p-queue"); err != nil || len(open) != 1 || open[0].ID != "pr-v4" {
			t.Fatalf("queue after supersede: %+v, %v; want pr-v4 alone", open, err)
		}
		_, err = f.store.StageProposal(f.ctx, proposal("pr-v3b", 3))
		wantAs[*gardener.StaleError](t, "store: stage below the open row's version", err)
	}},
	{name: "ApproveWritesOnceAndKeepsStatus", atomic: true, run: func(t *testing.T, f *fixture) {
		pending := f.test(t, "t-login")
		pending.Status = gardener.StatusPending
		if _, err := f.store.SaveTest(f.ctx, pending); err != nil {
			t.Fatal(err)
		}
		before := f.test(t, "t-login")
		p := proposal("pr-1", before.Version, change("c-1", "http://app.test/login", "f1"))
		if _, err := f.svc.Stage(f.ctx, p); err != nil {
			t.Fatal(err)
		}
		got, err := f.svc.Approve(f.ctx, "pr-1", "grace@example.com")
		if err != nil {
			t.Fatal(err)
		}
		after := f.test(t, "t-login")
		if after.Version != before.Version+1 || after.Status != gardener.StatusPending {
			t.Fatalf("after approve: version %d status %s, want %d and the status untouched", after.Version, after.Status, before.Version+1)
		}
		want, _ := gardener.ApplySteps(before.Steps, p.Verdict.Ops)
		wantSteps(t, "approved test", after.Steps, want)
		wantSteps(t, "returned test", got.Test.Steps, want)
		row := f.proposal(t, "pr-1")
		if row.Status != gardener.ProposalApplied || row.DecidedBy != "grace@example.com" || row.DecidedAt.IsZero() {
			t.Fatalf("row after approve: %+v", row)
		}
		rs, err := f.svc.RepairHistory(f.ctx, "t-login")
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 || rs[0].ApprovedBy != "grace@example.com" || rs[0].ProposalID != "pr-1" || rs[0].Auto || rs[0].Badge ||
			rs[0].FromVersion != before.Version || rs[0].ToVersion != after.Version {
			t.Fatalf("repair record: %+v", rs)
		}
		wantSteps(t, "pre-repair steps", rs[0].PreSteps, before.Steps)
		_, err = f.svc.Approve(f.ctx, "pr-1", "grace@example.com")
		wantAs[*gardener.ConflictError](t, "approve twice", err)
		if v := f.test(t, "t-login").Version; v != after.Version {
			t.Fatalf("a second approve moved the test to version %d", v)
		}
		if open, err := f.store.OpenProposals(f.ctx, "p-queue"); err != nil || len(open) != 0 {
			t.Fatalf("queue after approve: %+v, %v", open, err)
		}
		if st, err := f.svc.Stage(f.ctx, proposal("pr-next", after.Version)); err != nil || st.Outcome != gardener.StagedNew {
			t.Fatalf("stage after approve: %+v, %v: the open guard must be free", st, err)
		}
	}},
	{name: "ApproveAfterEditIsStale", atomic: true, run: func(t *testing.T, f *fixture) {
		if _, err := f.svc.Stage(f.ctx, proposal("pr-1", 3)); err != nil {
			t.Fatal(err)
		}
		edit := f.test(t, "t-login")
		edit.Steps = append(edit.Steps, gardener.Step{Kind: gardener.Screenshot, Name: "end.png"})
		edited, err := f.svc.EditTest(f.ctx, edit)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.svc.Approve(f.ctx, "pr-1", "grace@example.com")
		stale := wantAs[*gardener.StaleError](t, "approve after edit", err)
		if stale.BaseVersion != 3 || stale.Version != 4 {
			t.Fatalf("stale error: %+v", stale)
		}
		if p := f.proposal(t, "pr-1"); p.Status != gardener.ProposalStale {
			t.Fatalf("row: %s, want stale", p.Status)
		}
		got := f.test(t, "t-login")
		if got.Version != 4 {
			t.Fatalf("version %d after a refused approve", got.Version)
		}
		wantSteps(t, "test after refused approve", got.Steps, edited.Steps)
		if rs, err := f.store.Repairs(f.ctx, "t-login"); err != nil || len(rs) != 0 {
			t.Fatalf("a refused approve left repairs: %+v, %v", rs, err)
		}
	}},
	// An edit that puts a check where the proposal's op points: judged against the old version
	// the op would replace that check, yet the row must go stale, not be refused as unsafe.
	{name: "ApproveAfterEditMovingACheckIsStale", atomic: true, run: func(t *testing.T, f *fixture) {
		if _, err := f.svc.Stage(f.ctx, proposal("pr-1", 3)); err != nil {
			t.Fatal(err)
		}
		edit := f.test(t, "t-login")
		check := gardener.Step{Kind: gardener.AssertVisible, Locator: gardener.MustLocator("css=form")}
		edit.Steps = append(edit.Steps[:2], append([]gardener.Step{check}, edit.Steps[2:]...)...)
		if _, err := f.svc.EditTest(f.ctx, edit); err != nil {
			t.Fatal(err)
		}
		_, err := f.svc.Approve(f.ctx, "pr-1", "grace@example.com")
		wantAs[*gardener.StaleError](t, "approve after an edit that moved a check under the op", err)
		if p := f.proposal(t, "pr-1"); p.Status != gardener.ProposalStale {
			t.Fatalf("row: %s, want stale", p.Status)
		}
	}},
	{name: "DismissRemembers", atomic: true, run: func(t *testing.T, f *fixture) {
		c1 := change("c-1", "http://app.test/login", "f1")
		if _, err := f.svc.Stage(f.ctx, proposal("pr-1", 3, c1)); err != nil {
			t.Fatal(err)
		}
		d, err := f.svc.Dismiss(f.ctx, "pr-1", "grace@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if d.Status != gardener.ProposalDismissed || d.DecidedBy != "grace@example.com" {
			t.Fatalf("dismissed row: %+v", d)
		}
		_, err = f.svc.Approve(f.ctx, "pr-1", "grace@example.com")
		wantAs[*gardener.ConflictError](t, "approve a dismissed row", err)
		_, err = f.svc.Dismiss(f.ctx, "pr-1", "grace@example.com")
		wantAs[*gardener.ConflictError](t, "dismiss twice", err)

		seen := c1
		seen.ID = "c-1-again"
		st, err := f.svc.Stage(f.ctx, proposal("pr-2", 3, seen))
		if err != nil || st.Outcome != gardener.StagedDeclined {
			t.Fatalf("same fix, same app state: %+v, %v; want declined", st, err)
		}
		st, err = f.svc.Stage(f.ctx, proposal("pr-3", 3, change("c-2", "http://app.test/login", "f2")))
		if err != nil || st.Outcome != gardener.StagedNew {
			t.Fatalf("the app changed again: %+v, %v; want staged", st, err)
		}
		if _, err := f.svc.Dismiss(f.ctx, "pr-3", "grace@example.com"); err != nil {
			t.Fatal(err)
		}
		edit := f.test(t, "t-login")
		if _, err := f.svc.EditTest(f.ctx, edit); err != nil {
			t.Fatal(err)
		}
		st, err = f.svc.Stage(f.ctx, proposal("pr-4", 4, c1))
		if err != nil || st.Outcome != gardener.StagedNew {
			t.Fatalf("the test changed: %+v, %v; want staged", st, err)
		}

		// A proposal staged from apply mode has no triggers: the fix itself is what was dismissed.
		if _, err := f.svc.Dismiss(f.ctx, "pr-4", "grace@example.com"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Stage(f.ctx, proposal("pr-5", 4)); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Dismiss(f.ctx, "pr-5", "grace@example.com"); err != nil {
			t.Fatal(err)
		}
		st, err = f.svc.Stage(f.ctx, proposal("pr-6", 4))
		if err != nil || st.Outcome != gardener.StagedDeclined {
			t.Fatalf("the same trigger-less fix again: %+v, %v; want declined", st, err)
		}
		other := proposal("pr-7", 4)
		other.Verdict = verdict("#sign-in-button")
		st, err = f.svc.Stage(f.ctx, other)
		if err != nil || st.Outcome != gardener.StagedNew {
			t.Fatalf("another trigger-less fix: %+v, %v; want staged", st, err)
		}
		for _, id := range []string{"pr-2", "pr-6"} {
			if _, err := f.store.Proposal(f.ctx, id); !errors.Is(err, gardener.ErrNotFound) {
				t.Fatalf("declined proposal %s left a row: %v", id, err)
			}
		}
	}},
	{name: "AutoApplyRecordBadgeReviewRevert", atomic: true, run: func(t *testing.T, f *fixture) {
		before := f.test(t, "t-auto")
		run := f.failedRun(t, "run-1", "t-auto", nil)
		v := verdict("role=button[name=\"Sign in\"]")
		got, err := f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: run, TestID: "t-auto", BaseVersion: before.Version, Verdict: v})
		if err != nil {
			t.Fatal(err)
		}
		if got.Duplicate || !got.Repair.Auto || !got.Repair.Badge || got.Repair.RunID != "run-1" || got.Repair.ApprovedBy != "" {
			t.Fatalf("auto repair: %+v", got.Repair)
		}
		r, err := f.store.Repair(f.ctx, got.Repair.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict.Strategy != gardener.StrategySelfHeal || len(r.Verdict.Ops) != 1 || r.Verdict.Ops[0].String() != v.Ops[0].String() ||
			r.At.IsZero() || r.FromVersion != 3 || r.ToVersion != 4 || !r.Badge {
			t.Fatalf("stored repair: %+v", r)
		}
		wantSteps(t, "pre-repair steps", r.PreSteps, before.Steps)
		if b, ok, err := f.svc.Badged(f.ctx, "t-auto"); err != nil || !ok || b.ID != r.ID {
			t.Fatalf("badge: %v %v %v", b.ID, ok, err)
		}

		again, err := f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: run, TestID: "t-auto", BaseVersion: before.Version, Verdict: v})
		if err != nil || !again.Duplicate || again.Test.Version != 4 {
			t.Fatalf("the same run again: %+v, %v; want a duplicate at version 4", again, err)
		}
		fixed := f.test(t, "t-auto")
		if fixed.Version != 4 || fixed.Status != gardener.StatusActive {
			t.Fatalf("after duplicate: version %d status %s", fixed.Version, fixed.Status)
		}

		reviewed, err := f.svc.MarkReviewed(f.ctx, r.ID, "grace@example.com")
		if err != nil || reviewed.Badge || reviewed.ReviewedBy != "grace@example.com" {
			t.Fatalf("mark reviewed: %+v, %v", reviewed, err)
		}
		if _, ok, err := f.svc.Badged(f.ctx, "t-auto"); err != nil || ok {
			t.Fatalf("badge still shown after mark reviewed: %v, %v", ok, err)
		}
		wantSteps(t, "mark reviewed keeps the fix", f.test(t, "t-auto").Steps, fixed.Steps)
		_, err = f.svc.MarkReviewed(f.ctx, r.ID, "alan@example.com")
		if ce := wantAs[*gardener.ConflictError](t, "mark reviewed twice", err); ce.Reason != "was reviewed already by grace@example.com" {
			t.Fatalf("mark reviewed twice: %v; want the conflict to name the first reviewer", err)
		}
		if again, _ := f.store.Repair(f.ctx, r.ID); again.ReviewedBy != "grace@example.com" {
			t.Fatalf("a refused second review wrote reviewer %q", again.ReviewedBy)
		}

		text, err := f.svc.RevertConfirmation(f.ctx, r.ID)
		if err != nil || !strings.Contains(text, "the selector the repair fixed will fail again until it is repaired another way") {
			t.Fatalf("confirmation %q, %v", text, err)
		}
		rv, err := f.svc.Revert(f.ctx, r.ID, "grace@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if rv.Test.Version != 5 || rv.Repair.RevertedBy != "grace@example.com" || rv.Repair.RevertedAt.IsZero() || rv.Confirmation != text {
			t.Fatalf("revert: %+v", rv)
		}
		reverted := f.test(t, "t-auto")
		wantSteps(t, "reverted test", reverted.Steps, before.Steps)
		if reverted.Status != gardener.StatusActive || reverted.Name != before.Name {
			t.Fatalf("revert changed more than the steps: status %s name %q", reverted.Status, reverted.Name)
		}
		_, err = f.svc.Revert(f.ctx, r.ID, "grace@example.com")
		wantAs[*gardener.ConflictError](t, "revert twice", err)
		_, err = f.svc.MarkReviewed(f.ctx, r.ID, "alan@example.com")
		wantAs[*gardener.ConflictError](t, "mark a reverted repair reviewed", err)
		if v := f.test(t, "t-auto").Version; v != 5 {
			t.Fatalf("a second revert moved the test to version %d", v)
		}
	}},
	{name: "RevertRefusedAfterEdit", atomic: true, run: func(t *testing.T, f *fixture) {
		run := f.failedRun(t, "run-1", "t-auto", nil)
		got, err := f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: run, BaseVersion: 3, Verdict: verdict("#signin")})
		if err != nil {
			t.Fatal(err)
		}
		edit := f.test(t, "t-auto")
		edit.Name = "Sign in (edited)"
		edited, err := f.svc.EditTest(f.ctx, edit)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.svc.Revert(f.ctx, got.Repair.ID, "grace@example.com")
		ref := wantAs[*lifecycle.RevertRefusedError](t, "revert after edit", err)
		if !errors.Is(err, gardener.ErrStale) || ref.RepairVersion != 4 || ref.Version != 5 || !strings.Contains(err.Error(), "has changed since the repair") {
			t.Fatalf("refusal: %v", err)
		}
		now := f.test(t, "t-auto")
		if now.Version != edited.Version || now.Name != "Sign in (edited)" {
			t.Fatalf("a refused revert changed the test: %+v", now)
		}
		if r, err := f.store.Repair(f.ctx, got.Repair.ID); err != nil || !r.RevertedAt.IsZero() {
			t.Fatalf("a refused revert marked the repair reverted: %+v, %v", r, err)
		}
	}},
	{name: "AutoApplyGates", atomic: true, run: func(t *testing.T, f *fixture) {
		cases := []struct {
			name string
			run  func(*gardener.Run)
			fix  func(*lifecycle.Fix)
			want error
		}{
			{"control run", func(r *gardener.Run) { r.Control = true }, nil, gardener.ErrIneligible},
			{"probe", func(r *gardener.Run) { r.Probe = true }, nil, gardener.ErrIneligible},
			{"manual run", func(r *gardener.Run) { r.Trigger = gardener.TriggerManual }, nil, gardener.ErrIneligible},
			{"needs a person", nil, func(f *lifecycle.Fix) {
				f.Verdict.Notes = []gardener.Note{{Kind: gardener.NoteBehaviorChange, Text: "the button now opens a modal"}}
			}, gardener.ErrIneligible},
			{"moved version", nil, func(f *lifecycle.Fix) { f.BaseVersion = 2 }, gardener.ErrStale},
		}
		for i, c := range cases {
			id := f.failedRun(t, "run-gate-"+string(rune('a'+i)), "t-auto", c.run)
			fix := lifecycle.Fix{RunID: id, BaseVersion: 3, Verdict: verdict("#signin")}
			if c.fix != nil {
				c.fix(&fix)
			}
			_, err := f.svc.ApplyFix(f.ctx, fix)
			wantErr(t, c.name, err, c.want)
		}
		_, err := f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: "run-nobody", BaseVersion: 3, Verdict: verdict("#signin")})
		wantAs[*gardener.NotFoundError](t, "unknown run", err)
		queueRun := f.failedRun(t, "run-queue", "t-login", nil)
		_, err = f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: queueRun, BaseVersion: 3, Verdict: verdict("#signin")})
		wantErr(t, "auto-apply on a queue project", err, gardener.ErrIneligible)
		pending := f.test(t, "t-login")
		pending.Status = gardener.StatusPending
		if _, err := f.store.SaveTest(f.ctx, pending); err != nil {
			t.Fatal(err)
		}
		manual, err := f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: queueRun, BaseVersion: 4, Verdict: verdict("#signin"), By: "grace@example.com"})
		if err != nil || manual.Repair.Auto || manual.Repair.Badge || manual.Repair.ApprovedBy != "grace@example.com" {
			t.Fatalf("manual fix: %+v, %v", manual.Repair, err)
		}
		if got := f.test(t, "t-login"); got.Version != 5 || got.Status != gardener.StatusPending {
			t.Fatalf("after a manual fix of a pending test: version %d status %s; want 5 and still pending", got.Version, got.Status)
		}
		if v := f.test(t, "t-auto").Version; v != 3 {
			t.Fatalf("refused fixes moved t-auto to version %d", v)
		}
	}},
	{name: "HistoriesAndRepairsSince", atomic: true, run: func(t *testing.T, f *fixture) {
		version := 3
		for _, id := range []string{"run-1", "run-2", "run-3"} {
			f.failedRun(t, id, "t-auto", nil)
			if _, err := f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: id, BaseVersion: version, Verdict: verdict("#signin-" + id)}); err != nil {
				t.Fatal(err)
			}
			version++
		}
		if err := f.svc.RecordModelCall(f.ctx, gardener.ModelCall{TestID: "t-auto", Ask: "locator", Model: "builtin", InputTokens: 900, OutputTokens: 40, Outcome: "green"}); err != nil {
			t.Fatal(err)
		}
		h, err := f.svc.AIHistory(f.ctx, "t-auto")
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Repairs) != 3 || h.Repairs[0].RunID != "run-3" || h.Repairs[2].RunID != "run-1" || len(h.ModelCalls) != 1 {
			t.Fatalf("AI history: %d repairs (first %s), %d calls", len(h.Repairs), h.Repairs[0].RunID, len(h.ModelCalls))
		}
		wantSteps(t, "each repair keeps its own snapshot", h.Repairs[0].PreSteps, mustApply(t, h.Repairs[1].PreSteps, h.Repairs[1].Verdict.Ops))
		since, err := f.svc.RepairsSince(f.ctx, "p-auto", h.Repairs[1].At)
		if err != nil {
			t.Fatal(err)
		}
		if len(since) != 2 || since[0].RunID != "run-3" || since[1].RunID != "run-2" {
			t.Fatalf("repairs since the second: %+v", since)
		}
		if other, err := f.svc.RepairsSince(f.ctx, "p-queue", epoch); err != nil || len(other) != 0 {
			t.Fatalf("repairs of another project: %+v, %v", other, err)
		}
		_, err = f.svc.AIHistory(f.ctx, "t-nobody")
		wantAs[*gardener.NotFoundError](t, "history of an unknown test", err)
	}},
	{name: "UnknownIDsInLifecycle", atomic: true, run: func(t *testing.T, f *fixture) {
		calls := map[string]func() error{
			"approve": func() error { _, err := f.svc.Approve(f.ctx, "nope", "grace"); return err },
			"dismiss": func() error { _, err := f.svc.Dismiss(f.ctx, "nope", "grace"); return err },
			"revert":  func() error { _, err := f.svc.Revert(f.ctx, "nope", "grace"); return err },
			"close": func() error {
				_, err := f.store.CloseProposal(f.ctx, gardener.CloseProposal{ProposalID: "nope", Status: gardener.ProposalStale})
				return err
			},
			"queue": func() error { _, err := f.svc.Queue(f.ctx, "nope"); return err },
			"store apply": func() error {
				_, err := f.store.ApplyProposal(f.ctx, gardener.ApplyProposal{ProposalID: "nope", TestID: "t-login", BaseVersion: 3,
					Steps: loginTest("t-login", "p-queue").Steps, Repair: gardener.Repair{ID: "proposal-nope", TestID: "t-login", FromVersion: 3}})
				return err
			},
			"store write repair": func() error {
				_, err := f.store.WriteRepair(f.ctx, gardener.WriteRepair{Steps: loginTest("nope", "p-auto").Steps,
					Repair: gardener.Repair{ID: "run-nope", TestID: "nope", FromVersion: 3}})
				return err
			},
			"store revert": func() error {
				_, err := f.store.RevertRepair(f.ctx, gardener.RevertRepair{RepairID: "nope", By: "grace"})
				return err
			},
			"revert confirmation": func() error { _, err := f.svc.RevertConfirmation(f.ctx, "nope"); return err },
			"mark reviewed":       func() error { _, err := f.svc.MarkReviewed(f.ctx, "nope", "grace"); return err },
			"repairs since":       func() error { _, err := f.svc.RepairsSince(f.ctx, "nope", epoch); return err },
			"repair history":      func() error { _, err := f.svc.RepairHistory(f.ctx, "nope"); return err },
			"apply fix, unknown test": func() error {
				run := f.failedRun(t, "run-for-nobody", "t-auto", nil)
				_, err := f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: run, TestID: "nope", BaseVersion: 3, Verdict: verdict("#signin")})
				return err
			},
		}
		for what, call := range calls {
			wantAs[*gardener.NotFoundError](t, what, call())
		}
		if v := f.test(t, "t-login").Version; v != 3 {
			t.Fatalf("calls on unknown ids moved t-login to version %d", v)
		}
		if rs, err := f.store.Repairs(f.ctx, "t-auto"); err != nil || len(rs) != 0 {
			t.Fatalf("calls on unknown ids left repairs: %+v, %v", rs, err)
		}
	}},
	{name: "BigRepairRoundTrip", atomic: true, run: func(t *testing.T, f *fixture) {
		big := loginTest("t-big", "p-auto")
		big.Steps = BigSteps(3, bigStepCount)
		if err := f.store.CreateTest(f.ctx, big); err != nil {
			t.Fatal(err)
		}
		run := f.failedRun(t, "run-big", "t-big", nil)
		got, err := f.svc.ApplyFix(f.ctx, lifecycle.Fix{RunID: run, BaseVersion: big.Version, Verdict: verdict("#signin")})
		if err != nil {
			t.Fatal(err)
		}
		r, err := f.store.Repair(f.ctx, got.Repair.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantSteps(t, "big pre-repair snapshot", r.PreSteps, big.Steps)
		wantSteps(t, "big repaired test", f.test(t, "t-big").Steps, mustApply(t, big.Steps, r.Verdict.Ops))
		rv, err := f.svc.Revert(f.ctx, r.ID, "grace@example.com")
		if err != nil {
			t.Fatal(err)
		}
		wantSteps(t, "big reverted test", rv.Test.Steps, big.Steps)
		wantSteps(t, "big reverted test, read back", f.test(t, "t-big").Steps, big.Steps)
	}},
}

func mustApply(t *testing.T, steps []gardener.Step, ops []gardener.Op) []gardener.Step {
	t.Helper()
	out, err := gardener.ApplySteps(steps, ops)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
