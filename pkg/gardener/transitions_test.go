package gardener

import (
	"errors"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func TestProposalClose(t *testing.T) {
	for _, from := range []ProposalStatus{ProposalProposed, ProposalApplied, ProposalDismissed, ProposalStale, ProposalSuperseded} {
		p := Proposal{ID: "pr", Status: from, StagedAt: t0, UpdatedAt: t0}
		got, err := p.Close(ProposalDismissed, "ada", t0.Add(time.Hour))
		if from != ProposalProposed {
			var ce *ConflictError
			if !errors.As(err, &ce) || ce.Reason != "is "+string(from)+", not proposed" {
				t.Fatalf("closing a %s row: %v, want a conflict", from, err)
			}
			continue
		}
		if err != nil || got.Status != ProposalDismissed || got.DecidedBy != "ada" || !got.DecidedAt.Equal(t0.Add(time.Hour)) || !got.UpdatedAt.Equal(got.DecidedAt) || !got.StagedAt.Equal(t0) {
			t.Fatalf("closed row %+v, %v", got, err)
		}
	}
}

func TestApplyProposalCheck(t *testing.T) {
	a := ApplyProposal{ProposalID: "pr", TestID: "t", BaseVersion: 3}
	cases := []struct {
		row  Proposal
		want string
	}{
		{Proposal{TestID: "t", BaseVersion: 3}, ""},
		{Proposal{TestID: "u", BaseVersion: 3}, "apply proposal pr: it is of test u version 3, not test t version 3"},
		{Proposal{TestID: "t", BaseVersion: 2}, "apply proposal pr: it is of test t version 2, not test t version 3"},
	}
	for _, c := range cases {
		err := a.Check(c.row)
		if (err == nil) != (c.want == "") || (err != nil && err.Error() != c.want) {
			t.Errorf("check %+v: %v, want %q", c.row, err, c.want)
		}
	}
}

func TestCloseProposalValidateAndRemembers(t *testing.T) {
	key := DismissalKey{TestID: "t", TestVersion: 3, Changes: []string{"a"}}
	cases := []struct {
		status    ProposalStatus
		dismissal DismissalKey
		valid     bool
		remembers bool
	}{
		{ProposalDismissed, key, true, true},
		{ProposalDismissed, DismissalKey{TestID: "t", TestVersion: 3}, true, false},
		{ProposalStale, key, true, false},
		{ProposalSuperseded, key, true, false},
		{ProposalApplied, key, false, false},
		{ProposalProposed, key, false, false},
		{"", key, false, false},
	}
	for _, c := range cases {
		cl := CloseProposal{ProposalID: "pr", Status: c.status, Dismissal: c.dismissal}
		if err := cl.Validate(); (err == nil) != c.valid {
			t.Errorf("validate %q: %v, want valid %v", c.status, err, c.valid)
		}
		if c.valid && cl.Remembers() != c.remembers {
			t.Errorf("%q with %d changes remembers %v, want %v", c.status, len(c.dismissal.Changes), cl.Remembers(), c.remembers)
		}
	}
}

func TestDismissalSet(t *testing.T) {
	k := func(changes ...string) DismissalKey {
		return DismissalKey{TestID: "t", TestVersion: 3, Changes: changes}
	}
	known := k("a", "b").AddTo(nil)
	known = k("b", "c").AddTo(known)
	if !slices.Equal(known, []string{"a", "b", "c"}) {
		t.Fatalf("dismissed set %v, want a b c, each once", known)
	}
	cases := []struct {
		key  DismissalKey
		want bool
	}{
		{k("a"), true},
		{k("a", "c"), true},
		{k("a", "d"), false},
		{k(), false},
	}
	for _, c := range cases {
		if got := c.key.CoveredBy(known); got != c.want {
			t.Errorf("%v covered by %v: %v, want %v", c.key.Changes, known, got, c.want)
		}
	}
	if k("a").CoveredBy(nil) {
		t.Error("a key is covered by an empty set")
	}
}

func TestRepairRevertAndReview(t *testing.T) {
	r := Repair{ID: "rp", Badge: true}
	reviewed, err := r.Reviewed("grace")
	if err != nil || reviewed.Badge || reviewed.ReviewedBy != "grace" || !reviewed.RevertedAt.IsZero() {
		t.Fatalf("reviewed %+v, %v", reviewed, err)
	}
	reverted, err := r.Revert("alan", t0)
	if err != nil || reverted.Badge || reverted.RevertedBy != "alan" || !reverted.RevertedAt.Equal(t0) {
		t.Fatalf("reverted %+v, %v", reverted, err)
	}
	_, err = reverted.Revert("ada", t0.Add(time.Hour))
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.ID != "rp" || ce.Reason != "was reverted already by alan" {
		t.Fatalf("second revert: %v, want a conflict naming who reverted", err)
	}
}

// TestRepairReviewedOnlyWhileBadged: mark-reviewed acts only on a repair still badged
// Auto-repaired; every other state is a conflict that names why and leaves the record as it was.
func TestRepairReviewedOnlyWhileBadged(t *testing.T) {
	for _, c := range []struct {
		name   string
		repair Repair
		reason string
	}{
		{"reverted", Repair{ID: "rp", RevertedAt: t0, RevertedBy: "alan"}, "was reverted by alan: there is no fix left to review"},
		{"reverted after review", Repair{ID: "rp", RevertedAt: t0, RevertedBy: "alan", ReviewedBy: "grace"}, "was reverted by alan: there is no fix left to review"},
		{"reviewed already", Repair{ID: "rp", ReviewedBy: "grace"}, "was reviewed already by grace"},
		{"approved by a person", Repair{ID: "rp"}, "carries no Auto-repaired badge: a person approved it"},
	} {
		got, err := c.repair.Reviewed("ada")
		var ce *ConflictError
		if !errors.As(err, &ce) || ce.Entity != "repair" || ce.ID != "rp" || ce.Reason != c.reason {
			t.Errorf("%s: %v, want a conflict %q", c.name, err, c.reason)
		}
		if got.ReviewedBy != c.repair.ReviewedBy || got.Badge != c.repair.Badge {
			t.Errorf("%s: the refused review changed the repair to %+v", c.name, got)
		}
	}
}

func TestTestEditedAndWithSteps(t *testing.T) {
	stored := Test{ID: "t", ProjectID: "p", Name: "Sign in", Status: StatusActive, Version: 3, Steps: []Step{{Kind: Goto, URL: "/login"}}}
	edit := Test{ID: "t", ProjectID: "other", Name: "Log in", Status: StatusPending, Version: 3, Steps: []Step{{Kind: Goto, URL: "/signin"}}}
	got, err := stored.Edited(edit)
	if err != nil || got.Version != 4 || got.ProjectID != "p" || got.Name != "Log in" || got.Status != StatusPending || got.Steps[0].URL != "/signin" {
		t.Fatalf("edited %+v, %v", got, err)
	}
	edit.Steps[0].URL = "/changed-after"
	if got.Steps[0].URL != "/signin" {
		t.Fatal("the edited test shares its steps with the edit")
	}
	edit.Version = 2
	var ce *ConflictError
	if _, err := stored.Edited(edit); !errors.As(err, &ce) || ce.Reason != "edited against version 2 but the test is at version 3" {
		t.Fatalf("edit against an old version: %v", err)
	}

	steps := []Step{{Kind: Goto, URL: "/next"}}
	written, err := stored.WithSteps(3, steps)
	if err != nil || written.Version != 4 || written.Steps[0].URL != "/next" || written.Name != "Sign in" {
		t.Fatalf("written %+v, %v", written, err)
	}
	steps[0].URL = "/changed-after"
	if written.Steps[0].URL != "/next" {
		t.Fatal("the written test shares its steps with the caller's")
	}
	var se *StaleError
	if _, err := stored.WithSteps(2, steps); !errors.As(err, &se) || se.BaseVersion != 2 || se.Version != 3 || se.TestID != "t" {
		t.Fatalf("write against an old version: %v", err)
	}
}

func TestRunGreen(t *testing.T) {
	passed, failed := &RunResult{Passed: true}, &RunResult{}
	cases := []struct {
		name string
		run  Run
		want bool
	}{
		{"passed", Run{TestID: "t", Result: passed}, true},
		{"failed", Run{TestID: "t", Result: failed}, false},
		{"no result", Run{TestID: "t"}, false},
		{"control run", Run{TestID: "t", Result: passed, Control: true}, false},
		{"probe", Run{TestID: "t", Result: passed, Probe: true}, false},
		{"no test", Run{Result: passed}, false},
	}
	for _, c := range cases {
		if got := c.run.Green(); got != c.want {
			t.Errorf("%s: green %v, want %v", c.name, got, c.want)
		}
	}
}

func TestAtRiskLedger(t *testing.T) {
	first := AtRisk{TestID: "t"}.Seen(t0)
	again := first.Seen(t0.Add(time.Hour))
	if !first.FirstSeen.Equal(t0) || !first.LastSeen.Equal(t0) || !again.FirstSeen.Equal(t0) || !again.LastSeen.Equal(t0.Add(time.Hour)) {
		t.Fatalf("first %+v, again %+v", first, again)
	}
	ledger := []AtRisk{
		{TestID: "c", FirstSeen: t0.Add(time.Minute)},
		{TestID: "b", FirstSeen: t0},
		{TestID: "a", FirstSeen: t0.Add(time.Minute)},
	}
	SortAtRisk(ledger)
	var ids []string
	for _, a := range ledger {
		ids = append(ids, a.TestID)
	}
	if !slices.Equal(ids, []string{"b", "a", "c"}) {
		t.Fatalf("ledger order %v, want longest at risk first, then by test id", ids)
	}
}

func TestNewestFirst(t *testing.T) {
	type rec struct {
		id string
		at time.Time
	}
	recs := []rec{{"a", t0}, {"c", t0.Add(time.Minute)}, {"b", t0}}
	slices.SortFunc(recs, func(x, y rec) int { return NewestFirst(x.at, x.id, y.at, y.id) })
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.id)
	}
	if !slices.Equal(ids, []string{"c", "b", "a"}) {
		t.Fatalf("order %v, want newest first, then id descending", ids)
	}
}

func TestProjectUpdated(t *testing.T) {
	p := Project{ID: "p", Name: "Queue", AllowedOrigins: []string{"http://app.test"}, Version: 4}
	got, err := p.Updated(func(x *Project) error {
		x.Radar = true
		x.AllowedOrigins[0] = "http://changed.test"
		return nil
	})
	if err != nil || !got.Radar || got.Version != 5 || got.AllowedOrigins[0] != "http://changed.test" {
		t.Fatalf("updated %+v, %v", got, err)
	}
	if p.AllowedOrigins[0] != "http://app.test" {
		t.Fatal("the update changed the settings it was given a copy of")
	}
	boom := errors.New("boom")
	if got, err := p.Updated(func(x *Project) error { x.Name = "never"; return boom }); !errors.Is(err, boom) || got.Name != "Queue" || got.Version != 4 {
		t.Fatalf("failed update: %+v, %v", got, err)
	}
	if _, err := p.Updated(func(x *Project) error { x.ID = "q"; return nil }); err == nil {
		t.Fatal("an update may not move the project to another id")
	}
}
