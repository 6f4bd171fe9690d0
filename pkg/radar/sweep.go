package radar

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

// NoBaselineError is a sweep of a project nobody has baselined: there is nothing to compare
// with ("Nothing has been swept yet").
type NoBaselineError struct {
	ProjectID string
}

func (e *NoBaselineError) Error() string {
	return fmt.Sprintf("project %s has no radar baseline yet: record one first", e.ProjectID)
}

// SweepResult is what one sweep found.
type SweepResult struct {
	ProjectID string               `json:"projectId"`
	At        time.Time            `json:"at"`
	Pages     []PageSweep          `json:"pages"`
	Changes   []gardener.AppChange `json:"changes"`
	AtRisk    []TestAtRisk         `json:"atRisk"`
	Millis    int64                `json:"ms"`
}

// PageSweep is one page as the sweep found it.
type PageSweep struct {
	URL         string `json:"url"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Changed     bool   `json:"changed"`
	Changes     int    `json:"changes"`
	// EndedAt is where a visit to the page ended when it was not the page itself.
	EndedAt string `json:"endedAt,omitempty"`
	// Unreached says why the page could not be visited (its setup test or route failed);
	// its locators were not judged this sweep.
	Unreached string `json:"unreached,omitempty"`
	// Unjudged are locators the page gave no answer for (it hung): not judged this sweep.
	Unjudged []string `json:"unjudged,omitempty"`
	Millis   int64    `json:"ms"`
}

// TestAtRisk is a test a change touched: the steps whose locators no longer find their
// element, and the app changes involved.
type TestAtRisk struct {
	TestID  string       `json:"testId"`
	Steps   []StepAtRisk `json:"steps"`
	Changes []string     `json:"changes"` // app change ids
}

// StepAtRisk is one step a change touched.
type StepAtRisk struct {
	Step    string `json:"step"`
	Locator string `json:"locator"`
	URL     string `json:"url"`
	Why     string `json:"why"`
	Change  string `json:"change"` // the id of the app change that touched it
}

// Sweep visits the baseline's pages without any model, records what changed on each as app
// changes, and puts the tests whose locators a change touched on the at-risk ledger. A
// locator is touched when it now finds nothing, several elements, an element something else
// covers, or an element that is not the one it found on the baseline; a test that merely
// visits a changed page is not at risk.
func (r *Radar) Sweep(ctx context.Context, projectID string) (SweepResult, error) {
	started := time.Now()
	p, err := r.load(ctx, projectID)
	if err != nil {
		return SweepResult{}, err
	}
	b, err := r.Store.Baseline(ctx, projectID)
	if errors.Is(err, gardener.ErrNotFound) {
		return SweepResult{}, &NoBaselineError{ProjectID: projectID}
	}
	if err != nil {
		return SweepResult{}, fmt.Errorf("radar: baseline of %s: %w", projectID, err)
	}
	res := SweepResult{ProjectID: projectID, At: r.now(), Changes: []gardener.AppChange{}, AtRisk: []TestAtRisk{}}
	pages := slices.Sorted(maps.Keys(b.Pages))
	plans := make([]visitPlan, len(pages))
	resolves := make([][]gardener.Locator, len(pages))
	for i, page := range pages {
		pb := b.Pages[page]
		plans[i] = visitPlan{Page: pb.URL, NeedsSession: pb.NeedsSession, Via: pb.Via}
		for _, k := range slices.Sorted(maps.Keys(pb.Elements)) {
			l, err := gardener.ParseLocator(k)
			if err != nil {
				return SweepResult{}, fmt.Errorf("radar: baseline of page %s holds a malformed locator: %w", pb.URL, err)
			}
			resolves[i] = append(resolves[i], l)
		}
	}
	visits, err := r.visitAll(ctx, p, plans, resolves, true)
	if err != nil {
		return SweepResult{}, err
	}
	found := make([]pageFinding, len(pages))
	for i, page := range pages {
		found[i] = sweepPage(p, b.Pages[page], resolves[i], visits[i], res.At)
	}
	touched := map[string]map[string]touch{} // page → locator → what touched it
	for i := range pages {
		f := found[i]
		res.Pages = append(res.Pages, f.sweep)
		res.Changes = append(res.Changes, f.changes...)
		touched[pages[i]] = f.touched
	}
	for _, c := range res.Changes {
		if err := r.Store.PutAppChange(ctx, c); err != nil {
			return res, fmt.Errorf("radar: recording app change %s: %w", c.ID, err)
		}
	}
	var ids []string
	for _, id := range p.ids {
		t := p.tests[id]
		if _, baselined := b.Tests[id]; !baselined || t.Status != gardener.StatusActive {
			continue
		}
		green, err := r.lastGreen(ctx, id)
		if err != nil {
			return res, err
		}
		if green == nil {
			continue
		}
		uses, _ := p.usesOf(t, *green)
		risk := TestAtRisk{TestID: id}
		for _, u := range uses {
			tc, ok := touched[u.Page][u.Locator.String()]
			if !ok {
				continue
			}
			risk.Steps = append(risk.Steps, StepAtRisk{Step: u.Path, Locator: u.Locator.String(), URL: u.Page, Why: tc.why, Change: tc.change})
			if !slices.Contains(risk.Changes, tc.change) {
				risk.Changes = append(risk.Changes, tc.change)
			}
		}
		if len(risk.Steps) > 0 {
			res.AtRisk = append(res.AtRisk, risk)
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		if err := r.Store.MarkAtRisk(ctx, projectID, ids, res.At); err != nil {
			return res, fmt.Errorf("radar: marking tests at risk: %w", err)
		}
	}
	if err := r.Store.PutSweepSummary(ctx, res.Summary()); err != nil {
		return res, fmt.Errorf("radar: recording the sweep of %s: %w", projectID, err)
	}
	res.Millis = time.Since(started).Milliseconds()
	return res, nil
}

// Summary is what the store keeps of the sweep: how much it saw, and the pages it could not
// reach, which the queue names rather than calling an empty queue good news.
func (res SweepResult) Summary() gardener.SweepSummary {
	s := gardener.SweepSummary{ProjectID: res.ProjectID, At: res.At, Pages: len(res.Pages), Changes: len(res.Changes), AtRisk: len(res.AtRisk), Unreached: []gardener.UnreachedPage{}}
	for _, p := range res.Pages {
		if p.Unreached != "" {
			s.Unreached = append(s.Unreached, gardener.UnreachedPage{URL: p.URL, Why: p.Unreached})
		}
	}
	return s
}

// touch is why a locator is at risk and the app change behind it.
type touch struct {
	why    string
	change string
}

// pageFinding is what the sweep of one page found.
type pageFinding struct {
	sweep   PageSweep
	changes []gardener.AppChange
	touched map[string]touch
}

func sweepPage(p *project, pb gardener.PageBaseline, resolve []gardener.Locator, v pageVisit, at time.Time) pageFinding {
	f := pageFinding{sweep: PageSweep{URL: pb.URL, Millis: v.Millis}, touched: map[string]touch{}}
	if !v.Reached {
		f.sweep.Unreached = v.Message
		return f
	}
	var cands []gardener.Fingerprint
	if v.Snapshot != nil {
		cands = v.Snapshot.Candidates
	}
	f.sweep.Fingerprint = pageFingerprint(cands)
	f.sweep.Changed = f.sweep.Fingerprint != pb.Fingerprint
	newChange := func(kind, detail string) gardener.AppChange {
		c := gardener.AppChange{ID: changeID(p.ID, pb.URL, kind, detail), ProjectID: p.ID, URL: pb.URL, Kind: kind, Detail: detail, At: at, Fingerprint: f.sweep.Fingerprint}
		f.changes = append(f.changes, c)
		return c
	}
	origin := p.base.Scheme + "://" + p.base.Host
	byBase := map[int]string{} // baseline candidate → the change that involves it
	ended := ""                // the change that says the page now ends elsewhere
	if got := p.rel(v.URL); !samePage(pb.Via, got, pb.URL) {
		// A redirect, a merged step: diffing another page against the baseline says nothing,
		// and every locator the page loses is touched by that one change.
		f.sweep.EndedAt, f.sweep.Changed = got, true
		ended = newChange(Changed, fmt.Sprintf("visiting %s now ends at %s", pb.URL, got)).ID
	} else {
		for _, ec := range diffPage(pb.Candidates, cands, origin) {
			c := newChange(ec.Kind, ec.Detail)
			if ec.Base >= 0 {
				byBase[ec.Base] = c.ID
			}
		}
	}
	f.sweep.Changes = len(f.changes)
	f.sweep.Changed = f.sweep.Changed || len(f.changes) > 0
	var page *similo.Page
	for _, l := range resolve {
		key := l.String()
		b := pb.Elements[key]
		res, answered := v.Resolved[key]
		if !answered {
			f.sweep.Unjudged = append(f.sweep.Unjudged, key)
			continue
		}
		why := judge(b, res, cands, origin, &page)
		if why == "" {
			continue
		}
		// The trigger is the change to the element the locator found on the baseline when the
		// diff has one; otherwise the locator's own change, which the diff cannot see (two
		// elements now match, an overlay covers it).
		id, ok := ended, ended != ""
		if i := slices.IndexFunc(pb.Candidates, func(c gardener.Fingerprint) bool { return c.XPath == b.XPath }); i >= 0 && !ok {
			id, ok = byBase[i]
		}
		if !ok {
			kind := Changed
			if res.Visible > 1 || res.CoveredBy != "" {
				kind = Added
			}
			id = newChange(kind, key+" "+why).ID
			f.sweep.Changes = len(f.changes)
		}
		f.touched[key] = touch{why: why, change: id}
	}
	return f
}

// judge says why a locator is touched by a change, or "" when it still finds the element it
// found on the baseline. cands are the page's candidates now; page is prepared on first use.
func judge(b gardener.Fingerprint, res gardener.ResolvedLocator, cands []gardener.Fingerprint, origin string, page **similo.Page) string {
	switch {
	case res.Error != "":
		return res.Error
	case res.Visible != 1 || len(res.Elements) != 1:
		return resolution(res)
	case res.CoveredBy != "":
		return "its element is now covered by " + res.CoveredBy
	}
	e := res.Elements[0]
	if sameElement(b, e, origin) {
		return ""
	}
	// The element differs: is it still the one the baseline saw (renamed, restyled, moved), or
	// does the locator now find another? similo locates the baseline's element on the page.
	pool, pg := cands, *page
	idx := slices.IndexFunc(cands, func(c gardener.Fingerprint) bool { return c.XPath == e.XPath })
	if idx >= 0 && pg == nil {
		pg = similo.NewPage(cands)
		*page = pg
	}
	if idx < 0 {
		// The element is no candidate of the snapshot (a container, say): rank it with them.
		pool = append(slices.Clone(cands), e)
		idx = len(pool) - 1
		pg = similo.NewPage(pool)
	}
	m := (similo.Engine{}).LocateOn(pg, b)
	switch {
	case m.Abstained():
		return fmt.Sprintf("it now finds %s, and the element it found on the baseline (%s) is not on the page", describe(e), describe(b))
	case m.Index != idx:
		return fmt.Sprintf("it now finds %s, not the element it found on the baseline (%s), which is now %s", describe(e), describe(b), describe(pool[m.Index]))
	}
	return ""
}

// resolution describes what a locator found, when that was not exactly one visible element.
func resolution(res gardener.ResolvedLocator) string {
	switch {
	case res.Error != "":
		return res.Error
	case res.Count == 0:
		return "it finds nothing"
	case res.Visible == 0:
		if res.Count == 1 {
			return "it finds 1 element, which is not visible"
		}
		return fmt.Sprintf("it finds %d elements, none visible", res.Count)
	case res.Visible > 1:
		names := make([]string, 0, len(res.Elements))
		for _, e := range res.Elements {
			names = append(names, describe(e))
		}
		return fmt.Sprintf("it finds %d visible elements (%s)", res.Visible, strings.Join(names, ", "))
	}
	return "it finds " + describe(res.Elements[0])
}

// changeID names an app change by what it is, so the same change seen by two sweeps is one
// trigger on a proposal (gardener.MergeTriggers keeps ids once).
func changeID(projectID, url, kind, detail string) string {
	h := sha256.New()
	for _, s := range []string{projectID, url, kind, detail} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "chg-" + hex.EncodeToString(h.Sum(nil)[:10])
}
