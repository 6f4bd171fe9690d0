package gardening

import (
	"context"
	"errors"
	"fmt"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/tend"
)

// Admission is the repair machine's gate verdict, which every later state reads: eligible or
// not (and why), and what the climb is for.
type Admission struct {
	Eligible  bool                `json:"eligible"`
	Duplicate bool                `json:"duplicate"`
	Reason    string              `json:"reason,omitempty"`
	RunID     string              `json:"runId"`
	ProjectID string              `json:"projectId"`
	TestID    string              `json:"testId"`
	Mode      gardener.Mode       `json:"mode"`
	ModeFrom  gardener.ModeFrom   `json:"modeFrom,omitempty"`
	By        string              `json:"by,omitempty"`
	Actor     gardener.Actor      `json:"actor,omitempty"`
	Rungs     []gardener.Strategy `json:"rungs,omitempty"`
	// Execution names the event log of a manual execution; empty for the automatic path.
	Execution string `json:"execution,omitempty"`
}

// BadEventError is an event the repair cannot act on; a state machine fails cleanly on it.
type BadEventError struct{ Reason string }

func (e *BadEventError) Error() string { return "bad event: " + e.Reason }

// Admit is the first step of a repair the state machine runs, automatic (a "Run Failed" event)
// or manual (the input a manual start made). It records a run the platform delivered and the
// store does not hold yet, answers a duplicate delivery of a repaired run without doing
// anything, and asks the gate for who the repair is for. An ineligible run is a clean end, not
// an error.
func (s *Service) Admit(ctx context.Context, in RepairInput) (Admission, error) {
	ev := in.Detail
	g := Admission{RunID: ev.RunID, ProjectID: ev.ProjectID, TestID: ev.TestID, Mode: gardener.ModeApply}
	if ev.RunID == "" || ev.TestID == "" {
		return g, &BadEventError{Reason: "runId and testId are required"}
	}
	if err := CheckEventIDs("runId", ev.RunID, "testId", ev.TestID, "projectId", ev.ProjectID); err != nil {
		return g, err
	}
	who := Who{Actor: gardener.ActorSchedule}
	if in.Manual != nil {
		who = in.Manual.Who()
		g.By, g.Actor, g.Rungs, g.Execution = in.Manual.By, in.Manual.Actor, in.Manual.Rungs, in.Manual.Execution
	}
	run, err := s.d.Store.Run(ctx, ev.RunID)
	if errors.Is(err, gardener.ErrNotFound) {
		if ev.ProjectID == "" {
			// A platform may name only the run and the test: the run is stored under the
			// test's project, where the project's lists find it.
			t, err := s.d.Store.Test(ctx, ev.TestID)
			if err != nil {
				return g, fmt.Errorf("eligibility of run %s: %w", ev.RunID, err)
			}
			ev.ProjectID = t.ProjectID
		}
		run = gardener.Run{ID: ev.RunID, ProjectID: ev.ProjectID, TestID: ev.TestID, TestVersion: ev.TestVersion, Trigger: ev.Trigger, Control: ev.Control, Probe: ev.Probe, At: s.now()}
		if err := s.d.Store.PutRun(ctx, run); err != nil {
			return g, fmt.Errorf("eligibility of run %s: %w", ev.RunID, err)
		}
	} else if err != nil {
		return g, fmt.Errorf("eligibility of run %s: %w", ev.RunID, err)
	}
	if _, err := s.d.Store.Repair(ctx, gardener.RepairIDOfRun(ev.RunID)); err == nil {
		g.Duplicate, g.Reason = true, fmt.Sprintf("run %s was repaired already: a duplicate delivery changes nothing", ev.RunID)
		return g, nil
	} else if !errors.Is(err, gardener.ErrNotFound) {
		return g, fmt.Errorf("eligibility of run %s: %w", ev.RunID, err)
	}
	t, err := s.d.Store.Test(ctx, run.TestID)
	if err != nil {
		return g, fmt.Errorf("eligibility of run %s: %w", ev.RunID, err)
	}
	p, err := s.d.Store.Project(ctx, t.ProjectID)
	if err != nil {
		return g, fmt.Errorf("eligibility of run %s: %w", ev.RunID, err)
	}
	g.ProjectID = p.ID
	if in.Manual != nil {
		g.Mode, g.ModeFrom = ModeOf(p, who, in.Manual.Propose)
	}
	err = gardener.Gate(who.Actor, g.Mode, p, t, &run)
	var inel *gardener.IneligibleError
	if errors.As(err, &inel) {
		g.Reason = inel.Reason
		s.d.Log.Info("not eligible", "run", run.ID, "test", t.ID, "reason", inel.Reason)
		return g, nil
	}
	if err != nil {
		return g, err
	}
	g.Eligible = true
	s.d.Log.Info("eligible", "run", run.ID, "test", t.ID, "mode", g.Mode, "manual", g.By != "")
	return g, nil
}

// Stopped is the error that stopped a ladder whose rungs ran apart (a state machine's Catch).
type Stopped struct {
	Error string `json:"Error"`
	Cause string `json:"Cause"`
}

// Conclude ends a repair whose rungs ran apart and none of which holds a green proof: the
// outcome is concluded from the facts of every rung that ran, by the rule the ladder in one
// process concludes with (gardener.Conclude), so both paths say the same. A test that passes is
// nothing to repair and files nothing, nor does a climb with no green run to compare with whose
// only ground is that missing comparison (gardener.FilesTriage); otherwise one triage issue,
// with every rung's attempts, is filed. Nothing is written to the test.
func (s *Service) Conclude(ctx context.Context, g Admission, rungs []tend.Decision, stopped *Stopped) (tend.Decision, tend.Persisted, error) {
	dec := tend.Decision{ProjectID: g.ProjectID, TestID: g.TestID, RunID: g.RunID, Mode: g.Mode, ModeFrom: g.ModeFrom, By: g.By, Actor: g.Actor}
	issue := gardener.TriageIssue{ProjectID: g.ProjectID, TestID: g.TestID, RunID: g.RunID, Classification: gardener.Unknown, At: s.now()}
	var facts gardener.ClimbFacts
	for _, r := range rungs {
		if tr := r.Triage; tr != nil {
			issue.Attempts = append(issue.Attempts, tr.Attempts...)
			issue.Evidence = append(issue.Evidence, tr.Evidence...)
			if tr.Classification != gardener.Unknown && tr.Classification != "" {
				issue.Classification = tr.Classification
			}
			issue.FailedStep, issue.Error = tr.FailedStep, tr.Error
		}
		facts = facts.Add(r.Facts)
		dec.Refusals = append(dec.Refusals, r.Refusals...)
		dec.Usage = dec.Usage.Add(r.Usage)
	}
	if stopped != nil {
		issue.Evidence = append(issue.Evidence, fmt.Sprintf("the ladder stopped on %s: %s", stopped.Error, stopped.Cause))
		facts.Stopped = stopped.Error
	}
	dec.Facts = facts
	dec.Outcome, dec.Reason = gardener.Conclude(facts)
	if gardener.FilesTriage(facts) {
		issue.ID = gardener.TriageID(g.RunID, g.TestID, issue.At)
		dec.Triage = &issue
	}
	out, err := s.persister().Persist(ctx, dec)
	return dec, out, err
}

// Persist writes a green rung's decision: it trusts no payload — the stored proof of exactly
// these ops is checked and the lifecycle screens them again.
func (s *Service) Persist(ctx context.Context, dec tend.Decision) (tend.Persisted, error) {
	return s.persister().Persist(ctx, dec)
}

// persister writes decisions; it needs no browser and no model.
func (s *Service) persister() *tend.Tender {
	return &tend.Tender{Store: s.d.Store, Life: s.life, Log: s.d.Log, Now: s.d.Now}
}
