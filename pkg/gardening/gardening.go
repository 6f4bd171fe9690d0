// Package gardening is the application layer: each use case a door offers — the HTTP API (in
// Lambda and on one machine), the review console, MCP, the CLI and the state machines' task
// handlers — decided once, over the domain (pkg/gardener) and its services (lifecycle, tend,
// radar, workspace). A door decodes its request, calls one method of Service with who is asking,
// and encodes the answer; it decides nothing itself, so the same request answers alike through
// every door.
package gardening

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// Notifier sends a repair event to people (SNS in AWS).
type Notifier interface {
	Publish(ctx context.Context, subject string, message any) error
}

// Starter starts and reads executions of a state machine (Step Functions in AWS, the in-process
// interpreter on one machine).
type Starter interface {
	// Start starts machine with input under name; a second start with the same name and input
	// returns the same execution, as Step Functions does.
	Start(ctx context.Context, machine, name string, input any) (executionID string, err error)
	// Describe returns an execution's status (RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED)
	// and, once it ended, its output.
	Describe(ctx context.Context, executionID string) (status, output string, err error)
}

// ModelFor opens the model a project's setting names.
type ModelFor func(ctx context.Context, spec string) (gardener.Model, error)

// Deps are what the service is built from, once per process.
type Deps struct {
	Store gardener.Store
	// Notifier carries repair events to people; a revert and every persisted repair are
	// announced on it.
	Notifier Notifier
	// Models opens a project's model; a model setting is checked by opening it.
	Models ModelFor
	// Starter and RepairMachine start the repair state machine for a manual repair; a process
	// that repairs in place (the CLI, MCP on this machine) has neither.
	Starter       Starter
	RepairMachine string
	// Plan is the deployment's plan: a project created here is on it, and a project's members
	// cannot choose another (PlanError). Empty is pro.
	Plan gardener.Plan
	// Reach asks whether the app at a base URL answers (browser.Reach connects as the replays
	// do), before a use case replays against it or starts a repair machine that will: an app
	// that is not there is a *gardener.UnreachableError, and nothing is replayed, recorded or
	// started (see CheckReach). Nil asks nothing: a process whose replays are scripted.
	Reach func(ctx context.Context, base string) error
	// BaseURLs maps a project to the base URL its tests replay against where the operator named
	// one (gardener serve's demo app); a project it does not name replays against its first
	// allowed origin. A manual repair started here checks that its app answers there.
	BaseURLs map[string]string
	Now      func() time.Time
	Log      *slog.Logger
}

// Service is the application layer over one store. Build it with New.
type Service struct {
	d    Deps
	life *lifecycle.Service
}

// MissingError is a service built without a dependency it needs: the process fails at start,
// not at its first request.
type MissingError struct{ Missing []string }

func (e *MissingError) Error() string {
	return "gardening: missing dependencies: " + strings.Join(e.Missing, ", ")
}

// New builds the service. Store is required; a use case whose dependency is absent answers
// with an error naming it (ErrUnavailable).
func New(d Deps) (*Service, error) {
	if d.Store == nil {
		return nil, &MissingError{Missing: []string{"Store"}}
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d, life: lifecycle.New(d.Store, d.Now)}, nil
}

// ErrUnavailable is a use case this process was not built to serve (a manual repair through
// the state machine in a process without one).
var ErrUnavailable = errors.New("not available in this process")

// Who is who asks: the id recorded on what they write, and what kind of actor they are (a
// person, an agent through MCP, or the gardeners' schedule).
type Who struct {
	ID    string
	Actor gardener.Actor
}

// Person is a person's Who.
func Person(id string) Who { return Who{ID: id, Actor: gardener.ActorPerson} }

// Agent is an MCP client's Who.
func Agent(id string) Who { return Who{ID: id, Actor: gardener.ActorAgent} }

func (s *Service) now() time.Time { return s.d.Now().UTC() }

// CheckReach is the one rule for an app that is down, on every door: a use case that replays a
// test against base (RunNow, RepairHere) or starts the repair machine that will (StartRepair)
// asks first, and an app that could not be reached answers *gardener.UnreachableError
// (ClassUnreachable) with nothing replayed, recorded, repaired or triaged — the failure is the
// network's, and a test that never ran was not judged. A door that writes something of its own
// before calling the use case (the CLI syncs a test file into its state) asks the same Reach
// before that write too. A service built without Reach asks nothing.
func (s *Service) CheckReach(ctx context.Context, base string) error {
	if s.d.Reach == nil {
		return nil
	}
	err := s.d.Reach(ctx, base)
	var down *gardener.UnreachableError
	if errors.As(err, &down) {
		s.d.Log.Info("app unreachable: nothing replayed or recorded", "url", base, "error", down.Err.Error())
	}
	return err
}
