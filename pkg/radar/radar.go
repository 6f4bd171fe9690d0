// Package radar is the proposing gardener's eyes and its staging pass (spec 000, "The two
// modes", "The queue", "Why the queue may be empty"). A baseline records, from each active
// test's last green run, the pages it visited and the elements its steps used there; a sweep
// visits those pages again without any model, diffs them against the baseline, and puts on the
// at-risk ledger only the tests whose locators a change touched. The staging pass then dry-runs
// at most ten of them, longest at risk first, spends nothing on a test that still passes, and
// sends a failing one up the ladder in propose mode, staging what it proves.
//
// The pass is split into Select, DryRun and Propose because in AWS each is a Lambda of the
// staging state machine (the Map state over the selection mirrors Pass's bounded concurrency);
// their inputs and results are small JSON values. Pass runs the same steps in one process.
package radar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/tend"
)

// MaxDryRuns is how many tests one staging pass dry-runs (spec: "A staging pass dry-runs at
// most 10 tests").
const MaxDryRuns = 10

// DefaultConcurrency is how many replays a sweep or a pass runs at once in the one browser when
// Radar.Concurrency is zero: enough to overlap the waiting of a replay on a 2-core machine
// without starving the page renderers.
const DefaultConcurrency = 4

// Store is the part of a gardener.Store the radar keeps its baselines and ledger in, and reads
// the projects, tests, green runs and queue it sweeps for from.
type Store interface {
	gardener.RadarStore
	gardener.RadarStatusStore
	Project(ctx context.Context, id string) (gardener.Project, error)
	Test(ctx context.Context, id string) (gardener.Test, error)
	Tests(ctx context.Context, projectID string) ([]gardener.Test, error)
	PutRun(ctx context.Context, r gardener.Run) error
	LastGreenRun(ctx context.Context, testID string) (gardener.Run, error)
	OpenProposals(ctx context.Context, projectID string) ([]gardener.Proposal, error)
	TestProposals(ctx context.Context, testID string) ([]gardener.Proposal, error)
	Dismissed(ctx context.Context, key gardener.DismissalKey) (bool, error)
	TriageIssues(ctx context.Context, projectID string) ([]gardener.TriageIssue, error)
}

// Radar sweeps one store's projects and runs their staging passes.
type Radar struct {
	Runner gardener.Runner
	Store  Store
	// Tender climbs the ladder and stages through the lifecycle; only the staging pass's
	// Propose uses it, so a radar without one sweeps and dry-runs but stages nothing.
	Tender *tend.Tender
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log receives the pass summary; nil means slog.Default().
	Log *slog.Logger
	// BaseURL resolves the pages' relative URLs; empty means the project's first allowed origin.
	BaseURL string
	// StepTimeout bounds each replayed step; zero takes the runner's default.
	StepTimeout time.Duration
	// Concurrency bounds the replays run at once; zero means DefaultConcurrency.
	Concurrency int
}

func (r *Radar) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Radar) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

func (r *Radar) concurrency() int {
	if r.Concurrency > 0 {
		return r.Concurrency
	}
	return DefaultConcurrency
}

// project is what every radar operation on one project needs: its settings, its tests, where
// its pages are, and how to replay there.
type project struct {
	gardener.Project
	tests map[string]gardener.Test
	ids   []string // the tests' ids, sorted
	setup *gardener.Test
	base  *url.URL
	opts  gardener.ReplayOptions
}

func (r *Radar) load(ctx context.Context, projectID string) (*project, error) {
	p, err := r.Store.Project(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("radar: %w", err)
	}
	tests, err := r.Store.Tests(ctx, projectID)
	corrupt, err := gardener.SplitCorrupt(err)
	if err != nil {
		return nil, fmt.Errorf("radar: tests of project %s: %w", projectID, err)
	}
	if corrupt != nil {
		r.log().Warn("radar: tests skipped", "project", projectID, "error", corrupt.Error())
	}
	opts := p.ReplayOptions(gardener.ReplayOptions{BaseURL: r.BaseURL, StepTimeout: r.StepTimeout})
	base := opts.BaseURL
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("radar: project %s: base URL %q is not an http(s) URL (set Radar.BaseURL or the project's allowed origins)", projectID, base)
	}
	env := &project{Project: p, tests: map[string]gardener.Test{}, base: u, opts: opts}
	for _, t := range tests {
		env.tests[t.ID] = t
		env.ids = append(env.ids, t.ID)
	}
	slices.Sort(env.ids)
	if p.SetupTestID != "" {
		s, ok := env.tests[p.SetupTestID]
		if !ok {
			return nil, fmt.Errorf("radar: project %s names setup test %q, which it does not have", projectID, p.SetupTestID)
		}
		env.setup = &s
	}
	return env, nil
}

// rel is a URL as the radar keys pages: path and query for the app's own origin (so a baseline
// survives the app moving to another port), the whole URL for any other; "" for what is no
// page (about:blank, data:).
func (p *project) rel(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	if u.Scheme != p.base.Scheme || u.Host != p.base.Host {
		return u.String()
	}
	out := u.EscapedPath()
	if out == "" {
		out = "/"
	}
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out
}

// use is one step of a test that finds an element, and the page it found it on.
type use struct {
	Path    string
	Locator gardener.Locator
	Page    string
}

// usesOf reads a test's last green run: the pages it visited in order, and each step that
// used a locator with the page it was on when it ran. Steps are looked up in the test as it
// is now, so a path the test no longer has is left out.
func (p *project) usesOf(t gardener.Test, green gardener.RunResult) (uses []use, pages []string) {
	seen := map[string]bool{}
	visit := func(raw string) string {
		u := p.rel(raw)
		if u != "" && !seen[u] {
			seen[u] = true
			pages = append(pages, u)
		}
		return u
	}
	for _, rec := range green.Steps {
		page := visit(rec.URLBefore)
		visit(rec.URLAfter)
		st, ok := stepAt(t.Steps, rec.Path)
		if !ok || page == "" || st.Target().IsZero() {
			continue
		}
		uses = append(uses, use{Path: rec.Path, Locator: st.Target(), Page: page})
	}
	return uses, pages
}

// stepAt finds a step by its path as a person counts it: "4", or "3.2" inside a block.
func stepAt(steps []gardener.Step, path string) (gardener.Step, bool) {
	head, rest, inner := strings.Cut(path, ".")
	var i int
	if _, err := fmt.Sscanf(head, "%d", &i); err != nil || i < 1 || i > len(steps) {
		return gardener.Step{}, false
	}
	if !inner {
		return steps[i-1], true
	}
	return stepAt(steps[i-1].Steps, rest)
}

// lastGreen is a test's last green run, or nil when it never went green.
func (r *Radar) lastGreen(ctx context.Context, testID string) (*gardener.RunResult, error) {
	run, err := r.Store.LastGreenRun(ctx, testID)
	if errors.Is(err, gardener.ErrNotFound) || (err == nil && run.Result == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("radar: last green run of %s: %w", testID, err)
	}
	return run.Result, nil
}

// parallel runs fn for each index with at most n at once and returns the first error.
func parallel(ctx context.Context, count, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for i := range count {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, i); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		// The caller's context ended (ours is only cancelled after an error).
		return context.Cause(ctx)
	}
	return first
}
