package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/mcpserver"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/radar"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// mcpStepTimeout bounds a step of the demo shop's tests in these tests: the reproduction of a
// drifted locator waits it out, and the shop answers on loopback well within it.
const mcpStepTimeout = 3 * time.Second

// mcpClient is an MCP client session and the progress messages the server sent it.
type mcpClient struct {
	*mcp.ClientSession
	mu       sync.Mutex
	progress []string
}

func (c *mcpClient) messages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.progress)
}

func newMCPClient(t *testing.T, ctx context.Context, tr mcp.Transport) *mcpClient {
	t.Helper()
	c := &mcpClient{}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-assistant", Version: "1.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, r.Params.Message)
			c.mu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connecting the MCP client: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	c.ClientSession = cs
	return c
}

// call calls a tool with a progress token and decodes its structured result into out. It
// returns the result's text and whether it is a tool error.
func (c *mcpClient) call(t *testing.T, ctx context.Context, tool string, args map[string]any, out any) (string, bool) {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	p.SetProgressToken(tool + "-progress")
	res, err := c.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	var text strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if !res.IsError && out != nil {
		b, err := json.Marshal(res.StructuredContent)
		noErr(t, err)
		noErr(t, json.Unmarshal(b, out))
	}
	t.Logf("%s %v: error=%v\n%s", tool, args, res.IsError, text.String())
	return text.String(), res.IsError
}

func listToolNames(t *testing.T, ctx context.Context, c *mcpClient) []string {
	t.Helper()
	tools, err := c.ListTools(ctx, nil)
	noErr(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("tool %s has no typed input or output schema", tl.Name)
		}
	}
	slices.Sort(names)
	return names
}

// checkProvenSuggestion asserts what suggest_fix answers for the login test after one locator
// drifted (step is the step that broke): a proven locator change, staged, the test untouched.
func checkProvenSuggestion(t *testing.T, s mcpserver.Suggestion, version int, step string) {
	t.Helper()
	if s.Outcome != "staged" || !s.Proven || s.ProposalID == "" || s.Staged == "" {
		t.Fatalf("suggest_fix: outcome %s (%s), proven %v, proposal %q (%s)", s.Outcome, s.Reason, s.Proven, s.ProposalID, s.Staged)
	}
	if s.TestID != "login" || s.BaseVersion != version || s.Version != version {
		t.Errorf("suggest_fix: test %s base version %d, version now %d; want login at %d, unchanged", s.TestID, s.BaseVersion, s.Version, version)
	}
	if len(s.Diff) != 2 || !strings.HasPrefix(s.Diff[0], "- step "+step+" ") || !strings.HasPrefix(s.Diff[1], "+ step "+step+" ") {
		t.Errorf("suggest_fix diff %q, want step %s's locator moved", s.Diff, step)
	}
	if len(s.Changes) != 1 || s.Changes[0].Step != step || s.Changes[0].Class == string(gardener.ClassProtected) || !strings.HasPrefix(s.Changes[0].Detail, "locator ") {
		t.Errorf("suggest_fix changes %+v, want one locator change of step %s", s.Changes, step)
	}
	if s.Contract.Total == 0 || s.Contract.Kept != s.Contract.Total || s.Sensitivity == nil || s.Sensitivity.Total == 0 {
		t.Errorf("suggest_fix contract %+v, sensitivity %+v", s.Contract, s.Sensitivity)
	}
	if s.Refusals == nil || s.Notes == nil {
		t.Error("suggest_fix answers null lists")
	}
	if !strings.HasPrefix(s.Cost, "$") || !strings.Contains(s.Cost, "DynamoDB write") {
		t.Errorf("suggest_fix cost %q; want what the repair used and its cost", s.Cost)
	}
}

// storedTest reads a test through the backend's store.
func storedTest(t *testing.T, store gardener.Store, id string) gardener.Test {
	t.Helper()
	tt, err := store.Test(context.Background(), id)
	noErr(t, err)
	return tt
}

// TestMCPInMemory drives the two tools with the SDK's client over an in-memory transport
// against the local state and real Chromium: exactly two tools; suggest_fix proves a fix of a
// drifted test and writes nothing; apply_repair applies it, the version goes up and the client
// is the approver; after a second drift, a person's edit makes the new proposal stale and
// apply_repair refuses it; a control run is refused; bad input names the field.
func TestMCPInMemory(t *testing.T) {
	t.Parallel()
	app, _, _, state := recordedShop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := &cli{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, runner: sharedRunner}
	backend, closeBackend, err := c.mcpBackend(ctx, mcpFlags{state: state, stepTimeout: mcpStepTimeout})
	noErr(t, err)
	defer closeBackend()
	store := backend.(*mcpserver.Local).Store
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(backend, mcpserver.Options{Version: "test"}).Connect(ctx, serverT, nil)
	noErr(t, err)
	defer ss.Close()
	client := newMCPClient(t, ctx, clientT)

	if names := listToolNames(t, ctx, client); !slices.Equal(names, []string{"apply_repair", "run_test", "suggest_fix"}) {
		t.Fatalf("tools %v, want exactly apply_repair, run_test and suggest_fix", names)
	}

	noErr(t, app.SetVariant("id-renamed"))
	before := storedTest(t, store, "login")
	var s mcpserver.Suggestion
	if text, isErr := client.call(t, ctx, "suggest_fix", map[string]any{"testId": "login"}, &s); isErr {
		t.Fatalf("suggest_fix failed: %s", text)
	}
	checkProvenSuggestion(t, s, before.Version, "4")
	// The staged fix's reason is the decision's, word for word as the queue row gives it.
	review, err := gardening.New(gardening.Deps{Store: store, Log: slog.New(slog.DiscardHandler)})
	noErr(t, err)
	q, err := review.Queue(ctx, before.ProjectID)
	noErr(t, err)
	if i := slices.IndexFunc(q.Rows, func(r radar.QueueRow) bool { return r.ProposalID == s.ProposalID }); i < 0 || q.Rows[i].Reason != s.Reason ||
		s.Reason != "proposed for review: an agent's suggestion is applied by apply_repair or a person" {
		t.Errorf("suggest_fix's reason %q; the queue row's (%d rows) is not the same or not the agent's", s.Reason, len(q.Rows))
	}
	if after := storedTest(t, store, "login"); after.Version != before.Version || !slices.EqualFunc(after.Steps, before.Steps, sameStep) {
		t.Fatalf("suggest_fix wrote the test: version %d → %d", before.Version, after.Version)
	}
	if got, want := stagesOf(client.messages()), []string{"reproduce", "snapshot", "candidate", "proof-step", "proof", "contract", "verdict", "outcome"}; !isSubsequence(want, got) {
		t.Errorf("progress stages %q, want the ladder's %q in this order", got, want)
	}

	var applied mcpserver.Applied
	if text, isErr := client.call(t, ctx, "apply_repair", map[string]any{"proposalId": s.ProposalID}, &applied); isErr {
		t.Fatalf("apply_repair failed: %s", text)
	}
	written := storedTest(t, store, "login")
	if applied.Version != before.Version+1 || written.Version != applied.Version || applied.ApprovedBy != "mcp:test-assistant" {
		t.Fatalf("apply_repair: %+v; the test is at version %d, want %d approved by mcp:test-assistant", applied, written.Version, before.Version+1)
	}
	if written.Steps[3].String() == before.Steps[3].String() {
		t.Error("apply_repair did not change step 4")
	}
	rep, err := store.Repair(ctx, applied.RepairID)
	if err != nil || rep.ApprovedBy != "mcp:test-assistant" || rep.ProposalID != s.ProposalID || rep.FromVersion != before.Version {
		t.Errorf("repair record %+v (%v)", rep, err)
	}
	// Applying it twice is refused: the row is applied.
	if text, isErr := client.call(t, ctx, "apply_repair", map[string]any{"proposalId": s.ProposalID}, nil); !isErr || !strings.Contains(text, "not proposed") {
		t.Errorf("a second apply_repair: error=%v %q", isErr, text)
	}

	// The sign-in button's text drifts; the new proposal goes stale when a person edits the
	// test (a rename is a new version) before it is applied.
	noErr(t, app.SetVariant("button-text"))
	var next mcpserver.Suggestion
	if text, isErr := client.call(t, ctx, "suggest_fix", map[string]any{"testId": "login"}, &next); isErr {
		t.Fatalf("suggest_fix failed: %s", text)
	}
	checkProvenSuggestion(t, next, written.Version, "5")
	edited := written
	edited.Name += " (renamed)"
	_, err = store.SaveTest(ctx, edited)
	noErr(t, err)
	text, isErr := client.call(t, ctx, "apply_repair", map[string]any{"proposalId": next.ProposalID}, nil)
	if !isErr || !strings.Contains(text, "stale") || !strings.Contains(text, next.ProposalID) {
		t.Fatalf("apply_repair of a stale proposal: error=%v %q, want refused as stale", isErr, text)
	}
	if p, err := store.Proposal(ctx, next.ProposalID); err != nil || p.Status != gardener.ProposalStale {
		t.Errorf("the stale proposal's row is %+v (%v), want stale", p.Status, err)
	}
	current := storedTest(t, store, "login")
	if current.Version != written.Version+1 || !slices.EqualFunc(current.Steps, written.Steps, sameStep) {
		t.Fatalf("the refused apply wrote the test: version %d", current.Version)
	}

	// A negative control run is refused by both tools, with the reason.
	control := gardener.Run{ID: "control-1", ProjectID: current.ProjectID, TestID: "login", TestVersion: current.Version, Trigger: gardener.TriggerManual, Control: true, At: time.Now()}
	noErr(t, store.PutRun(ctx, control))
	for _, tool := range []string{"apply_repair", "suggest_fix"} {
		text, isErr := client.call(t, ctx, tool, map[string]any{"runId": control.ID}, nil)
		if !isErr || !strings.Contains(text, "negative control run") {
			t.Errorf("%s on a control run: error=%v %q, want refused as a control run", tool, isErr, text)
		}
	}
	if storedTest(t, store, "login").Version != current.Version {
		t.Error("a refused call wrote the test")
	}

	// Bad input names the field.
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"suggest_fix", map[string]any{}, "runId"},
		{"suggest_fix", map[string]any{"testId": "nope"}, "testId"},
		{"suggest_fix", map[string]any{"testId": "login", "rungs": []string{"guess"}}, "rungs[0]"},
		{"apply_repair", map[string]any{"proposalId": "nope"}, "proposalId"},
		{"apply_repair", map[string]any{}, "proposalId"},
	} {
		text, isErr := client.call(t, ctx, tc.tool, tc.args, nil)
		if !isErr || !strings.HasPrefix(text, tc.field+":") {
			t.Errorf("%s %v: error=%v %q, want a tool error naming %s", tc.tool, tc.args, isErr, text, tc.field)
		}
	}
}

func sameStep(a, b gardener.Step) bool { return a.String() == b.String() }

// runAsGardener in the environment makes the test binary run main instead of the tests: it is
// gardener built from this tree, with no second build of it.
const runAsGardener = "GARDENER_TEST_RUN_MAIN"

// gardenerCommand is `gardener args...` run as a subprocess: the test binary itself, running
// main.
func gardenerCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	noErr(t, err)
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), runAsGardener+"=1")
	return cmd
}

// TestMCPStdio runs `gardener mcp` (the test binary running main) as a subprocess and speaks to
// it over its stdin and stdout with the SDK's command transport: two tools; suggest_fix on a run
// of a drifted test proves a fix and writes nothing; apply_repair by run applies it with the
// client as approver; a control run is refused.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	app, _, _, state := recordedShop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// The failed run a platform reported, and a control run, recorded before the server opens
	// the state (the embedded store takes the state's lock).
	store, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	login, err := store.Test(ctx, "login")
	noErr(t, err)
	failed := gardener.Run{ID: "ci-run-7", ProjectID: login.ProjectID, TestID: "login", TestVersion: login.Version, Trigger: gardener.TriggerManual, At: time.Now()}
	control := gardener.Run{ID: "control-7", ProjectID: login.ProjectID, TestID: "login", TestVersion: login.Version, Trigger: gardener.TriggerManual, Control: true, At: time.Now()}
	noErr(t, store.PutRun(ctx, failed))
	noErr(t, store.PutRun(ctx, control))
	noErr(t, store.Close())

	var stderr bytes.Buffer
	cmd := gardenerCommand(t, "mcp", "--state", state, "--step-timeout", mcpStepTimeout.String())
	cmd.Stderr = &stderr
	client := newMCPClient(t, ctx, &mcp.CommandTransport{Command: cmd})
	if names := listToolNames(t, ctx, client); !slices.Equal(names, []string{"apply_repair", "run_test", "suggest_fix"}) {
		t.Fatalf("tools %v, want exactly apply_repair, run_test and suggest_fix", names)
	}
	// run_test records a run now: green on the shop as it is, red once it drifted.
	var green, red mcpserver.Ran
	if text, isErr := client.call(t, ctx, "run_test", map[string]any{"testId": "login"}, &green); isErr || !green.Green || green.RunID == "" || green.Version != login.Version || !strings.HasPrefix(text, "GREEN: test login") {
		t.Fatalf("run_test on the baseline: %+v %q\nstderr: %s", green, text, stderr.String())
	}
	if text, isErr := client.call(t, ctx, "run_test", map[string]any{"testId": "nope"}, nil); !isErr || text != `testId: no test "nope" in the state` {
		t.Errorf("run_test of an unknown test: error=%v %q", isErr, text)
	}
	noErr(t, app.SetVariant("id-renamed"))
	if text, isErr := client.call(t, ctx, "run_test", map[string]any{"testId": "login"}, &red); isErr || red.Green || red.FailedStep != "4" || !strings.Contains(red.Error, "#password") || !strings.Contains(text, "recorded (not as a green run)") {
		t.Fatalf("run_test on the drifted shop: %+v %q", red, text)
	}
	if strings.Contains(red.Error, "demo123") {
		t.Errorf("run_test's error carries what the test types: %s", red.Error)
	}
	var s mcpserver.Suggestion
	if text, isErr := client.call(t, ctx, "suggest_fix", map[string]any{"runId": failed.ID}, &s); isErr {
		t.Fatalf("suggest_fix failed: %s\nstderr: %s", text, stderr.String())
	}
	checkProvenSuggestion(t, s, login.Version, "4")
	if s.RunID != failed.ID {
		t.Errorf("suggest_fix answered run %q, want %s", s.RunID, failed.ID)
	}
	if text, isErr := client.call(t, ctx, "apply_repair", map[string]any{"runId": control.ID}, nil); !isErr || !strings.Contains(text, "negative control run") {
		t.Errorf("apply_repair on a control run: error=%v %q", isErr, text)
	}
	var applied mcpserver.Applied
	if text, isErr := client.call(t, ctx, "apply_repair", map[string]any{"runId": failed.ID}, &applied); isErr {
		t.Fatalf("apply_repair failed: %s", text)
	}
	if applied.ProposalID != s.ProposalID || applied.Version != login.Version+1 || applied.ApprovedBy != "mcp:test-assistant" {
		t.Errorf("apply_repair: %+v", applied)
	}
	// Closing the session closes the server's stdin; it exits 0 on its own.
	if err := client.Close(); err != nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("gardener mcp ended with %v\nstderr: %s", err, stderr.String())
	}

	store, err = embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	defer store.Close()
	written, err := store.Test(ctx, "login")
	noErr(t, err)
	rep, err := store.Repair(ctx, applied.RepairID)
	if err != nil || written.Version != login.Version+1 || rep.ApprovedBy != "mcp:test-assistant" {
		t.Errorf("the state after the session: test version %d, repair %+v (%v)", written.Version, rep, err)
	}
	for _, r := range []mcpserver.Ran{green, red} {
		if run, err := store.Run(ctx, r.RunID); err != nil || run.Result == nil || run.Result.Passed != r.Green || run.TestVersion != login.Version {
			t.Errorf("run_test's run %s in the state: %+v %v", r.RunID, run, err)
		}
	}
}

// TestMCPOverTheAPI drives the tools against the local stack's review API, as `gardener mcp
// --api` does, in a project with auto-repair on: suggest_fix starts the manual ladder asking it
// to propose, so the fix is staged and the test is not written although the project would apply
// it; apply_repair approves it through the API, which records the token's caller; a second
// approval and an unknown proposal are refused.
func TestMCPOverTheAPI(t *testing.T) {
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("SKIP: no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	app := demoapp.New()
	appSrv := httptest.NewServer(app.Handler())
	defer appSrv.Close()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	noErr(t, err)
	defer store.Close()
	st, err := stack.New(stack.Config{Template: "../../template.yaml", Services: handler.Services{Store: store, Runner: sharedRunner,
		BaseURLs: map[string]string{"demo": appSrv.URL}, StepTimeout: mcpStepTimeout,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		}}})
	noErr(t, err)
	defer st.Wait()
	srv := httptest.NewServer(st.Handler())
	defer srv.Close()
	token := stack.DevToken("ann@example.com", "demo")
	remote := &mcpserver.Remote{URL: srv.URL, Token: token, Poll: 100 * time.Millisecond}
	put := func(path, body string) {
		t.Helper()
		req, _ := http.NewRequest("PUT", srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		noErr(t, err)
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("PUT %s: %d", path, resp.StatusCode)
		}
	}
	put("/projects/demo", fmt.Sprintf(`{"name":"Seedling Supply","allowedOrigins":[%q],"model":"builtin","plan":"pro","autoRepair":true,"radar":false}`, appSrv.URL))
	login, err := demoapp.TestJSON("login")
	noErr(t, err)
	var file map[string]any
	noErr(t, json.Unmarshal(login, &file))
	file["project"] = "demo"
	body, _ := json.Marshal(file)
	put("/tests/login", string(body))
	put("/tests/login/status", `{"status":"active"}`)
	noErr(t, st.Scheduler.FireNow(ctx, "SuiteStateMachine.Suite"))
	st.Wait()
	before, err := store.Test(ctx, "login")
	noErr(t, err)
	if _, err := store.LastGreenRun(ctx, "login"); err != nil {
		t.Fatalf("the suite should record a green run of login: %v", err)
	}

	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(remote, mcpserver.Options{Version: "test"}).Connect(ctx, serverT, nil)
	noErr(t, err)
	defer ss.Close()
	client := newMCPClient(t, ctx, clientT)
	// run_test is POST /tests/{testId}/runs: the API replays and records the run.
	var ran mcpserver.Ran
	if text, isErr := client.call(t, ctx, "run_test", map[string]any{"testId": "login"}, &ran); isErr || !ran.Green || ran.Version != before.Version {
		t.Fatalf("run_test over the API: %+v %q", ran, text)
	}
	if g, err := store.LastGreenRun(ctx, "login"); err != nil || g.ID != ran.RunID || g.Trigger != gardener.TriggerManual {
		t.Errorf("the last green run after run_test: %+v %v, want run %s", g, err, ran.RunID)
	}
	if text, isErr := client.call(t, ctx, "run_test", map[string]any{"testId": "nope"}, nil); !isErr || !strings.HasPrefix(text, `testId: no test "nope" visible to this token`) {
		t.Errorf("run_test of an unknown test over the API: error=%v %q", isErr, text)
	}
	noErr(t, app.SetVariant("id-renamed"))
	var s mcpserver.Suggestion
	if text, isErr := client.call(t, ctx, "suggest_fix", map[string]any{"testId": "login"}, &s); isErr {
		t.Fatalf("suggest_fix failed: %s", text)
	}
	checkProvenSuggestion(t, s, before.Version, "4")
	if strings.Contains(s.Cost, ": 0 state transitions, 0 Lambda invocations") {
		t.Errorf("suggest_fix over the API: cost %q; want the repair machine's transitions and invocations", s.Cost)
	}
	if cur, _ := store.Test(ctx, "login"); cur.Version != before.Version {
		t.Fatalf("suggest_fix over the API wrote the test in an auto-repair project: version %d", cur.Version)
	}
	// The client is sent the execution's events as they are appended, each as its line, in the
	// order of the log: the same stages the local backend sends, and the persist step's.
	want := []string{"eligibility", "reproduce", "snapshot", "candidate", "proof-step", "proof", "contract", "verdict", "outcome", "stage"}
	if got := stagesOf(client.messages()); !isSubsequence(want, got) {
		t.Errorf("progress stages %q, want %q in this order", got, want)
	}
	var applied mcpserver.Applied
	if text, isErr := client.call(t, ctx, "apply_repair", map[string]any{"proposalId": s.ProposalID}, &applied); isErr {
		t.Fatalf("apply_repair failed: %s", text)
	}
	if applied.Version != before.Version+1 || applied.ApprovedBy != "ann@example.com" {
		t.Errorf("apply_repair over the API: %+v", applied)
	}
	if text, isErr := client.call(t, ctx, "apply_repair", map[string]any{"proposalId": s.ProposalID}, nil); !isErr || !strings.Contains(text, "not proposed") {
		t.Errorf("a second apply_repair: error=%v %q", isErr, text)
	}
	if text, isErr := client.call(t, ctx, "apply_repair", map[string]any{"proposalId": "nope"}, nil); !isErr || !strings.HasPrefix(text, "proposalId:") {
		t.Errorf("apply_repair of an unknown proposal: error=%v %q", isErr, text)
	}

	// The refusals the local backend gives, given by the API: a chat edit staged UNVERIFIED is
	// held for a person, and stays open for one; after a person's edit it is stale.
	post := func(path, body string) string {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		noErr(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	var chat handler.Edited
	noErr(t, json.Unmarshal([]byte(post("/tests/login/edits", fmt.Sprintf(`{"source":"chat","version":%d,"ops":[{"op":"insert","index":8,"step":{"kind":"wait","for":"time","ms":100}}]}`, applied.Version))), &chat))
	if chat.Outcome != "staged" || chat.Proposal == nil {
		t.Fatalf("chat edit: %+v", chat)
	}
	text, isErr := client.call(t, ctx, "apply_repair", map[string]any{"proposalId": chat.Proposal.ID}, nil)
	if !isErr || !strings.Contains(text, "held for a person: UNVERIFIED") || !strings.Contains(text, chat.Proposal.ID) {
		t.Errorf("apply_repair of an UNVERIFIED chat edit over the API: error=%v %q, want refused as held for a person", isErr, text)
	}
	if p, err := store.Proposal(ctx, chat.Proposal.ID); err != nil || p.Status != gardener.ProposalProposed {
		t.Errorf("the refused chat proposal is %q (%v), want still proposed for a person", p.Status, err)
	}
	post("/tests/login/edits", fmt.Sprintf(`{"source":"builder","version":%d,"ops":[{"op":"insert","index":9,"step":{"kind":"wait","for":"time","ms":50}}]}`, applied.Version))
	text, isErr = client.call(t, ctx, "apply_repair", map[string]any{"proposalId": chat.Proposal.ID}, nil)
	if !isErr || !strings.Contains(text, "stale") {
		t.Errorf("apply_repair of a stale proposal over the API: error=%v %q, want refused as stale", isErr, text)
	}
	current, err := store.Test(ctx, "login")
	noErr(t, err)
	if current.Version != applied.Version+1 {
		t.Errorf("the test is at version %d, want %d (the builder edit only)", current.Version, applied.Version+1)
	}

	// A negative control run is refused by both tools, with the reason, as by the local backend.
	control := gardener.Run{ID: "control-api", ProjectID: "demo", TestID: "login", TestVersion: current.Version, Trigger: gardener.TriggerManual, Control: true, At: time.Now()}
	noErr(t, store.PutRun(ctx, control))
	for _, tool := range []string{"apply_repair", "suggest_fix"} {
		text, isErr := client.call(t, ctx, tool, map[string]any{"runId": control.ID}, nil)
		if !isErr || !strings.Contains(text, "negative control run") {
			t.Errorf("%s on a control run over the API: error=%v %q, want refused as a control run", tool, isErr, text)
		}
	}
	if after, _ := store.Test(ctx, "login"); after.Version != current.Version {
		t.Error("a refused call over the API wrote the test")
	}
}

// stagesOf reads the stage of each progress line ("  3 [candidate self-heal] …" is candidate).
func stagesOf(lines []string) []string {
	var out []string
	for _, l := range lines {
		_, rest, ok := strings.Cut(l, "[")
		if !ok {
			continue
		}
		stage, _, _ := strings.Cut(rest, "]")
		stage, _, _ = strings.Cut(stage, " ")
		out = append(out, stage)
	}
	return out
}

// isSubsequence reports whether want appears in got in order, other items between.
func isSubsequence(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestMCPStreamableHTTP: with --listen the tools are served over streamable HTTP on loopback,
// the URL on stdout's first line; a non-loopback address is refused as bad input.
func TestMCPStreamableHTTP(t *testing.T) {
	var errb bytes.Buffer
	if code := dispatch([]string{"mcp", "--listen", "0.0.0.0:0", "--state", t.TempDir()}, nil, &bytes.Buffer{}, &errb); code != exitBadInput || !strings.Contains(errb.String(), "only a loopback address") {
		t.Errorf("--listen 0.0.0.0:0: exit %d %s", code, errb.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	c := &cli{stdin: strings.NewReader(""), stdout: pw, stderr: &bytes.Buffer{}, runner: sharedRunner}
	done := make(chan int, 1)
	go func() { done <- c.dispatch(ctx, []string{"mcp", "--listen", "127.0.0.1:0", "--state", t.TempDir()}) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	noErr(t, err)
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	endpoint := strings.TrimSpace(line)
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || !strings.HasSuffix(endpoint, "/mcp") {
		t.Fatalf("first line %q, want the endpoint's URL", line)
	}
	client := newMCPClient(t, ctx, &mcp.StreamableClientTransport{Endpoint: endpoint})
	if names := listToolNames(t, ctx, client); !slices.Equal(names, []string{"apply_repair", "run_test", "suggest_fix"}) {
		t.Errorf("tools %v over HTTP", names)
	}
	noErr(t, client.Close())
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("gardener mcp --listen ended with exit %d", code)
	}
}
