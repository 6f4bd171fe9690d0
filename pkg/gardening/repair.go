package gardening

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// RunFailed is the detail of a "Run Failed" event the platform puts on the bus.
type RunFailed struct {
	RunID       string               `json:"runId"`
	ProjectID   string               `json:"projectId"`
	TestID      string               `json:"testId"`
	TestVersion int                  `json:"testVersion"`
	Trigger     gardener.TriggerKind `json:"trigger"`
	Control     bool                 `json:"control,omitempty"`
	Probe       bool                 `json:"probe,omitempty"`
}

// RepairInput is the repair state machine's input: an EventBridge event, or a manual request
// (Manual set) shaped the same way.
type RepairInput struct {
	Detail RunFailed `json:"detail"`
	Manual *Manual   `json:"manual,omitempty"`
}

// Manual is a person or an agent asking for the ladder on a failed run.
type Manual struct {
	By string `json:"by"`
	// Actor is who By is; empty is a person.
	Actor gardener.Actor      `json:"actor,omitempty"`
	Rungs []gardener.Strategy `json:"rungs,omitempty"`
	// Propose stages a proven fix for review even in an auto-repair project (an MCP client's
	// suggest_fix): the ladder proposes and writes nothing to the test.
	Propose bool `json:"propose,omitempty"`
	// Execution is the name the execution was started under: every function of it appends
	// its events to that name's log, which whoever follows the execution reads.
	Execution string `json:"execution,omitempty"`
}

// Who is who the manual request is for.
func (m Manual) Who() Who {
	if m.Actor == "" {
		return Person(m.By)
	}
	return Who{ID: m.By, Actor: m.Actor}
}

// ModeOf is the mode a repair runs in for who, and what set it (gardener.ModeOf): the
// project's (apply with auto-repair on, propose without), unless the request asks to propose;
// an agent's suggestion always proposes.
func ModeOf(p gardener.Project, who Who, propose bool) (gardener.Mode, gardener.ModeFrom) {
	return gardener.ModeOf(p.AutoRepair, propose, who.Actor)
}

// RepairRequest asks for the ladder by hand: on a failed run, or on a test's current version
// (no run: one is recorded and the ladder reproduces the failure itself). Rungs restricts the
// ladder; empty is the whole ladder.
type RepairRequest struct {
	RunID   string
	TestID  string
	Rungs   []gardener.Strategy
	Propose bool
}

// BadRequestError is a request that names something it cannot: a rung that is not one.
type BadRequestError struct{ Reason string }

func (e *BadRequestError) Error() string { return e.Reason }

// IsRung says whether r names a rung of the ladder a request may ask for.
func IsRung(r gardener.Strategy) bool {
	return r == gardener.StrategySelfHeal || r == gardener.StrategySuggestFix || r == gardener.StrategyDiagnose
}

// NotARung is the refusal of a name that is not a rung of the ladder, in the words every door
// gives it (the API's and MCP's rungs, the console's repair form).
func NotARung(name string) string {
	return fmt.Sprintf("%q is not a rung (self-heal, suggest-fix, diagnose-drift)", name)
}

// CheckRungs refuses a request naming something that is not a rung of the ladder.
func CheckRungs(rungs []gardener.Strategy) error {
	for _, r := range rungs {
		if !IsRung(r) {
			return &BadRequestError{Reason: "manual repair: " + NotARung(string(r))}
		}
	}
	return nil
}

// Target is what a manual repair acts on, resolved and gated.
type Target struct {
	Project gardener.Project
	Test    gardener.Test
	// Run is the failed run; nil when the request named only the test and none is recorded yet.
	Run *gardener.Run
}

// ResolveTarget finds what a manual request names and asks the manual gate, at the door,
// before anything is started or recorded: a control run, a probe, an archived test, a run of a
// version that is gone, a project not on Pro or without a model are refused here
// (*gardener.IneligibleError) on every door alike. A run named with a test must be that test's
// (else it is answered as unknown: it may be another project's).
func (s *Service) ResolveTarget(ctx context.Context, who Who, req RepairRequest) (Target, error) {
	if err := CheckRungs(req.Rungs); err != nil {
		return Target{}, err
	}
	var tg Target
	if req.RunID != "" {
		run, err := s.d.Store.Run(ctx, req.RunID)
		if err != nil {
			return Target{}, err
		}
		if req.TestID != "" && run.TestID != req.TestID {
			return Target{}, &gardener.NotFoundError{Entity: "run", ID: req.RunID}
		}
		tg.Run, req.TestID = &run, run.TestID
	}
	t, err := s.d.Store.Test(ctx, req.TestID)
	if err != nil {
		return Target{}, err
	}
	if tg.Run != nil && tg.Run.ProjectID != "" && tg.Run.ProjectID != t.ProjectID {
		return Target{}, &gardener.NotFoundError{Entity: "run", ID: req.RunID}
	}
	p, err := s.d.Store.Project(ctx, t.ProjectID)
	if err != nil {
		return Target{}, err
	}
	tg.Project, tg.Test = p, t
	mode, _ := ModeOf(p, who, req.Propose)
	if err := gardener.Gate(who.Actor, mode, p, t, tg.Run); err != nil {
		return Target{}, err
	}
	return tg, nil
}

// RecordRun records a run of the target's test when the request named none: a manual repair
// of a test no platform run delivered, which the ladder reproduces itself.
func (s *Service) RecordRun(ctx context.Context, tg *Target) error {
	if tg.Run != nil {
		return nil
	}
	run, err := (&workspace.Service{Store: s.d.Store}).RecordRun(ctx, tg.Test, gardener.TriggerManual, nil)
	if err != nil {
		return err
	}
	tg.Run = &run
	return nil
}

// claimAttempts bounds how often a manual start claims a run again after finding the claim's
// execution ended: each retry means another request superseded it meanwhile.
const claimAttempts = 5

// StartRepair starts the repair state machine for who on what req names, once: a second
// request while who's earlier one still runs answers with that one. The gate is asked first,
// here, so a refusal is the request's answer and nothing is started or recorded.
func (s *Service) StartRepair(ctx context.Context, who Who, req RepairRequest) (string, error) {
	if s.d.Starter == nil || s.d.RepairMachine == "" {
		return "", fmt.Errorf("manual repair: the repair state machine: %w", ErrUnavailable)
	}
	tg, err := s.ResolveTarget(ctx, who, req)
	if err != nil {
		return "", err
	}
	// The machine replays against the project's base URL: an app not there is the request's
	// answer, before a run is recorded or a ladder started that would triage the network.
	if base := tg.Project.ReplayOptions(gardener.ReplayOptions{BaseURL: s.d.BaseURLs[tg.Project.ID]}).BaseURL; base != "" {
		if err := s.CheckReach(ctx, base); err != nil {
			return "", err
		}
	}
	if err := s.RecordRun(ctx, &tg); err != nil {
		return "", err
	}
	run := *tg.Run
	m := Manual{By: who.ID, Actor: who.Actor, Rungs: req.Rungs, Propose: req.Propose}
	if who.Actor == gardener.ActorPerson {
		m.Actor = "" // a person's request reads as it always has
	}
	in := RepairInput{Detail: RunFailed{RunID: run.ID, ProjectID: run.ProjectID, TestID: run.TestID, TestVersion: run.TestVersion, Trigger: run.Trigger, Probe: run.Probe}, Manual: &m}
	return s.startManual(ctx, run, who.ID, in)
}

// startManual starts the manual ladder of run for by, or returns the execution of theirs that
// still runs: a double click, or two API instances serving one person's two requests at once,
// start the ladder once and both answer with it. The store's claim on (run, by) decides the
// winner; the losers find its execution by starting the claim's name and input again, which
// returns the same execution.
func (s *Service) startManual(ctx context.Context, run gardener.Run, by string, in RepairInput) (string, error) {
	supersede := ""
	for range claimAttempts {
		name := gardener.NewExecutionName(run.ID)
		// The input names the execution, so that each of its functions knows the event log to
		// append to; the claim keeps the input, so a loser's restart of it names the same log.
		in.Manual.Execution = name
		input, err := json.Marshal(in)
		if err != nil {
			return "", fmt.Errorf("manual repair of run %s: encode input: %w", run.ID, err)
		}
		claim := gardener.ExecutionClaim{RunID: run.ID, By: by, Name: name, Input: input, At: s.now()}
		held, err := s.d.Store.ClaimExecution(ctx, claim, supersede)
		var lost *gardener.ConflictError
		if err != nil && !errors.As(err, &lost) {
			return "", fmt.Errorf("manual repair of run %s: %w", run.ID, err)
		}
		id, err := s.startClaimed(ctx, run, held)
		if err != nil || lost == nil {
			return id, err
		}
		status, _, err := s.d.Starter.Describe(ctx, id)
		if err != nil {
			return "", fmt.Errorf("manual repair of run %s: status of execution %s: %w", run.ID, id, err)
		}
		if status == "RUNNING" {
			return id, nil
		}
		supersede = held.Name
	}
	return "", &gardener.ConflictError{Entity: "run", ID: run.ID, Reason: fmt.Sprintf("%d manual starts in a row were overtaken by other requests; try again", claimAttempts)}
}

// startClaimed starts the claim's execution, or finds it started (a start of the same name and
// input returns the same execution), and records it: the record is what a read of the execution
// is authorized on, so without it nobody could follow the execution, and a failed write is the
// request's failure. Whoever records it first wins; the record names the same execution.
func (s *Service) startClaimed(ctx context.Context, run gardener.Run, c gardener.ExecutionClaim) (string, error) {
	id, err := s.d.Starter.Start(ctx, s.d.RepairMachine, c.Name, c.Input)
	if err != nil {
		return "", err
	}
	x := gardener.Execution{ID: id, Name: c.Name, ProjectID: run.ProjectID, TestID: run.TestID, RunID: run.ID, By: c.By, At: c.At}
	if err := s.d.Store.PutExecution(ctx, x); err != nil && !errors.Is(err, gardener.ErrConflict) {
		return "", fmt.Errorf("manual repair of run %s: execution %s started but not recorded: %w", run.ID, id, err)
	}
	s.d.Log.Info("manual repair started", "run", run.ID, "test", run.TestID, "execution", id, "by", c.By)
	return id, nil
}

// ExecutionStatus is an execution's status and, once it ended, its output.
func (s *Service) ExecutionStatus(ctx context.Context, id string) (status, output string, err error) {
	if s.d.Starter == nil {
		return "", "", fmt.Errorf("execution %s: %w", id, ErrUnavailable)
	}
	status, output, err = s.d.Starter.Describe(ctx, id)
	if err != nil || output == "" {
		return status, output, err
	}
	output, err = s.expandOutput(ctx, output)
	return status, output, err
}
