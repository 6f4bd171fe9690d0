package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/workspace"
	"github.com/driftgardener/gardener/tests/demoapp"
)

func init() {
	register("serve", command{
		summary:  "the local stack with its HTTP API on localhost (--demo-app seeds the demo shop)",
		synopsis: []string{"[--listen ADDR] [--state DIR] [--demo-app [--app-listen ADDR]] [flags]"},
		about: `Runs the stack of template.yaml on this machine: the HTTP API and the review console on a
loopback address (--listen, default 127.0.0.1:8787; the API takes development tokens, printed at
start), the state machines, the event bus and the schedules, with the embedded store in --state
or DynamoDB at --dynamodb-endpoint. With --demo-app it also serves the demo shop on --app-listen
(default a free port) and seeds project demo with its saved tests. The URLs are printed at
start. The API's GET /executions/{id}/events with Accept: text/event-stream follows a manual
execution's events as Server-Sent Events until it ends. --plan and --model-id stand for the
template's Plan and ModelId parameters: the plan of the projects the API creates (their members
cannot change it) and the one Bedrock model a project setting may name. Serves until interrupted.
Exit status: 0 stopped by an interrupt; 2 bad input (a flag, an address that cannot be
listened on); 3 the stack failed.`,
		run: runServe,
	})
}

func runServe(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("serve")
	var o localOptions
	fs.StringVar(&o.template, "template", "", templateUsage)
	fs.StringVar(&o.state, "state", defaultStateDir, "`DIR` of the embedded store")
	fs.StringVar(&o.dynamodbEndpoint, "dynamodb-endpoint", "", "use DynamoDB at this endpoint `URL` instead of the embedded store")
	fs.StringVar(&o.region, "region", "", regionFlag)
	fs.StringVar(&o.bedrockEndpoint, "bedrock-endpoint", "", "override the Bedrock runtime endpoint `URL`")
	stepTimeoutVar(fs, &o.stepTimeout, 5*time.Second, "default time limit (a `duration`) of a replayed step")
	listen := fs.String("listen", "127.0.0.1:8787", "where the HTTP API listens (loopback only: development tokens are not verified)")
	demo := fs.Bool("demo-app", false, "also serve the demo shop and seed its project and tests")
	appListen := fs.String("app-listen", "127.0.0.1:0", "where the demo shop listens, with --demo-app (loopback only; port 0 picks a free port)")
	every := fs.Duration("tick", time.Minute, "how often the local scheduler checks the template's schedules")
	plan := fs.String("plan", string(gardener.PlanPro), "the deployment's `PLAN` (free or pro): a project the API creates is on it, and its members cannot choose another")
	fs.StringVar(&o.modelID, "model-id", "", "the one Bedrock model `ID` a project's setting may name (bedrock:ID), as the template's ModelId in AWS; default any")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.badUsage(fs, "unexpected argument %q", pos[0])
	}
	if !gardening.KnownPlan(gardener.Plan(*plan)) {
		return c.badUsage(fs, "--plan %q: give free or pro", *plan)
	}
	o.plan = gardener.Plan(*plan)
	var appSet bool
	fs.Visit(func(f *flag.Flag) { appSet = appSet || f.Name == "app-listen" })
	if appSet && !*demo {
		return c.badUsage(fs, "--app-listen is where the demo shop listens: it goes with --demo-app")
	}
	// Both addresses are listened on first: a port in use is bad input, said before anything starts.
	apiLn, err := listenLoopback("--listen", *listen)
	if err != nil {
		return c.badUsage(fs, "%v", err)
	}
	defer apiLn.Close()
	var appLn net.Listener
	if *demo {
		if appLn, err = listenLoopback("--app-listen", *appListen); err != nil {
			return c.badUsage(fs, "%v", err)
		}
		defer appLn.Close()
	}
	if o.region, err = awsRegion(ctx, o.region); err != nil {
		return c.fail("serve", exitBadInput, err)
	}
	if o.template, err = findTemplate(o.template); err != nil {
		return c.fail("serve", exitBadInput, err)
	}
	o.log = c.stderr
	var app *demoapp.App
	if *demo {
		app = demoapp.New()
		appSrv := serveLoopback(appLn, app.Handler())
		defer appSrv.Close()
		appURL := appSrv.URL
		o.baseURLs = map[string]string{"demo": appURL}
		fmt.Fprintf(c.stdout, "demo shop: %s (switch variants with POST %s/__variant?name=…)\n", appURL, appURL)
	}
	o.runner = c.runner
	l, err := startLocal(ctx, o)
	if err != nil {
		return c.fail("serve", exitFailure, err)
	}
	defer l.close()
	if app != nil {
		if err := seedDemo(ctx, l, o.baseURLs["demo"]); err != nil {
			return c.fail("serve", exitFailure, err)
		}
	}
	srv := &http.Server{Handler: l.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		ticks := time.NewTicker(*every)
		defer ticks.Stop()
		l.Scheduler.Run(ctx, ticks.C, func(err error) { fmt.Fprintln(c.stderr, "gardener serve: schedule:", err) })
	}()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	apiURL := "http://" + apiLn.Addr().String()
	fmt.Fprintf(c.stdout, "local stack: API on %s (Authorization: Bearer %s)\n", apiURL, stack.DevToken("you@example.com", "*"))
	fmt.Fprintf(c.stdout, "review console: %s/console\n", apiURL)
	if err := srv.Serve(apiLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return c.fail("serve", exitFailure, err)
	}
	return exitOK
}

// seedDemo creates the demo project and its saved tests unless the state has the project: a
// state that has it keeps its tests as they are (repaired, edited).
func seedDemo(ctx context.Context, l *local, appURL string) error {
	_, err := l.store.Project(ctx, "demo")
	if err == nil || !errors.Is(err, gardener.ErrNotFound) {
		return err
	}
	ws := &workspace.Service{Store: l.store}
	p := demoapp.Project(appURL)
	p.Plan, p.AutoRepair, p.Model, p.Radar = gardener.PlanPro, true, "builtin", true
	if _, err := ws.EnsureProject(ctx, p.ID, workspace.Settings{New: p}); err != nil {
		return err
	}
	tests, err := demoapp.Tests()
	if err != nil {
		return err
	}
	for _, t := range tests {
		if _, err := ws.SyncTest(ctx, t, nil); err != nil {
			return err
		}
	}
	return nil
}
