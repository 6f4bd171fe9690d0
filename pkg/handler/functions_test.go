package handler_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

// TestFunctionsRefuseMissingDependencies: built from nothing, each function's constructor names
// the function and every dependency it lacks, so a wiring mistake fails the cold start.
func TestFunctionsRefuseMissingDependencies(t *testing.T) {
	replay := []string{"Store", "Runner", "Models"}
	want := map[string][]string{
		"EligibilityFunction":    {"Store"},
		"PersistFunction":        {"Store"},
		"TriageFunction":         {"Store"},
		"StagingSelectFunction":  {"Store"},
		"SelfHealFunction":       replay,
		"SuggestFixFunction":     replay,
		"DiagnoseFunction":       replay,
		"PropagateFunction":      replay,
		"DryRunFunction":         replay,
		"ProposeFunction":        replay,
		"RadarFunction":          append(slices.Clone(replay), "Events"),
		"NotifyFunction":         {"Notifier"},
		"StagingSummaryFunction": {"Store"},
		"ApiFunction":            {"Store", "Models", "Notifier", "Starter", "RepairMachine"},
		"SuitePlanFunction":      {"Store"},
		"SuiteRunFunction":       {"Store", "Runner"},
		"SuiteReportFunction":    {"Events"},
	}
	if len(want) != len(handler.Functions) {
		t.Fatalf("this test knows %d functions, the table has %d", len(want), len(handler.Functions))
	}
	for _, f := range handler.Functions {
		h, err := f.Build(handler.Services{})
		missing, ok := want[f.ID]
		if !ok {
			t.Errorf("%s is not in this test's table", f.ID)
			continue
		}
		if missing == nil {
			if err != nil || h == nil {
				t.Errorf("%s needs nothing but was refused: %v", f.ID, err)
			}
			continue
		}
		var me *handler.MissingError
		if !errors.As(err, &me) || !slices.Equal(me.Missing, missing) || h != nil {
			t.Errorf("%s built from nothing: %v (handler %v); want it refused for %v", f.ID, err, h, missing)
			continue
		}
		if !strings.Contains(err.Error(), f.ID) {
			t.Errorf("the error %q does not name %s", err, f.ID)
		}
	}
}

// TestFunctionsBuildFromFullServices: given every service, every function builds, and the API is
// an http.Handler serving its route table.
func TestFunctionsBuildFromFullServices(t *testing.T) {
	s := fullServices(t)
	for _, f := range handler.Functions {
		h, err := f.Build(s)
		if err != nil || h == nil {
			t.Errorf("%s: %v", f.ID, err)
		}
		if f.ID == handler.ApiFunction.ID {
			if _, ok := h.(http.Handler); !ok {
				t.Errorf("the API builds a %T, not an http.Handler", h)
			}
		}
	}
}

func fullServices(t *testing.T) handler.Services {
	t.Helper()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	runner := browser.New(browser.Options{})
	t.Cleanup(func() { runner.Close() })
	return handler.Services{
		Store: store, Runner: runner, Notifier: &notes{}, Events: &notes{}, Starter: unstarted{},
		RepairMachine: "arn:aws:states:us-east-1:000000000000:stateMachine:RepairStateMachine",
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		},
	}
}

// notes records what is published or put on the bus.
type notes struct{ subjects []string }

func (n *notes) Publish(_ context.Context, subject string, _ any) error {
	n.subjects = append(n.subjects, subject)
	return nil
}

func (n *notes) PutEvent(_ context.Context, detailType string, _ any) error {
	n.subjects = append(n.subjects, detailType)
	return nil
}

// unstarted is a Step Functions that has no executions.
type unstarted struct{}

func (unstarted) Start(context.Context, string, string, any) (string, error) {
	return "", errors.New("no state machines here")
}

func (unstarted) Describe(_ context.Context, id string) (string, string, error) {
	return "", "", &gardener.NotFoundError{Entity: "execution", ID: id}
}
