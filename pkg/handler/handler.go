// Package handler holds the Lambda handlers of Drift Gardener: each translates its event into
// calls on the domain services and maps domain errors to results. The functions/*/main.go files
// only build a Deps and start one handler; the local stack calls the very same handlers through
// aws-lambda-go's handler wrapper, so a payload makes the same JSON round trip on one machine as
// in AWS.
package handler

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/tend"
)

// Notifier publishes an auto-repair event to people (an SNS topic in AWS).
type Notifier interface {
	Publish(ctx context.Context, subject string, message any) error
}

// Publisher puts an event on the bus (EventBridge in AWS).
type Publisher interface {
	PutEvent(ctx context.Context, detailType string, detail any) error
}

// Starter starts a state machine execution (Step Functions in AWS) and reads its status.
type Starter interface {
	// Start starts machine with input under name; a second start with the same name and input
	// returns the same execution, as Step Functions does.
	Start(ctx context.Context, machine, name string, input any) (executionID string, err error)
	// Describe returns an execution's status (RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED)
	// and, once it ended, its output.
	Describe(ctx context.Context, executionID string) (status, output string, err error)
}

// Execution is what a caller can read of a running or finished execution.
type Execution struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Output json.RawMessage `json:"output,omitempty"`
}

// ModelFor opens the model a project's setting names.
type ModelFor func(ctx context.Context, spec string) (gardener.Model, error)

// Deps is what the handlers need; a function fills only what its handler uses (a zip function
// has no Runner).
type Deps struct {
	Store    gardener.Store
	Runner   gardener.Runner
	Models   ModelFor
	Notifier Notifier
	Events   Publisher
	Starter  Starter
	// RepairMachine is the repair state machine the API starts for the manual ladder.
	RepairMachine string
	// BaseURLs maps a project to the base URL its tests replay against; empty uses the
	// project's first allowed origin.
	BaseURLs map[string]string
	// StepTimeout is the default time limit of a replayed step.
	StepTimeout time.Duration
	Log         *slog.Logger
	Now         func() time.Time
}

func (d Deps) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d Deps) log() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.Default()
}

func (d Deps) life() *lifecycle.Service { return lifecycle.New(d.Store, d.Now) }

// tender builds a tender around the project's model.
func (d Deps) tender(ctx context.Context, p gardener.Project, progress func(ladder.Event)) (*tend.Tender, error) {
	model, err := d.Models(ctx, p.Model)
	if err != nil {
		return nil, err
	}
	lad := &ladder.Ladder{Runner: d.Runner, Model: model, Progress: progress, Now: d.Now}
	return &tend.Tender{Store: d.Store, Life: d.life(), Ladder: lad, Log: d.log(), Now: d.Now}, nil
}

// persister writes decisions; it needs no browser and no model.
func (d Deps) persister() *tend.Tender {
	return &tend.Tender{Store: d.Store, Life: d.life(), Log: d.log(), Now: d.Now}
}

// replayOptions are the options a project's tests replay with.
func (d Deps) replayOptions(p gardener.Project) gardener.ReplayOptions {
	base := d.BaseURLs[p.ID]
	if base == "" && len(p.AllowedOrigins) > 0 {
		base = p.AllowedOrigins[0]
	}
	return gardener.ReplayOptions{BaseURL: base, AllowedOrigins: p.AllowedOrigins, StepTimeout: d.StepTimeout}
}
