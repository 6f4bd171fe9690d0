package gardening

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// SuitePlanning is what a suite plan reads.
type SuitePlanning struct {
	// Projects are the projects whose active tests the plan may replay.
	Projects []string
	// StopBy is when the plan stops reading and plans what it has read; zero reads everything.
	StopBy time.Time
	// Max is the most tests the plan replays; the rest it read are Deferred. Below 1 it is
	// MaxSuiteItems. Whatever Max, the plan replays no more than the machine's state can carry
	// (SuiteStateBudget).
	Max int
	// Resume has the plan start reading where the last plan that stopped short stopped (the
	// store's SuiteCursor), and record where this one stops. The scheduled plan of every project
	// resumes; a plan of one project reads it all or fails.
	Resume bool
	// Width is how many last green runs the plan reads at once; below 1 reads one at a time.
	Width int
}

// SuiteDue is a test the suite replays.
type SuiteDue struct {
	ProjectID   string
	TestID      string
	TestVersion int
}

// SuitePlanned is what a suite plan read and decided.
type SuitePlanned struct {
	// Due are the tests to replay: never green first, then the longest since their last green
	// run, ties in the order they were read; at most Max, and no more than fit in
	// SuiteStateBudget, each counted at its largest (SuiteItemCost of its scheduled replay).
	Due []SuiteDue
	// Deferred are the tests read and past Max or the budget (those past the budget first):
	// they wait for a later plan, which takes them before any test gone green since.
	Deferred []string
	// NoActive are the projects read that have no active test.
	NoActive []string
	// Unread counts the active tests listed and not read (their last green run) before StopBy,
	// and UnreadProjects the projects whose tests were not listed at all: the next plan that
	// resumes reads them first.
	Unread, UnreadProjects int
	// ResumeAt is where the next plan starts reading; nil when this plan read everything.
	ResumeAt *gardener.SuiteCursor
}

// PlanSuite reads the projects' active tests and the last green run of each, under a deadline:
// past StopBy it stops reading, plans what it has read and records where it stopped, so a
// suite too big to read in one function's time is read over several plans, each starting with
// what the last could not read, instead of the function timing out and nothing being replayed.
// Width last green runs are read at once, in the order above; what bounds the reading is StopBy.
func (s *Service) PlanSuite(ctx context.Context, in SuitePlanning) (SuitePlanned, error) {
	out := SuitePlanned{Due: []SuiteDue{}, Deferred: []string{}, NoActive: []string{}}
	projects := slices.Clone(in.Projects)
	slices.Sort(projects)
	projects = slices.Compact(projects)
	var from gardener.SuiteCursor
	if in.Resume {
		c, err := s.d.Store.SuiteCursor(ctx)
		switch {
		case errors.Is(err, gardener.ErrNotFound):
		case err != nil:
			return out, fmt.Errorf("suite plan: where the last plan stopped reading: %w", err)
		default:
			from = c
		}
	}
	// The reading order is projects and tests by id, from the cursor round to just before it.
	type segment struct {
		project    string
		from, upTo string // test ids: from inclusive, upTo exclusive; empty is unbounded
	}
	start, _ := slices.BinarySearch(projects, from.ProjectID)
	var segs []segment
	for i := range projects {
		p := projects[(start+i)%len(projects)]
		seg := segment{project: p}
		if i == 0 && p == from.ProjectID {
			seg.from = from.TestID
		}
		segs = append(segs, seg)
	}
	if len(segs) > 0 && segs[0].from != "" {
		segs = append(segs, segment{project: segs[0].project, upTo: segs[0].from})
	}
	type dated struct {
		due  SuiteDue
		last int64
	}
	var read []dated
	late := func() bool { return !in.StopBy.IsZero() && s.d.Now().After(in.StopBy) }
	for si, seg := range segs {
		if late() {
			out.ResumeAt = &gardener.SuiteCursor{ProjectID: seg.project, TestID: seg.from}
			out.UnreadProjects = len(segs) - si
			break
		}
		tests, err := s.d.Store.Tests(ctx, seg.project)
		if err != nil {
			return out, fmt.Errorf("suite plan of project %s: %w", seg.project, err)
		}
		var active []gardener.Test
		for _, t := range tests {
			if t.Status == gardener.StatusActive && t.ID >= seg.from && (seg.upTo == "" || t.ID < seg.upTo) {
				active = append(active, t)
			}
		}
		slices.SortFunc(active, func(a, b gardener.Test) int { return cmp.Compare(a.ID, b.ID) })
		if len(active) == 0 && seg.from == "" && seg.upTo == "" {
			out.NoActive = append(out.NoActive, seg.project)
		}
		// A chunk of Width tests is read at once; the deadline is checked between chunks, so the
		// cursor is the first test of the first chunk not read.
		width := max(in.Width, 1)
		for ci := 0; ci < len(active); ci += width {
			if late() {
				out.ResumeAt = &gardener.SuiteCursor{ProjectID: seg.project, TestID: active[ci].ID}
				out.Unread = len(active) - ci
				out.UnreadProjects = len(segs) - si - 1
				break
			}
			chunk := active[ci:min(ci+width, len(active))]
			lasts := make([]int64, len(chunk))
			errs := make([]error, len(chunk))
			var wg sync.WaitGroup
			for i, t := range chunk {
				wg.Go(func() {
					if r, err := s.d.Store.LastGreenRun(ctx, t.ID); err == nil {
						lasts[i] = r.At.UnixMilli()
					} else if !errors.Is(err, gardener.ErrNotFound) {
						errs[i] = fmt.Errorf("suite plan of test %s: %w", t.ID, err)
					}
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				return out, err
			}
			for i, t := range chunk {
				read = append(read, dated{SuiteDue{ProjectID: seg.project, TestID: t.ID, TestVersion: t.Version}, lasts[i]})
			}
		}
		if out.ResumeAt != nil {
			break
		}
	}
	// Tests never recorded green, then the longest since their last green run, so a suite too big
	// for one execution reaches every test over the next ones.
	// What would take the machine's state past its budget waits too, and is first in the next
	// plan's order with the rest deferred.
	slices.SortStableFunc(read, func(a, b dated) int { return cmp.Compare(a.last, b.last) })
	limit := in.Max
	if limit < 1 {
		limit = MaxSuiteItems
	}
	spent := 0
	var past []string
	for i, d := range read {
		if i >= limit {
			past = append(past, d.due.TestID)
			continue
		}
		cost := SuiteItemCost(SuiteItem{ProjectID: d.due.ProjectID, TestID: d.due.TestID, TestVersion: d.due.TestVersion, Trigger: gardener.TriggerSchedule})
		if spent+cost > SuiteStateBudget {
			out.Deferred = append(out.Deferred, d.due.TestID)
			continue
		}
		spent += cost
		out.Due = append(out.Due, d.due)
	}
	out.Deferred = append(out.Deferred, past...)
	if out.ResumeAt != nil && in.Resume {
		out.ResumeAt.At = s.now()
		if err := s.d.Store.PutSuiteCursor(ctx, *out.ResumeAt); err != nil {
			return out, fmt.Errorf("suite plan: recording where it stopped reading: %w", err)
		}
		s.d.Log.Warn("suite plan: stopped reading at its deadline; the next plan starts there", "read", len(read), "unread", out.Unread, "unread_projects", out.UnreadProjects, "resume_project", out.ResumeAt.ProjectID, "resume_test", out.ResumeAt.TestID)
	}
	return out, nil
}
