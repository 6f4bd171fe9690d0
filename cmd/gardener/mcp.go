package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/mcpserver"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

func init() {
	register("mcp", command{
		summary:  "serve run_test, suggest_fix and apply_repair to an MCP client (stdio, or streamable HTTP with --listen)",
		synopsis: []string{"[--state DIR] [--base-url URL] [--listen ADDR]", "--api URL [--token-env NAME] [--listen ADDR]"},
		about: `Serves the gardener's manual path to an MCP client (a coding assistant) over stdin and stdout,
or over streamable HTTP on a loopback address with --listen. Three tools:
  run_test      runs a test's current version now (testId) and records the run: a green one is
                the baseline a later repair compares a failure with; writes nothing to the test
  suggest_fix   runs the repair ladder in propose mode on a failed run (runId) or a test reproduced
                now (testId) and stages a fix proven green as a proposal; writes nothing to the test
  apply_repair  applies a proposal (proposalId, or the runId suggest_fix was asked about) if the
                test is still at the version the fix was proven on; records the client as approver
Without --api the tools act on the local state directory (as gardener repair does), replaying in
a Chromium of their own against --base-url (its origin allowed beside the project's, as for
repair) or each project's first allowed origin, and the approver is "mcp:" and the client's name.
An app that does not answer at the base URL is a tool error, and nothing is recorded. With --api they act on a deployed review API with the
bearer token in the environment variable --token-env names, and the API records the token's
caller as the approver.
Exit status: 0 the client closed the session or an interrupt; 2 bad input; 3 serving failed.`,
		run: runMCP,
	})
}

type mcpFlags struct {
	state, baseURL, listen, api, tokenEnv, region, endpoint string
	stepTimeout                                             time.Duration
}

func runMCP(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("mcp")
	var f mcpFlags
	fs.StringVar(&f.state, "state", defaultStateDir, "`DIR` of the local state (tests, runs, proposals, repairs)")
	fs.StringVar(&f.baseURL, "base-url", "", "the app's base `URL` the tests replay against (default: each project's first allowed origin)")
	fs.StringVar(&f.listen, "listen", "", "serve streamable HTTP on loopback `ADDR` (e.g. 127.0.0.1:8765) instead of stdio")
	fs.StringVar(&f.api, "api", "", "act on the deployed review API at `URL` instead of the local state")
	fs.StringVar(&f.tokenEnv, "token-env", "GARDENER_TOKEN", "the environment variable `NAME` holding the API's bearer token (with --api)")
	fs.StringVar(&f.region, "region", "", regionFlag)
	fs.StringVar(&f.endpoint, "bedrock-endpoint", "", "override the Bedrock runtime endpoint `URL`")
	stepTimeoutVar(fs, &f.stepTimeout, 0, stepTimeoutUsage)
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.badUsage(fs, "unexpected argument %q", pos[0])
	}
	if f.baseURL != "" {
		if err := checkHTTPURL("--base-url", f.baseURL); err != nil {
			return c.badUsage(fs, "%v", err)
		}
	}
	var ln net.Listener
	if f.listen != "" {
		var err error
		if ln, err = listenLoopback("--listen", f.listen); err != nil {
			return c.badUsage(fs, "%v", err)
		}
		defer ln.Close()
	}
	backend, closeBackend, err := c.mcpBackend(ctx, f)
	if err != nil {
		var bad *badMCPFlag
		if errors.As(err, &bad) {
			return c.badUsage(fs, "%v", err)
		}
		return c.fail("mcp", exitFailure, err)
	}
	defer closeBackend()
	server := mcpserver.New(backend, mcpserver.Options{Version: versionString()})
	if ln != nil {
		return c.serveMCPHTTP(ctx, server, ln)
	}
	err = server.Run(ctx, mcpserver.Stdio(ctx, c.stdin, c.stdout))
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return c.fail("mcp", exitFailure, err)
	}
	return exitOK
}

// badMCPFlag is a flag combination the backend cannot be built from.
type badMCPFlag struct{ reason string }

func (e *badMCPFlag) Error() string { return e.reason }

// mcpBackend builds the backend the flags name: a deployed API, or the local state directory
// with a browser and the project's model.
func (c *cli) mcpBackend(ctx context.Context, f mcpFlags) (mcpserver.Backend, func(), error) {
	if f.api != "" {
		if err := checkHTTPURL("--api", f.api); err != nil {
			return nil, nil, &badMCPFlag{err.Error()}
		}
		if f.baseURL != "" {
			return nil, nil, &badMCPFlag{"--base-url goes with the local state, not --api: the API replays against its projects' own base URLs"}
		}
		token := strings.TrimSpace(os.Getenv(f.tokenEnv))
		if token == "" {
			return nil, nil, &badMCPFlag{fmt.Sprintf("--api needs a bearer token in the environment variable %s (or name another with --token-env)", f.tokenEnv)}
		}
		return &mcpserver.Remote{URL: f.api, Token: token, Client: &http.Client{Timeout: time.Minute}}, func() {}, nil
	}
	region, err := awsRegion(ctx, f.region)
	if err != nil {
		return nil, nil, &badMCPFlag{err.Error()}
	}
	store, err := openState(f.state)
	if err != nil {
		return nil, nil, fmt.Errorf("opening the state in %s: %w", f.state, err)
	}
	runner, closeRunner := c.browserFor(f.stepTimeout)
	return &mcpserver.Local{
		Store: store, Runner: runner, BaseURL: f.baseURL, StepTimeout: f.stepTimeout, Reach: reachCLI,
		Log: slog.New(slog.NewJSONHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{Region: region, Endpoint: f.endpoint})
		},
	}, func() { closeRunner(); store.Close() }, nil
}

// serveMCPHTTP serves streamable HTTP at /mcp until ctx ends; the URL is the first line on
// stdout. The SDK refuses a non-localhost Host on a loopback connection (DNS rebinding), and
// cross-origin browser requests are refused too.
func (c *cli) serveMCPHTTP(ctx context.Context, server *mcp.Server, ln net.Listener) int {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.NewCrossOriginProtection().Handler(h))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(c.stdout, "http://%s/mcp\n", ln.Addr())
	fmt.Fprintln(c.stderr, "gardener mcp: serving streamable HTTP; interrupt to stop")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return c.fail("mcp", exitFailure, err)
	case <-ctx.Done():
	}
	// A client's event stream stays open as long as its session: it is cut rather than waited
	// for once the requests in flight had their time.
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := srv.Shutdown(shutdown)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if err != nil {
		return c.fail("mcp", exitFailure, fmt.Errorf("stopping: %w", err))
	}
	return exitOK
}
