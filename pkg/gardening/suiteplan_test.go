package gardening_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// slowRuns is a store whose every read of a last green run takes a second on the plan's clock:
// a store far slower than the plan's deadline allows for every test.
type slowRuns struct {
	gardener.Store
	mu  *sync.Mutex
	now *time.Time
}

func (s slowRuns) LastGreenRun(ctx context.Context, testID string) (gardener.Run, error) {
	s.mu.Lock()
	*s.now = s.now.Add(time.Second)
	s.mu.Unlock()
	return s.Store.LastGreenRun(ctx, testID)
}

// TestPlanSuiteStopsAtItsDeadline: a plan whose reads outlast its deadline plans what it read,
// counts what it did not read and records where it stopped; the next plan reads those first and
// plans them, and plans over time reach every test before any test twice (no test is green, so
// the order among them is the reading order). No browser.
func TestPlanSuiteStopsAtItsDeadline(t *testing.T) {
	ctx := context.Background()
	base := openStore(t)
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	store := slowRuns{Store: base, mu: &mu, now: &now}
	app := newApp(t, gardening.Deps{Store: store, Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	const projects, tests, readable = 3, 4, 5 // 12 tests, 5 read in a plan's time
	var ids, all []string
	for p := range projects {
		pid := fmt.Sprintf("p%d", p)
		ids = append(ids, pid)
		if err := base.PutProject(ctx, gardener.Project{ID: pid, Plan: gardener.PlanPro}); err != nil {
			t.Fatal(err)
		}
		for i := range tests {
			tt := gardener.Test{ID: fmt.Sprintf("%s-t%d", pid, i), ProjectID: pid, Name: "t", Status: gardener.StatusActive, Version: 1,
				Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}
			if err := base.CreateTest(ctx, tt); err != nil {
				t.Fatal(err)
			}
			all = append(all, tt.ID)
		}
	}
	plan := func() gardening.SuitePlanned {
		t.Helper()
		out, err := app.PlanSuite(ctx, gardening.SuitePlanning{Projects: ids, Max: 3, Resume: true, StopBy: now.Add(readable*time.Second - time.Millisecond)})
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Hour)
		return out
	}
	first := plan()
	if len(first.Due) != 3 || len(first.Deferred) != 2 {
		t.Fatalf("first plan: %d due, %d deferred; want the %d it read: 3 due and 2 deferred", len(first.Due), len(first.Deferred), readable)
	}
	if first.Unread != 3 || first.UnreadProjects != 1 || first.ResumeAt == nil || first.ResumeAt.TestID != "p1-t1" {
		t.Fatalf("first plan: %d unread tests, %d unread projects, resume at %+v; want 3, 1 and p1-t1", first.Unread, first.UnreadProjects, first.ResumeAt)
	}
	if n := len(first.Due) + len(first.Deferred) + first.Unread + first.UnreadProjects*tests; n != len(all) {
		t.Errorf("the first plan accounts for %d tests of %d", n, len(all))
	}
	second := plan()
	if second.Due[0].TestID != "p1-t1" {
		t.Errorf("the second plan starts with %s, want p1-t1, the first the last plan did not read", second.Due[0].TestID)
	}
	var planned []string
	for _, p := range []gardening.SuitePlanned{first, second, plan()} {
		for _, d := range p.Due {
			planned = append(planned, d.TestID)
		}
		planned = append(planned, p.Deferred...)
	}
	// Three plans of 5 reads each: the first 12 reads are every test once.
	got := slices.Sorted(slices.Values(planned[:len(all)]))
	if !slices.Equal(got, all) {
		t.Errorf("the first %d tests the plans read were %v: want every test once", len(all), planned[:len(all)])
	}

	// With no deadline the plan reads everything and records nothing.
	full, err := app.PlanSuite(ctx, gardening.SuitePlanning{Projects: ids, Max: 500, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Due) != len(all) || full.Unread != 0 || full.ResumeAt != nil {
		t.Errorf("a plan with no deadline: %d due, %d unread, resume %+v; want %d, 0, none", len(full.Due), full.Unread, full.ResumeAt, len(all))
	}
	// Reading 5 at a time plans the same, in the same order.
	wide, err := app.PlanSuite(ctx, gardening.SuitePlanning{Projects: ids, Max: 500, Resume: true, Width: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(wide.Due, full.Due) {
		t.Errorf("read 5 at a time the plan is %v, want %v as read one at a time", wide.Due, full.Due)
	}
	// Under the deadline a wide plan stops between chunks (a chunk is at most a project's 4
	// tests): two chunks read, 8 s on the plan's clock, past the 7 s it has; p2 not read.
	stopped, err := app.PlanSuite(ctx, gardening.SuitePlanning{Projects: ids, Max: 500, Width: 5, StopBy: now.Add(7 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if len(stopped.Due) != 8 || stopped.Unread != 0 || stopped.UnreadProjects != 1 || stopped.ResumeAt == nil || stopped.ResumeAt.ProjectID != "p2" {
		t.Errorf("a plan reading 5 at a time with 7 s: %d due, %d unread, %d unread projects, resume %+v; want 8, 0, 1, at p2", len(stopped.Due), stopped.Unread, stopped.UnreadProjects, stopped.ResumeAt)
	}
}

// TestPlanSuiteKeepsTheStateBudget: with ids of the longest a person may name, the suite
// machine's state would pass its budget before MaxSuiteItems: the plan takes as many as fit,
// counted at their largest, and defers the rest, those past the budget before those past Max.
// No browser.
func TestPlanSuiteKeepsTheStateBudget(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	app := newApp(t, gardening.Deps{Store: store})
	long := func(prefix string, i int) string {
		id := fmt.Sprintf("%s%04d-", prefix, i)
		for len(id) < gardener.MaxIDBytes {
			id += "x"
		}
		return id
	}
	pid := long("p", 0)
	if err := store.PutProject(ctx, gardener.Project{ID: pid, Plan: gardener.PlanPro}); err != nil {
		t.Fatal(err)
	}
	const tests = 600
	for i := range tests {
		tt := gardener.Test{ID: long("t", i), ProjectID: pid, Name: "t", Status: gardener.StatusActive, Version: 1,
			Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}
		if err := store.CreateTest(ctx, tt); err != nil {
			t.Fatal(err)
		}
	}
	out, err := app.PlanSuite(ctx, gardening.SuitePlanning{Projects: []string{pid}, Max: gardening.MaxSuiteItems})
	if err != nil {
		t.Fatal(err)
	}
	spent := 0
	for _, d := range out.Due {
		spent += gardening.SuiteItemCost(gardening.SuiteItem{ProjectID: d.ProjectID, TestID: d.TestID, TestVersion: d.TestVersion, Trigger: gardener.TriggerSchedule})
	}
	if spent > gardening.SuiteStateBudget {
		t.Errorf("the plan's items cost %d bytes at their largest, over the budget of %d", spent, gardening.SuiteStateBudget)
	}
	if len(out.Due) >= gardening.MaxSuiteItems || len(out.Due) == 0 {
		t.Fatalf("%d due: with 128-byte ids the budget should bind before the %d items", len(out.Due), gardening.MaxSuiteItems)
	}
	next := gardening.SuiteItemCost(gardening.SuiteItem{ProjectID: pid, TestID: out.Deferred[0], TestVersion: 1, Trigger: gardener.TriggerSchedule})
	if spent+next <= gardening.SuiteStateBudget {
		t.Errorf("%s was deferred though it fits (%d + %d bytes of %d)", out.Deferred[0], spent, next, gardening.SuiteStateBudget)
	}
	if len(out.Due)+len(out.Deferred) != tests {
		t.Errorf("%d due and %d deferred, want every one of the %d tests in one of them", len(out.Due), len(out.Deferred), tests)
	}
	t.Logf("%d of %d tests planned, %d bytes of %d", len(out.Due), tests, spent, gardening.SuiteStateBudget)
}
