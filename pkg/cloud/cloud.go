// Package cloud builds a function from its Lambda's environment and starts it: the DynamoDB
// store, the browser, the models, the SNS topic, the event bus and the state machines become
// the handler.Services the function's constructor takes, the same constructor the local stack
// builds the function with. functions/*/main.go call Start.
//
// Environment: TABLE_NAME (required), DYNAMODB_ENDPOINT (optional, a local DynamoDB),
// MODEL_REGION, BEDROCK_MODEL_ID (the one Bedrock model a project may name: the template's
// ModelId), PLAN (free or pro: the template's Plan, the plan of the projects the API creates),
// TOPIC_ARN, EVENT_BUS_NAME, REPAIR_STATE_MACHINE_ARN, STEP_TIMEOUT (a Go duration),
// AWS_LAMBDA_FUNCTION_MEMORY_SIZE (Lambda sets it; the memory an invocation's cost is billed at),
// CHROME_PATH and CHROME_SINGLE_PROCESS for the browser, and CONSOLE_URL, CONSOLE_SESSION_KEY,
// CONSOLE_ISSUER and CONSOLE_CLIENT_ID for the review console.
package cloud

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/dynamo"
	"github.com/driftgardener/gardener/pkg/eventbridge"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/sfn"
	"github.com/driftgardener/gardener/pkg/sns"
)

// Start builds fn from the environment and serves it. A function that cannot be built stops its
// cold start with the reason in the log, rather than failing on its first event.
func Start(fn handler.Function) {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	slog.SetDefault(log)
	h, err := Build(context.Background(), fn, log)
	if err != nil {
		log.Error("cold start", "function", fn.ID, "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(h)
}

// variables name the environment variable each optional service is read from, for the error of
// a function built without it.
var variables = map[string]string{
	"Notifier":      "TOPIC_ARN",
	"Events":        "EVENT_BUS_NAME",
	"RepairMachine": "REPAIR_STATE_MACHINE_ARN",
}

// Build builds fn's handler from the environment. A dependency fn needs whose variable is not
// set is an error naming the variable.
func Build(ctx context.Context, fn handler.Function, log *slog.Logger) (any, error) {
	s, err := Services(ctx, log)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn.ID, err)
	}
	return Handler(fn, s)
}

// Handler builds fn's handler from services s as Services read them: what Build does once the
// services are read. A test that builds a function as its Lambda does calls it, and keeps s to
// close the browser afterwards.
func Handler(fn handler.Function, s handler.Services) (any, error) {
	if !fn.Image {
		// A zip function has no Chromium: a route that would replay (the API's run now)
		// answers that it cannot here, rather than failing to start a browser.
		s.Runner = nil
	}
	h, err := fn.Build(s)
	if _, api := h.(*handler.API); err == nil && !api {
		// Each task invocation of a repair adds what it used to its execution's cost: only
		// the invocation can measure it here.
		h = handler.Task(handler.JSONHandler(h), s, Billing(fn))
	}
	var missing *handler.MissingError
	if errors.As(err, &missing) {
		var unset []string
		for _, m := range missing.Missing {
			if v, ok := variables[m]; ok {
				unset = append(unset, v)
			}
		}
		if len(unset) > 0 {
			err = fmt.Errorf("%w: the environment variable %s is not set", err, strings.Join(unset, ", "))
		}
	}
	return h, err
}

// Billing is how Lambda bills fn's invocations here: at the memory Lambda gives the function
// (AWS_LAMBDA_FUNCTION_MEMORY_SIZE, which it sets from the template's MemorySize) and the
// architecture this binary was built for.
func Billing(fn handler.Function) handler.Billing {
	mb, _ := strconv.Atoi(os.Getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE"))
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x86_64" // Lambda's name for it
	}
	return handler.Billing{Function: fn.ID, Architecture: arch, MemoryMB: mb}
}

// Services reads the services from the environment: the store (TABLE_NAME is required), the
// models, the browser (started on its first replay, so a function that replays nothing never
// starts it), the state machines, and each service whose variable is set.
func Services(ctx context.Context, log *slog.Logger) (handler.Services, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return handler.Services{}, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	table := os.Getenv("TABLE_NAME")
	if table == "" {
		return handler.Services{}, errors.New("the environment variable TABLE_NAME is not set")
	}
	machines := sfn.New(cfg)
	s := handler.Services{Log: log, RepairMachine: os.Getenv("REPAIR_STATE_MACHINE_ARN"), Starter: machines, History: machines}
	dbCfg := cfg.Copy()
	if ep := os.Getenv("DYNAMODB_ENDPOINT"); ep != "" {
		dbCfg.BaseEndpoint = aws.String(ep)
	}
	s.Store = dynamo.New(dynamodb.NewFromConfig(dbCfg), table)
	models := modelspec.Options{Region: os.Getenv("MODEL_REGION"), AllowedFrom: "ModelId (BEDROCK_MODEL_ID)"}
	if id := os.Getenv("BEDROCK_MODEL_ID"); id != "" {
		// The functions' IAM policy allows this one model: a setting naming another would
		// fail only when a repair first calls it, so it is refused when it is saved.
		models.Allowed = []string{id}
	}
	s.Models = func(ctx context.Context, spec string) (gardener.Model, error) {
		return modelspec.Open(ctx, spec, models)
	}
	s.Plan = gardener.Plan(os.Getenv("PLAN"))
	if s.Plan != "" && !gardening.KnownPlan(s.Plan) {
		return s, fmt.Errorf("PLAN %q: give free or pro", s.Plan)
	}
	if v := os.Getenv("STEP_TIMEOUT"); v != "" {
		if s.StepTimeout, err = time.ParseDuration(v); err != nil {
			return s, fmt.Errorf("STEP_TIMEOUT %q: %w", v, err)
		}
	}
	// One browser per container, started on first use and kept while the container is warm.
	s.Runner = browser.New(browser.Options{SingleProcess: os.Getenv("CHROME_SINGLE_PROCESS") == "1", StepTimeout: s.StepTimeout})
	// The API asks whether a project's app answers before it starts a manual repair, as every
	// door does: an app that is down is the request's 502, not a ladder that triages the network.
	s.Reach = browser.Reach
	if arn := os.Getenv("TOPIC_ARN"); arn != "" {
		if s.Notifier, err = sns.New(cfg, arn); err != nil {
			return s, err
		}
	}
	if bus := os.Getenv("EVENT_BUS_NAME"); bus != "" {
		if s.Events, err = eventbridge.New(cfg, bus); err != nil {
			return s, err
		}
	}
	if base, key := os.Getenv("CONSOLE_URL"), os.Getenv("CONSOLE_SESSION_KEY"); base != "" && key != "" {
		// The console signs people in with the identity provider whose JWTs the API accepts.
		oidc := &console.OIDC{Issuer: os.Getenv("CONSOLE_ISSUER"), ClientID: os.Getenv("CONSOLE_CLIENT_ID"),
			RedirectURL: strings.TrimSuffix(base, "/") + console.Prefix + "/callback"}
		if s.ConsoleAuth, err = console.NewAuth([]byte(key), true, oidc); err != nil {
			return s, fmt.Errorf("CONSOLE_SESSION_KEY: %w", err)
		}
	}
	return s, nil
}
