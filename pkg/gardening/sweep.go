package gardening

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/radar"
	"github.com/driftgardener/gardener/pkg/tend"
)

// Swept is what a sweep of one project did.
type Swept struct {
	ProjectID string `json:"projectId"`
	// Baseline is the baseline recorded because the project had none: there was nothing to
	// compare the app with, so nothing was swept; the next sweep compares with it.
	Baseline *radar.BaselineReport `json:"baseline,omitempty"`
	// Sweep is what the sweep saw; nil when a first baseline was recorded instead.
	Sweep *radar.SweepResult `json:"sweep,omitempty"`
	// Refreshed says why the baseline was recorded again after the sweep (tests added, edited or
	// gone green since it was recorded), so the next sweep watches them as they are now.
	Refreshed string `json:"refreshed,omitempty"`
	// Pass is the staging pass that followed the sweep, when it ran in this process.
	Pass *radar.PassResult `json:"pass,omitempty"`
}

// SweepProject is one project's sweep, the same for the radar's schedule and a person's "Sweep
// now": with no baseline one is recorded and nothing is compared yet; otherwise the pages are
// swept against the baseline and, when the baseline is behind the tests, it is recorded again
// after the sweep (which compared the app with the baseline as it was). r replays the pages; a
// radar whose project has the radar off is refused (*gardener.IneligibleError).
func (s *Service) SweepProject(ctx context.Context, r *radar.Radar, projectID string) (Swept, error) {
	out := Swept{ProjectID: projectID}
	p, err := s.d.Store.Project(ctx, projectID)
	if err != nil {
		return out, err
	}
	if !p.Radar {
		return out, &gardener.IneligibleError{Reason: fmt.Sprintf("the radar is off for project %s: turn it on in the settings to sweep", p.ID)}
	}
	if _, err := s.d.Store.Baseline(ctx, projectID); errors.Is(err, gardener.ErrNotFound) {
		rep, err := r.RecordBaseline(ctx, projectID)
		if err != nil {
			return out, err
		}
		out.Baseline = &rep
		s.d.Log.Info("radar baseline recorded", "project", projectID, "pages", len(rep.Pages), "tests", len(rep.Tests))
		return out, nil
	} else if err != nil {
		return out, err
	}
	behind, err := r.BaselineBehind(ctx, projectID)
	if err != nil {
		return out, err
	}
	res, err := r.Sweep(ctx, projectID)
	if err != nil {
		return out, err
	}
	out.Sweep = &res
	if behind != "" {
		if _, err := r.RecordBaseline(ctx, projectID); err != nil {
			return out, err
		}
		out.Refreshed = behind
		s.d.Log.Info("radar baseline refreshed", "project", projectID, "why", behind)
	}
	return out, nil
}

// SweepNow sweeps a project now for who, in this process's browser, and runs the staging pass
// after it, as the radar's schedule and the staging machine do (a project the staging gate
// skips gets its pass summary saying why, and a project without a model stages nothing). A
// process without a browser answers ErrUnavailable. h.Runner, h.Model and h.Options (base URL,
// step timeout) are read.
func (s *Service) SweepNow(ctx context.Context, who Who, projectID string, h Here) (Swept, error) {
	if h.Runner == nil {
		return Swept{ProjectID: projectID}, fmt.Errorf("sweep now: no browser to visit the app's pages in (the API in Lambda runs without Chromium, and the radar sweeps on its schedule there; gardener serve and gardener sweep sweep now): %w", ErrUnavailable)
	}
	p, err := s.d.Store.Project(ctx, projectID)
	if err != nil {
		return Swept{ProjectID: projectID}, err
	}
	r := &radar.Radar{Runner: h.Runner, Store: s.d.Store, Now: s.d.Now, Log: s.d.Log, BaseURL: h.Options.BaseURL, StepTimeout: h.Options.StepTimeout}
	if p.Model != "" {
		model := h.Model
		if model == nil && s.d.Models != nil {
			if model, err = s.d.Models(ctx, p.Model); err != nil {
				return Swept{ProjectID: projectID}, fmt.Errorf("opening project %s's model %q: %w", p.ID, p.Model, err)
			}
		}
		if model != nil {
			lad := &ladder.Ladder{Runner: h.Runner, Model: model, Now: s.d.Now}
			r.Tender = &tend.Tender{Store: s.d.Store, Life: s.life, Ladder: lad, Log: s.d.Log, Now: s.d.Now}
		}
	}
	out, err := s.SweepProject(ctx, r, projectID)
	if err != nil || out.Sweep == nil {
		return out, err
	}
	pass, err := r.Pass(ctx, projectID)
	if err != nil {
		return out, err
	}
	out.Pass = &pass
	s.d.Log.Info("swept now", "project", projectID, "changes", len(out.Sweep.Changes), "at_risk", len(out.Sweep.AtRisk), "proposed", len(pass.Proposed), "by", who.ID)
	return out, nil
}

// SweepTurns is what one run of the radar's schedule did with its time budget.
type SweepTurns struct {
	// Order is the order the run took the projects in (gardener.SweepOrder).
	Order []string
	// Deferred are the projects the run did not start, because the next sweep would not have
	// fitted in its budget (or, when each ended the run with an error, the project it failed on
	// and those after it); they come first in the next run, since they keep their old last sweep.
	Deferred []string
}

// SweepInTurn runs each on the enrolled projects ids in the fair order: never swept first, then
// the longest since their last sweep (the stored sweep summaries), so runs whose budget reaches
// only some of the projects cover all of them in turn. It starts no sweep that would end after
// stopBy, taking the longest sweep of this run as what the next will take; a zero stopBy is no
// budget. A project each fails on keeps its last sweep and is first again next run; each
// decides whether its error ends the run (returned) or not (nil, after it noted the failure).
func (s *Service) SweepInTurn(ctx context.Context, ids []string, stopBy time.Time, each func(ctx context.Context, id string) error) (SweepTurns, error) {
	last := make(map[string]time.Time, len(ids))
	for _, id := range ids {
		sw, err := s.d.Store.SweepSummary(ctx, id)
		switch {
		case errors.Is(err, gardener.ErrNotFound):
		case err != nil:
			return SweepTurns{}, fmt.Errorf("radar: the last sweep of project %s: %w", id, err)
		default:
			last[id] = sw.At
		}
	}
	out := SweepTurns{Order: gardener.SweepOrder(ids, last), Deferred: []string{}}
	var longest time.Duration
	for i, id := range out.Order {
		start := s.d.Now()
		if ctx.Err() != nil || (!stopBy.IsZero() && start.Add(longest).After(stopBy)) {
			out.Deferred = append(out.Deferred, out.Order[i:]...)
			break
		}
		if err := each(ctx, id); err != nil {
			out.Deferred = append(out.Deferred, out.Order[i:]...)
			return out, err
		}
		longest = max(longest, s.d.Now().Sub(start))
	}
	if len(out.Deferred) > 0 {
		s.d.Log.Warn("radar: projects left for the next run, out of this run's time", "deferred", len(out.Deferred), "swept", len(out.Order)-len(out.Deferred), "first", out.Deferred[0])
	}
	return out, nil
}
