package stack

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

// crashChild names the state a re-run of this test binary serves as the process the crash test
// kills (see TestMain).
const crashChild = "GARDENER_STACK_CRASH_CHILD"

func TestMain(m *testing.M) {
	if state := os.Getenv(crashChild); state != "" {
		if err := serveUntilKilled(state); err != nil {
			fmt.Println("ERROR", err)
			os.Exit(3)
		}
	}
	code := m.Run()
	runner.Close()
	os.Exit(code)
}

// blockingRunner stands in for a browser whose replay never ends: the process is killed while
// an execution waits on it.
type blockingRunner struct{ reached chan struct{} }

func (b blockingRunner) Replay(ctx context.Context, _ gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	select {
	case b.reached <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return gardener.Replay{}, ctx.Err()
}

// noBrowser stands in for a browser that cannot start: the ladder ends at once.
type noBrowser struct{}

func (noBrowser) Replay(context.Context, gardener.Test, gardener.ReplayOptions) (gardener.Replay, error) {
	return gardener.Replay{}, errors.New("no browser in this test")
}

// crashWorld is a state with a failed run a person may repair: a Pro project with the built-in
// model, its active test, and the run.
func crashWorld(t *testing.T) string {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state.db")
	store, err := embedded.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.PutProject(ctx, gardener.Project{ID: "shop", Name: "Shop", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{"http://127.0.0.1:9"}}))
	must(store.CreateTest(ctx, gardener.Test{ID: "t1", ProjectID: "shop", Name: "t1", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}))
	must(store.PutRun(ctx, gardener.Run{ID: "r1", ProjectID: "shop", TestID: "t1", TestVersion: 1, Trigger: gardener.TriggerSchedule, At: time.Now(),
		Result: &gardener.RunResult{TestID: "t1", TestVersion: 1, FailedIndex: 0, ErrorKind: "element-not-found"}}))
	return state
}

// startStack serves the stack on state's store with runner, the ledger in the store.
func startStack(state string, runner gardener.Runner) (*Stack, *embedded.Store, *httptest.Server, error) {
	store, err := embedded.Open(state)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := New(Config{Template: templatePath, Ledger: store, Services: handler.Services{Store: store, Runner: runner,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		}}})
	if err != nil {
		store.Close()
		return nil, nil, nil, err
	}
	return s, store, httptest.NewServer(s.Handler()), nil
}

// call sends one API request as ann and decodes the answer into out.
func call(srv *httptest.Server, method, path string, out any) (int, error) {
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader("{}"))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+DevToken("ann@example.com", "shop"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, out); err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s: %w", method, path, resp.StatusCode, b, err)
	}
	return resp.StatusCode, nil
}

// serveUntilKilled is the process the crash test kills: it asks for the ladder on the failed
// run, says which execution it started once that execution waits on the browser, and waits.
func serveUntilKilled(state string) error {
	reached := make(chan struct{}, 1)
	_, _, srv, err := startStack(state, blockingRunner{reached})
	if err != nil {
		return err
	}
	var started struct{ ExecutionID string }
	if status, err := call(srv, "POST", "/runs/r1/repair", &started); err != nil || status != http.StatusAccepted {
		return fmt.Errorf("starting the repair: %d %v", status, err)
	}
	select {
	case <-reached:
	case <-time.After(time.Minute):
		return errors.New("the execution never reached the browser")
	}
	fmt.Println("RUNNING", started.ExecutionID)
	select {}
}

// TestExecutionsOutliveTheStack: a stack's executions and their status are kept in the
// embedded store. After a process running an execution is killed with SIGKILL, the next stack
// answers GET /executions/{id} for it (ABORTED, not 404, and not running again); asking again
// starts a new attempt with a log of its own, so the dead attempt's log holds only its own
// events; and after a clean restart the finished execution still answers with its status.
func TestExecutionsOutliveTheStack(t *testing.T) {
	state := crashWorld(t)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), crashChild+"="+state)
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	lines := bufio.NewScanner(out)
	var first string
	for lines.Scan() {
		if id, ok := strings.CutPrefix(lines.Text(), "RUNNING "); ok {
			first = id
			break
		}
		t.Log("child:", lines.Text())
	}
	if first == "" {
		t.Fatal("the child process started no execution")
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	s, store, srv, err := startStack(state, noBrowser{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x1, err := store.Execution(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	deadLog, err := store.Events(ctx, x1.Name, 0, 0)
	if err != nil || len(deadLog) == 0 || deadLog[0].Stage != gardener.EventEligibility {
		t.Fatalf("the killed attempt's log: %+v, %v; want its eligibility event first", deadLog, err)
	}
	var desc struct {
		Status string `json:"status"`
	}
	if status, err := call(srv, "GET", "/executions/"+first, &desc); err != nil || status != http.StatusOK || desc.Status != "ABORTED" {
		t.Fatalf("GET /executions/{killed} after the restart: %d %+v %v; want 200 ABORTED", status, desc, err)
	}
	var again struct{ ExecutionID string }
	if status, err := call(srv, "POST", "/runs/r1/repair", &again); err != nil || status != http.StatusAccepted {
		t.Fatalf("asking again: %d %v", status, err)
	}
	if again.ExecutionID == first {
		t.Fatalf("asking again answered with the killed execution %s", first)
	}
	s.Wait()
	x2, err := store.Execution(ctx, again.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	if x2.Name == x1.Name {
		t.Fatalf("the new attempt logs under the killed one's name %s", x1.Name)
	}
	if after, _ := store.Events(ctx, x1.Name, 0, 0); len(after) != len(deadLog) {
		t.Errorf("the killed attempt's log went from %d to %d events: two attempts interleaved", len(deadLog), len(after))
	}
	newLog, err := store.Events(ctx, x2.Name, 0, 0)
	eligibility := 0
	for _, e := range newLog {
		if e.Stage == gardener.EventEligibility {
			eligibility++
		}
	}
	if err != nil || len(newLog) == 0 || newLog[0].Stage != gardener.EventEligibility || eligibility != 1 {
		t.Errorf("the new attempt's log: %+v, %v; want one eligibility event, first", newLog, err)
	}
	var ended struct {
		Status string `json:"status"`
	}
	if status, err := call(srv, "GET", "/executions/"+again.ExecutionID, &ended); err != nil || status != http.StatusOK || ended.Status == "RUNNING" || ended.Status == "" {
		t.Fatalf("GET /executions/{new} once ended: %d %+v %v", status, ended, err)
	}
	srv.Close()
	store.Close()

	// A clean restart: both executions still answer, with the status they ended with.
	s, store, srv, err = startStack(state, noBrowser{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	defer srv.Close()
	defer s.Wait()
	for id, want := range map[string]string{first: "ABORTED", again.ExecutionID: ended.Status} {
		var got struct {
			Status string `json:"status"`
		}
		if status, err := call(srv, "GET", "/executions/"+id, &got); err != nil || status != http.StatusOK || got.Status != want {
			t.Errorf("GET /executions/%s after a clean restart: %d %+v %v; want %s", id, status, got, err, want)
		}
	}
}

// The embedded store is the ledger gardener serve gives the stack.
var _ Ledger = (*embedded.Store)(nil)
