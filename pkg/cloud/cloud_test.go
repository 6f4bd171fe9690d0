package cloud_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

// environment is a function's full environment as template.yaml gives it.
var environment = map[string]string{
	"AWS_REGION":               "us-east-1",
	"AWS_ACCESS_KEY_ID":        "test",
	"AWS_SECRET_ACCESS_KEY":    "test",
	"TABLE_NAME":               "gardener",
	"MODEL_REGION":             "us-east-1",
	"TOPIC_ARN":                "arn:aws:sns:us-east-1:000000000000:auto-repair",
	"EVENT_BUS_NAME":           "gardener-bus",
	"REPAIR_STATE_MACHINE_ARN": "arn:aws:states:us-east-1:000000000000:stateMachine:RepairStateMachine",
	"STEP_TIMEOUT":             "5s",
	"BEDROCK_MODEL_ID":         "anthropic.claude-3-5-sonnet-20240620-v1:0",
	"PLAN":                     "pro",
}

func setenv(t *testing.T, without ...string) {
	t.Helper()
	for k, v := range environment {
		t.Setenv(k, v)
	}
	for _, k := range without {
		t.Setenv(k, "")
	}
}

// TestEveryFunctionBuildsFromItsEnvironment: with the template's environment every function
// builds, without connecting to anything.
func TestEveryFunctionBuildsFromItsEnvironment(t *testing.T) {
	setenv(t)
	for _, f := range handler.Functions {
		if _, err := cloud.Build(context.Background(), f, slog.New(slog.DiscardHandler)); err != nil {
			t.Errorf("%s: %v", f.ID, err)
		}
	}
	s, err := cloud.Services(context.Background(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if s.StepTimeout.String() != "5s" {
		t.Errorf("STEP_TIMEOUT read as %s", s.StepTimeout)
	}
}

// TestMissingVariableIsNamed: a function whose environment lacks a variable it needs fails its
// cold start with an error naming the function and the variable; one that does not need it
// builds.
func TestMissingVariableIsNamed(t *testing.T) {
	cases := []struct {
		unset    string
		function handler.Function
		want     string // "" builds
	}{
		{"TABLE_NAME", handler.PersistFunction, "TABLE_NAME"},
		{"TOPIC_ARN", handler.NotifyFunction, "TOPIC_ARN"},
		{"TOPIC_ARN", handler.ApiFunction, "TOPIC_ARN"},
		{"REPAIR_STATE_MACHINE_ARN", handler.ApiFunction, "REPAIR_STATE_MACHINE_ARN"},
		{"EVENT_BUS_NAME", handler.RadarFunction, "EVENT_BUS_NAME"},
		{"TOPIC_ARN", handler.PersistFunction, ""},
		{"EVENT_BUS_NAME", handler.SelfHealFunction, ""},
		{"REPAIR_STATE_MACHINE_ARN", handler.TriageFunction, ""},
	}
	for _, c := range cases {
		t.Run(c.function.ID+"/"+c.unset, func(t *testing.T) {
			setenv(t, c.unset)
			_, err := cloud.Build(context.Background(), c.function, slog.New(slog.DiscardHandler))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("%s does not need %s but was refused: %v", c.function.ID, c.unset, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.function.ID)):
				t.Fatalf("%s without %s: %v; want an error naming both", c.function.ID, c.unset, err)
			}
		})
	}
}

// TestDeploymentSettingsFromTheEnvironment: the plan and the one Bedrock model the template
// gives the functions (PLAN, BEDROCK_MODEL_ID) are read at cold start: a model setting naming
// another Bedrock model is refused naming the setting and the allowed model, and a plan that is
// neither free nor pro fails the cold start naming PLAN.
func TestDeploymentSettingsFromTheEnvironment(t *testing.T) {
	setenv(t)
	t.Setenv("PLAN", "free")
	t.Setenv("BEDROCK_MODEL_ID", "anthropic.allowed-v1")
	s, err := cloud.Services(context.Background(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if s.Plan != gardener.PlanFree {
		t.Errorf("PLAN read as %q", s.Plan)
	}
	if _, err := s.Models(context.Background(), "bedrock:anthropic.allowed-v1"); err != nil {
		t.Errorf("the allowed model: %v", err)
	}
	_, err = s.Models(context.Background(), "bedrock:anthropic.other-v9")
	var refused *modelspec.NotAllowedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "ModelId (BEDROCK_MODEL_ID)") || !strings.Contains(err.Error(), "anthropic.allowed-v1") {
		t.Errorf("another Bedrock model: %v; want a refusal naming the setting and the allowed model", err)
	}
	t.Setenv("PLAN", "gold")
	if _, err := cloud.Services(context.Background(), slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "PLAN") {
		t.Errorf("PLAN=gold: %v; want a cold-start error naming PLAN", err)
	}
}
