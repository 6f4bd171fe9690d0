package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// refusingRunner replays nothing: a tool call the fuzzer makes that reaches a replay is
// answered with this error, as a deployment without a browser answers.
type refusingRunner struct{}

func (refusingRunner) Replay(context.Context, gardener.Test, gardener.ReplayOptions) (gardener.Replay, error) {
	return gardener.Replay{}, errors.New("no browser in the fuzz test")
}

// stdioSeeds are lines a client, a broken client or an attacker writes: each the fuzzer's
// starting point, and the normal suite's run of the fuzz test.
var stdioSeeds = []string{
	`{`, `hello`, `null`, `42`, `"ping"`, `true`, `[]`, `[1]`, "\x00", "\xff\xfe", "\r", " ", `{}`,
	`[{"jsonrpc":"2.0","id":8,"method":"ping"}]`,
	`[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"ping"}]`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":7}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e300,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":7}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":3}`,
	`{"jsonrpc":"2.0","id":1,"method":"no/such/method"}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"again","version":"1"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"run_test","arguments":{"testId":"t1\u0000x"}}}`,
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"run_test","arguments":{"testId":"t1"}}}`,
	`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"apply_repair","arguments":{"proposalId":"nope"}}}`,
	`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nope","arguments":[]}}`,
	`{"jsonrpc":"2.0","id":"x","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"x","method":"ping"}`,
	strings.Repeat("[", 5000), strings.Repeat(`{"a":`, 5000),
	`{"jsonrpc":"2.0","id":1,"method":"ping"} trailing`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	`{"JSONRPC":"2.0","id":1,"method":"ping"}`,
}

// FuzzStdio feeds the stdio transport random lines after a session's initialize: the server
// answers or ignores each, answers a ping after them, and runs until its input ends, when it
// ends without an error. Run beyond the seeds with
// nice -n 10 env GOMAXPROCS=1 go test ./pkg/mcpserver -run '^$' -fuzz FuzzStdio -fuzztime 60s.
func FuzzStdio(f *testing.F) {
	for _, s := range stdioSeeds {
		f.Add(s)
	}
	store, err := embedded.Open(filepath.Join(f.TempDir(), "gardener.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { store.Close() })
	ctx := context.Background()
	if err := store.PutProject(ctx, gardener.Project{ID: "p", Name: "p", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{"http://127.0.0.1:9"}}); err != nil {
		f.Fatal(err)
	}
	if err := store.CreateTest(ctx, gardener.Test{ID: "t1", ProjectID: "p", Name: "t1", Status: gardener.StatusActive, Version: 1,
		Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}); err != nil {
		f.Fatal(err)
	}
	backend := &Local{Store: store, Runner: refusingRunner{}, StepTimeout: time.Second}
	f.Fuzz(func(t *testing.T, lines string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ended := make(chan error, 1)
		go func() {
			ended <- New(backend, Options{Version: "fuzz"}).Run(ctx, Stdio(ctx, inR, outW))
			outW.Close()
		}()
		answers := make(chan string, 64)
		go func() {
			sc := bufio.NewScanner(outR)
			sc.Buffer(make([]byte, 1<<20), 32<<20)
			for sc.Scan() {
				answers <- sc.Text()
			}
			close(answers)
			io.Copy(io.Discard, outR)
		}()
		send := func(s string) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = io.WriteString(inW, s+"\n")
			}()
			select {
			case <-done:
			case err := <-ended:
				t.Fatalf("the server ended before the end of its input: %v (input %q)", err, lines)
			case <-time.After(10 * time.Second):
				t.Fatalf("the server stopped reading its input (input %q)", lines)
			}
		}
		await := func(id string) {
			for {
				select {
				case a, ok := <-answers:
					if !ok {
						t.Fatalf("the server ended before answering %s: %v (input %q)", id, <-ended, lines)
					}
					if strings.Contains(a, `"id":`+id) {
						return
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("no answer to %s (input %q)", id, lines)
				}
			}
		}
		send(`{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`)
		await(`"fuzz-init"`)
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		send(lines)
		send(`{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}`)
		await(`"fuzz-ping"`)
		inW.Close()
		go func() {
			for range answers {
			}
		}()
		select {
		case err := <-ended:
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
				t.Fatalf("the session ended with %v at the end of its input (input %q)", err, lines)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("the session did not end at the end of its input (input %q)", lines)
		}
	})
}
