package radar

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// BaselineReport is what recording a baseline found.
type BaselineReport struct {
	ProjectID string        `json:"projectId"`
	Pages     []PageSummary `json:"pages"`
	// Tests are the tests baselined, by id; Skipped the active tests that were not, and why.
	Tests   []string `json:"tests"`
	Skipped []Skip   `json:"skipped,omitempty"`
	// Unreached are pages tests visited that the radar could not reach again, and why.
	Unreached []Skip `json:"unreached,omitempty"`
}

// PageSummary is one baselined page.
type PageSummary struct {
	URL          string              `json:"url"`
	Fingerprint  string              `json:"fingerprint"`
	Elements     int                 `json:"elements"`
	Unseen       []string            `json:"unseen,omitempty"`
	NeedsSession bool                `json:"needsSession,omitempty"`
	Via          *gardener.PageRoute `json:"via,omitempty"`
}

// Skip is something left out, and why.
type Skip struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// visitPlan is how the radar reaches one page: directly, after the setup test, or along the
// first steps of a test that reached it.
type visitPlan struct {
	Page         string
	NeedsSession bool
	Via          *gardener.PageRoute
}

// seen reports whether the locator found exactly one visible element: only then does the
// radar know which element a test uses there.
func seen(res gardener.ResolvedLocator) bool {
	return res.Error == "" && res.Visible == 1 && len(res.Elements) == 1
}

// BaselineDue says why the project needs a baseline recorded before it is swept, or "" when the
// one it has will do: refresh asks for a new one, and a project never swept has none, in which
// case its first sweep compares the app with itself, which the reason says, so nobody reads "no
// changes" as "checked against an earlier app".
func (r *Radar) BaselineDue(ctx context.Context, projectID string, refresh bool) (string, error) {
	if refresh {
		return "asked for", nil
	}
	_, err := r.Store.Baseline(ctx, projectID)
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, gardener.ErrNotFound):
		return "none existed: recorded one first, so this sweep compares the app with itself", nil
	}
	return "", err
}

// coverage is, per active test, its version and the version of its last green run.
func (r *Radar) coverage(ctx context.Context, p *project) (map[string]gardener.Covered, error) {
	out := map[string]gardener.Covered{}
	for _, id := range p.ids {
		t := p.tests[id]
		if t.Status != gardener.StatusActive {
			continue
		}
		c := gardener.Covered{Version: t.Version}
		run, err := r.Store.LastGreenRun(ctx, id)
		switch {
		case err == nil:
			c.Green = run.TestVersion
		case !errors.Is(err, gardener.ErrNotFound):
			return nil, fmt.Errorf("radar: last green run of %s: %w", id, err)
		}
		out[id] = c
	}
	return out, nil
}

// BaselineBehind says why the project's stored baseline no longer covers its tests, or "" when
// it does: an active test added, edited (by a person or an approved or applied repair), gone
// green, or no longer active since it was recorded. The radar sweeps with the baseline it has
// first, so this sweep still compares the app with what was seen before, and records a new one
// after it, so the tests that changed are swept from then on.
func (r *Radar) BaselineBehind(ctx context.Context, projectID string) (string, error) {
	b, err := r.Store.Baseline(ctx, projectID)
	if err != nil {
		return "", err
	}
	p, err := r.load(ctx, projectID)
	if err != nil {
		return "", err
	}
	now, err := r.coverage(ctx, p)
	if err != nil {
		return "", err
	}
	var why []string
	for _, id := range slices.Sorted(maps.Keys(now)) {
		was, ok := b.Covered[id]
		switch {
		case !ok:
			why = append(why, id+" added")
		case was.Version != now[id].Version:
			why = append(why, fmt.Sprintf("%s edited (version %d, was %d)", id, now[id].Version, was.Version))
		case was.Green != now[id].Green:
			why = append(why, fmt.Sprintf("%s went green at version %d", id, now[id].Green))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(b.Covered)) {
		if _, ok := now[id]; !ok {
			why = append(why, id+" no longer active")
		}
	}
	return strings.Join(why, "; "), nil
}

// RecordBaseline replaces the project's baseline: from each active test's last green run, the
// pages it visited and the locators its steps used on each; then each page is visited the way
// that shows the most of those locators (directly, after the setup test, or along the first
// steps of a test that reached it) and its candidates, its fingerprint and the element each
// locator finds are recorded. Locators no visit shows are kept as unseen.
func (r *Radar) RecordBaseline(ctx context.Context, projectID string) (BaselineReport, error) {
	p, err := r.load(ctx, projectID)
	if err != nil {
		return BaselineReport{}, err
	}
	rep := BaselineReport{ProjectID: projectID}
	b := gardener.Baseline{ProjectID: projectID, At: r.now(), Tests: map[string][]string{}, Pages: map[string]gardener.PageBaseline{}}
	if b.Covered, err = r.coverage(ctx, p); err != nil {
		return BaselineReport{}, err
	}
	locs := map[string]map[string]gardener.Locator{} // page → locator string → locator
	routes := map[string]*gardener.PageRoute{}       // page → the first test steps that reached it
	for _, id := range p.ids {
		t := p.tests[id]
		if t.Status != gardener.StatusActive {
			rep.Skipped = append(rep.Skipped, Skip{id, fmt.Sprintf("%s, not active", t.Status)})
			continue
		}
		green, err := r.lastGreen(ctx, id)
		if err != nil {
			return rep, err
		}
		if green == nil {
			rep.Skipped = append(rep.Skipped, Skip{id, "never went green: nothing to compare with"})
			continue
		}
		uses, pages := p.usesOf(t, *green)
		b.Tests[id] = pages
		rep.Tests = append(rep.Tests, id)
		for _, u := range uses {
			if locs[u.Page] == nil {
				locs[u.Page] = map[string]gardener.Locator{}
			}
			locs[u.Page][u.Locator.String()] = u.Locator
		}
		for _, rec := range green.Steps {
			page := p.rel(rec.URLBefore)
			if page == "" || routes[page] != nil {
				continue
			}
			var top int
			fmt.Sscanf(rec.Path, "%d", &top)
			if top > 1 {
				routes[page] = &gardener.PageRoute{TestID: id, Steps: top - 1}
			}
		}
	}
	pages := slices.Sorted(maps.Keys(locs))
	results, why, err := r.baselinePages(ctx, p, pages, locs, routes)
	if err != nil {
		return rep, err
	}
	for i, page := range pages {
		pb := results[i]
		if pb == nil {
			rep.Unreached = append(rep.Unreached, Skip{page, why[i]})
			continue
		}
		b.Pages[page] = *pb
		rep.Pages = append(rep.Pages, PageSummary{URL: page, Fingerprint: pb.Fingerprint, Elements: len(pb.Elements), Unseen: pb.Unseen, NeedsSession: pb.NeedsSession, Via: pb.Via})
	}
	if err := r.Store.PutBaseline(ctx, b); err != nil {
		return rep, fmt.Errorf("radar: storing the baseline of %s: %w", projectID, err)
	}
	return rep, nil
}

// baselinePages tries the ways to reach each page, cheapest and least intrusive first —
// directly, after the setup test, along the first steps of a test that reached it — and keeps,
// per page, the visit that shows the most of its locators; nil and why for a page no visit
// ends on. Each way is one round over the pages still short of locators, so the pages of a
// round share replays.
func (r *Radar) baselinePages(ctx context.Context, p *project, pages []string, locs map[string]map[string]gardener.Locator, routes map[string]*gardener.PageRoute) ([]*gardener.PageBaseline, []string, error) {
	best := make([]*gardener.PageBaseline, len(pages))
	why := make([]string, len(pages))
	resolve := make([][]gardener.Locator, len(pages))
	for i, page := range pages {
		why[i] = "no visit was tried"
		for _, k := range slices.Sorted(maps.Keys(locs[page])) {
			resolve[i] = append(resolve[i], locs[page][k])
		}
	}
	done := func(i int) bool { return best[i] != nil && len(best[i].Unseen) == 0 }
	rounds := []func(i int) (visitPlan, bool){
		func(i int) (visitPlan, bool) { return visitPlan{Page: pages[i]}, true },
		func(i int) (visitPlan, bool) { return visitPlan{Page: pages[i], NeedsSession: true}, p.setup != nil },
		func(i int) (visitPlan, bool) {
			return visitPlan{Page: pages[i], Via: routes[pages[i]]}, routes[pages[i]] != nil
		},
	}
	for n, round := range rounds {
		var idx []int
		var plans []visitPlan
		var res [][]gardener.Locator
		for i := range pages {
			if done(i) {
				continue
			}
			if plan, ok := round(i); ok {
				idx, plans, res = append(idx, i), append(plans, plan), append(res, resolve[i])
			}
		}
		if len(idx) == 0 {
			continue
		}
		// A direct visit that ends elsewhere is the common case (the page needs a session); a
		// later round's is not, and is confirmed on its own.
		visits, err := r.visitAll(ctx, p, plans, res, n > 0)
		if err != nil {
			return nil, nil, err
		}
		for k, i := range idx {
			v := visits[k]
			if !v.Reached {
				why[i] = "the visit failed: " + v.Message
				continue
			}
			if got := p.rel(v.URL); !samePage(plans[k].Via, got, pages[i]) {
				why[i] = "a visit ends at " + got
				continue
			}
			pb := &gardener.PageBaseline{URL: pages[i], Elements: map[string]gardener.Fingerprint{}, NeedsSession: plans[k].NeedsSession, Via: plans[k].Via}
			if v.Snapshot != nil {
				pb.Candidates = v.Snapshot.Candidates
			}
			pb.Fingerprint = pageFingerprint(pb.Candidates)
			for _, l := range resolve[i] {
				if res, ok := v.Resolved[l.String()]; ok && seen(res) {
					pb.Elements[l.String()] = res.Elements[0]
				} else {
					pb.Unseen = append(pb.Unseen, l.String())
				}
			}
			if best[i] == nil || len(pb.Elements) > len(best[i].Elements) {
				best[i] = pb
			}
		}
	}
	return best, why, nil
}
