// Package handler holds the Lambda handlers of Drift Gardener: each translates its event into
// calls on the domain services and maps domain errors to results. Each function's dependencies
// are a typed struct, and its constructor refuses a missing one, so a wiring mistake fails the
// cold start rather than the first event. Functions lists every function of template.yaml with
// how it is built from the Services; functions/*/main.go (through pkg/cloud) and the local stack
// build them alike, and the local stack calls the very same handlers through aws-lambda-go's
// handler wrapper, so a payload makes the same JSON round trip on one machine as in AWS.
package handler

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/radar"
	"github.com/driftgardener/gardener/pkg/tend"
)

// Notifier publishes an auto-repair event to people (an SNS topic in AWS).
type Notifier = gardening.Notifier

// Publisher puts an event on the bus (EventBridge in AWS).
type Publisher interface {
	PutEvent(ctx context.Context, detailType string, detail any) error
}

// Starter starts a state machine execution (Step Functions in AWS) and reads its status.
type Starter = gardening.Starter

// Execution is what a caller can read of a running or finished execution.
type Execution struct {
	ID string `json:"id"`
	// Status is the state machine's: a repair that triaged (nothing repaired) SUCCEEDED too.
	Status string `json:"status"`
	// Outcome is the repair's: repaired, staged, no-fix, refused, triaged or not-eligible; empty
	// while it is undecided or when the execution failed before deciding.
	Outcome string          `json:"outcome,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
}

// ModelFor opens the model a project's setting names.
type ModelFor = gardening.ModelFor

// MissingError is a handler built without dependencies it needs: the cold start fails on it,
// not the first event.
type MissingError struct {
	Handler string
	Missing []string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("the %s handler is built without %s", e.Handler, strings.Join(e.Missing, ", "))
}

// dep is a dependency by name, and whether it is absent.
type dep struct {
	name   string
	absent bool
}

// need returns a MissingError naming each absent dependency, or nil.
func need(handler string, deps ...dep) error {
	e := &MissingError{Handler: handler}
	for _, d := range deps {
		if d.absent {
			e.Missing = append(e.Missing, d.name)
		}
	}
	if len(e.Missing) > 0 {
		return e
	}
	return nil
}

// built returns h, or nothing when its dependencies are missing.
func built[H any](h H, missing error) (H, error) {
	if missing != nil {
		var none H
		return none, missing
	}
	return h, nil
}

// Base is what every handler has: a logger (slog.Default when nil) and a clock (time.Now when
// nil).
type Base struct {
	Log *slog.Logger
	Now func() time.Time
}

func (b Base) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b Base) log() *slog.Logger {
	if b.Log != nil {
		return b.Log
	}
	return slog.Default()
}

// StoreDeps are the dependencies of the functions that read and write the store and replay
// nothing: eligibility, persist, triage, staging select.
type StoreDeps struct {
	Base
	Store gardener.Store
}

func (d StoreDeps) deps() []dep { return []dep{{"Store", d.Store == nil}} }

func (d StoreDeps) life() *lifecycle.Service { return lifecycle.New(d.Store, d.Now) }

// application builds the application layer a handler calls, once, at its cold start.
func (d StoreDeps) application(handler string) (*gardening.Service, error) {
	if err := need(handler, d.deps()...); err != nil {
		return nil, err
	}
	return gardening.New(gardening.Deps{Store: d.Store, Now: d.Now, Log: d.log()})
}

// ReplayDeps are the dependencies of the functions that replay tests in Chromium: the three
// rungs, propagate, dry-run and propose.
type ReplayDeps struct {
	StoreDeps
	Runner gardener.Runner
	Models ModelFor
	// BaseURLs maps a project to the base URL its tests replay against; empty uses the
	// project's first allowed origin.
	BaseURLs map[string]string
	// StepTimeout is the default time limit of a replayed step.
	StepTimeout time.Duration
}

func (d ReplayDeps) deps() []dep {
	return append(d.StoreDeps.deps(), dep{"Runner", d.Runner == nil}, dep{"Models", d.Models == nil})
}

// tender builds a tender around the project's model.
func (d ReplayDeps) tender(ctx context.Context, p gardener.Project, progress func(ladder.Event)) (*tend.Tender, error) {
	model, err := d.Models(ctx, p.Model)
	if err != nil {
		return nil, err
	}
	lad := &ladder.Ladder{Runner: d.Runner, Model: model, Progress: progress, Now: d.Now}
	return &tend.Tender{Store: d.Store, Life: d.life(), Ladder: lad, Log: d.log(), Now: d.Now}, nil
}

// replayOptions are the options a project's tests replay with (gardener.Project.ReplayOptions).
func (d ReplayDeps) replayOptions(p gardener.Project) gardener.ReplayOptions {
	return p.ReplayOptions(gardener.ReplayOptions{BaseURL: d.BaseURLs[p.ID], StepTimeout: d.StepTimeout})
}

// radarFor builds the radar of a project; the tender is built only when a model is configured,
// since the radar and its at-risk list work without an AI key.
func (d ReplayDeps) radarFor(ctx context.Context, p gardener.Project) (*radar.Radar, error) {
	r := &radar.Radar{Runner: d.Runner, Store: d.Store, Now: d.Now, Log: d.log(), BaseURL: d.BaseURLs[p.ID], StepTimeout: d.StepTimeout}
	if p.Model != "" {
		t, err := d.tender(ctx, p, nil)
		if err != nil {
			return nil, err
		}
		r.Tender = t
	}
	return r, nil
}
