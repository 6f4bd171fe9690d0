// Package firsthour_test is a team's first hour, end to end, as a team meets it: an empty state,
// tests written by hand for an app of the team's own (not the demo shop), and only the doors a
// team uses — the gardener binary's push and pull, and `gardener serve`'s HTTP API. No run is
// ever written into a store by hand: the green run is recorded by "run now", the failure by a
// run of the drifted app, and the repair's outcome is what the repair machine decides.
package firsthour_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftgardener/gardener/tests/testkit"
)

var binary string

func TestMain(m *testing.M) {
	var remove func()
	binary, remove = testkit.BuildGardener("tests/firsthour", "../../cmd/gardener")
	// The served stack starts its own Chromium; Main only checks there is one, and says so when
	// there is not.
	testkit.Main(m, testkit.Chromium{Package: "tests/firsthour", AfterTests: remove})
}

// joinApp is a newsletter sign-up written for this test. Its drift renames the password
// field's id and leaves its label, name and place as they were.
type joinApp struct {
	drifted atomic.Bool
	srv     *httptest.Server
}

func newJoinApp(t *testing.T) *joinApp {
	a := &joinApp{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /join", func(w http.ResponseWriter, r *http.Request) {
		id := "password"
		if a.drifted.Load() {
			id = "secret-field"
		}
		fmt.Fprintf(w, `<!doctype html><html><head><title>Join</title></head><body><main><h1>Join the letter</h1>
<form action="/welcome" method="get">
<p><label for="email">Email</label> <input id="email" name="email" type="email"></p>
<p><label for="%[1]s">Password</label> <input id="%[1]s" name="password" type="password"></p>
<p><button id="join" type="submit">Join</button></p>
</form></main></body></html>`, id)
	})
	mux.HandleFunc("GET /welcome", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Welcome</title></head><body><main><h1 id="hello">Welcome aboard</h1></main></body></html>`)
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

// The tests a team writes by hand: no version, its own spelling of locators.
const joinTest = `{
  "id": "join",
  "project": "acme",
  "name": "a reader joins the letter",
  "steps": [
    {"kind": "goto", "url": "/join"},
    {"kind": "fill", "locator": "#email", "value": "reader@example.com"},
    {"kind": "fill", "locator": "#password", "value": "typed-secret-77"},
    {"kind": "click", "locator": "#join"},
    {"kind": "assert", "assert": "text", "locator": "#hello", "condition": "equals", "expected": "Welcome aboard"}
  ]
}
`

const joinTitleTest = `{
  "id": "join-title",
  "project": "acme",
  "name": "joining ends on the welcome page",
  "steps": [
    {"kind": "goto", "url": "/join"},
    {"kind": "fill", "locator": "#password", "value": "typed-secret-78"},
    {"kind": "click", "locator": "#join"},
    {"kind": "assert", "assert": "title", "condition": "equals", "expected": "Welcome"}
  ]
}
`

// served is `gardener serve` on a free loopback port, with what it logged.
type served struct {
	url   string
	token string
	mu    sync.Mutex
	log   bytes.Buffer
}

func (s *served) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.Write(p)
}

func (s *served) logged() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

func serve(t *testing.T, state string) *served {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &served{url: "http://" + addr, token: "dev:reader@example.com:acme"}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, "serve", "--state", state, "--listen", addr, "--step-timeout", "3s")
	cmd.Stdout, cmd.Stderr = s, s
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("gardener serve logged:\n%s", s.logged())
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		if r, err := http.Get(s.url + "/projects/acme"); err == nil {
			r.Body.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("gardener serve did not answer on %s in 30 s:\n%s", addr, s.logged())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *served) call(t *testing.T, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	// An object is answered as it is; a listing (an array, or null when empty) as "list".
	var got any
	if err := json.Unmarshal(b, &got); err != nil {
		return res.StatusCode, map[string]any{"body": string(b)}
	}
	if v, ok := got.(map[string]any); ok {
		return res.StatusCode, v
	}
	return res.StatusCode, map[string]any{"list": got}
}

// gardener runs the binary in dir against the served API.
func (s *served) gardener(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GARDENER_TOKEN="+s.token)
	out, err := cmd.CombinedOutput()
	code := 0
	if e, ok := err.(*exec.ExitError); ok {
		code = e.ExitCode()
	} else if err != nil {
		t.Fatalf("gardener %v: %v", args, err)
	}
	return string(out), code
}

// execution follows a repair execution the API started to its end.
func (s *served) execution(t *testing.T, id string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; {
		code, v := s.call(t, "GET", "/executions/"+id, "")
		if code != http.StatusOK {
			t.Fatalf("GET /executions/%s: %d %v", id, code, v)
		}
		if v["status"] != "RUNNING" {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution %s still running after 2 minutes: %v", id, v)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Reader", "GIT_AUTHOR_EMAIL=reader@example.com",
		"GIT_COMMITTER_NAME=Reader", "GIT_COMMITTER_EMAIL=reader@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// team is a fresh repository with the team's tests, an empty gardener state, the app and the
// served stack with the project created through the API.
type team struct {
	repo string
	app  *joinApp
	api  *served
}

func newTeam(t *testing.T) *team {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: apt-get install -y git (pull --commit writes with it)")
	}
	tm := &team{repo: t.TempDir(), app: newJoinApp(t)}
	os.MkdirAll(filepath.Join(tm.repo, "tests"), 0o755)
	os.WriteFile(filepath.Join(tm.repo, "tests", "join.json"), []byte(joinTest), 0o644)
	os.WriteFile(filepath.Join(tm.repo, "tests", "join-title.json"), []byte(joinTitleTest), 0o644)
	git(t, tm.repo, "init", "-q", "-b", "main")
	git(t, tm.repo, "config", "user.name", "Reader")
	git(t, tm.repo, "config", "user.email", "reader@example.com")
	git(t, tm.repo, "add", "-A")
	git(t, tm.repo, "commit", "-q", "-m", "our tests")
	tm.api = serve(t, t.TempDir())
	project := fmt.Sprintf(`{"allowedOrigins":[%q],"model":"builtin","plan":"pro","autoRepair":true}`, tm.app.srv.URL)
	if code, v := tm.api.call(t, "PUT", "/projects/acme", project); code != http.StatusCreated {
		t.Fatalf("PUT /projects/acme: %d %v", code, v)
	}
	out, code := tm.api.gardener(t, tm.repo, "push", "tests", "--project", "acme", "--api", tm.api.url)
	if code != 0 || !strings.Contains(out, "2 created") {
		t.Fatalf("push: exit %d\n%s", code, out)
	}
	// push writes the version the project holds into each file; the team commits that.
	git(t, tm.repo, "commit", "-q", "-am", "pushed to the gardener")
	return tm
}

// noValues fails when text carries what a test types into its password fields (the email it
// types is also who approves, so it may be shown as the approver).
func noValues(t *testing.T, where, text string) {
	t.Helper()
	for _, v := range []string{"typed-secret-77", "typed-secret-78"} {
		if strings.Contains(text, v) {
			t.Errorf("%s shows a typed value %q:\n%s", where, v, text)
		}
	}
}

// TestFirstHour: push, run now (the green run recorded), drift, a repair through the API that
// answers repaired, then pull onto a branch of the team's repository: the repaired test is
// committed with its record, and a file the team edited meanwhile is refused and left as it is.
func TestFirstHour(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	for _, id := range []string{"join", "join-title"} {
		code, v := tm.api.call(t, "POST", "/tests/"+id+"/runs", "")
		if code != http.StatusCreated || v["green"] != true {
			t.Fatalf("run now of %s on the healthy app: %d %v", id, code, v)
		}
	}

	tm.app.drifted.Store(true)
	code, v := tm.api.call(t, "POST", "/tests/join/runs", "")
	if code != http.StatusCreated || v["green"] != false {
		t.Fatalf("run now of join on the drifted app: %d %v", code, v)
	}
	run, _ := v["run"].(map[string]any)
	runID, _ := run["id"].(string)
	if runID == "" {
		t.Fatalf("run now answered no run id: %v", v)
	}
	b, _ := json.Marshal(v)
	noValues(t, "the run's answer", string(b))

	code, v = tm.api.call(t, "POST", "/runs/"+runID+"/repair", `{}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /runs/%s/repair: %d %v", runID, code, v)
	}
	ex := tm.api.execution(t, v["executionId"].(string))
	if ex["status"] != "SUCCEEDED" || ex["outcome"] != "repaired" {
		t.Fatalf("the repair of a renamed id under its label, with a green run recorded: %v", ex)
	}
	code, v = tm.api.call(t, "GET", "/tests/join", "")
	if code != http.StatusOK || v["version"] != float64(2) {
		t.Fatalf("GET /tests/join after the repair: %d %v", code, v)
	}

	// The other test steps on the same field: the healed locator is propagated to it, proven by
	// its own green re-run.
	code, v = tm.api.call(t, "GET", "/tests/join-title", "")
	if code != http.StatusOK || v["version"] != float64(2) {
		t.Fatalf("GET /tests/join-title after the repair of join: %d %v (the healed locator was not propagated)", code, v)
	}

	// Meanwhile the team edits join-title in its repository.
	edited := strings.Replace(joinTitleTest, `"joining ends on the welcome page"`, `"joining ends on the welcome page (edited)"`, 1)
	titlePath := filepath.Join(tm.repo, "tests", "join-title.json")
	os.WriteFile(titlePath, []byte(edited), 0o644)
	git(t, tm.repo, "commit", "-q", "-am", "rename a test")

	out, code := tm.api.gardener(t, tm.repo, "pull", "tests", "--project", "acme", "--api", tm.api.url, "--branch", "gardener/repairs")
	if code != 1 {
		t.Fatalf("pull with one edited file: exit %d, want 1 (some refused)\n%s", code, out)
	}
	noValues(t, "pull's output", out)
	if !strings.Contains(out, "join-title") || !strings.Contains(out, "refused") {
		t.Errorf("pull does not say it refused the edited file:\n%s", out)
	}
	if got, _ := os.ReadFile(titlePath); string(got) != edited {
		t.Errorf("pull changed the file the team edited:\n%s", got)
	}

	// The branch holds one commit more than main: the repaired join.json, with its record.
	if n := strings.TrimSpace(git(t, tm.repo, "rev-list", "--count", "main..gardener/repairs")); n != "1" {
		t.Fatalf("commits on gardener/repairs beyond main: %s, want 1\n%s", n, git(t, tm.repo, "log", "--stat", "gardener/repairs"))
	}
	files := strings.Fields(git(t, tm.repo, "diff", "--name-only", "main", "gardener/repairs"))
	if len(files) != 1 || files[0] != "tests/join.json" {
		t.Errorf("the branch changes %v, want only tests/join.json", files)
	}
	msg := git(t, tm.repo, "log", "-1", "--format=%B", "gardener/repairs")
	for _, want := range []string{"join", runID} {
		if !strings.Contains(msg, want) {
			t.Errorf("the commit message does not name %q:\n%s", want, msg)
		}
	}
	noValues(t, "the commit message", msg)
	committed := git(t, tm.repo, "show", "gardener/repairs:tests/join.json")
	if strings.Contains(committed, `"#password"`) || strings.Contains(committed, "css=#password") || !strings.Contains(committed, `"version": 2`) {
		t.Errorf("the committed join.json is not the repaired version 2:\n%s", committed)
	}
	if !strings.Contains(committed, "typed-secret-77") {
		t.Errorf("the committed join.json lost what its step types:\n%s", committed)
	}
}

// TestFirstFailureWithoutAGreenRun: the same drift met before any run was recorded is repaired
// (the page still names the field) — never an app bug, never a triage issue, never an alert.
func TestFirstFailureWithoutAGreenRun(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	tm.app.drifted.Store(true)
	code, v := tm.api.call(t, "POST", "/tests/join/repair", `{}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /tests/join/repair: %d %v", code, v)
	}
	ex := tm.api.execution(t, v["executionId"].(string))
	b, _ := json.Marshal(ex)
	switch {
	case ex["status"] != "SUCCEEDED":
		t.Fatalf("the execution did not succeed: %s", b)
	case ex["outcome"] == "repaired":
	default:
		// The page still names the field by the locator's word: its label says "Password".
		t.Fatalf("a renamed id under its unchanged label and name, first failure with no green run: want repaired, got %s", b)
	}
	if strings.Contains(strings.ToLower(string(b)), "app-bug") {
		t.Errorf("a first failure with no green run was called an app bug: %s", b)
	}
	noValues(t, "the execution", string(b))
	code, v = tm.api.call(t, "GET", "/projects/acme/triage", "")
	if code != http.StatusOK {
		t.Fatalf("GET /projects/acme/triage: %d %v", code, v)
	}
	if issues, _ := v["list"].([]any); len(issues) > 0 {
		t.Errorf("a triage issue was filed: %v", v)
	}
	if log := tm.api.logged(); strings.Contains(log, "sns publish") && ex["outcome"] != "repaired" {
		t.Errorf("an alert was sent for a failure the gardener cannot judge:\n%s", log)
	}
}
