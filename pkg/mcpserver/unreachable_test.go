package mcpserver_test

import (
	"context"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/mcpserver"
)

// optionsSeen is a runner that keeps the options of each replay it is asked for, and answers
// each green.
type optionsSeen struct {
	mu   sync.Mutex
	opts []gardener.ReplayOptions
}

func (o *optionsSeen) Replay(_ context.Context, t gardener.Test, opts gardener.ReplayOptions) (gardener.Replay, error) {
	o.mu.Lock()
	o.opts = append(o.opts, opts)
	o.mu.Unlock()
	return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, Passed: true, FailedIndex: -1, FinalURL: opts.BaseURL + "/"}}, nil
}

// putRuns counts the runs and triage issues written.
type putRuns struct {
	gardener.Store
	mu            sync.Mutex
	runs, triaged int
}

func (p *putRuns) PutRun(ctx context.Context, r gardener.Run) error {
	p.mu.Lock()
	p.runs++
	p.mu.Unlock()
	return p.Store.PutRun(ctx, r)
}

func (p *putRuns) PutTriageIssue(ctx context.Context, t gardener.TriageIssue) error {
	p.mu.Lock()
	p.triaged++
	p.mu.Unlock()
	return p.Store.PutTriageIssue(ctx, t)
}

// seededLocal is a local backend over a state holding project shop (allowing origin) and its
// test login, replaying with runner against base.
func seededLocal(t *testing.T, origin, base string, runner gardener.Runner) (*mcpserver.Local, *putRuns) {
	t.Helper()
	ctx := context.Background()
	es, err := embedded.Open(filepath.Join(t.TempDir(), "gardener.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { es.Close() })
	store := &putRuns{Store: es}
	if err := es.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{origin}}); err != nil {
		t.Fatal(err)
	}
	if err := es.CreateTest(ctx, gardener.Test{ID: "login", ProjectID: "shop", Status: gardener.StatusActive, Version: 1,
		Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}); err != nil {
		t.Fatal(err)
	}
	return &mcpserver.Local{Store: store, Runner: runner, BaseURL: base, Reach: browser.Reach,
		Models: func(context.Context, string) (gardener.Model, error) { return builtin.Engine{}, nil }}, store
}

// TestADownAppIsAToolError: run_test and suggest_fix against an app that is down (its base URL
// refuses connections) are tool errors saying the app could not be reached and nothing was
// recorded — as the CLI's exit 3 and the API's 502 — and nothing is replayed, recorded or
// triaged: no red run for suggest_fix to be pointed at.
func TestADownAppIsAToolError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	runner := &optionsSeen{}
	local, store := seededLocal(t, down, "", runner)
	cs, _ := connect(t, local, "unit")
	for _, tool := range []string{"run_test", "suggest_fix"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"testId": "login"}})
		if err != nil {
			t.Fatal(err)
		}
		got := text(res)
		if !res.IsError {
			t.Errorf("%s answered %q, want a tool error", tool, got)
		}
		for _, want := range []string{"the app at " + down + " could not be reached", "connection refused", "nothing was replayed", "nothing is recorded"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: %q does not say %q", tool, got, want)
			}
		}
	}
	if len(runner.opts) != 0 || store.runs != 0 || store.triaged != 0 {
		t.Errorf("%d replays, %d runs and %d triage issues recorded; want none", len(runner.opts), store.runs, store.triaged)
	}
}

// TestTheBaseURLsOriginIsAllowed: `gardener mcp --base-url http://localhost:PORT` on a project
// whose allowed origin is http://127.0.0.1:PORT replays with the base URL's origin allowed, as
// gardener repair and gardener run do: the operator named where the app is, and navigation
// there is no navigation off-site. The project's origins stay allowed and unchanged.
func TestTheBaseURLsOriginIsAllowed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	origin, base := "http://127.0.0.1:"+port, "http://localhost:"+port
	runner := &optionsSeen{}
	local, store := seededLocal(t, origin, base, runner)
	ran, err := local.RunNow(context.Background(), mcpserver.RunInput{TestID: "login"}, "mcp:unit")
	if err != nil || !ran.Green {
		t.Fatalf("run_test: %+v (%v), want green", ran, err)
	}
	if len(runner.opts) != 1 || runner.opts[0].BaseURL != base || !slices.Contains(runner.opts[0].AllowedOrigins, base) || !slices.Contains(runner.opts[0].AllowedOrigins, origin) {
		t.Errorf("replayed with %+v, want base %s with %s and %s allowed", runner.opts, base, base, origin)
	}
	if p, err := store.Project(context.Background(), "shop"); err != nil || !slices.Equal(p.AllowedOrigins, []string{origin}) {
		t.Errorf("project origins %q (%v), want them unchanged", p.AllowedOrigins, err)
	}
}
