// Package cloud builds the handlers' dependencies from a Lambda's environment: the DynamoDB
// store, the browser for the Chromium functions, the models, the SNS topic, the event bus and
// the state machines. functions/*/main.go call Load and start one handler.
//
// Environment: TABLE_NAME (required), DYNAMODB_ENDPOINT (optional, a local DynamoDB),
// MODEL_REGION, TOPIC_ARN, EVENT_BUS_NAME, REPAIR_STATE_MACHINE_ARN, RADAR_PROJECTS (comma
// separated, the projects the scheduled radar sweeps), STEP_TIMEOUT (a Go duration),
// CHROME_PATH and CHROME_SINGLE_PROCESS for the browser.
package cloud

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/dynamo"
	"github.com/driftgardener/gardener/pkg/eventbridge"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/sfn"
	"github.com/driftgardener/gardener/pkg/sns"
)

// Needs says which dependencies a function uses beyond the store.
type Needs struct {
	Browser  bool
	Notifier bool
	Events   bool
	Starter  bool
}

// Load builds the dependencies a function needs from its environment. A missing variable the
// function needs is an error naming it: a misconfigured function fails at its first cold start,
// not on its first event.
func Load(ctx context.Context, need Needs) (handler.Deps, error) {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	slog.SetDefault(log)
	env := func(name string) (string, error) {
		v := os.Getenv(name)
		if v == "" {
			return "", fmt.Errorf("the environment variable %s is not set", name)
		}
		return v, nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return handler.Deps{}, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	table, err := env("TABLE_NAME")
	if err != nil {
		return handler.Deps{}, err
	}
	dbCfg := cfg.Copy()
	if ep := os.Getenv("DYNAMODB_ENDPOINT"); ep != "" {
		dbCfg.BaseEndpoint = aws.String(ep)
	}
	d := handler.Deps{Store: dynamo.New(dynamodb.NewFromConfig(dbCfg), table), Log: log}
	modelRegion := os.Getenv("MODEL_REGION")
	d.Models = func(ctx context.Context, spec string) (gardener.Model, error) {
		return modelspec.Open(ctx, spec, modelspec.Options{Region: modelRegion})
	}
	if s := os.Getenv("STEP_TIMEOUT"); s != "" {
		if d.StepTimeout, err = time.ParseDuration(s); err != nil {
			return d, fmt.Errorf("STEP_TIMEOUT %q: %w", s, err)
		}
	}
	if need.Browser {
		// One browser per container, started on first use and kept while the container is warm.
		d.Runner = browser.New(browser.Options{SingleProcess: os.Getenv("CHROME_SINGLE_PROCESS") == "1", StepTimeout: d.StepTimeout})
	}
	if need.Notifier {
		arn, err := env("TOPIC_ARN")
		if err != nil {
			return d, err
		}
		if d.Notifier, err = sns.New(cfg, arn); err != nil {
			return d, err
		}
	}
	if need.Events {
		bus, err := env("EVENT_BUS_NAME")
		if err != nil {
			return d, err
		}
		if d.Events, err = eventbridge.New(cfg, bus); err != nil {
			return d, err
		}
	}
	if need.Starter {
		if d.RepairMachine, err = env("REPAIR_STATE_MACHINE_ARN"); err != nil {
			return d, err
		}
		d.Starter = sfn.New(cfg)
	}
	return d, nil
}

// RadarProjects are the projects the scheduled radar sweeps.
func RadarProjects() []string {
	var out []string
	for _, p := range strings.Split(os.Getenv("RADAR_PROJECTS"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Must stops a cold start that cannot build its dependencies, with the reason in the log.
func Must(d handler.Deps, err error) handler.Deps {
	if err != nil {
		slog.Error("cold start", "error", err.Error())
		os.Exit(1)
	}
	return d
}
