package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// repairCLI runs `gardener repair --json` in-process and decodes its one object.
func repairCLI(t *testing.T, args ...string) (repairOutput, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"repair"}, append(args, "--json")...), strings.NewReader(""), &out, &errb)
	var o repairOutput
	if code != 2 {
		if err := json.Unmarshal(out.Bytes(), &o); err != nil {
			t.Fatalf("exit %d, output is not one JSON object: %v\n%s\nstderr:\n%s", code, err, out.String(), errb.String())
		}
	}
	t.Logf("exit %d: %s (%s)", code, o.Outcome, o.Reason)
	return o, code
}

// recordedLogin is the login test's first green run, recorded once against a demo shop of its
// own for the tests that need a recording only as their fixture.
var recordedLogin struct {
	once sync.Once
	// origin is the shop the recording was made against; db the state it left.
	origin string
	db     []byte
	// json is what the recording `repair --json` printed.
	json string
	err  error
}

// recordedShop gives a test a demo shop of its own (so tests that drift it run side by side)
// and a copy of the state holding the login test's recorded green run, with the project's
// origin moved to that shop as if the recording had been made there: the replay that records
// a green run is paid for once per package, not once per test.
func recordedShop(t *testing.T) (app *demoapp.App, url, file, state string) {
	t.Helper()
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("SKIP: no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	r := &recordedLogin
	r.once.Do(func() {
		srv := httptest.NewServer(demoapp.New().Handler())
		defer srv.Close()
		dir, err := os.MkdirTemp("", "gardener-recorded-")
		if r.err = err; err != nil {
			return
		}
		defer os.RemoveAll(dir)
		r.origin = srv.URL
		file := filepath.Join(dir, "login.json")
		b, err := demoapp.TestJSON("login")
		if err == nil {
			err = os.WriteFile(file, b, 0o644)
		}
		if r.err = err; err != nil {
			return
		}
		var out, errb bytes.Buffer
		if code := dispatch([]string{"repair", file, "--base-url", r.origin, "--state", dir, "--json"}, nil, &out, &errb); code != 0 {
			r.err = fmt.Errorf("recording the login test: exit %d\n%s%s", code, out.String(), errb.String())
			return
		}
		r.json = out.String()
		r.db, r.err = os.ReadFile(filepath.Join(dir, "gardener.db"))
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	app = demoapp.New()
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(srv.Close)
	state = t.TempDir()
	noErr(t, os.WriteFile(filepath.Join(state, "gardener.db"), r.db, 0o644))
	moveOrigin(t, state, r.origin, srv.URL)
	b, err := demoapp.TestJSON("login")
	noErr(t, err)
	file = filepath.Join(t.TempDir(), "login.json")
	noErr(t, os.WriteFile(file, b, 0o644))
	return app, srv.URL, file, state
}

// moveOrigin replaces the origin from with to in the allowed origins of every project of the
// state, as a recording made against to would have left them.
func moveOrigin(t *testing.T, state, from, to string) {
	t.Helper()
	ctx := context.Background()
	s, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	defer s.Close()
	projects, err := s.Projects(ctx)
	noErr(t, err)
	moved := false
	for _, p := range projects {
		for i, o := range p.AllowedOrigins {
			if o == from {
				p.AllowedOrigins[i], moved = to, true
			}
		}
		noErr(t, s.PutProject(ctx, p))
	}
	if !moved {
		t.Fatalf("the recorded state allows no origin %s: %+v", from, projects)
	}
}

// TestRecordingJSONHasNoNull: the first run of a test, which records its green run, prints its
// empty lists as [] like every other outcome, never null.
func TestRecordingJSONHasNoNull(t *testing.T) {
	t.Parallel()
	recordedShop(t)
	out := recordedLogin.json
	if !strings.Contains(out, `"recordedGreen": true`) || strings.Contains(out, "null") {
		t.Errorf("the recording's JSON:\n%s", out)
	}
	for _, list := range []string{`"ops": []`, `"diff": []`, `"refusals": []`, `"rungs": []`} {
		if !strings.Contains(out, list) {
			t.Errorf("the recording's JSON has no %s:\n%s", list, out)
		}
	}
}

// TestRepairJSONDriftIsRepaired: the first run records the green run; after the password field's
// id drifts, the built-in engine repairs the test with no model call, and --write writes it.
//
// The repair runs under a long step limit, and its reproduction of the renamed id gives up on
// the settled page though the field is still there under the names the green run recorded (its
// label): that is the drift, and no wait mends it. It used to wait out the whole step limit
// there. (One repair holds both checks: the same recorded test, the same drift.)
func TestRepairJSONDriftIsRepaired(t *testing.T) {
	t.Parallel()
	// The first run, which records the green run, is the one recordedShop made.
	app, url, file, state := recordedShop(t)
	var o repairOutput
	noErr(t, json.Unmarshal([]byte(recordedLogin.json), &o))
	if o.Outcome != ladder.NoFix || !o.Recorded || o.RunID == "" {
		t.Fatalf("first run: %+v", o)
	}
	if o.Timings.Replays != 1 || o.Timings.Total <= 0 {
		t.Errorf("the recording run reports %d replays in %d ms, want its one replay and its time", o.Timings.Replays, o.Timings.Total)
	}
	noErr(t, app.SetVariant("id-renamed"))
	o, code := repairCLI(t, file, "--base-url", url, "--state", state, "--write", "--step-timeout", "30s")
	if code != 0 || o.Outcome != ladder.Repaired || o.RunID == "" {
		t.Fatalf("drift: exit %d, outcome %s (%s), run %q", code, o.Outcome, o.Reason, o.RunID)
	}
	if o.Failure == nil || !strings.Contains(o.Failure.Message, "the page was quiet") {
		t.Errorf("the reproduction waited out its step limit: %+v", o.Failure)
	}
	if len(o.Ops) != 1 || o.Ops[0].Index != 3 || o.Ops[0].Step.Locator.String() == "css=#password" {
		t.Errorf("ops %v", o.Ops)
	}
	if o.ModelCalls != 0 || o.Tokens.Input != 0 || o.Strategy != gardener.StrategySelfHeal || o.Version != 2 {
		t.Errorf("model calls %d, tokens %+v, strategy %s, version %d", o.ModelCalls, o.Tokens, o.Strategy, o.Version)
	}
	if o.Sensitivity == nil || o.Sensitivity.Total == 0 || !o.Contract.AllKept() || len(o.Changes) != 1 {
		t.Errorf("sensitivity %+v, contract %+v, changes %+v", o.Sensitivity, o.Contract, o.Changes)
	}
	written, err := os.ReadFile(file)
	noErr(t, err)
	tt, err := gardener.DecodeTest(written)
	if err != nil || tt.Version != 2 || tt.Steps[3].Locator != o.Ops[0].Step.Locator {
		t.Fatalf("--write wrote %+v, %v", tt, err)
	}
	// The demo's file spells its password locator bare and orders one check's keys its own way:
	// the first write changes the repaired step and the version line, nothing else (issue 29).
	original, err := demoapp.TestJSON("login")
	noErr(t, err)
	if removed, added := changedLines(string(original), string(written)); len(removed) != 2 || len(added) != 2 ||
		!strings.Contains(removed[1], `"#password"`) || added[0] != `  "version": 2,` {
		t.Errorf("--write removed %q and added %q; want the version line and step 4's", removed, added)
	}
	// The written test is green against the drifted app, and its fill reaches the password field.
	app.ResetRecord()
	o, code = repairCLI(t, file, "--base-url", url, "--state", state)
	if code != 0 || o.Outcome != ladder.NoFix {
		t.Fatalf("the repaired test is not green: %s", o.Reason)
	}
	hit := false
	for _, e := range app.Events() {
		hit = hit || e.Type == demoapp.EventFill && e.Key == "login-password" && e.Value == "demo123"
	}
	if !hit {
		t.Error("the repaired fill did not reach the password field")
	}
}

// TestRepairProposeModeSaysTheRequestAsked: --mode propose in a project that repairs itself
// stages the fix saying the request asked to propose — not that auto-repair is off, which it is
// not — and leaves the project's auto-repair on and the test unwritten.
func TestRepairProposeModeSaysTheRequestAsked(t *testing.T) {
	t.Parallel()
	app, url, file, state := recordedShop(t)
	noErr(t, app.SetVariant("id-renamed"))
	o, code := repairCLI(t, file, "--base-url", url, "--state", state, "--mode", "propose", "--step-timeout", "30s")
	if want := "proposed for review: the request asked to propose, not to apply"; code != 0 || o.Outcome != ladder.Staged || o.Reason != want || o.Version != 1 {
		t.Fatalf("propose mode: exit %d, outcome %s (%q), version %d; want staged with %q at version 1", code, o.Outcome, o.Reason, o.Version, want)
	}
	s, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	defer s.Close()
	tt, err := s.Test(context.Background(), o.TestID)
	noErr(t, err)
	p, err := s.Project(context.Background(), tt.ProjectID)
	noErr(t, err)
	if !p.AutoRepair || tt.Version != 1 {
		t.Errorf("after --mode propose the project's auto-repair is %v and the test is at version %d; want on, and 1", p.AutoRepair, tt.Version)
	}
}

// TestRepairJSONRegressionIsTriaged: a login that stays on /login is a regression: nothing is
// written and a triage issue names the evidence.
func TestRepairJSONRegressionIsTriaged(t *testing.T) {
	t.Parallel()
	app, url, file, state := recordedShop(t)
	noErr(t, app.SetVariant("login-broken"))
	o, code := repairCLI(t, file, "--base-url", url, "--state", state, "--write")
	if code != 1 || o.Outcome != ladder.Triaged || o.Version != 1 || len(o.Ops) != 0 {
		t.Fatalf("exit %d, outcome %s, version %d, ops %v", code, o.Outcome, o.Version, o.Ops)
	}
	if o.Triage == nil || o.Triage.Classification != gardener.AppBug || len(o.Triage.Evidence) == 0 {
		t.Fatalf("triage %+v", o.Triage)
	}
	b, _ := os.ReadFile(file)
	if tt, _ := gardener.DecodeTest(b); tt.Version != 1 {
		t.Error("the test file was written")
	}
}

// TestRepairJSONReportsRefusals: a model that answers a regression by rewriting the test's
// expectations (recorded Converse answers, served the way Bedrock serves them) is refused at
// every step, and the outcome says so rather than "no fix found".
func TestRepairJSONReportsRefusals(t *testing.T) {
	t.Parallel()
	app, url, file, state := recordedShop(t)
	calls := 0
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ToolConfig struct {
				ToolChoice struct {
					Tool struct{ Name string } `json:"tool"`
				} `json:"toolChoice"`
			} `json:"toolConfig"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || !strings.HasSuffix(r.URL.Path, "/converse") {
			http.Error(w, "not a Converse request", http.StatusBadRequest)
			return
		}
		b, err := os.ReadFile(filepath.Join("testdata", "converse", req.ToolConfig.ToolChoice.Tool.Name+".json"))
		if err != nil {
			http.Error(w, "no recorded answer", http.StatusInternalServerError)
			return
		}
		calls++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	defer fake.Close()
	// The request is signed with the credentials TestMain put in the environment.
	args := []string{file, "--base-url", url, "--state", state, "--model", "bedrock:anthropic.test-model", "--region", "us-east-1", "--bedrock-endpoint", fake.URL}
	noErr(t, app.SetVariant("login-broken"))
	o, code := repairCLI(t, args...)
	if code != 1 || o.Outcome != ladder.Refused || o.Reason != "every proposed change was refused" {
		t.Fatalf("exit %d, outcome %s (%s)", code, o.Outcome, o.Reason)
	}
	if len(o.Refusals) < 2 || !strings.Contains(o.Refusals[0].Reason, `"url contains /dashboard" to "url contains /login"`) && !strings.Contains(o.Refusals[0].Reason, "URL awaited") {
		t.Errorf("refusals %+v", o.Refusals)
	}
	if o.ModelCalls == 0 || o.Tokens.Input == 0 || calls != o.ModelCalls {
		t.Errorf("model calls %d (server saw %d), tokens %+v", o.ModelCalls, calls, o.Tokens)
	}
	// The cost recorded with the run counts what the Converse responses reported and what the
	// state's calls consumed.
	if c := o.Cost; c == nil || c.RunID != o.RunID || c.Usage.InputTokens != o.Tokens.Input || c.Usage.OutputTokens != o.Tokens.Output ||
		c.Usage.ModelCalls != calls || c.Usage.WriteUnits <= 0 || c.Usage.ReadUnits <= 0 || c.Cost.USD <= 0 {
		t.Errorf("cost %+v; want the tokens %+v of %d calls and the state's request units, priced", c, o.Tokens, calls)
	}
	if o.Version != 1 {
		t.Error("a refused repair wrote the test")
	}
}

func TestRepairBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	noErr(t, os.WriteFile(bad, []byte(`{"id":"x","steps":[{"kind":"click","locator":"role=button[name=Go]"}]}`), 0o644))
	for _, args := range [][]string{
		{bad, "--base-url", "http://127.0.0.1:1"},
		{filepath.Join(dir, "missing.json"), "--base-url", "http://127.0.0.1:1"},
		{bad},
		{bad, "--base-url", "ftp://x"},
		{bad, "--base-url", "http://127.0.0.1:1", "--mode", "sometimes"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(append([]string{"repair"}, args...), strings.NewReader(""), &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	var out, errb bytes.Buffer
	dispatch([]string{"repair", bad, "--base-url", "http://127.0.0.1:1"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(errb.String(), `step 1 (click), field "locator": malformed locator`) {
		t.Errorf("the error does not name the step and field: %s", errb.String())
	}
}

// errCrash is what a halted command stops with.
var errCrash = errors.New("crashed on purpose")

// repairHalting runs `gardener repair` in-process and stops it at point, as a crash there would.
func repairHalting(t *testing.T, point string, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, runner: sharedRunner, halt: func(p string) error {
		if p == point {
			return errCrash
		}
		return nil
	}}
	if code := c.dispatch(context.Background(), append([]string{"repair"}, args...)); code != exitFailure || !strings.Contains(errb.String(), errCrash.Error()) {
		t.Fatalf("repair halted at %q: exit %d, stderr %q; want 3 and the crash", point, code, errb.String())
	}
}

// stateOf reads what the state holds of test id: the test, its repairs and the project's triage
// issues.
func stateOf(t *testing.T, state, id string) (gardener.Test, []gardener.Repair, []gardener.TriageIssue) {
	t.Helper()
	ctx := context.Background()
	s, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	defer s.Close()
	test, err := s.Test(ctx, id)
	noErr(t, err)
	repairs, err := s.Repairs(ctx, id)
	noErr(t, err)
	triage, err := s.TriageIssues(ctx, test.ProjectID)
	noErr(t, err)
	return test, repairs, triage
}

func fileTest(t *testing.T, path string) gardener.Test {
	t.Helper()
	b, err := os.ReadFile(path)
	noErr(t, err)
	tt, err := gardener.DecodeTest(b)
	noErr(t, err)
	return tt
}

// TestRepairWriteSurvivesACrash: `repair --write` cut short between its writes, or a file ahead
// of its state, is completed by the rerun: the file and the state hold the repaired steps at
// version 2, with one repair record, and nothing is triaged. Before the crash ordering was fixed,
// a crash after the state write left the file at version 1, which the rerun took for a person's
// edit: it saved the old steps as version 3 and triaged the drift as an app bug.
func TestRepairWriteSurvivesACrash(t *testing.T) {
	cases := []struct {
		name string
		// cut leaves the file and the state as a crash would, given the repair's arguments.
		cut func(t *testing.T, state string, args []string)
	}{
		{"crash after the state write", func(t *testing.T, state string, args []string) {
			repairHalting(t, "state written", args...)
			if m, err := fileWritesIn(state).unfinished("login"); err != nil || m == nil || m.Version != 1 {
				t.Fatalf("the state records no unfinished write of the file at version 1: %+v, %v", m, err)
			}
			if v := fileTest(t, args[0]).Version; v != 1 {
				t.Fatalf("the crash left the file at version %d, want 1", v)
			}
		}},
		{"crash after the file write", func(t *testing.T, _ string, args []string) {
			repairHalting(t, "file written", args...)
		}},
		{"the file written, the state not", func(t *testing.T, state string, args []string) {
			db := filepath.Join(state, "gardener.db")
			before, err := os.ReadFile(db)
			noErr(t, err)
			if _, code := repairCLI(t, args...); code != 0 {
				t.Fatalf("repair: exit %d", code)
			}
			noErr(t, os.WriteFile(db, before, 0o644))
		}},
	}
	t.Parallel()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			app, url, file, state := recordedShop(t)
			noErr(t, app.SetVariant("id-renamed"))
			args := []string{file, "--base-url", url, "--state", state, "--write"}
			c.cut(t, state, args)
			o, code := repairCLI(t, args...)
			if code != 0 || o.Outcome != ladder.NoFix || o.Triage != nil || o.Version != 2 {
				t.Fatalf("rerun: exit %d, outcome %s (%s), version %d, triage %+v; want the repaired version 2 green", code, o.Outcome, o.Reason, o.Version, o.Triage)
			}
			stored, repairs, triage := stateOf(t, state, "login")
			onDisk := fileTest(t, file)
			if stored.Version != 2 || onDisk.Version != 2 {
				t.Errorf("state at version %d, file at %d; want both at 2", stored.Version, onDisk.Version)
			}
			if !slices.EqualFunc(onDisk.Steps, stored.Steps, gardener.Step.Equal) {
				t.Errorf("file steps %v, state steps %v", onDisk.Steps, stored.Steps)
			}
			if onDisk.Steps[3].Locator.String() == "css=#password" {
				t.Errorf("the file holds the old password locator: %v", onDisk.Steps[3])
			}
			if len(triage) != 0 {
				t.Errorf("triaged: %+v", triage)
			}
			if m, err := fileWritesIn(state).unfinished("login"); err != nil || m != nil {
				t.Errorf("the record of the file's write outlived the rerun: %+v, %v", m, err)
			}
			if c.name != "the file written, the state not" && len(repairs) != 1 {
				t.Errorf("%d repair records, want the one", len(repairs))
			}
		})
	}
}

// TestSweepCompletesACutShortWrite: a sweep over the file a crashed `repair --write` left behind
// completes the write as a rerun of the repair does, rather than saving the old steps over the
// repair.
func TestSweepCompletesACutShortWrite(t *testing.T) {
	t.Parallel()
	app, url, file, state := recordedShop(t)
	noErr(t, app.SetVariant("id-renamed"))
	repairHalting(t, "state written", file, "--base-url", url, "--state", state, "--write")
	var out, errb bytes.Buffer
	code := dispatch([]string{"sweep", "--tests", filepath.Dir(file), "--base-url", url, "--state", state, "--model", "none", "--json"}, nil, &out, &errb)
	if code == exitBadInput || code == exitFailure {
		t.Fatalf("sweep: exit %d\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "was cut short; wrote version 2 of login there") {
		t.Errorf("the sweep does not say it completed the write: %s", errb.String())
	}
	stored, repairs, _ := stateOf(t, state, "login")
	onDisk := fileTest(t, file)
	if stored.Version != 2 || onDisk.Version != 2 || len(repairs) != 1 || !slices.EqualFunc(onDisk.Steps, stored.Steps, gardener.Step.Equal) {
		t.Errorf("state version %d (%d repairs), file version %d; want both the repaired version 2", stored.Version, len(repairs), onDisk.Version)
	}
	if m, err := fileWritesIn(state).unfinished("login"); err != nil || m != nil {
		t.Errorf("the record of the file's write outlived the sweep: %+v, %v", m, err)
	}
}

// TestFirstRepairGivesUpOnAQuietPage: with no green run recorded, repair replays the test first;
// red, that replay is the ladder's reproduction, so it stops at the missing element once the page
// is quiet instead of waiting out a long step limit.
func TestFirstRepairGivesUpOnAQuietPage(t *testing.T) {
	t.Parallel()
	app, url, file, _ := recordedShop(t)
	noErr(t, app.SetVariant("id-renamed"))
	o, code := repairCLI(t, file, "--base-url", url, "--state", t.TempDir(), "--step-timeout", "30s")
	if code != 0 || o.Outcome != ladder.Repaired {
		t.Fatalf("exit %d, outcome %s (%s)", code, o.Outcome, o.Reason)
	}
	if o.Failure == nil || !strings.Contains(o.Failure.Message, "the page was quiet") {
		t.Errorf("the first replay waited out its step limit: %+v", o.Failure)
	}
}
