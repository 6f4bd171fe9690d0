package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/local/stack"
)

// TestAnUnreachableAppExitsThree: run, repair and sweep against an app nothing answers for
// exit 3 (a runtime failure of the network, as the README's table says), name the app, and
// replay nothing: no browser starts, and the state holds nothing about the test — no project,
// no test synced into it, no run, no triage issue. Under a second.
func TestAnUnreachableAppExitsThree(t *testing.T) {
	t.Parallel()
	closed := closedOrigin(t)
	dir := t.TempDir()
	test := filepath.Join(dir, "t.json")
	noErr(t, os.WriteFile(test, []byte(`{"id":"t","steps":[{"kind":"goto","url":"/"}]}`), 0o644))
	for _, c := range []struct {
		args  []string
		state string
	}{
		{[]string{"run", test, "--base-url", closed}, ""},
		{[]string{"run", test, "--base-url", closed, "--record"}, t.TempDir()},
		{[]string{"repair", test, "--base-url", closed}, t.TempDir()},
		{[]string{"sweep", "--tests", dir, "--base-url", closed, "--model", "none"}, t.TempDir()},
	} {
		args := c.args
		if c.state != "" {
			args = append(args, "--state", c.state)
		}
		var out, errb bytes.Buffer
		code := dispatch(args, nil, &out, &errb)
		if code != exitFailure || !strings.Contains(errb.String(), "the app at "+closed+" could not be reached") || !strings.Contains(errb.String(), "connection refused") ||
			!strings.Contains(errb.String(), "nothing was replayed") {
			t.Errorf("%v: exit %d, want 3 naming the app:\n%s%s", args, code, out.String(), errb.String())
		}
		if c.state == "" {
			continue
		}
		store, err := openState(c.state)
		noErr(t, err)
		ctx := context.Background()
		_, perr := store.Project(ctx, "local")
		_, terr := store.Test(ctx, "t")
		issues, ierr := store.TriageIssues(ctx, "local")
		store.Close()
		if !errors.Is(perr, gardener.ErrNotFound) || !errors.Is(terr, gardener.ErrNotFound) || ierr != nil || len(issues) != 0 {
			t.Errorf("%v: the state holds the project (%v), the test (%v) or triage issues %+v (%v); want nothing", args, perr, terr, issues, ierr)
		}
	}
}

// TestPushRecordOfADownApp: push --record against an app that is down pushes the tests (a push
// replays nothing) and records no run of them: each is "not recorded", naming the app, and the
// exit is 3, as through the API's 502.
func TestPushRecordOfADownApp(t *testing.T) {
	t.Parallel()
	closed := closedOrigin(t)
	dir, state := t.TempDir(), t.TempDir()
	noErr(t, os.WriteFile(filepath.Join(dir, "t.json"), []byte(`{"id":"t","steps":[{"kind":"goto","url":"/"}]}`), 0o644))
	var out, errb bytes.Buffer
	code := dispatch([]string{"push", dir, "--project", "demo", "--state", state, "--record", "--base-url", closed}, nil, &out, &errb)
	if code != exitFailure || !strings.Contains(out.String(), "not recorded: the app at "+closed+" could not be reached") {
		t.Errorf("exit %d, want 3 with the run not recorded:\n%s%s", code, out.String(), errb.String())
	}
	store, err := openState(state)
	noErr(t, err)
	defer store.Close()
	if _, err := store.LastGreenRun(context.Background(), "t"); !errors.Is(err, gardener.ErrNotFound) {
		t.Errorf("a green run was recorded (%v)", err)
	}
}

// TestServeAnswersADownApp502: gardener serve's API, over the same application layer, answers a
// run or a repair of a test whose app is down 502 naming the app, as run and repair exit 3:
// nothing is replayed, recorded or started.
func TestServeAnswersADownApp502(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	closed := closedOrigin(t)
	l, err := startLocal(ctx, localOptions{state: t.TempDir(), template: "../../template.yaml", stepTimeout: time.Second, runner: sharedRunner})
	noErr(t, err)
	defer l.close()
	noErr(t, l.store.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{closed}}))
	noErr(t, l.store.CreateTest(ctx, gardener.Test{ID: "t", ProjectID: "shop", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}))
	srv := httptest.NewServer(l.Handler())
	defer srv.Close()
	for _, path := range []string{"/tests/t/runs", "/tests/t/repair"} {
		req, err := http.NewRequest("POST", srv.URL+path, nil)
		noErr(t, err)
		req.Header.Set("Authorization", "Bearer "+stack.DevToken("ann@example.com", "shop"))
		resp, err := http.DefaultClient.Do(req)
		noErr(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(b), "the app at "+closed+" could not be reached") || !strings.Contains(string(b), "connection refused") {
			t.Errorf("POST %s: %d %s, want 502 naming the app", path, resp.StatusCode, b)
		}
	}
	l.Wait()
	if xs := l.Executions("RepairStateMachine"); len(xs) != 0 {
		t.Errorf("%d repair executions started, want none", len(xs))
	}
	if _, err := l.store.LastGreenRun(ctx, "t"); !errors.Is(err, gardener.ErrNotFound) {
		t.Errorf("a run was recorded (%v)", err)
	}
	if issues, err := l.store.TriageIssues(ctx, "shop"); err != nil || len(issues) != 0 {
		t.Errorf("triage issues %+v (%v), want none", issues, err)
	}
}

// TestRepairWordsForAPassingTest: a test that passes is said to pass, with nothing to repair,
// and its run named; never a failed repair's NO-FIX.
func TestRepairWordsForAPassingTest(t *testing.T) {
	var out bytes.Buffer
	printRepair(&out, marksFor(false), &repairOutput{Outcome: ladder.NoFix, Reason: "the test passes: there is nothing to repair", TestID: "login", RunID: "run-7", ModelCalls: 1})
	text := out.String()
	for _, want := range []string{"PASSES: login — the test passes: there is nothing to repair", "run run-7", "1 model call,", "0 replays"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(strings.ToUpper(text), "NO-FIX") {
		t.Errorf("a passing test reads as a failed repair:\n%s", text)
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 tests", 1: "1 test", 2: "2 tests"} {
		if got := plural(n, "test", "tests"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestPortsAreFlags: serve and demo listen where --listen and --app-listen say, loopback only,
// and refuse a bad address (or --app-listen without the shop) as bad input before anything
// starts.
func TestPortsAreFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--app-listen", "127.0.0.1:0"}, "--app-listen is where the demo shop listens: it goes with --demo-app"},
		{[]string{"serve", "--listen", "0.0.0.0:8787"}, "only a loopback address"},
		{[]string{"serve", "--demo-app", "--app-listen", "example.com:80"}, "--app-listen \"example.com:80\": only a loopback address"},
		{[]string{"demo", "--listen", "10.0.0.1:80"}, "--listen \"10.0.0.1:80\": only a loopback address"},
		{[]string{"demo", "--app-listen", "127.0.0.1"}, "give HOST:PORT"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(c.args, nil, &out, &errb); code != exitBadInput || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q:\n%s", c.args, code, c.want, errb.String())
		}
	}
}

// TestReachOnceAsksAnAppThatAnsweredOnce: a one-shot command's probe asks a base URL that
// answered only once (run --record of a folder had asked once a test), and one that did not
// answer again each time.
func TestReachOnceAsksAnAppThatAnsweredOnce(t *testing.T) {
	asked := map[string]int{}
	reach := reachOnce(func(_ context.Context, base string) error {
		asked[base]++
		if base == "http://down" {
			return &gardener.UnreachableError{URL: base, Err: errors.New("refused")}
		}
		return nil
	})
	for range 3 {
		if err := reach(t.Context(), "http://up"); err != nil {
			t.Fatal(err)
		}
		if err := reach(t.Context(), "http://down"); err == nil {
			t.Fatal("a down app answered")
		}
	}
	if asked["http://up"] != 1 || asked["http://down"] != 3 {
		t.Errorf("asked %v; want the app that answered once, the down one each time", asked)
	}
}
