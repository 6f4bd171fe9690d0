package security_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// door is where a probe is sent; each has one driver (see world_test.go).
type door string

const (
	api       door = "api"     // the review API over HTTP, as ann (a member of alpha only)
	console   door = "console" // the review console, as ann's signed-in browser
	mcp       door = "mcp"     // `gardener mcp` over stdio on the world's state
	cli       door = "cli"     // the gardener binary, in the world's directory
	storeDoor door = "store"   // the embedded store itself
	bus       door = "bus"     // an event put on the local stack's bus, as the platform puts one
)

// ask is what a probe sends; each door's driver reads its own fields.
type ask struct {
	// api, console: the request. A console body is a form (url-encoded), posted from the page
	// at from (default /console) with that page's CSRF token.
	method, path, body string
	from               string
	header             map[string]string
	// projects are what the api caller's token names (default: alpha only).
	projects []string
	// before are requests sent first, on the same door and world (a first write a probe repeats).
	before []ask
	// api: earlier are requests sent before those to an earlier life of the world's local stack,
	// restarted then: stopped cleanly, or with kill, its process killed with SIGKILL while the
	// last request's execution runs. The probe's path may name {execution}, the execution the
	// first one started.
	earlier []ask
	kill    bool
	// mcp: raw lines written to the session after initialize, each followed by a ping.
	lines []string
	// cli: the arguments ({dir} is the world's directory) and the files written there first.
	args  []string
	files map[string]string
	// env is set for the process ({dir}: the world's directory); gone are files of the world's
	// directory that must not be there once it ended.
	env  map[string]string
	gone []string
	// store: the probe itself, answering what it observed.
	store func(ctx context.Context, s gardener.Store) (string, error)
	// bus: an event of this detail-type and raw detail, from the platform's source.
	detailType, detail string
	// api, console: seed writes to the world's store what a probe needs that no request of the
	// door can make (a repair the machine wrote), before anything is sent.
	seed func(ctx context.Context, s gardener.Store) error
}

// want is the answer a door must give.
type want struct {
	// status is the HTTP status (api, console) or the exit code (cli; mcp: of the process after
	// its input closed).
	status int
	// says are words the answer holds (a refusal names the field or key it refuses).
	says []string
	// codes are, for mcp, the JSON-RPC error code answering each line in turn (0: no error
	// answer; the line is ignored or answered with a result).
	codes []int
	// sameAs names a response header that must equal the one of the last before request's
	// answer (an ETag a write that changed nothing must keep).
	sameAs string
	// once are words the answer holds exactly once (an event of one attempt's log).
	once []string
}

// row is one probe: what an attacker tries, at which door, what is sent, and the answer.
type row struct {
	probe string
	door  door
	ask   ask
	want  want
}

// testBody is a test file's JSON for PUT /tests/{id} and the CLI: id as given (raw, so that a
// probe may hold bytes JSON would escape), in project alpha.
func testBody(rawID string) string {
	return `{"id":"` + rawID + `","project":"alpha","name":"probe","steps":[{"kind":"goto","url":"/"}]}`
}

var longID = strings.Repeat("a", 200<<10)

// table is the suite. Issue 31's "Why" 1–3 are its first rows; add a row per probe, at the end
// of its door's group.
var table = []row{
	// Ids at every door (issue 31, 1).
	{"a test id holding a NUL byte", api, ask{method: "PUT", path: "/tests/leak%00evil", body: testBody(`leak\u0000evil`)},
		want{status: 400, says: []string{"testId", "not allowed in an id"}}},
	{"a 200 KB test id", api, ask{method: "PUT", path: "/tests/" + longID, body: testBody(longID)},
		want{status: 400, says: []string{"testId", "at most"}}},
	{"a project id holding a NUL byte", api, ask{method: "PUT", path: "/projects/alpha%00x", body: `{"name":"probe"}`, projects: []string{"*"}},
		want{status: 400, says: []string{"projectId", "not allowed in an id"}}},
	{"a NUL byte in a test id read back", api, ask{method: "GET", path: "/tests/t1%00x/history"},
		want{status: 400, says: []string{"testId"}}},
	{"a control character in a run id", api, ask{method: "GET", path: "/runs/r%0Aforged"},
		want{status: 400, says: []string{"runId"}}},
	{"a NUL byte in a test id in a console path", console, ask{method: "GET", path: "/console/tests/t1%00x"},
		want{status: 400, says: []string{"test"}}},
	{"a NUL byte in a test id given to an MCP tool", mcp, ask{lines: []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_test","arguments":{"testId":"t1\u0000x"}}}`}},
		want{codes: []int{0}, says: []string{"testId", "not allowed in an id"}}},
	{"an invalid UTF-8 id in a test file", cli, ask{args: []string{"fmt", "--check", "{dir}/bad.json"},
		files: map[string]string{"bad.json": testBody("bad\xff\xfeid")}},
		want{status: 2, says: []string{`"id"`, "UTF-8"}}},
	{"a NUL byte in a test id in a test file", cli, ask{args: []string{"fmt", "--check", "{dir}/bad.json"},
		files: map[string]string{"bad.json": testBody(`bad\u0000id`)}},
		want{status: 2, says: []string{`"id"`}}},
	{"a control character in an imported test's id", cli, ask{args: []string{"import", "--id", "rec\nforged", "{dir}/rec.json"},
		files: map[string]string{"rec.json": `{"title":"rec","steps":[{"type":"navigate","url":"http://127.0.0.1:9/"}]}`}},
		want{status: 2, says: []string{`"--id"`, "not allowed in an id"}}},
	{"another project's model calls under a NUL-joined key", storeDoor, ask{store: func(ctx context.Context, s gardener.Store) (string, error) {
		if err := s.AddModelCall(ctx, gardener.ModelCall{TestID: "leak\x00evil", Ask: "locator", Model: "builtin", Outcome: "ok"}); err != nil {
			return "", err
		}
		calls, err := s.ModelCalls(ctx, "leak")
		return fmt.Sprintf("%d calls of leak", len(calls)), err
	}}, want{says: []string{"0 calls of leak"}}},

	// MCP over stdio: a protocol error is answered and the session goes on (issue 31, 2).
	{"an MCP line that is not JSON", mcp, ask{lines: []string{`{`, `hello`, "\x00"}},
		want{codes: []int{-32700, -32700, -32700}}},
	{"an MCP line that is JSON but no request", mcp, ask{lines: []string{`null`, `42`, `"ping"`, `{"jsonrpc":"1.0","id":1,"method":"ping"}`}},
		want{codes: []int{-32600, -32600, -32600, -32600}}},
	{"an MCP request with a null id", mcp, ask{lines: []string{`{"jsonrpc":"2.0","id":null,"method":"ping"}`}},
		want{codes: []int{-32600}}},
	{"an MCP request with no method", mcp, ask{lines: []string{`{"jsonrpc":"2.0","id":7}`}},
		want{codes: []int{-32600}}},
	{"an MCP batch", mcp, ask{lines: []string{`[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, `[]`}},
		want{codes: []int{-32600, -32600}, says: []string{"batch", `"id":null`}}},

	// Strict bodies (issue 31, 3).
	{"a key given twice in two cases", api, ask{method: "PUT", path: "/projects/alpha/settings", body: `{"radar":true,"Radar":false}`},
		want{status: 400, says: []string{`"Radar"`}}},
	{"a key in capitals", api, ask{method: "PUT", path: "/projects/alpha/settings", body: `{"RADAR":false}`},
		want{status: 400, says: []string{`"RADAR"`}}},
	{"a key in another case", api, ask{method: "PUT", path: "/projects/alpha/settings", body: `{"AutoRepair":true}`},
		want{status: 400, says: []string{`"AutoRepair"`}}},
	{"a key in another case in a test body", api, ask{method: "PUT", path: "/tests/t1/status", body: `{"Status":"archived"}`},
		want{status: 400, says: []string{`"Status"`}}},
	{"a null settings body", api, ask{method: "PUT", path: "/projects/alpha/settings", body: `null`},
		want{status: 400, says: []string{"null"}}},
	{"an empty settings object", api, ask{method: "PUT", path: "/projects/alpha/settings", body: `{}`},
		want{status: 400, says: []string{"no setting"}}},
	{"an empty settings body", api, ask{method: "PUT", path: "/projects/alpha/settings", body: ``},
		want{status: 400, says: []string{"empty"}}},
	{"a null test status body", api, ask{method: "PUT", path: "/tests/t1/status", body: `null`},
		want{status: 400, says: []string{"null"}}},
	{"a settings write that changes nothing", api, ask{method: "PUT", path: "/projects/alpha/settings", body: `{"radar":true}`,
		before: []ask{{method: "PUT", path: "/projects/alpha/settings", body: `{"radar":true}`}}},
		want{status: 200, sameAs: "ETag"}},
}

func TestSecurityTable(t *testing.T) {
	for _, r := range table {
		t.Run(string(r.door)+"/"+r.probe, func(t *testing.T) {
			t.Parallel()
			w := open(t, r.door)
			if r.ask.seed != nil {
				if w.store == nil {
					t.Fatalf("door %s has no store open to seed", r.door)
				}
				if err := r.ask.seed(context.Background(), w.store); err != nil {
					t.Fatal(err)
				}
			}
			w.earlier(t, r.ask)
			var before result
			for _, b := range r.ask.before {
				before = w.send(t, r.door, b)
			}
			if w.st != nil {
				// What the requests before started has ended when the probe looks.
				w.st.Wait()
			}
			got := w.send(t, r.door, r.ask)
			check(t, r, got, before)
		})
	}
}

// send asks one door.
func (w *world) send(t *testing.T, d door, a ask) result {
	t.Helper()
	switch d {
	case api:
		return w.api(t, a)
	case console:
		return w.console(t, a)
	case cli:
		return w.cli(t, a)
	case mcp:
		return w.mcp(t, a)
	case bus:
		return w.event(t, a)
	case storeDoor:
		said, err := a.store(context.Background(), w.store)
		if err != nil {
			said += " error: " + err.Error()
		}
		return result{text: said}
	}
	t.Fatalf("no driver for door %q", d)
	return result{}
}

func check(t *testing.T, r row, got, before result) {
	t.Helper()
	text := got.text
	if r.door == mcp {
		b, _ := json.Marshal(got.replies)
		text += string(b)
		if !got.alive {
			t.Errorf("the MCP session ended before EOF (exit %d): %.500s", got.status, text)
		}
		if got.status != r.want.status {
			t.Errorf("mcp exited %d after its input closed, want %d: %.500s", got.status, r.want.status, got.text)
		}
		for i, code := range r.want.codes {
			if i >= len(got.replies) {
				t.Errorf("line %d (%q): no answer before the session ended", i+1, r.ask.lines[i])
				continue
			}
			var codes []int
			for _, rep := range got.replies[i] {
				if rep.Error != nil {
					codes = append(codes, rep.Error.Code)
				}
			}
			switch {
			case code == 0 && len(codes) > 0:
				t.Errorf("line %d (%q): answered errors %v, want none", i+1, r.ask.lines[i], codes)
			case code != 0 && (len(codes) != 1 || codes[0] != code):
				t.Errorf("line %d (%q): answered errors %v, want one %d", i+1, r.ask.lines[i], codes, code)
			}
		}
	} else if got.status != r.want.status {
		t.Errorf("answered %d, want %d: %.500s", got.status, r.want.status, text)
	}
	for _, s := range r.want.says {
		if !strings.Contains(text, s) {
			t.Errorf("the answer does not say %q: %.500s", s, text)
		}
	}
	for _, s := range r.want.once {
		if n := strings.Count(text, s); n != 1 {
			t.Errorf("the answer holds %q %d times, want once: %.1000s", s, n, text)
		}
	}
	if len(got.left) > 0 {
		t.Errorf("still there after the run: %v", got.left)
	}
	// Two answers without the header would be "equal" too: the first write must give one.
	if h := r.want.sameAs; h != "" && (before.header.Get(h) == "" || got.header.Get(h) != before.header.Get(h)) {
		t.Errorf("%s moved from %q to %q; want one, kept", h, before.header.Get(h), got.header.Get(h))
	}
}
