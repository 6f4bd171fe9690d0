package security_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/asl"
	"github.com/driftgardener/gardener/pkg/local/eventbus"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

// The world every probe starts from: two projects of one deployment, each with a test, and the
// caller (ann) a member of the first only. A probe that reads or writes across projects is
// caught by what the second one holds.
const (
	projectID = "alpha"
	testID    = "t1"
	otherID   = "beta"
	otherTest = "b1"
	caller    = "ann@example.com"
)

// deployedModel is the one Bedrock model the world's deployment allows (its ModelId).
var deployedModel = modelspec.Options{Allowed: []string{"anthropic.allowed-v1"}, AllowedFrom: "ModelId (BEDROCK_MODEL_ID)"}

// world is one probe's state: a directory with the embedded store, and for the in-process doors
// (api, console) the local stack serving it. The processes (cli, mcp) open the store themselves.
type world struct {
	dir   string
	state string
	store *embedded.Store
	// st and srv are the local stack serving the store, as gardener serve wires it (the store
	// is its ledger of executions); a restart replaces both.
	st  *stack.Stack
	srv *httptest.Server
	// app is, for the cli door, a page to replay against ({app} in an argument).
	app *httptest.Server
	// vars are what a probe's path and arguments name in braces, known once an earlier request
	// answered ({execution}: the execution the first earlier request started).
	vars map[string]string
}

func seedTest(id, project string) gardener.Test {
	return gardener.Test{ID: id, ProjectID: project, Name: id, Status: gardener.StatusActive, Version: 1,
		Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}
}

func open(t *testing.T, d door) *world {
	t.Helper()
	w := &world{dir: t.TempDir()}
	w.state = filepath.Join(w.dir, "gardener.db")
	store, err := embedded.Open(w.state)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []struct{ project, test string }{{projectID, testID}, {otherID, otherTest}} {
		if err := store.PutProject(ctx, gardener.Project{ID: p.project, Name: p.project, Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{"http://127.0.0.1:9"}}); err != nil {
			t.Fatal(err)
		}
		if err := store.CreateTest(ctx, seedTest(p.test, p.project)); err != nil {
			t.Fatal(err)
		}
	}
	if d == cli || d == mcp {
		store.Close()
		if d == cli {
			w.app = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
				fmt.Fprint(rw, "<!doctype html><title>app</title><p>app")
			}))
			t.Cleanup(w.app.Close)
		}
		return w
	}
	// The store closed last is the one open then (a crash probe reopens it).
	t.Cleanup(func() { w.store.Close() })
	w.store = store
	if d == storeDoor {
		return w
	}
	// Runs a repair is asked of: a failed one, a scenario probe's and a negative control run.
	for _, r := range []gardener.Run{
		{ID: failedRun, Trigger: gardener.TriggerSchedule},
		{ID: probeRun, Probe: true, Trigger: gardener.TriggerManual},
		{ID: controlRun, Control: true, Trigger: gardener.TriggerSchedule},
	} {
		r.ProjectID, r.TestID, r.TestVersion, r.At = projectID, testID, 1, time.Unix(1e9, 0)
		r.Result = &gardener.RunResult{TestID: testID, TestVersion: 1, FailedIndex: 0, ErrorKind: "element-not-found"}
		if err := store.PutRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	w.start(t)
	return w
}

// The runs of test t1 the world holds (see open).
const (
	failedRun  = "r-failed"
	probeRun   = "probe-1"
	controlRun = "control-1"
)

// newStack is the local stack on store as gardener serve wires it: the store is its ledger of
// executions, so they outlive the process.
func newStack(store *embedded.Store, runner gardener.Runner) (*stack.Stack, error) {
	return stack.New(stack.Config{Template: "../../template.yaml", Ledger: store, Services: handler.Services{Store: store, Runner: runner,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			// The deployment allows one Bedrock model, as the template's ModelId does; the
			// built-in engine is opened, never run (the runner replays nothing).
			return modelspec.Open(ctx, spec, deployedModel)
		}}})
}

// start serves the world's store with a new local stack, as a (re)started gardener serve does.
func (w *world) start(t *testing.T) {
	t.Helper()
	st, err := newStack(w.store, noReplay{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Wait)
	w.st, w.srv = st, httptest.NewServer(st.Handler())
	t.Cleanup(w.srv.Close)
}

// stop ends the world's stack once its executions ended, as gardener serve stops.
func (w *world) stop() {
	w.srv.Close()
	w.st.Wait()
}

// earlier sends a.earlier to an earlier life of the world's local stack, then restarts it:
// stopped cleanly once its executions ended, or, with a.kill, a process of its own serving the
// world's state, killed with SIGKILL once its last request's execution runs (its browser never
// answers). {execution} is then the execution the first earlier request started.
func (w *world) earlier(t *testing.T, a ask) {
	t.Helper()
	if len(a.earlier) == 0 {
		return
	}
	var first result
	if a.kill {
		first = w.crash(t, a.earlier)
	} else {
		for i, e := range a.earlier {
			if got := w.api(t, e); i == 0 {
				first = got
			}
		}
		w.stop()
		w.start(t)
	}
	var started struct{ ExecutionID string }
	if err := json.Unmarshal([]byte(first.body), &started); err != nil || started.ExecutionID == "" {
		t.Fatalf("the first earlier request started no execution: %d %.300s", first.status, first.text)
	}
	w.vars = map[string]string{"execution": started.ExecutionID}
}

// killedStack names the state a re-run of the suite's binary serves as the process a crash
// probe kills (see TestMain and serveUntilKilled).
const killedStack = "GARDENER_SECURITY_KILLED_STACK"

// crash lets go of the world's stack and store, serves the state from a process of its own,
// sends it reqs, kills it with SIGKILL while the last one's execution waits on its browser, and
// serves the state again from a new stack in this process. It answers the first request's
// answer.
func (w *world) crash(t *testing.T, reqs []ask) result {
	t.Helper()
	w.stop()
	if err := w.store.Close(); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), killedStack+"="+w.state)
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(prefix string) string {
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the process to kill ended before saying %q", prefix)
				}
				if v, ok := strings.CutPrefix(l, prefix); ok {
					return v
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("the process to kill did not say %q", prefix)
			}
		}
	}
	base := next("SERVING ")
	var first result
	for i, r := range reqs {
		if got := w.apiAt(t, base, r); i == 0 {
			first = got
		}
	}
	next("REPLAYING")
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if w.store, err = embedded.Open(w.state); err != nil {
		t.Fatal(err)
	}
	w.start(t)
	return first
}

// serveUntilKilled is the process a crash probe kills: the local stack on state, whose
// browser never answers, on a port it names; it says when a replay waits, and waits.
func serveUntilKilled(state string) error {
	store, err := embedded.Open(state)
	if err != nil {
		return err
	}
	reached := make(chan struct{}, 1)
	st, err := newStack(store, blockingRunner{reached})
	if err != nil {
		return err
	}
	srv := httptest.NewServer(st.Handler())
	fmt.Println("SERVING", srv.URL)
	<-reached
	fmt.Println("REPLAYING")
	select {}
}

// blockingRunner is a browser whose replay never ends: its process is killed meanwhile.
type blockingRunner struct{ reached chan struct{} }

func (b blockingRunner) Replay(ctx context.Context, _ gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	select {
	case b.reached <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return gardener.Replay{}, ctx.Err()
}

// result is what a door answered: an HTTP status or an exit code, the text of the answer, the
// headers of an HTTP answer, and for MCP the answers to each line.
type result struct {
	status int
	text   string
	// body is an HTTP answer's body as sent.
	body   string
	header http.Header
	// replies are, for each MCP line sent, the messages the server answered it with.
	replies [][]rpcReply
	// alive says the MCP session still answered a request after the probe's lines.
	alive bool
	// left are the files of ask.gone still there after the cli probe.
	left []string
}

type rpcReply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// api sends one request to the review API as ann.
func (w *world) api(t *testing.T, a ask) result {
	t.Helper()
	return w.apiAt(t, w.srv.URL, a)
}

// expand fills in what s names in braces: the world's directory, its app, its vars.
func (w *world) expand(s string) string {
	s = strings.ReplaceAll(s, "{dir}", w.dir)
	if w.app != nil {
		s = strings.ReplaceAll(s, "{app}", w.app.URL)
	}
	for k, v := range w.vars {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

// apiAt sends one request to the review API at base as ann.
func (w *world) apiAt(t *testing.T, base string, a ask) result {
	t.Helper()
	req, err := http.NewRequest(a.method, base+w.expand(a.path), strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	projects := a.projects
	if projects == nil {
		projects = []string{projectID}
	}
	req.Header.Set("Authorization", "Bearer "+stack.DevToken(caller, projects...))
	for k, v := range a.header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	text := string(b)
	// A refusal is read as its message, unescaped, so that a row names the quoted key it refuses.
	var refusal struct{ Error string }
	if json.Unmarshal(b, &refusal) == nil && refusal.Error != "" {
		text = refusal.Error + "\n" + text
	}
	return result{status: resp.StatusCode, text: text, body: string(b), header: resp.Header}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// console signs ann in and sends one request as her browser does: a form posted from the page
// at a.from (default /console) carries that page's CSRF token and the console's Origin.
func (w *world) console(t *testing.T, a ask) result {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, form url.Values) result {
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, err := http.NewRequest(method, w.srv.URL+path, body)
		if err != nil {
			t.Fatal(err)
		}
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", w.srv.URL)
		}
		for k, v := range a.header {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return result{status: resp.StatusCode, text: html.UnescapeString(string(b)), header: resp.Header}
	}
	post := func(from, path string, form url.Values) result {
		page := do("GET", from, nil)
		m := csrfField.FindStringSubmatch(page.text)
		if page.status != http.StatusOK || m == nil {
			t.Fatalf("GET %s: %d, no form token in %.300s", from, page.status, page.text)
		}
		form.Set("csrf", m[1])
		return do("POST", path, form)
	}
	signin := url.Values{"email": {caller}, "projects": {projectID}, "next": {"/console"}}
	if a.method == "POST" && a.path == "/console/signin" {
		// The probe is the sign-in itself, sent with the probe's headers.
		return post("/console/signin", "/console/signin", signin)
	}
	if r := post("/console/signin", "/console/signin", signin); r.status != http.StatusSeeOther {
		t.Fatalf("signing in to the console: %d %.300s", r.status, r.text)
	}
	if a.method == "GET" {
		return do("GET", a.path, nil)
	}
	form, err := url.ParseQuery(a.body)
	if err != nil {
		t.Fatal(err)
	}
	from := a.from
	if from == "" {
		from = "/console"
	}
	return post(from, a.path, form)
}

// cli runs the gardener binary with a.args ({dir} is the world's directory) after writing
// a.files there.
func (w *world) cli(t *testing.T, a ask) result {
	t.Helper()
	for name, content := range a.files {
		path := filepath.Join(w.dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := make([]string, len(a.args))
	for i, s := range a.args {
		args[i] = w.expand(s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = w.dir
	for k, v := range a.env {
		cmd.Env = append(cmd.Environ(), k+"="+w.expand(v))
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	res := result{status: code, text: out.String() + errOut.String()}
	for _, name := range a.gone {
		if _, err := os.Lstat(filepath.Join(w.dir, name)); err == nil {
			res.left = append(res.left, name)
		}
	}
	return res
}

// mcp starts `gardener mcp` on the world's state, initializes the session, then writes each of
// a.lines as one line and, after each, a ping: the messages before the ping's answer are the
// line's answers. The session is alive when a last ping after every line is answered.
func (w *world) mcp(t *testing.T, a ask) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "mcp", "--state", w.dir, "--base-url", "http://127.0.0.1:9")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan []byte)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	write := func(s string) bool {
		_, err := io.WriteString(in, s+"\n")
		return err == nil
	}
	// until reads the answers up to the one with id (kept in matched), false when the server
	// ended first.
	var matched rpcReply
	until := func(id string) ([]rpcReply, bool) {
		var got []rpcReply
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					return got, false
				}
				var r rpcReply
				if err := json.Unmarshal(line, &r); err != nil {
					got = append(got, rpcReply{Result: json.RawMessage(fmt.Sprintf("%q", line))})
					continue
				}
				if string(r.ID) == id {
					matched = r
					return got, true
				}
				got = append(got, r)
			case <-time.After(20 * time.Second):
				return got, false
			}
		}
	}
	res := result{}
	write(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"security","version":"1"}}}`)
	if _, ok := until(`"init"`); !ok {
		t.Fatalf("mcp did not answer initialize: %s", errOut.String())
	}
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	res.alive = true
	for i, l := range a.lines {
		ping := fmt.Sprintf(`"ping-%d"`, i)
		if !write(l) || !write(`{"jsonrpc":"2.0","id":`+ping+`,"method":"ping"}`) {
			res.alive = false
			break
		}
		got, ok := until(ping)
		// The server may answer the ping before a slower request of the line (a tool call
		// opening the store): wait for that request's own answer too.
		var req struct{ ID json.RawMessage }
		if ok && json.Unmarshal([]byte(l), &req) == nil && len(req.ID) > 0 && string(req.ID) != "null" &&
			!slices.ContainsFunc(got, func(r rpcReply) bool { return string(r.ID) == string(req.ID) }) {
			var late []rpcReply
			late, ok = until(string(req.ID))
			got = append(got, late...)
			if ok {
				got = append(got, matched)
			}
		}
		res.replies = append(res.replies, got)
		if !ok {
			res.alive = false
			break
		}
	}
	in.Close()
	err = cmd.Wait()
	if exit, ok := err.(*exec.ExitError); ok {
		res.status = exit.ExitCode()
	}
	res.text = errOut.String()
	return res
}

// noReplay is the stack's runner: no probe replays a page, and one that tried would be answered
// with this refusal rather than a browser started.
type noReplay struct{}

func (noReplay) Replay(context.Context, gardener.Test, gardener.ReplayOptions) (gardener.Replay, error) {
	return gardener.Replay{}, fmt.Errorf("the security suite replays no page")
}

// event puts a's event on the world's bus from the platform's source (the template's
// PlatformEventSource) and answers, once every execution it started ended, each one's machine,
// status and failure or output, with the failures its tasks answered (where a function's
// refusal is read: a Fail state's cause is the machine's own words).
func (w *world) event(t *testing.T, a ask) result {
	t.Helper()
	source := w.st.Template().Parameters["PlatformEventSource"].Default
	if _, err := w.st.Bus.Put(context.Background(), eventbus.Entry{Source: source, DetailType: a.detailType, Detail: json.RawMessage(a.detail)}); err != nil {
		return result{text: "refused by the bus: " + err.Error()}
	}
	w.st.Wait()
	var said []string
	machines := slices.Sorted(maps.Keys(w.st.Template().StateMachines))
	for _, m := range machines {
		for _, ex := range w.st.Executions(m) {
			line := m + " " + string(ex.Status)
			if ex.Failure != nil {
				line += " " + ex.Failure.Name + ": " + ex.Failure.Cause
			} else {
				line += " " + string(ex.Output)
			}
			said = append(said, line)
			for _, e := range ex.History {
				if e.Type == asl.EventTaskFailed {
					said = append(said, "  "+e.State+" failed: "+e.Error+": "+e.Cause)
				}
			}
		}
	}
	if len(said) == 0 {
		return result{text: "no execution started"}
	}
	return result{text: strings.Join(said, "\n")}
}
