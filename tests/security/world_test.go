package security_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
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
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
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
	srv   *httptest.Server
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
		return w
	}
	t.Cleanup(func() { store.Close() })
	w.store = store
	if d == storeDoor {
		return w
	}
	st, err := stack.New(stack.Config{Template: "../../template.yaml", Services: handler.Services{Store: store, Runner: noReplay{},
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			// The deployment allows one Bedrock model, as the template's ModelId does; the
			// built-in engine is opened, never run (the runner replays nothing).
			return modelspec.Open(ctx, spec, deployedModel)
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Wait)
	w.srv = httptest.NewServer(st.Handler())
	t.Cleanup(w.srv.Close)
	return w
}

// result is what a door answered: an HTTP status or an exit code, the text of the answer, the
// headers of an HTTP answer, and for MCP the answers to each line.
type result struct {
	status int
	text   string
	header http.Header
	// replies are, for each MCP line sent, the messages the server answered it with.
	replies [][]rpcReply
	// alive says the MCP session still answered a request after the probe's lines.
	alive bool
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
	req, err := http.NewRequest(a.method, w.srv.URL+a.path, strings.NewReader(a.body))
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
	return result{status: resp.StatusCode, text: text, header: resp.Header}
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
		if err := os.WriteFile(filepath.Join(w.dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := make([]string, len(a.args))
	for i, s := range a.args {
		args[i] = strings.ReplaceAll(s, "{dir}", w.dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = w.dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{status: code, text: out.String() + errOut.String()}
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
