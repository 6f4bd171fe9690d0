package radar

import (
	"context"
	"fmt"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// pageVisit is one page as a visit saw it.
type pageVisit struct {
	// Reached is true when the visit's steps ran; the page may still have ended elsewhere (URL).
	Reached  bool
	Message  string // why the visit's steps did not run
	URL      string // where the visit ended
	Snapshot *gardener.Snapshot
	Resolved map[string]gardener.ResolvedLocator
	Millis   int64 // the visit's share of the replay it was part of
}

// visitAll visits each plan's page, resolving its locators there. Visits share replays where
// they can: pages reached by a plain goto (directly, or after the setup test) share one browser
// context, and the setup test runs once, per chunk of pages instead of per page — most of what a
// visit costs; pages reached along the first steps of the same test share one replay of the
// longest of those prefixes. A page a shared goto replay did not reach (an earlier page
// failed) is visited again on its own, and so, with confirm, is one the shared replay found
// ending elsewhere (an earlier page may have ended the session): sharing never makes a page look
// moved. A page along a test's steps that the shared replay did not reach is settled by it: a
// visit on its own would replay the same steps up to the page and fail as the shared one did,
// after waiting out the same failing step again; so is a page behind the setup test when the
// setup test itself failed.
func (r *Radar) visitAll(ctx context.Context, p *project, plans []visitPlan, resolves [][]gardener.Locator, confirm bool) ([]pageVisit, error) {
	out := make([]pageVisit, len(plans))
	got := make([]bool, len(plans))
	// notTried[i] is, for a page a shared goto replay never came to, the first page of that
	// replay; -1 for every other page.
	notTried := make([]int, len(plans))
	for i := range notTried {
		notTried[i] = -1
	}
	var direct, session []int
	via := map[string][]int{}
	var viaTests []string
	for i, pl := range plans {
		switch {
		case pl.Via != nil:
			if via[pl.Via.TestID] == nil {
				viaTests = append(viaTests, pl.Via.TestID)
			}
			via[pl.Via.TestID] = append(via[pl.Via.TestID], i)
		case pl.NeedsSession && p.setup != nil:
			session = append(session, i)
		default:
			direct = append(direct, i)
		}
	}
	var gotos, routes []visitJob
	for _, g := range []struct {
		idx     []int
		session bool
	}{{direct, false}, {session, true}} {
		for _, chunk := range chunks(g.idx, r.concurrency(), minShared) {
			gotos = append(gotos, visitJob{pages: chunk, session: g.session})
		}
	}
	for _, id := range viaTests {
		routes = append(routes, visitJob{pages: via[id]})
	}
	run := func(jobs []visitJob) error {
		return parallel(ctx, len(jobs), r.concurrency(), func(ctx context.Context, j int) error {
			return r.replayJob(ctx, p, jobs[j], plans, resolves, confirm, out, got, notTried)
		})
	}
	// The shared goto replays go first and the visits along a test's steps after them: those
	// steps may write (add to a cart, create a product), and a page should look as the app left
	// it, not as this sweep did.
	if err := run(gotos); err != nil {
		return nil, err
	}
	if err := run(routes); err != nil {
		return nil, err
	}
	// What is left goes again: each page a replay reached or failed at on its own, and the pages
	// a shared goto replay never came to (it failed at an earlier page) together, as they would
	// have been had the failed page not been among them. Those may again leave pages unvisited.
	for {
		var again []visitJob
		shared := map[int]int{} // a failed replay's first page -> its job in again
		for i := range plans {
			switch {
			case got[i]:
			case notTried[i] >= 0:
				if j, ok := shared[notTried[i]]; ok {
					again[j].pages = append(again[j].pages, i)
					continue
				}
				shared[notTried[i]] = len(again)
				again = append(again, visitJob{pages: []int{i}, session: plans[i].NeedsSession && p.setup != nil})
			default:
				again = append(again, visitJob{pages: []int{i}, alone: true})
			}
		}
		if len(again) == 0 {
			return out, nil
		}
		for i := range notTried {
			notTried[i] = -1
		}
		if err := run(again); err != nil {
			return nil, err
		}
	}
}

// visitJob is one replay of visitAll: pages reached by gotos (after the setup test with
// session), or along the first steps of the test their plans' route names, or one page alone
// by its own plan.
type visitJob struct {
	pages   []int
	session bool
	alone   bool
}

// replayJob replays one job with a view of each page where it is reached, and fills out and got
// for the pages it reached (with confirm, and more than one page: reached and stayed on). A
// page visited alone is settled either way: reached, or not and why; so is one along a test's
// steps that the replay failed before, and one behind a setup test that failed.
func (r *Radar) replayJob(ctx context.Context, p *project, job visitJob, plans []visitPlan, resolves [][]gardener.Locator, confirm bool, out []pageVisit, got []bool, notTried []int) error {
	alone := job.alone || len(job.pages) == 1
	route := plans[job.pages[0]].Via != nil
	var steps []gardener.Step
	setup := 0                        // how many of steps are the setup test's
	at := make([]int, len(job.pages)) // the view before step at[k] is page k's
	switch {
	case plans[job.pages[0]].Via != nil:
		via := plans[job.pages[0]].Via
		t, ok := p.tests[via.TestID]
		longest := 0
		for k, i := range job.pages {
			at[k] = plans[i].Via.Steps
			longest = max(longest, at[k])
		}
		if !ok || longest > len(t.Steps) {
			if alone {
				return fmt.Errorf("radar: page %s is reached through the first %d steps of test %s, which no longer has them", plans[job.pages[0]].Page, longest, via.TestID)
			}
			return nil // each page is visited alone, which names what is missing
		}
		steps = gardener.CloneSteps(t.Steps[:longest])
	default:
		if job.session || alone && plans[job.pages[0]].NeedsSession && p.setup != nil {
			steps = gardener.CloneSteps(p.setup.Steps)
			setup = len(steps)
		}
		for k, i := range job.pages {
			steps = append(steps, gardener.Step{Kind: gardener.Goto, URL: plans[i].Page})
			at[k] = len(steps)
		}
	}
	opts := p.opts
	opts.Views = map[int][]gardener.Locator{}
	for k, i := range job.pages {
		opts.Views[at[k]] = append(opts.Views[at[k]], resolves[i]...)
	}
	start := time.Now()
	rep, err := r.Runner.Replay(ctx, gardener.Test{ID: fmt.Sprintf("radar:%d pages", len(job.pages)), ProjectID: p.ID, Steps: steps}, opts)
	if err != nil {
		return fmt.Errorf("radar: visiting %d pages: %w", len(job.pages), err)
	}
	share := time.Since(start).Milliseconds() / int64(len(job.pages))
	// A setup test that failed before the first page settles every page of the replay: each
	// visited alone would run the same setup and fail the same way (an app that is down, a
	// login that no longer works), and there is nothing else between it and the page.
	inSetup := !rep.Result.Passed && rep.Result.FailedIndex >= 0 && rep.Result.FailedIndex < setup
	for k, i := range job.pages {
		v, ok := rep.Views[at[k]]
		if !ok && (alone || route || inSetup) {
			out[i] = pageVisit{Message: rep.Result.Message, URL: rep.Result.FinalURL, Millis: share}
			got[i] = true
			continue
		}
		if !ok && !rep.Result.Passed && rep.Result.FailedIndex >= setup && rep.Result.FailedIndex < at[k]-1 {
			// A goto replay stops at its first failed step: this page's goto never ran.
			notTried[i] = job.pages[0]
			continue
		}
		if !ok || confirm && !alone && !samePage(plans[i].Via, p.rel(v.URL), plans[i].Page) {
			continue
		}
		out[i] = pageVisit{Reached: true, URL: v.URL, Snapshot: v.Snapshot, Resolved: v.Resolved, Millis: share}
		got[i] = true
	}
	return nil
}

// minShared is the fewest pages a shared goto replay is given before the pages are split over
// more replays. Each replay opens a browser context, and one of pages behind a session runs the
// setup test first: that costs as much as visiting several pages, so splitting a handful of
// pages into replays of one or two buys a little overlap for much more work.
const minShared = 3

// chunks splits idx into at most n runs of nearly equal length, each of at least least items
// (one run when there are fewer).
func chunks(idx []int, n, least int) [][]int {
	if len(idx) == 0 {
		return nil
	}
	n = min(max(n, 1), max(len(idx)/max(least, 1), 1))
	out := make([][]int, 0, n)
	for k := range n {
		lo, hi := k*len(idx)/n, (k+1)*len(idx)/n
		out = append(out, idx[lo:hi])
	}
	return out
}
