package driftgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/tests/testkit"
)

// Env is what running cases needs: a runner, the model the ladder asks, and the app (a fresh
// handler per case, so what one case's runs stored never reaches another).
type Env struct {
	Runner gardener.Runner
	Model  gardener.Model
	NewApp func() http.Handler
	// Options are the replay options for the app served at baseURL (its allowed origins).
	Options func(baseURL string) gardener.ReplayOptions
	// Progress, when set, receives the ladder's events.
	Progress func(ladder.Event)
	// NoBaseline hands the ladder no green run, as on a test's first failure before any green
	// run was recorded; the green run still is the ground truth a repair is judged by.
	NoBaseline bool
}

func (e *Env) options(base string) gardener.ReplayOptions {
	if e.Options != nil {
		o := e.Options(base)
		o.BaseURL = base
		return o
	}
	return gardener.ReplayOptions{BaseURL: base}
}

// Baseline is a saved test's green run on the unmutated app, with the elements it used and
// the order it used them in (the ground truth a repair is compared with).
type Baseline struct {
	Test    gardener.Test
	Green   gardener.RunResult
	URL     string
	Targets []Target
	Keys    []string
}

// Baseline replays t on a fresh app: once to record the elements its steps use, once more with
// the runtime marking them to record the order the page saw them used in.
func (e *Env) Baseline(ctx context.Context, t gardener.Test) (*Baseline, error) {
	site := NewSite(e.NewApp(), nil)
	srv := httptest.NewServer(site)
	defer srv.Close()
	first, err := e.twice(ctx, t, e.options(srv.URL), nil)
	if err != nil {
		return nil, fmt.Errorf("replay %s on the baseline: %w", t.ID, err)
	}
	if !first.Result.Passed {
		return nil, fmt.Errorf("%s is not green on the baseline: step %s: %s", t.ID, first.Result.FailedStep, first.Result.Message)
	}
	targets := TargetsOf(first.Result)
	site2 := NewSite(e.NewApp(), targets)
	srv2 := httptest.NewServer(site2)
	defer srv2.Close()
	rep, err := e.twice(ctx, t, e.options(srv2.URL), site2)
	if err != nil {
		return nil, fmt.Errorf("replay %s on the baseline: %w", t.ID, err)
	}
	if !rep.Result.Passed {
		return nil, fmt.Errorf("%s is not green on the baseline with the drift runtime: step %s: %s", t.ID, rep.Result.FailedStep, rep.Result.Message)
	}
	if TargetsOf(rep.Result) == nil && targets != nil {
		return nil, fmt.Errorf("%s: the second green run recorded no elements", t.ID)
	}
	return &Baseline{Test: t, Green: rep.Result, URL: srv2.URL, Targets: targets, Keys: keys(site2.TakeHits())}, nil
}

// keys is the order the page saw marked elements used in, each run of the same element once.
func keys(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		if len(out) == 0 || out[len(out)-1] != h.Key {
			out = append(out, h.Key)
		}
	}
	return out
}

// Verdict is what became of one case.
type Verdict string

// Verdicts. Still green, not applied and unrepairable are cases the table leaves out of its
// counts, saying how many.
const (
	// RepairedIntended: a repair was applied and the repaired test, replayed on the mutated
	// app, used the same elements in the same order as the green run (the mutated one included).
	RepairedIntended Verdict = "repaired"
	// StagedIntended: the same, held for a person.
	StagedIntended Verdict = "staged"
	// Triaged: no repair; a triage issue instead.
	Triaged Verdict = "triaged"
	// Refused: no repair; every change a rung proposed was refused by the assertion floor.
	Refused Verdict = "refused"
	// CannotTell: no repair, and with no green run to compare with the gardener said it cannot
	// tell drift from a bug: no triage issue, no alert (NoBaseline only).
	CannotTell Verdict = "cannot-tell"
	// Wrong: a drift repaired with a green proof whose replay used other elements.
	Wrong Verdict = "wrong"
	// Fragile: a drift repaired (applied or staged) with the intended elements whose fix is red,
	// or uses other elements, when the page is served again with other live data (other counts
	// and prices, another build's class hashes, another order of a list): a heal that lasts one
	// load is not a repair.
	Fragile Verdict = "fragile"
	// FalseHeal: a regression written green (applied or staged).
	FalseHeal Verdict = "false-heal"
	// StillGreen: the mutation did not break the test; there was nothing to repair.
	StillGreen Verdict = "still-green"
	// NotApplied: the page had nothing the mutation could change (no form around a button).
	NotApplied Verdict = "not-applied"
	// Flaky: a case the load decided, neither shown right nor shown wrong: a repair whose proof
	// was green but whose replay on the same app was red twice (a step that did not finish in
	// time), a drift left unrepaired or a regression written green whose test then passed
	// unrepaired on the mutated app, a reference repair red only because the browser did not
	// answer in time, or a test red twice before the mutation was even applied.
	Flaky Verdict = "flaky"
	// Unrepairable: a drift whose reference repair (the generator's own fix) is red too, so the
	// case proves nothing about repair. The note says which of two things happened: the
	// mutation broke the app (the reference gets past every step that uses the mutated element
	// and a check or another element fails: the app's own code looked the element up by the id
	// or class the mutation changed), or the reference fix itself fails at the mutated element.
	Unrepairable Verdict = "unrepairable"
)

// CaseResult is one case's verdict with the ladder's outcome and what it did.
type CaseResult struct {
	Mutation Mutation
	Verdict  Verdict
	Outcome  ladder.Outcome
	// AppBug: the diagnosis said app bug, whatever the outcome made of it (with no green run
	// the outcome is "cannot tell" all the same).
	AppBug bool
	// Hold is the rule a staged repair was held for (gardener.HoldRule), "" when none held it.
	Hold gardener.HoldRule
	// SecondLoad: the fix was replayed on a second load with other live data; Survived: it was
	// green there with the same elements used.
	SecondLoad, Survived bool
	Note                 string
	Millis               int64
}

// Run applies m to a fresh app, checks the test fails, checks a drift can be repaired at all,
// runs the ladder in apply mode, and judges what it did against the ground truth.
func (e *Env) Run(ctx context.Context, b *Baseline, m Mutation) (out CaseResult, err error) {
	start := time.Now()
	out = CaseResult{Mutation: m}
	defer func() { out.Millis = time.Since(start).Milliseconds() }()
	site := NewSite(e.NewApp(), b.Targets)
	srv := httptest.NewServer(site)
	defer srv.Close()
	opts := e.options(srv.URL)
	// At most two replays of the mutated app before the ladder starts. The first is the
	// failing run. A second is made only when the first is red, for one of two reasons: it may
	// have gone red before reaching the page the mutation changes (then it says nothing about
	// the mutation), or a step may have missed its time on a loaded machine (then the second
	// passes and the case is still green, not a failure to repair).
	site.Set(&m)
	failing, err := e.twice(ctx, b.Test, opts, nil)
	if err != nil {
		return out, fmt.Errorf("%s: replay: %w", m.Name(), err)
	}
	applied, xpath := site.Applied()
	switch {
	case !applied && failing.Result.Passed:
		out.Verdict, out.Note = NotApplied, "the page had nothing the mutation applies to"
		return out, nil
	case !applied:
		out.Verdict, out.Note = Flaky, fmt.Sprintf("red twice before the mutation was applied, at step %s: %s", failing.Result.FailedStep, failing.Result.Message)
		return out, nil
	case failing.Result.Passed:
		out.Verdict = StillGreen
		return out, nil
	}
	if m.Class == Drift {
		if ref, ok := Reference(b.Test, b.Green, m, xpath); ok {
			rep, err := e.twice(ctx, ref, opts, nil)
			if err != nil {
				return out, fmt.Errorf("%s: reference replay: %w", m.Name(), err)
			}
			if !rep.Result.Passed && rep.Result.Cause == gardener.CauseBrowserSlow {
				out.Verdict, out.Note = Flaky, fmt.Sprintf("the reference repair could not be judged: the browser was too slow at step %s: %s", rep.Result.FailedStep, rep.Result.Message)
				return out, nil
			}
			if !rep.Result.Passed {
				out.Verdict, out.Note = Unrepairable, fmt.Sprintf("%s: the reference repair fails at step %s: %s", unrepairable(ref, rep.Result, m, xpath), rep.Result.FailedStep, rep.Result.Message)
				return out, nil
			}
		}
	}
	green := rebased(b.Green, b.URL, srv.URL)
	// The witness keeps the hits of the ladder's green replays: the repair's green proof ran
	// exactly the repaired steps on this app, so what it hit is the record to judge.
	w := &testkit.Witness[Hit]{Runner: e.Runner, App: siteRecord{site}}
	lad := &ladder.Ladder{Runner: w, Model: e.Model, Progress: e.Progress}
	// The failing run is handed over as a scheduled run's repair gets it, so the ladder does
	// not replay it again.
	req := ladder.Request{Test: b.Test, Mode: gardener.ModeApply, Options: opts, LastGreen: &green, Failure: &failing, Reported: &failing.Result, RunID: "driftgen"}
	if e.NoBaseline {
		req.LastGreen = nil
	}
	res, err := lad.Repair(ctx, req)
	if err != nil {
		return out, fmt.Errorf("%s: ladder: %w", m.Name(), err)
	}
	out.Outcome = res.Outcome
	out.AppBug = res.Diagnosis != nil && res.Diagnosis.Classification == gardener.AppBug
	wrote := res.Outcome == ladder.Repaired || res.Outcome == ladder.Staged
	if !wrote {
		out.Verdict, out.Note = Triaged, res.Reason
		switch {
		case res.Outcome == ladder.Refused:
			out.Verdict = Refused
		case !gardener.FilesTriage(res.Facts):
			out.Verdict = CannotTell
		}
		if m.Class == Drift {
			// A drift the ladder left alone is only counted against it when the mutation is
			// what keeps the test red: on a loaded machine a step may miss its time limit once.
			again, err := e.Runner.Replay(ctx, b.Test, opts)
			if err != nil {
				return out, fmt.Errorf("%s: replay after the ladder: %w", m.Name(), err)
			}
			if again.Result.Passed {
				out.Verdict, out.Note = Flaky, "the unrepaired test passed on the mutated app when replayed again; the ladder had: "+res.Reason
			}
		}
		return out, nil
	}
	ops := describeOps(res)
	if m.Class == Regression {
		// A regression is one only when it is what keeps the test red: a failing request no
		// step notices, replayed red once on a loaded machine, is no regression to heal.
		again, err := e.twice(ctx, b.Test, opts, nil)
		if err != nil {
			return out, fmt.Errorf("%s: replay after the ladder: %w", m.Name(), err)
		}
		out.Verdict, out.Note = FalseHeal, ops
		if again.Result.Passed {
			out.Verdict, out.Note = Flaky, "the unrepaired test passed on the mutated app when replayed again, so the mutation did not break it; the ladder wrote: "+ops
		}
		return out, nil
	}
	fixed := b.Test.Clone()
	fixed.Steps = res.Steps
	// Replayed only when no green replay of the ladder ran these steps (none, unless the
	// ladder ends on steps it did not prove green).
	var rep gardener.Replay
	hits, proven := w.GreenRun(fixed.Steps)
	if proven {
		rep.Result.Passed = true
	} else {
		if rep, err = e.twice(ctx, fixed, opts, site); err != nil {
			return out, fmt.Errorf("%s: replay of the repair: %w", m.Name(), err)
		}
		hits = site.TakeHits()
	}
	got := keys(hits)
	switch {
	case !rep.Result.Passed:
		out.Verdict, out.Note = Flaky, fmt.Sprintf("the repaired test is red on two more replays at step %s: %s; %s", rep.Result.FailedStep, rep.Result.Message, ops)
	case !slices.Equal(got, b.Keys):
		out.Verdict, out.Note = Wrong, fmt.Sprintf("used elements %v where the green run used %v; %s", got, b.Keys, ops)
	case res.Outcome == ladder.Staged:
		out.Verdict, out.Note = StagedIntended, "held: "+res.Reason+"; "+ops
		if res.Verdict != nil {
			if h, ok := res.Verdict.Hold(); ok {
				out.Hold = h.Rule
			}
		}
	default:
		out.Verdict, out.Note = RepairedIntended, ops
	}
	if out.Verdict == RepairedIntended || out.Verdict == StagedIntended {
		why, err := e.secondLoad(ctx, b, fixed, opts, site)
		if err != nil {
			return out, fmt.Errorf("%s: %w", m.Name(), err)
		}
		out.SecondLoad = true
		if why != "" {
			out.Verdict, out.Note = Fragile, why+"; "+out.Note
		} else {
			out.Survived = true
		}
	}
	return out, nil
}

// secondLoad replays the repaired test fixed on site serving its next generation: the same app
// with other live values, another build's hashes, another order. It says why the fix did not
// last ("" when it was green there with the elements the green run of b used).
func (e *Env) secondLoad(ctx context.Context, b *Baseline, fixed gardener.Test, opts gardener.ReplayOptions, site *Site) (string, error) {
	site.SetGen(1)
	again, err := e.twice(ctx, fixed, opts, site)
	if err != nil {
		return "", fmt.Errorf("replay of the repair on a second load: %w", err)
	}
	used := keys(site.TakeHits())
	switch {
	case !again.Result.Passed:
		return fmt.Sprintf("red on a second load with other live data at step %s: %s", again.Result.FailedStep, again.Result.Message), nil
	case !slices.Equal(used, b.Keys):
		return fmt.Sprintf("on a second load with other live data it used elements %v where the green run used %v", used, b.Keys), nil
	}
	return "", nil
}

// siteRecord is a site's hits as the witness reads an app's record: the hits of one replay.
type siteRecord struct{ site *Site }

func (r siteRecord) ResetRecord()  { r.site.TakeHits() }
func (r siteRecord) Events() []Hit { return r.site.TakeHits() }

// twice replays t, and once more when the first is red: on a loaded machine a step may not
// finish in its time, and a case is judged on what the app does, not on the load. The hits
// site records are those of the last replay.
func (e *Env) twice(ctx context.Context, t gardener.Test, opts gardener.ReplayOptions, site *Site) (gardener.Replay, error) {
	var rep gardener.Replay
	for i := 0; i < 2; i++ {
		if site != nil {
			site.TakeHits()
		}
		var err error
		if rep, err = e.Runner.Replay(ctx, t, opts); err != nil || rep.Result.Passed {
			return rep, err
		}
	}
	return rep, nil
}

// Why a drift case has no repair, as the table's notes say it.
const (
	BrokeApp      = "the mutation broke the app"
	WeakReference = "the reference fix fails at the mutated element"
)

// unrepairable says why the reference repair ref of m failed as res did: at a step that acts on
// the mutated element (by its new XPath) or that the reference inserted, the reference itself
// is too weak; anywhere else the app no longer does what the test checks.
func unrepairable(ref gardener.Test, res gardener.RunResult, m Mutation, xpath string) string {
	var failed *gardener.Step
	walk(ref.Steps, "", func(path string, s gardener.Step) {
		if path == res.FailedStep {
			failed = &s
		}
	})
	switch {
	case failed == nil:
		return BrokeApp
	case xpath != "" && failed.Locator == gardener.Locator{Kind: gardener.ByXPath, Value: xpath},
		m.Insert != nil && failed.Equal(*m.Insert):
		return WeakReference
	}
	return BrokeApp
}

// describeOps renders the operations of the green candidate for the case's note, which the
// table run prints: each step as people are shown one (Step.Redacted), the values it enters
// masked.
func describeOps(res ladder.Result) string {
	var parts []string
	for _, r := range res.Rungs {
		for _, a := range r.Attempts {
			if a.Outcome != "green" {
				continue
			}
			for _, op := range a.Ops {
				if op.Step == nil {
					parts = append(parts, op.String())
					continue
				}
				parts = append(parts, fmt.Sprintf("%s %d: %s", op.Kind, op.Index, op.Step.Redacted()))
			}
		}
	}
	return strings.Join(parts, "; ")
}

// Reference is the generator's own repair of a drift case, when it has one: the steps that used
// the mutated element point at it by its new XPath, and the step a correct repair inserts (the
// new field filled, the menu opened) comes before the first of them, and for a menu again
// before each later use on a page loaded since (a new page has the menu closed again; on the
// same page a second click would close it). Overlays have none here: the dismissal is needed
// after every navigation, and the overlay is dismissable by making.
func Reference(t gardener.Test, green gardener.RunResult, m Mutation, xpath string) (gardener.Test, bool) {
	if m.Class != Drift || m.Kind == Overlay {
		return t, false
	}
	ref := t.Clone()
	targets := TargetsOf(green)
	inserted := false
	// loads[path] counts the page loads the green run had seen before the step at path ran.
	loads := map[string]int{}
	n := 0
	for _, r := range green.Steps {
		loads[r.Path] = n
		if r.Kind == gardener.Goto || r.URLAfter != "" && r.URLAfter != r.URLBefore {
			n++
		}
	}
	openedAt := -1
	var fix func(steps []gardener.Step, prefix string) []gardener.Step
	fix = func(steps []gardener.Step, prefix string) []gardener.Step {
		var out []gardener.Step
		for i, s := range steps {
			path := prefix + strconv.Itoa(i+1)
			if s.Kind == gardener.Intent {
				s.Steps = fix(s.Steps, path+".")
				out = append(out, s)
				continue
			}
			uses := keyOf(targets, green, path) == m.Key
			switch {
			case !uses || m.Insert == nil:
			case m.Kind == MoveMenu && loads[path] != openedAt:
				out = append(out, *m.Insert)
				openedAt = loads[path]
			case m.Kind != MoveMenu && !inserted && path == m.Step:
				out = append(out, *m.Insert)
				inserted = true
			}
			if uses && xpath != "" && !strings.HasPrefix(string(m.Kind), "required-") {
				s.Locator = gardener.Locator{Kind: gardener.ByXPath, Value: xpath, Frame: s.Target().Frame}
				s.Alternatives = nil
			}
			out = append(out, s)
		}
		return out
	}
	ref.Steps = fix(ref.Steps, "")
	return ref, true
}

// rebased is a copy of res as if its run had gone to the app at to rather than the one at from.
func rebased(res gardener.RunResult, from, to string) gardener.RunResult {
	b, err := json.Marshal(res)
	if err != nil {
		return res
	}
	var out gardener.RunResult
	if err := json.Unmarshal(bytes.ReplaceAll(b, []byte(from), []byte(to)), &out); err != nil {
		return res
	}
	return out
}
