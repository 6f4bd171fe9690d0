package mcpserver_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/mcpserver"
)

// recorder is a backend that records what the tools asked of it and answers with a fixed
// suggestion, sending two progress lines first.
type recorder struct {
	mu      sync.Mutex
	suggest []mcpserver.SuggestInput
	by      []string
}

func (r *recorder) Suggest(_ context.Context, in mcpserver.SuggestInput, by string, progress func(string)) (mcpserver.Suggestion, error) {
	r.mu.Lock()
	r.suggest, r.by = append(r.suggest, in), append(r.by, by)
	r.mu.Unlock()
	progress(gardener.LadderEvent{Seq: 1, Stage: gardener.EventReproduce, Message: "replaying t"}.Line())
	progress(gardener.LadderEvent{Seq: 2, Stage: gardener.EventCandidate, Rung: gardener.StrategySelfHeal, Message: "one candidate"}.Line())
	return mcpserver.Suggestion{Outcome: "no-fix", TestID: "t", Diff: []string{}, Changes: []mcpserver.Change{}, Refusals: []mcpserver.Refusal{}, Notes: []string{}, Contract: mcpserver.Contract{Requirements: []mcpserver.Requirement{}}}, nil
}

func (r *recorder) Apply(_ context.Context, in mcpserver.ApplyInput, by string) (mcpserver.Applied, error) {
	r.mu.Lock()
	r.by = append(r.by, by)
	r.mu.Unlock()
	return mcpserver.Applied{}, &mcpserver.RefusedError{ProposalID: in.ProposalID, Reason: "stale: test t moved"}
}

func (r *recorder) RunNow(_ context.Context, in mcpserver.RunInput, by string) (mcpserver.Ran, error) {
	r.mu.Lock()
	r.by = append(r.by, by)
	r.mu.Unlock()
	return mcpserver.Ran{TestID: in.TestID, Version: 2, RunID: "manual-1", FailedStep: "3", Error: "step 3 (fill css=#pw [value redacted, 6 chars]): no element matches css=#pw after 3s"}, nil
}

func connect(t *testing.T, b mcpserver.Backend, client string) (*mcp.ClientSession, func() []string) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(b, mcpserver.Options{Version: "test"}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var mu sync.Mutex
	var progress []string
	c := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, r.Params.Message)
		mu.Unlock()
	}})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(progress)
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestToolInputErrors: input that names nothing, or two things, or a rung that does not exist,
// is a tool error naming the field, and the backend is not asked.
func TestToolInputErrors(t *testing.T) {
	b := &recorder{}
	cs, _ := connect(t, b, "unit")
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"suggest_fix", map[string]any{}, "runId:"},
		{"suggest_fix", map[string]any{"runId": " ", "testId": ""}, "runId:"},
		{"suggest_fix", map[string]any{"runId": "r", "testId": "t"}, "testId:"},
		{"suggest_fix", map[string]any{"testId": "t", "rungs": []string{"self-heal", "magic"}}, "rungs[1]:"},
		{"apply_repair", map[string]any{}, "proposalId:"},
		{"apply_repair", map[string]any{"proposalId": "p", "runId": "r"}, "runId:"},
		{"run_test", map[string]any{}, "testId:"},
		{"run_test", map[string]any{"testId": "  "}, "testId:"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.HasPrefix(text(res), tc.field) {
			t.Errorf("%s %v: error=%v %q, want a tool error naming %s", tc.tool, tc.args, res.IsError, text(res), tc.field)
		}
	}
	if len(b.suggest) != 0 || len(b.by) != 0 {
		t.Errorf("the backend was asked %d times for bad input", len(b.by))
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "suggest_fix", Arguments: map[string]any{"nonsense": 1}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "nonsense") {
		t.Errorf("an unknown argument: %v %v %q", err, res.IsError, text(res))
	}
}

// TestProgressAndApprover: the ladder's progress reaches a client that asked for it as progress
// notifications, and the approver is "mcp:" and the client's name.
func TestProgressAndApprover(t *testing.T) {
	b := &recorder{}
	cs, progress := connect(t, b, "claude-code")
	p := &mcp.CallToolParams{Name: "suggest_fix", Arguments: map[string]any{"testId": "t"}}
	p.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), p)
	if err != nil || res.IsError {
		t.Fatalf("suggest_fix: %v %q", err, text(res))
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(progress()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if want := []string{"  1 [reproduce] replaying t", "  2 [candidate self-heal] one candidate"}; !slices.Equal(progress(), want) {
		t.Errorf("progress %q, want %q", progress(), want)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "apply_repair", Arguments: map[string]any{"proposalId": "p1"}})
	if err != nil || !res.IsError || text(res) != "proposal p1 refused: stale: test t moved" {
		t.Errorf("apply_repair refused: %v %q", err, text(res))
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_test", Arguments: map[string]any{"testId": "t"}})
	if err != nil || res.IsError || !strings.HasPrefix(text(res), "FAILED: test t version 2 failed at step 3:") || !strings.Contains(text(res), "run manual-1 is recorded (not as a green run)") {
		t.Errorf("run_test of a red run: %v %q", err, text(res))
	}
	if !slices.Equal(b.by, []string{"mcp:claude-code", "mcp:claude-code", "mcp:claude-code"}) {
		t.Errorf("asked by %q", b.by)
	}
}

// TestLocalApplyRefusesUnproven: a proposal with no green proof of its operations (as a chat
// edit is staged) is refused as not proven and the test is not written; once the proof is
// recorded it is applied with the approver.
func TestLocalApplyRefusesUnproven(t *testing.T) {
	ctx := context.Background()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.PutProject(ctx, gardener.Project{ID: "p", Plan: gardener.PlanPro, Model: "builtin"}); err != nil {
		t.Fatal(err)
	}
	steps := []gardener.Step{
		{Kind: gardener.Goto, URL: "/"},
		{Kind: gardener.Wait, For: gardener.WaitTime, Ms: 100},
	}
	if err := store.CreateTest(ctx, gardener.Test{ID: "t", ProjectID: "p", Version: 1, Status: gardener.StatusActive, Steps: steps}); err != nil {
		t.Fatal(err)
	}
	longer := gardener.Step{Kind: gardener.Wait, For: gardener.WaitTime, Ms: 900}
	ops := []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &longer}}
	v := gardener.Verdict{Strategy: "chat-edit", Ops: ops, IntentConfirmed: true}
	if _, err := lifecycle.New(store, nil).Stage(ctx, gardener.Proposal{ID: "prop-1", TestID: "t", BaseVersion: 1, Verdict: v}); err != nil {
		t.Fatal(err)
	}
	local := &mcpserver.Local{Store: store}
	_, err = local.Apply(ctx, mcpserver.ApplyInput{ProposalID: "prop-1"}, "mcp:unit")
	if err == nil || !strings.Contains(err.Error(), "not proven") {
		t.Fatalf("apply of an unproven proposal: %v", err)
	}
	if tt, _ := store.Test(ctx, "t"); tt.Version != 1 {
		t.Fatalf("an unproven apply wrote the test: version %d", tt.Version)
	}
	proof := gardener.RunResult{Passed: true}
	if err := store.PutRun(ctx, gardener.Run{ID: gardener.ProofID("t", 1, ops), ProjectID: "p", TestID: "t", TestVersion: 1, Trigger: gardener.TriggerProof, Probe: true, Result: &proof, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	a, err := local.Apply(ctx, mcpserver.ApplyInput{ProposalID: "prop-1"}, "mcp:unit")
	if err != nil || a.Version != 2 || a.ApprovedBy != "mcp:unit" || len(a.Diff) != 2 {
		t.Fatalf("apply of the proven proposal: %+v %v", a, err)
	}
	if _, err := local.Apply(ctx, mcpserver.ApplyInput{ProposalID: "missing"}, "mcp:unit"); err == nil || !strings.HasPrefix(err.Error(), "proposalId:") {
		t.Errorf("apply of an unknown proposal: %v", err)
	}
}

// TestArgumentErrorsNameTheArgument: a tool argument of the wrong type (null, a number, a
// list where a string goes, a string where a list goes), one the tool does not take, or
// arguments that are not an object are answered, for every tool, naming the argument, what it
// wants and what it is for — never in the SDK's validator's words, which name Go's reflection —
// and a missing one names what to give; the backend is not asked.
func TestArgumentErrorsNameTheArgument(t *testing.T) {
	b := &recorder{}
	cs, _ := connect(t, b, "unit")
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{"apply_repair", map[string]any{"proposalId": nil}, "proposalId: want a string, not null (a proposal id from suggest_fix"},
		{"apply_repair", map[string]any{"proposalId": 7}, "proposalId: want a string, not a number ("},
		{"apply_repair", map[string]any{"runId": []string{"r"}}, "runId: want a string, not a list ("},
		{"apply_repair", map[string]any{"proposalId": "p", "propagate": "yes"}, "propagate: want true or false, not a string ("},
		{"apply_repair", map[string]any{"propagate": nil}, "propagate: want true or false, not null ("},
		{"apply_repair", map[string]any{}, "proposalId: give the proposal id suggest_fix returned"},
		{"apply_repair", map[string]any{"proposal": "p"}, `proposal: apply_repair takes no argument "proposal"; it takes proposalId, runId, propagate`},
		{"suggest_fix", map[string]any{"testId": nil}, "testId: want a string, not null (id of a test whose current version is replayed now"},
		{"suggest_fix", map[string]any{"runId": true}, "runId: want a string, not true ("},
		{"suggest_fix", map[string]any{"testId": "t", "rungs": "self-heal"}, "rungs: want a list of strings, not a string (restrict the ladder"},
		{"suggest_fix", map[string]any{"testId": "t", "rungs": []any{"self-heal", 2}}, "rungs[1]: want a string, not a number"},
		{"suggest_fix", map[string]any{}, "runId: give a failed run's id (runId) or a test's id (testId)"},
		{"run_test", map[string]any{"testId": nil}, "testId: want a string, not null (id of the test whose current version is replayed now"},
		{"run_test", map[string]any{"testId": 42}, "testId: want a string, not a number ("},
		{"run_test", map[string]any{"testId": map[string]any{"id": "t"}}, "testId: want a string, not an object ("},
		{"run_test", map[string]any{}, "testId: give the id of the test to run"},
		{"run_test", []any{"t"}, "arguments: want an object of run_test's arguments (testId), not a list"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s %v: %v", tc.tool, tc.args, err)
		}
		got := text(res)
		if !res.IsError || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s %v: error=%v %q, want a tool error starting %q", tc.tool, tc.args, res.IsError, got, tc.want)
		}
		for _, internal := range []string{"validating", "reflect", "/properties/", "unmarshal"} {
			if strings.Contains(got, internal) {
				t.Errorf("%s %v: %q says %q", tc.tool, tc.args, got, internal)
			}
		}
	}
	if len(b.suggest) != 0 || len(b.by) != 0 {
		t.Errorf("the backend was asked %d times for bad arguments", len(b.by))
	}
	// Arguments that fit go through: an optional list given as null is no list.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "suggest_fix", Arguments: map[string]any{"testId": "t", "rungs": nil}})
	if err != nil || res.IsError {
		t.Errorf("suggest_fix with rungs null: %v %q", err, text(res))
	}
}
