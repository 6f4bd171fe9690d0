package conformance_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
)

// answer is what a door said and did for one request, in the terms every door shares.
type answer struct {
	// Outcome is how the repair ended (repaired, staged, no-fix, triaged, refused) or, for an
	// approval, "applied"; empty when the door refused the request itself.
	Outcome string
	Reason  string
	// Refusal is the door's refusal of the request, in its words; empty when it was served.
	Refusal string
	// Text is everything the door gave people or agents: output, pages, bodies, events.
	Text string
	// Notes are the repair events the door announced on the topic people subscribe to; nil for
	// a door that has no topic (the CLI and MCP on one machine).
	Notes []string
	// Cost is what the door shows the repair used, read from what it shows (the CLI's JSON,
	// the API's run, the console's run page, the stored record for the machine); nil where the
	// door shows none (MCP gives it as one line of text).
	Cost *gardener.RepairUsage
}

// world is one door's copy of a scenario: the app, and the state the door reads and writes.
type world struct {
	app *app
	// base is the base URL the doors replay against: the app's origin, or another name of it
	// (seed.otherName).
	base  string
	dir   string
	state string // the embedded store's file
	stack *stack.Stack
	store *embedded.Store
	srv   *httptest.Server
}

// door is one way in: how it asks for a repair of the failed run, and how it approves a
// proposal (as a person, or as an agent). A nil func is a request the door cannot express,
// named in the table with the reason.
type door struct {
	name string
	// inProcess doors run on the local stack over the world's store; the others are a gardener
	// process of their own over the state directory.
	inProcess bool
	repair    func(t *testing.T, w *world, s seed) answer
	approve   func(t *testing.T, w *world, proposalID string, agent bool) answer
}

var doors = []door{
	{name: "cli", repair: cliRepair, approve: cliApprove},
	{name: "api", inProcess: true, repair: apiRepair, approve: apiApprove},
	{name: "console", inProcess: true, repair: consoleRepair, approve: consoleApprove},
	{name: "mcp", repair: mcpRepair, approve: mcpApprove},
	{name: "machine", inProcess: true, repair: machineRepair},
}

// open builds the world for d: the state seeded, and for an in-process door the local stack
// over it.
func open(t *testing.T, d door, s seed, v variant) *world {
	t.Helper()
	w := &world{app: newApp(t), dir: t.TempDir()}
	w.base = w.app.srv.URL
	var baseURLs map[string]string
	if s.otherName {
		// The operator names the app by another name than the project's allowed origin: the
		// CLI's and MCP's --base-url, gardener serve's base URL of the project.
		w.base = strings.Replace(w.base, "127.0.0.1", "localhost", 1)
		baseURLs = map[string]string{projectID: w.base}
	}
	w.state = filepath.Join(w.dir, "gardener.db")
	seedStore(t, w.state, w.app, s)
	w.app.serve(v)
	if !d.inProcess {
		return w
	}
	store, err := embedded.Open(w.state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	w.store = store
	w.stack, err = stack.New(stack.Config{Template: "../../template.yaml", Services: handler.Services{Store: store, Runner: runner, StepTimeout: stepTimeout, Reach: browser.Reach, BaseURLs: baseURLs,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{Endpoint: bedrock})
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.stack.Wait)
	w.srv = httptest.NewServer(w.stack.Handler())
	t.Cleanup(w.srv.Close)
	return w
}

// records reads what the door wrote.
func (w *world) records(t *testing.T) records {
	t.Helper()
	if w.store != nil {
		return readRecords(t, w.store)
	}
	return readRecordsAt(t, w.state)
}

// notes are the subjects the stack published, nil without a stack.
func (w *world) notes() []string {
	if w.stack == nil {
		return nil
	}
	out := []string{}
	for _, m := range w.stack.Messages() {
		out = append(out, m.Subject)
	}
	return out
}

// run runs the gardener binary and answers its stdout, stderr and exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("gardener %v: %v", args, err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

func cliRepair(t *testing.T, w *world, s seed) answer {
	if s.control {
		return answer{Refusal: "not expressible"}
	}
	mode := "propose"
	if s.autoRepair && !s.propose {
		mode = "apply"
	}
	b, err := gardener.FormatTest(signInTest())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(w.dir, "sign-in.json")
	writeFile(t, file, b)
	out, errOut, code := run(t, "repair", "--json", "--state", w.dir, "--base-url", w.base, "--mode", mode, "--step-timeout", stepTimeout.String(),
		"--model", cmp.Or(s.model, "builtin"), "--bedrock-endpoint", bedrock, file)
	var o struct {
		Outcome string `json:"outcome"`
		Reason  string `json:"reason"`
		Cost    *struct {
			Usage gardener.RepairUsage `json:"usage"`
		} `json:"cost"`
	}
	if code == 3 && strings.TrimSpace(out) == "" {
		// A runtime failure before any repair (the app could not be reached): the command's
		// refusal is its error.
		return answer{Refusal: errOut, Text: errOut}
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("gardener repair answered no JSON (exit %d): %v\nstdout %s\nstderr %s", code, err, out, errOut)
	}
	a := answer{Outcome: o.Outcome, Reason: o.Reason, Text: forPeople(out) + errOut}
	if o.Cost != nil {
		a.Cost = &o.Cost.Usage
	}
	return a
}

func cliApprove(t *testing.T, w *world, id string, agent bool) answer {
	if agent {
		return answer{Refusal: "not expressible"}
	}
	out, errOut, code := run(t, "approve", "--state", w.dir, "--by", "ann@example.com", id)
	if code != 0 {
		return answer{Refusal: errOut, Text: out + errOut}
	}
	return answer{Outcome: "applied", Text: out + errOut}
}

// api calls the local stack's API as ann.
func (w *world) api(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, w.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+stack.DevToken("ann@example.com", projectID))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// execution waits for the stack's executions to end and answers how the one of id (empty: the
// only one) ended, with every event it recorded.
func (w *world) execution(t *testing.T, id string) answer {
	t.Helper()
	w.stack.Wait()
	xs := w.stack.Executions("RepairStateMachine")
	var x *struct {
		status string
		output json.RawMessage
		name   string
	}
	for _, e := range xs {
		if id == "" || e.ID == id {
			x = &struct {
				status string
				output json.RawMessage
				name   string
			}{string(e.Status), e.Output, e.Name}
		}
	}
	if x == nil {
		t.Fatalf("no repair execution %q among %d", id, len(xs))
	}
	var out struct {
		Gate *struct {
			Eligible bool   `json:"eligible"`
			Reason   string `json:"reason"`
		} `json:"gate"`
		Eligible  *bool  `json:"eligible"`
		Reason    string `json:"reason"`
		Persisted *struct {
			Persisted struct {
				Outcome string `json:"outcome"`
				Reason  string `json:"reason"`
			} `json:"persisted"`
		} `json:"persisted"`
	}
	if x.status != "SUCCEEDED" || json.Unmarshal(x.output, &out) != nil {
		t.Fatalf("execution %s: %s %s", x.name, x.status, x.output)
	}
	a := answer{Text: forPeople(string(x.output))}
	switch {
	case out.Persisted != nil:
		a.Outcome, a.Reason = out.Persisted.Persisted.Outcome, out.Persisted.Persisted.Reason
	case out.Eligible != nil && !*out.Eligible:
		// An ineligible run ends at the gate, whose verdict is the machine's output.
		a.Refusal = out.Reason
	default:
		t.Fatalf("execution %s ended with neither a persisted outcome nor the gate's refusal: %s", x.name, x.output)
	}
	evs, err := w.store.Events(context.Background(), x.name, 0, gardener.MaxEventPage)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(evs)
	a.Text += string(b)
	return a
}

// checkExecutionAnswer: GET /executions/{id} answers no list as null, and what was written says
// what the winner found: the machine passes briefs of both, which the answer puts back whole.
func checkExecutionAnswer(t *testing.T, w *world, id string) {
	t.Helper()
	status, body := w.api(t, "GET", "/executions/"+url.PathEscape(id), "")
	var x struct {
		Output map[string]any `json:"output"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &x) != nil {
		t.Fatalf("GET the execution: %d %s", status, body)
	}
	var nulls func(v any, path string)
	nulls = func(v any, path string) {
		switch v := v.(type) {
		case nil:
			t.Errorf("the execution answers null at %s", path)
		case map[string]any:
			for k, e := range v {
				nulls(e, path+"."+k)
			}
		case []any:
			for i, e := range v {
				nulls(e, path+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	nulls(x.Output, "output")
	verdictOf := func(v any, keys ...string) any {
		for _, k := range keys {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		m, _ := v.(map[string]any)
		if m == nil {
			return nil
		}
		return []any{m["sensitivity"], m["intentConfirmed"], m["ops"]}
	}
	winner := verdictOf(x.Output, "winner", "decision", "verdict")
	for _, written := range []any{verdictOf(x.Output, "persisted", "persisted", "applied", "repair", "verdict"), verdictOf(x.Output, "persisted", "persisted", "staged", "proposal", "verdict")} {
		if written != nil && !reflect.DeepEqual(written, winner) {
			t.Errorf("what was written says sensitivity, intent and ops %v; the winner %v", written, winner)
		}
	}
}

func apiRepair(t *testing.T, w *world, s seed) answer {
	body := `{}`
	if s.propose {
		body = `{"propose":true}`
	}
	status, body := w.api(t, "POST", "/runs/"+failedRunID+"/repair", body)
	if status != http.StatusAccepted {
		return answer{Refusal: apiError(body), Text: forPeople(body), Notes: w.notes()}
	}
	var started struct {
		ExecutionID string `json:"executionId"`
	}
	if err := json.Unmarshal([]byte(body), &started); err != nil {
		t.Fatal(err)
	}
	a := w.execution(t, started.ExecutionID)
	a.Notes = w.notes()
	checkExecutionAnswer(t, w, started.ExecutionID)
	_, run := w.api(t, "GET", "/runs/"+failedRunID, "")
	var r struct {
		Costs []struct {
			Usage gardener.RepairUsage `json:"usage"`
		} `json:"costs"`
	}
	if err := json.Unmarshal([]byte(run), &r); err != nil {
		t.Fatalf("GET the run: %v: %s", err, run)
	}
	if len(r.Costs) > 0 {
		a.Cost = &r.Costs[0].Usage
	}
	a.Text += forPeople(run)
	return a
}

func apiError(body string) string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal([]byte(body), &e)
	return e.Error
}

func apiApprove(t *testing.T, w *world, id string, agent bool) answer {
	body := `{}`
	if agent {
		body = `{"requireProof":true}`
	}
	status, got := w.api(t, "POST", "/proposals/"+id+"/approve", body)
	if status != http.StatusOK {
		return answer{Refusal: apiError(got), Text: forPeople(got), Notes: w.notes()}
	}
	return answer{Outcome: "applied", Text: forPeople(got), Notes: w.notes()}
}

// browserSession is a person signed in to the console: a cookie jar that does not follow
// redirects, so a form's answer is what the console sent.
type browserSession struct {
	t    *testing.T
	base string
	http *http.Client
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func signIn(t *testing.T, w *world) *browserSession {
	jar, _ := cookiejar.New(nil)
	b := &browserSession{t: t, base: w.srv.URL, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	status, body := b.post("/console/signin", "/console/signin", url.Values{"email": {"ann@example.com"}, "projects": {projectID}, "next": {"/console"}})
	if status != http.StatusSeeOther {
		t.Fatalf("signing in to the console: %d %s", status, body)
	}
	return b
}

func (b *browserSession) do(method, path string, form url.Values) (int, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", b.base)
	}
	resp, err := b.http.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(got)
}

// post submits a form the way a browser does from the page at from: with that page's CSRF
// token.
func (b *browserSession) post(from, path string, form url.Values) (int, string) {
	b.t.Helper()
	status, page := b.do("GET", from, nil)
	m := csrfField.FindStringSubmatch(page)
	if status != http.StatusOK || m == nil {
		b.t.Fatalf("GET %s: %d, no form token in %.300s", from, status, page)
	}
	form.Set("csrf", html.UnescapeString(m[1]))
	return b.do("POST", path, form)
}

// pageText is what a page says, its markup dropped and its entities read.
func pageText(page string) string {
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, " "))
}

func consoleRepair(t *testing.T, w *world, s seed) answer {
	b := signIn(t, w)
	status, page := b.post("/console/runs/"+failedRunID, "/console/runs/"+failedRunID+"/repair", url.Values{"rung": {"ladder"}})
	if status != http.StatusSeeOther {
		return answer{Refusal: pageText(page), Text: pageText(page), Notes: w.notes()}
	}
	a := w.execution(t, "")
	_, runPage := b.do("GET", "/console/runs/"+failedRunID, nil)
	a.Text += pageText(runPage)
	a.Notes = w.notes()
	a.Cost = costShown(runPage)
	return a
}

// costPart is one row of the run page's cost table: the component and its measured quantity.
var costPart = regexp.MustCompile(`<tr data-part="([a-z-]+)"><th scope="row">[^<]*</th><td>([0-9.]+) `)

// costShown reads the first cost table of a run page back into a usage; nil when it has none.
func costShown(page string) *gardener.RepairUsage {
	_, table, _ := strings.Cut(page, `<table class="cost"`)
	table, _, _ = strings.Cut(table, "</table>")
	rows := costPart.FindAllStringSubmatch(table, -1)
	if len(rows) == 0 {
		return nil
	}
	u := &gardener.RepairUsage{}
	for _, r := range rows {
		q, _ := strconv.ParseFloat(r[2], 64)
		switch r[1] {
		case "transitions":
			u.Transitions += int(q)
		case "lambda-requests":
			u.Lambda = append(u.Lambda, gardener.LambdaUse{Invocations: int(q)})
		case "dynamodb-writes":
			u.WriteUnits += q
		case "dynamodb-reads":
			u.ReadUnits += q
		case "model-input":
			u.InputTokens += int(q)
		case "model-output":
			u.OutputTokens += int(q)
		}
	}
	return u
}

func consoleApprove(t *testing.T, w *world, id string, agent bool) answer {
	if agent {
		return answer{Refusal: "not expressible"}
	}
	b := signIn(t, w)
	status, page := b.post("/console/projects/"+projectID, "/console/proposals/"+id+"/approve", url.Values{})
	if status == http.StatusOK && strings.Contains(page, `name="confirm" value="yes"`) {
		// A fix the rule asks a person to confirm (UNVERIFIED, a step deleted): the person reads
		// the confirmation and confirms, as on the page.
		status, page = b.post("/console/projects/"+projectID, "/console/proposals/"+id+"/approve", url.Values{"confirm": {"yes"}})
	}
	if status != http.StatusSeeOther {
		return answer{Refusal: pageText(page), Text: pageText(page), Notes: w.notes()}
	}
	return answer{Outcome: "applied", Text: pageText(page), Notes: w.notes()}
}

// mcpSession is `gardener mcp` over stdio: one JSON-RPC message a line each way.
type mcpSession struct {
	t      *testing.T
	in     io.WriteCloser
	out    *bufio.Scanner
	cmd    *exec.Cmd
	next   int
	text   strings.Builder
	errOut *bytes.Buffer
	closed bool
}

// close ends the session as a client does, by closing its input, and waits for the server to
// exit: it holds the state until then.
func (m *mcpSession) close() {
	if m.closed {
		return
	}
	m.closed = true
	m.in.Close()
	_ = m.cmd.Wait()
	m.text.WriteString(m.errOut.String())
}

func startMCP(t *testing.T, w *world) *mcpSession {
	t.Helper()
	cmd := exec.Command(binary, "mcp", "--state", w.dir, "--base-url", w.base, "--step-timeout", stepTimeout.String(), "--bedrock-endpoint", bedrock)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m := &mcpSession{t: t, in: in, out: bufio.NewScanner(out), cmd: cmd, errOut: &errOut}
	m.out.Buffer(make([]byte, 1<<20), 16<<20)
	t.Cleanup(m.close)
	m.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "conformance", "version": "1"}})
	m.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return m
}

func (m *mcpSession) send(v any) {
	b, _ := json.Marshal(v)
	if _, err := m.in.Write(append(b, '\n')); err != nil {
		m.t.Fatal(err)
	}
}

// call sends a request and answers its result, skipping the notifications before it.
func (m *mcpSession) call(method string, params any) json.RawMessage {
	m.t.Helper()
	m.next++
	id := m.next
	m.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for m.out.Scan() {
		line := m.out.Bytes()
		m.text.WriteString(forPeople(string(line)))
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			m.t.Fatalf("mcp answered a line that is not JSON: %s", line)
		}
		if msg.ID == nil || *msg.ID != id {
			continue
		}
		if msg.Error != nil {
			m.t.Fatalf("mcp %s: %s", method, msg.Error)
		}
		return msg.Result
	}
	m.t.Fatalf("mcp ended before answering %s: %v", method, m.out.Err())
	return nil
}

// tool calls a tool and answers its structured content, or its error text.
func (m *mcpSession) tool(name string, args map[string]any) (map[string]any, string) {
	m.t.Helper()
	var res struct {
		IsError           bool             `json:"isError"`
		Content           []map[string]any `json:"content"`
		StructuredContent map[string]any   `json:"structuredContent"`
	}
	if err := json.Unmarshal(m.call("tools/call", map[string]any{"name": name, "arguments": args}), &res); err != nil {
		m.t.Fatal(err)
	}
	if res.IsError {
		var text []string
		for _, c := range res.Content {
			if s, ok := c["text"].(string); ok {
				text = append(text, s)
			}
		}
		return nil, strings.Join(text, "\n")
	}
	return res.StructuredContent, ""
}

func mcpRepair(t *testing.T, w *world, s seed) answer {
	m := startMCP(t, w)
	got, refused := m.tool("suggest_fix", map[string]any{"runId": failedRunID})
	if refused != "" {
		m.close()
		return answer{Refusal: refused, Text: m.text.String()}
	}
	var a answer
	a.Outcome, _ = got["outcome"].(string)
	a.Reason, _ = got["reason"].(string)
	if a.Outcome == string(gardener.OutcomeStaged) && s.autoRepair {
		// An agent's suggestion is staged; the agent applies it with apply_repair, which
		// applies only what needs no person — the same end as the other doors' repair.
		id, _ := got["proposalId"].(string)
		if _, refused := m.tool("apply_repair", map[string]any{"proposalId": id}); refused != "" {
			a.Refusal = refused
		} else {
			a.Outcome, a.Reason = string(gardener.OutcomeRepaired), ""
		}
	}
	m.close()
	a.Text = m.text.String()
	return a
}

func mcpApprove(t *testing.T, w *world, id string, agent bool) answer {
	if !agent {
		return answer{Refusal: "not expressible"}
	}
	m := startMCP(t, w)
	_, refused := m.tool("apply_repair", map[string]any{"proposalId": id})
	m.close()
	if refused != "" {
		return answer{Refusal: refused, Text: m.text.String()}
	}
	return answer{Outcome: "applied", Text: m.text.String()}
}

// machineRepair is the automatic path: the platform's "Run Failed" event on the bus starts the
// repair machine, whose task handlers decide through the same application layer.
func machineRepair(t *testing.T, w *world, s seed) answer {
	ev := handler.RunFailed{RunID: failedRunID, ProjectID: projectID, TestID: "sign-in", TestVersion: 1, Trigger: gardener.TriggerSchedule, Control: s.control}
	ctx := context.Background()
	if err := w.stack.PutEvent(ctx, "Run Failed", ev); err != nil {
		t.Fatal(err)
	}
	w.stack.Wait()
	if len(w.stack.Executions("RepairStateMachine")) == 0 {
		// The bus rule let the event through to no execution (it drops control runs and
		// probes); the machine's own gate, its eligibility task, says why in its words.
		in, _ := json.Marshal(handler.RepairInput{Detail: ev})
		out, err := w.stack.Invoke(ctx, "EligibilityFunction", in)
		if err != nil {
			t.Fatal(err)
		}
		var g handler.Gate
		if err := json.Unmarshal(out, &g); err != nil || g.Eligible {
			t.Fatalf("the rule dropped the event but the gate lets it in: %s (%v)", out, err)
		}
		return answer{Refusal: g.Reason, Text: string(out), Notes: w.notes()}
	}
	a := w.execution(t, "")
	a.Notes = w.notes()
	if cs, err := w.store.RepairCosts(ctx, failedRunID); err == nil && len(cs) > 0 {
		a.Cost = &cs[0].Usage
	}
	return a
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
