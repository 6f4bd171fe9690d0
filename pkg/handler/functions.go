package handler

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// Services are what the functions are built from: AWS's adapters in Lambda (pkg/cloud reads them
// from the environment), the local stack's stand-ins on one machine. Each function takes only
// the ones its dependencies name, and its constructor refuses one that is missing.
type Services struct {
	Store    gardener.Store
	Runner   gardener.Runner
	Models   ModelFor
	Notifier Notifier
	Events   Publisher
	Starter  Starter
	// History reads a state machine execution's history: set in Lambda, where each task
	// invocation of a repair adds what it used to the execution's cost (Task); the local stack
	// meters its executions itself.
	History ExecutionHistory
	// RepairMachine is the repair state machine the API starts for the manual ladder.
	RepairMachine string
	// ConsoleAuth signs people in to the review console the API serves; nil serves no console.
	ConsoleAuth *console.Auth
	// BaseURLs maps a project to the base URL its tests replay against; empty uses the
	// project's first allowed origin.
	BaseURLs map[string]string
	// StepTimeout is the default time limit of a replayed step.
	StepTimeout time.Duration
	// Reach asks whether a project's app answers at its base URL (browser.Reach) before the
	// API replays against it or starts a manual repair: an app that is down is the request's
	// answer (502), and nothing is recorded or started. Nil asks nothing (scripted runners).
	Reach func(ctx context.Context, base string) error
	// Plan is the deployment's plan: the one a project the API creates is on, and the only
	// one a project's members may send (the operator sets it: the template's Plan parameter,
	// PLAN in the API function's environment; gardener serve --plan). Empty is pro.
	Plan gardener.Plan
	// EventPoll is how often the API's stream of an execution's events reads again; zero is a
	// second.
	EventPoll time.Duration
	Log       *slog.Logger
	Now       func() time.Time
}

// The dependencies of each kind of function, taken from the services.
func (s Services) base() Base         { return Base{Log: s.Log, Now: s.Now} }
func (s Services) store() StoreDeps   { return StoreDeps{Base: s.base(), Store: s.Store} }
func (s Services) notify() NotifyDeps { return NotifyDeps{Base: s.base(), Notifier: s.Notifier} }
func (s Services) radar() RadarDeps {
	return RadarDeps{ReplayDeps: s.replay(), Events: s.Events}
}
func (s Services) replay() ReplayDeps {
	return ReplayDeps{StoreDeps: s.store(), Runner: s.Runner, Models: s.Models, BaseURLs: s.BaseURLs, StepTimeout: s.StepTimeout}
}
func (s Services) report() SuiteReportDeps { return SuiteReportDeps{Base: s.base(), Events: s.Events} }
func (s Services) api() APIDeps {
	return APIDeps{StoreDeps: s.store(), Models: s.Models, Notifier: s.Notifier, Starter: s.Starter, RepairMachine: s.RepairMachine,
		ConsoleAuth: s.ConsoleAuth, EventPoll: s.EventPoll, Runner: s.Runner, BaseURLs: s.BaseURLs, StepTimeout: s.StepTimeout, Plan: s.Plan, Reach: s.Reach}
}

// Function is one Lambda of template.yaml: its logical id, the directory of its main package
// under functions/, whether it runs in the Chromium image (the Dockerfile builds it) or as a zip,
// and how its handler is built.
type Function struct {
	ID    string
	Dir   string
	Image bool
	build func(Services) (any, error)
}

// Build builds the function's handler from the services: a func aws-lambda-go's lambda.Start
// takes, or for the API an *API, which is a lambda.Handler and an http.Handler.
func (f Function) Build(s Services) (any, error) {
	h, err := f.build(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.ID, err)
	}
	return h, nil
}

// typed adapts a constructor to Function's build.
func typed[D, H any](deps func(Services) D, build func(D) (H, error)) func(Services) (any, error) {
	return func(s Services) (any, error) { return build(deps(s)) }
}

// rung adapts NewRung to one rung.
func rung(r gardener.Strategy) func(ReplayDeps) (func(context.Context, Gate) (RungResult, error), error) {
	return func(d ReplayDeps) (func(context.Context, Gate) (RungResult, error), error) { return NewRung(r, d) }
}

// The functions of template.yaml, each named after its logical id there; functions/<Dir>/main.go
// starts it through pkg/cloud.
var (
	EligibilityFunction    = Function{ID: "EligibilityFunction", Dir: "eligibility", build: typed(Services.store, NewEligibility)}
	SelfHealFunction       = Function{ID: "SelfHealFunction", Dir: "selfheal", Image: true, build: typed(Services.replay, rung(gardener.StrategySelfHeal))}
	SuggestFixFunction     = Function{ID: "SuggestFixFunction", Dir: "suggestfix", Image: true, build: typed(Services.replay, rung(gardener.StrategySuggestFix))}
	DiagnoseFunction       = Function{ID: "DiagnoseFunction", Dir: "diagnose", Image: true, build: typed(Services.replay, rung(gardener.StrategyDiagnose))}
	PersistFunction        = Function{ID: "PersistFunction", Dir: "persist", build: typed(Services.store, NewPersist)}
	PropagateFunction      = Function{ID: "PropagateFunction", Dir: "propagate", Image: true, build: typed(Services.replay, NewPropagate)}
	TriageFunction         = Function{ID: "TriageFunction", Dir: "triage", build: typed(Services.store, NewTriage)}
	NotifyFunction         = Function{ID: "NotifyFunction", Dir: "notify", build: typed(Services.notify, NewNotify)}
	RadarFunction          = Function{ID: "RadarFunction", Dir: "radar", Image: true, build: typed(Services.radar, NewRadar)}
	DryRunFunction         = Function{ID: "DryRunFunction", Dir: "dryrun", Image: true, build: typed(Services.replay, NewDryRun)}
	ProposeFunction        = Function{ID: "ProposeFunction", Dir: "propose", Image: true, build: typed(Services.replay, NewPropose)}
	StagingSelectFunction  = Function{ID: "StagingSelectFunction", Dir: "stagingselect", build: typed(Services.store, NewStagingSelect)}
	StagingSummaryFunction = Function{ID: "StagingSummaryFunction", Dir: "stagingsummary", build: typed(Services.store, NewStagingSummary)}
	ApiFunction            = Function{ID: "ApiFunction", Dir: "api", build: typed(Services.api, NewAPI)}
	SuitePlanFunction      = Function{ID: "SuitePlanFunction", Dir: "suiteplan", build: typed(Services.replay, NewSuitePlan)}
	SuiteRunFunction       = Function{ID: "SuiteRunFunction", Dir: "suiterun", Image: true, build: typed(Services.replay, NewSuiteRun)}
	SuiteReportFunction    = Function{ID: "SuiteReportFunction", Dir: "suitereport", build: typed(Services.report, NewSuiteReport)}
)

// Functions are all the functions of template.yaml; a test keeps the list equal to the
// template's functions, the directories under functions/ and the Dockerfile's loop.
var Functions = []Function{
	EligibilityFunction, SelfHealFunction, SuggestFixFunction, DiagnoseFunction, PersistFunction,
	PropagateFunction, TriageFunction, NotifyFunction, RadarFunction, DryRunFunction,
	ProposeFunction, StagingSelectFunction, StagingSummaryFunction, ApiFunction,
	SuitePlanFunction, SuiteRunFunction, SuiteReportFunction,
}
