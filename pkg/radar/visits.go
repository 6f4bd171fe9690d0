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

func visitOf(rep gardener.Replay) pageVisit {
	return pageVisit{Reached: rep.Result.Passed, Message: rep.Result.Message, URL: rep.Result.FinalURL, Snapshot: rep.Snapshot, Resolved: rep.Resolved, Millis: rep.Result.Millis}
}

// visitAll visits each plan's page, resolving its locators there. Plans that reach their page
// by a plain goto (after the setup test, or directly) share replays: one browser context, and
// the setup test once, per chunk of pages instead of per page — most of what a visit costs. A
// page a shared replay did not reach (an earlier page of the chunk failed, the setup test
// failed) is visited again on its own, and so, with confirm, is one the shared replay found ending
// elsewhere (an earlier page of the chunk may have ended the session): sharing never makes a
// page look moved.
func (r *Radar) visitAll(ctx context.Context, p *project, plans []visitPlan, resolves [][]gardener.Locator, confirm bool) ([]pageVisit, error) {
	out := make([]pageVisit, len(plans))
	got := make([]bool, len(plans))
	var direct, session, alone []int
	for i, pl := range plans {
		switch {
		case pl.Via != nil:
			alone = append(alone, i)
		case pl.NeedsSession && p.setup != nil:
			session = append(session, i)
		default:
			direct = append(direct, i)
		}
	}
	type job struct {
		pages   []int
		session bool
	}
	var jobs []job
	for _, g := range []struct {
		idx     []int
		session bool
	}{{direct, false}, {session, true}} {
		for _, chunk := range chunks(g.idx, r.concurrency()) {
			if len(chunk) == 1 {
				alone = append(alone, chunk[0])
				continue
			}
			jobs = append(jobs, job{chunk, g.session})
		}
	}
	var single []job
	for _, i := range alone {
		single = append(single, job{pages: []int{i}})
	}
	run := func(jobs []job) error {
		return parallel(ctx, len(jobs), r.concurrency(), func(ctx context.Context, j int) error {
			pages := jobs[j].pages
			if len(pages) == 1 {
				rep, err := r.visit(ctx, p, plans[pages[0]], resolves[pages[0]])
				if err != nil {
					return err
				}
				out[pages[0]], got[pages[0]] = visitOf(rep), true
				return nil
			}
			return r.visitChunk(ctx, p, jobs[j].session, pages, plans, resolves, confirm, out, got)
		})
	}
	// The shared replays go first and the visits along a test's steps after them: those steps
	// may write (add to a cart, create a product), and a page should look as the app left it,
	// not as this sweep did.
	if err := run(jobs); err != nil {
		return nil, err
	}
	if err := run(single); err != nil {
		return nil, err
	}
	var again []job
	for i := range plans {
		if !got[i] {
			again = append(again, job{pages: []int{i}})
		}
	}
	if err := run(again); err != nil {
		return nil, err
	}
	return out, nil
}

// visitChunk replays [setup steps,] goto page 1, goto page 2, … with a view of each page after
// its goto. It fills out and got for the pages it reached (with confirm: reached and stayed on).
func (r *Radar) visitChunk(ctx context.Context, p *project, session bool, pages []int, plans []visitPlan, resolves [][]gardener.Locator, confirm bool, out []pageVisit, got []bool) error {
	var steps []gardener.Step
	if session {
		steps = gardener.CloneSteps(p.setup.Steps)
	}
	opts := p.opts
	opts.Views = map[int][]gardener.Locator{}
	at := make([]int, len(pages))
	for k, i := range pages {
		steps = append(steps, gardener.Step{Kind: gardener.Goto, URL: plans[i].Page})
		at[k] = len(steps) // the view before the next step: the page the goto reached
		opts.Views[at[k]] = resolves[i]
	}
	start := time.Now()
	rep, err := r.Runner.Replay(ctx, gardener.Test{ID: fmt.Sprintf("radar:%d pages", len(pages)), ProjectID: p.ID, Steps: steps}, opts)
	if err != nil {
		return fmt.Errorf("radar: visiting %d pages: %w", len(pages), err)
	}
	share := time.Since(start).Milliseconds() / int64(len(pages))
	for k, i := range pages {
		v, ok := rep.Views[at[k]]
		if !ok || confirm && p.rel(v.URL) != plans[i].Page {
			continue
		}
		out[i] = pageVisit{Reached: true, URL: v.URL, Snapshot: v.Snapshot, Resolved: v.Resolved, Millis: share}
		got[i] = true
	}
	return nil
}

// chunks splits idx into at most n runs of nearly equal length.
func chunks(idx []int, n int) [][]int {
	if len(idx) == 0 {
		return nil
	}
	n = min(max(n, 1), len(idx))
	out := make([][]int, 0, n)
	for k := range n {
		lo, hi := k*len(idx)/n, (k+1)*len(idx)/n
		out = append(out, idx[lo:hi])
	}
	return out
}
