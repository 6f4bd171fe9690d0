package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/dynamo"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

// localOptions configure the stack on one machine (serve and demo).
type localOptions struct {
	template         string
	state            string
	dynamodbEndpoint string
	table            string
	region           string
	bedrockEndpoint  string
	stepTimeout      time.Duration
	// plan is the deployment's plan (handler.Services.Plan); empty is pro.
	plan gardener.Plan
	// modelID, when set, is the one Bedrock model a project may choose, as the template's
	// ModelId is in AWS; empty allows any.
	modelID  string
	log      io.Writer
	onNotify func(stack.Message)
	baseURLs map[string]string
	// runner, when set, is the browser the stack replays in, left open when the stack closes;
	// nil launches a Chromium of the stack's own.
	runner *browser.Runner
}

// local is a running local stack with what it was built from.
type local struct {
	*stack.Stack
	store gardener.Store
	close func()
}

// newLocalProject is the project the local state makes for test files it is given (run --record,
// push): on the builtin model, which needs no key and no network, so a repair from any door
// (repair, MCP's suggest_fix) can run on it at once; repair and sweep --model choose another.
var newLocalProject = gardener.Project{Model: builtin.Name}

// templateUsage is the --template flag's help, the same for every command that starts the
// local stack.
const templateUsage = "template.yaml to read the wiring from (default: found from the working directory up, then from the gardener binary's directory up)"

// findTemplate looks for template.yaml from the working directory up, then from the gardener
// binary's own directory up, so the commands work from anywhere inside the repository and from a
// team's own repository with the checkout's bin/gardener; it checks that the template given or
// found is a regular file within the input limit.
func findTemplate(name string) (string, error) {
	if name == "" {
		found, err := lookUpTemplate()
		if err != nil {
			return "", err
		}
		name = found
	}
	f, err := openInput(name, "template", maxInputFile)
	if err != nil {
		return "", err
	}
	f.Close()
	return name, nil
}

func lookUpTemplate() (string, error) {
	var dirs []string
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Dir(exe))
		}
	}
	return templateFrom(dirs...)
}

// templateFrom is the template.yaml nearest above the first of dirs that has one.
func templateFrom(dirs ...string) (string, error) {
	for _, dir := range dirs {
		if p, ok := templateAbove(dir); ok {
			return p, nil
		}
	}
	return "", errors.New("template.yaml not found from the working directory or the gardener binary up: give --template PATH (the file at the root of the gardener checkout)")
}

// templateAbove is the first template.yaml in dir or a directory above it.
func templateAbove(dir string) (string, bool) {
	for {
		p := filepath.Join(dir, "template.yaml")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// openStore is the embedded store in the state directory, or DynamoDB at an endpoint (a local
// DynamoDB, moto_server or dynalite) when one is given.
func openStore(ctx context.Context, o localOptions) (gardener.Store, func(), error) {
	if o.dynamodbEndpoint != "" {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(cmp.Or(o.region, "us-east-1")))
		if err != nil {
			return nil, nil, err
		}
		if cfg.Credentials == nil {
			cfg.Credentials = aws.AnonymousCredentials{}
		}
		cfg.BaseEndpoint = aws.String(o.dynamodbEndpoint)
		s := dynamo.New(dynamodb.NewFromConfig(cfg), cmp.Or(o.table, "drift-gardener"))
		if err := s.CreateTable(ctx); err != nil {
			var inUse interface{ ErrorCode() string }
			if !errors.As(err, &inUse) || inUse.ErrorCode() != "ResourceInUseException" {
				return nil, nil, fmt.Errorf("creating the table at %s: %w", o.dynamodbEndpoint, err)
			}
		}
		return s, func() {}, nil
	}
	s, err := openState(o.state)
	if err != nil {
		return nil, nil, err
	}
	return s, func() { s.Close() }, nil
}

// openState opens the embedded store in the state directory dir, creating the directory when
// it is not there: the local state every command on one machine keeps.
func openState(dir string) (*embedded.Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return embedded.Open(filepath.Join(dir, "gardener.db"))
}

func startLocal(ctx context.Context, o localOptions) (*local, error) {
	tpl, err := findTemplate(o.template)
	if err != nil {
		return nil, err
	}
	store, closeStore, err := openStore(ctx, o)
	if err != nil {
		return nil, err
	}
	var runner gardener.Runner = stepTimeoutRunner{o.runner, o.stepTimeout}
	release := func() {}
	if o.runner == nil {
		own := browser.New(browser.Options{StepTimeout: o.stepTimeout})
		runner, release = own, func() { own.Close() }
	}
	logOut := o.log
	if logOut == nil {
		logOut = io.Discard
	}
	log := slog.New(slog.NewJSONHandler(logOut, nil))
	models := modelspec.Options{Region: o.region, Endpoint: o.bedrockEndpoint, AllowedFrom: "--model-id"}
	if o.modelID != "" {
		models.Allowed = []string{o.modelID}
	}
	services := handler.Services{
		Store: store, Runner: runner, BaseURLs: o.baseURLs, StepTimeout: o.stepTimeout, Log: log, Plan: o.plan, Reach: reachCLI,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, models)
		},
	}
	cfg := stack.Config{Template: tpl, Services: services, Log: log, OnNotify: o.onNotify}
	if ledger, ok := store.(stack.Ledger); ok {
		// The embedded store keeps the executions, so a restart still answers for them.
		cfg.Ledger = ledger
	}
	st, err := stack.New(cfg)
	if err != nil {
		release()
		closeStore()
		return nil, err
	}
	return &local{Stack: st, store: store, close: func() {
		st.Wait()
		release()
		closeStore()
	}}, nil
}
