package handler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/radar"
)

// SweepCompleted is the detail of the radar's "Radar Sweep Completed" event.
type SweepCompleted struct {
	ProjectID string `json:"projectId"`
	SweepID   string `json:"sweepId"`
	Changes   int    `json:"changes"`
	AtRisk    int    `json:"atRisk"`
}

// SweepInput is the staging selection's input, taken from the event by the state machine.
type SweepInput struct {
	ProjectID string `json:"projectId"`
	SweepID   string `json:"sweepId"`
}

// Item is one test of a staging pass.
type Item struct {
	ProjectID string `json:"projectId"`
	TestID    string `json:"testId"`
	SweepID   string `json:"sweepId,omitempty"`
}

// Selection is what the staging machine routes on. Every field the Choice states read is always
// present: a Choice on a missing field fails the execution.
type Selection struct {
	ProjectID string   `json:"projectId"`
	SweepID   string   `json:"sweepId"`
	Skipped   bool     `json:"skipped"`
	Reason    string   `json:"reason,omitempty"`
	Count     int      `json:"count"`
	Items     []Item   `json:"items"`
	Deferred  []string `json:"deferred"`
}

// NewStagingSelect builds the handler that chooses the tests of a staging pass: none for a
// project that repairs itself, at most 10 for the others, longest at risk first; the rest are
// named in the pass summary (one log line, written by the radar) and stay at risk for the next
// sweep. It reads the at-risk list and replays nothing.
func NewStagingSelect(d StoreDeps) (func(context.Context, SweepInput) (Selection, error), error) {
	return built(d.stagingSelect, need("staging select", d.deps()...))
}

func (d StoreDeps) stagingSelect(ctx context.Context, in SweepInput) (Selection, error) {
	if in.ProjectID == "" {
		return Selection{}, &BadEventError{Reason: "the sweep event names no project"}
	}
	if err := gardening.CheckEventIDs("projectId", in.ProjectID); err != nil {
		return Selection{}, err
	}
	if _, err := d.Store.Project(ctx, in.ProjectID); err != nil {
		return Selection{}, err
	}
	r := &radar.Radar{Store: d.Store, Now: d.Now, Log: d.log()}
	sel, err := r.Select(ctx, in.ProjectID)
	if err != nil {
		return Selection{}, err
	}
	out := Selection{ProjectID: in.ProjectID, SweepID: in.SweepID, Skipped: sel.Skipped != "", Reason: sel.Skipped, Items: []Item{}, Deferred: sel.Deferred}
	for _, id := range sel.Selected {
		out.Items = append(out.Items, Item{ProjectID: in.ProjectID, TestID: id})
	}
	out.Count = len(out.Items)
	return out, nil
}

// DryRunResult is what the staging machine's dry-run state returns: whether the test still
// passes with no AI (then nothing is proposed), whether it was skipped (the flag re-checked per
// test), and the gate the ladder in propose mode runs under.
type DryRunResult struct {
	Passed     bool   `json:"passed"`
	Skipped    bool   `json:"skipped"`
	Reason     string `json:"reason,omitempty"`
	FailedStep string `json:"failedStep,omitempty"`
	Error      string `json:"error,omitempty"`
	Gate       Gate   `json:"gate"`
}

// NewDryRun builds the handler that replays one at-risk test with no model call.
func NewDryRun(d ReplayDeps) (func(context.Context, Item) (DryRunResult, error), error) {
	return built(d.dryRun, need("dry-run", d.deps()...))
}

func (d ReplayDeps) dryRun(ctx context.Context, it Item) (DryRunResult, error) {
	p, err := d.Store.Project(ctx, it.ProjectID)
	if err != nil {
		return DryRunResult{}, err
	}
	r, err := d.radarFor(ctx, gardener.Project{ID: p.ID})
	if err != nil {
		return DryRunResult{}, err
	}
	res, err := r.DryRun(ctx, it.ProjectID, it.TestID)
	if err != nil {
		return DryRunResult{}, err
	}
	out := DryRunResult{Passed: res.Passed, Skipped: res.Skipped != "", Reason: res.Skipped, FailedStep: res.FailedStep, Error: res.Error,
		Gate: Gate{Eligible: !res.Passed && res.Skipped == "", RunID: res.RunID, ProjectID: it.ProjectID, TestID: it.TestID, Mode: gardener.ModePropose}}
	d.log().Info("dry-run", "project", it.ProjectID, "test", it.TestID, "passed", out.Passed, "skipped", out.Reason, "failed_step", out.FailedStep)
	return out, nil
}

// ProposeResult is what the propose state returns. Outcome is always set, for the Choice.
type ProposeResult struct {
	Outcome    ladder.Outcome        `json:"outcome"`
	Staged     gardener.StageOutcome `json:"staged,omitempty"`
	ProposalID string                `json:"proposalId,omitempty"`
	Restated   int                   `json:"restated"`
	Reason     string                `json:"reason,omitempty"`
	ModelCalls int                   `json:"modelCalls"`
}

// NewPropose builds the handler that climbs the ladder in propose mode for a test whose dry-run
// failed and stages a green proof through the lifecycle (persist checks the stored proof, the
// lifecycle screens the ops again); a ladder that ends without one files a triage issue.
func NewPropose(d ReplayDeps) (func(context.Context, Gate) (ProposeResult, error), error) {
	return built(d.propose, need("propose", d.deps()...))
}

func (d ReplayDeps) propose(ctx context.Context, g Gate) (ProposeResult, error) {
	if !g.Eligible {
		return ProposeResult{}, &BadEventError{Reason: "propose was asked for a test whose dry-run did not fail"}
	}
	p, err := d.Store.Project(ctx, g.ProjectID)
	if err != nil {
		return ProposeResult{}, err
	}
	r, err := d.radarFor(ctx, p)
	if err != nil {
		return ProposeResult{}, err
	}
	res, err := r.Propose(ctx, g.ProjectID, g.TestID, nil)
	if err != nil {
		return ProposeResult{}, err
	}
	out := ProposeResult{Outcome: res.Outcome, Staged: res.Staged, ProposalID: res.ProposalID, Restated: res.Restated, Reason: res.Reason, ModelCalls: res.ModelCalls}
	if res.Skipped != "" {
		out.Outcome, out.Reason = ladder.NoFix, res.Skipped
	}
	return out, nil
}

// StagingState is the staging machine's state when the summary runs.
type StagingState struct {
	Selection Selection `json:"selection"`
	Results   []struct {
		Item
		DryRun   *DryRunResult  `json:"dryRun,omitempty"`
		Proposed *ProposeResult `json:"proposed,omitempty"`
		Error    *StateError    `json:"error,omitempty"`
	} `json:"results"`
}

// StagingSummary is the pass summary: what was dry-run, what still passes, what was staged, and
// what waits for the next pass. It is stored as the project's last staging pass (the App radar
// page and the queue show it), written to the server log, one line, and returned.
type StagingSummary = gardener.PassSummary

// NewStagingSummary builds the handler that stores and logs the pass summary.
func NewStagingSummary(d StoreDeps) (func(context.Context, StagingState) (StagingSummary, error), error) {
	return built(d.summary, need("staging summary", d.deps()...))
}

func (d StoreDeps) summary(ctx context.Context, st StagingState) (StagingSummary, error) {
	if st.Selection.ProjectID == "" {
		return StagingSummary{}, &BadEventError{Reason: "the staging state names no project"}
	}
	s := gardener.NewPassSummary(st.Selection.ProjectID, d.now(), st.Selection.Deferred)
	if st.Selection.Skipped {
		s.Skipped = st.Selection.Reason
	}
	for _, r := range st.Results {
		switch {
		case r.Error != nil:
			s.Add(r.TestID, gardener.PassFailed, strings.TrimPrefix(r.Error.Error+": "+r.Error.Cause, ": "))
		case r.DryRun == nil:
			s.Add(r.TestID, gardener.PassFailed, "no dry-run result")
		case r.DryRun.Skipped:
			s.Add(r.TestID, gardener.PassSkippedTest, "")
		case r.DryRun.Passed:
			s.Add(r.TestID, gardener.PassPassing, "")
		case r.Proposed != nil && r.Proposed.Outcome == ladder.Staged:
			s.Add(r.TestID, gardener.PassStaged, "")
		default:
			s.Add(r.TestID, gardener.PassNotStaged, "")
		}
	}
	r := &radar.Radar{Store: d.Store, Now: d.Now, Log: d.log()}
	if err := r.RecordPass(ctx, s); err != nil {
		return s, err
	}
	return s, nil
}

// RadarEvent starts a sweep: the schedule's event (Detail empty: every project whose radar is
// on) or a request for one project.
type RadarEvent struct {
	Detail struct {
		ProjectID string `json:"projectId"`
	} `json:"detail"`
}

// RadarReport is what a sweep run did, per project.
type RadarReport struct {
	Sweeps []SweepCompleted `json:"sweeps"`
	// Skipped names projects not swept and why (radar off, no baseline recorded yet).
	Skipped map[string]string `json:"skipped,omitempty"`
}

// RadarDeps are the radar's dependencies: a replaying function's and the bus its sweeps are
// announced on.
type RadarDeps struct {
	ReplayDeps
	Events Publisher
}

// enrolled are the projects a radar event sweeps: the one it names, else every project whose
// radar is on, so a project is enrolled by its setting alone.
func (d RadarDeps) enrolled(ctx context.Context, projectID string) ([]string, error) {
	if projectID != "" {
		return []string{projectID}, nil
	}
	ps, err := d.Store.Projects(ctx)
	// A project that does not decode is named in the log and the others are swept.
	corrupt, err := gardener.SplitCorrupt(err)
	if err != nil {
		return nil, fmt.Errorf("radar: listing the projects whose radar is on: %w", err)
	}
	if corrupt != nil {
		d.log().Warn("radar: projects skipped", "error", corrupt.Error())
	}
	var ids []string
	for _, p := range ps {
		if p.Radar {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}

// NewRadar builds the handler that sweeps projects with no model call and puts one "Radar Sweep
// Completed" event per project on the bus, which starts the staging machine. A project without a
// baseline gets one recorded instead ("Nothing has been swept yet" until then).
func NewRadar(d RadarDeps) (func(context.Context, RadarEvent) (RadarReport, error), error) {
	if err := need("radar", append(d.deps(), dep{"Events", d.Events == nil})...); err != nil {
		return nil, err
	}
	app, err := d.application("radar")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ev RadarEvent) (RadarReport, error) {
		out := RadarReport{Sweeps: []SweepCompleted{}, Skipped: map[string]string{}}
		if err := gardening.CheckEventIDs("projectId", ev.Detail.ProjectID); err != nil {
			return out, err
		}
		ids, err := d.enrolled(ctx, ev.Detail.ProjectID)
		if err != nil {
			return out, err
		}
		for _, id := range ids {
			r, err := d.radarFor(ctx, gardener.Project{ID: id})
			if err != nil {
				return out, err
			}
			swept, err := app.SweepProject(ctx, r, id)
			var off *gardener.IneligibleError
			switch {
			case errors.As(err, &off):
				out.Skipped[id] = "the radar is off"
				continue
			case err != nil:
				return out, err
			case swept.Sweep == nil:
				out.Skipped[id] = "no baseline yet: one was recorded, the next sweep compares with it"
				continue
			}
			res := swept.Sweep
			sc := SweepCompleted{ProjectID: id, SweepID: "sweep-" + res.At.UTC().Format("20060102T150405.000"), Changes: len(res.Changes), AtRisk: len(res.AtRisk)}
			if err := d.Events.PutEvent(ctx, "Radar Sweep Completed", sc); err != nil {
				return out, err
			}
			d.log().Info("radar sweep", "project", id, "sweep", sc.SweepID, "changes", sc.Changes, "at_risk", sc.AtRisk, "ms", res.Millis)
			out.Sweeps = append(out.Sweeps, sc)
		}
		return out, nil
	}, nil
}
