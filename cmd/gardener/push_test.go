package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// demoDir writes the demo tests to a folder, as a team's repository holds them.
func demoDir(t *testing.T, ids ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, id := range ids {
		b, err := demoapp.TestJSON(id)
		noErr(t, err)
		noErr(t, os.WriteFile(filepath.Join(dir, id+".json"), b, 0o644))
	}
	return dir
}

// syncCLI runs push or pull with --json and decodes its report.
func syncCLI(t *testing.T, args ...string) (syncReport, int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(append(args, "--json"), nil, &out, &errb)
	var rep syncReport
	if code != exitBadInput && code != exitFailure {
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("%v: exit %d, not one JSON object: %v\n%s\n%s", args, code, err, out.String(), errb.String())
		}
	}
	return rep, code, errb.String()
}

func outcomes(rep syncReport) map[string]string {
	out := map[string]string{}
	for _, s := range rep.Tests {
		out[s.TestID] = s.Outcome
	}
	return out
}

// repairInStore writes a changed step into the stored test, as an applied repair does.
func repairInStore(t *testing.T, store gardener.Store, id string, step int, loc string) gardener.Test {
	t.Helper()
	ctx := context.Background()
	cur, err := store.Test(ctx, id)
	noErr(t, err)
	steps := gardener.CloneSteps(cur.Steps)
	steps[step].Locator = gardener.MustLocator(loc)
	written, err := store.WriteRepair(ctx, gardener.WriteRepair{Steps: steps, Repair: gardener.Repair{ID: "rp-" + id, ProjectID: cur.ProjectID, TestID: id, PreSteps: cur.Steps, FromVersion: cur.Version, ToVersion: cur.Version + 1, Auto: true}})
	noErr(t, err)
	return written
}

// TestPushPullLocalState: push creates, then finds the same files unchanged; an edit is saved
// as the next version; a file edited on a version the project moved past is refused, not
// written over the repair; pull writes the repaired test back in the canonical layout and
// refuses to overwrite an edit that was not pushed.
func TestPushPullLocalState(t *testing.T) {
	dir := demoDir(t, "login", "cart-total", "product-search")
	state := t.TempDir()
	rep, code, stderr := syncCLI(t, "push", dir, "--project", "demo", "--state", state)
	if code != exitOK || rep.Counts["created"] != 3 {
		t.Fatalf("first push: exit %d %+v %s", code, rep, stderr)
	}
	if rep, code, _ := syncCLI(t, "push", dir, "--project", "demo", "--state", state); code != exitOK || rep.Counts["unchanged"] != 3 {
		t.Fatalf("second push: exit %d %+v", code, rep)
	}
	login := filepath.Join(dir, "login.json")
	b, err := os.ReadFile(login)
	noErr(t, err)
	noErr(t, os.WriteFile(login, bytes.Replace(b, []byte(`"#password"`), []byte(`"css=#password"`), 1), 0o644))
	edited := bytes.Replace(b, []byte(`"value": "demo123"`), []byte(`"value": "demo1234"`), 1)
	noErr(t, os.WriteFile(login, edited, 0o644))
	rep, code, _ = syncCLI(t, "push", dir, "--project", "demo", "--state", state)
	if code != exitOK || outcomes(rep)["login"] != "updated" || rep.Tests[0].Version != 2 && rep.Tests[1].Version != 2 {
		t.Fatalf("push of an edit: exit %d %+v", code, rep)
	}
	if b, _ := os.ReadFile(login); !strings.Contains(string(b), `"version": 2,`) {
		t.Errorf("the pushed file does not name the version it is now:\n%s", b)
	}

	store, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	repaired := repairInStore(t, store, "login", 3, "#pass")
	noErr(t, store.Close())

	// An edit made on version 2 while the project went to 3 is refused.
	b, _ = os.ReadFile(login)
	noErr(t, os.WriteFile(login, bytes.Replace(b, []byte(`"demo1234"`), []byte(`"demo12345"`), 1), 0o644))
	rep, code, _ = syncCLI(t, "push", dir, "--project", "demo", "--state", state)
	if code != exitNegative || outcomes(rep)["login"] != "refused" || !strings.Contains(rep.Tests[0].Reason+rep.Tests[1].Reason+rep.Tests[2].Reason, "since version 2 (it is at version 3 now") {
		t.Fatalf("push over a repair: exit %d %+v", code, rep)
	}
	// Nor does pull write the repair over it: the file names version 2, which the repair's
	// record says held "demo1234", so "demo12345" is an edit made here (issue 29: pull used to
	// compare only with the project's version 3 and overwrote it).
	rep, code, _ = syncCLI(t, "pull", dir, "--project", "demo", "--state", state)
	if code != exitNegative || outcomes(rep)["login"] != "refused" || !strings.Contains(rep.Tests[1].Reason, "edited here since version 2") {
		t.Fatalf("pull over an edit made on a version the project moved past: exit %d %+v", code, rep)
	}
	if got, _ := os.ReadFile(login); !bytes.Contains(got, []byte(`"demo12345"`)) {
		t.Fatal("pull wrote over an edit made on version 2")
	}
	// Without the edit the file is version 2 as the project held it, and pull takes version 3.
	b, _ = os.ReadFile(login)
	noErr(t, os.WriteFile(login, bytes.Replace(b, []byte(`"demo12345"`), []byte(`"demo1234"`), 1), 0o644))
	rep, code, _ = syncCLI(t, "pull", dir, "--project", "demo", "--state", state)
	if code != exitOK || outcomes(rep)["login"] != "updated" || outcomes(rep)["cart-total"] != "unchanged" {
		t.Fatalf("pull after the repair: exit %d %+v", code, rep)
	}
	want, err := gardener.FormatTest(repaired)
	noErr(t, err)
	if got, _ := os.ReadFile(login); !bytes.Equal(got, want) {
		t.Errorf("pulled file:\n%s\nwant:\n%s", got, want)
	}
	// An edit on the pulled version is not overwritten by the next pull.
	got, _ := os.ReadFile(login)
	noErr(t, os.WriteFile(login, bytes.Replace(got, []byte(`#pass"`), []byte(`#pwd"`), 1), 0o644))
	if rep, code, _ := syncCLI(t, "pull", dir, "--project", "demo", "--state", state); code != exitNegative || outcomes(rep)["login"] != "refused" {
		t.Errorf("pull over an edit not pushed: exit %d %+v", code, rep)
	}
	if got, _ := os.ReadFile(login); !bytes.Contains(got, []byte(`#pwd"`)) {
		t.Error("pull wrote over an edit that was not pushed")
	}
	// A fresh folder gets every test.
	fresh := filepath.Join(t.TempDir(), "tests")
	if rep, code, _ := syncCLI(t, "pull", fresh, "--project", "demo", "--state", state); code != exitOK || rep.Counts["created"] != 3 {
		t.Errorf("pull into a fresh folder: exit %d %+v", code, rep)
	}
	// A version no repair was made from is not on record: an old copy of it is refused, since
	// an edit in it could not be told apart, and kept.
	cart := filepath.Join(fresh, "cart-total.json")
	old, err := os.ReadFile(cart)
	noErr(t, err)
	noErr(t, os.WriteFile(cart, bytes.Replace(old, []byte(`"name": "`), []byte(`"name": "Renamed: `), 1), 0o644))
	if rep, code, _ := syncCLI(t, "push", fresh, "--project", "demo", "--state", state); code != exitOK || outcomes(rep)["cart-total"] != "updated" {
		t.Fatalf("push of a rename: exit %d %+v", code, rep)
	}
	noErr(t, os.WriteFile(cart, old, 0o644))
	rep, code, _ = syncCLI(t, "pull", fresh, "--project", "demo", "--state", state)
	if code != exitNegative || outcomes(rep)["cart-total"] != "refused" || !strings.Contains(rep.Tests[0].Reason, "keeps no record of what version 1 held") {
		t.Errorf("pull over a version not on record: exit %d %+v", code, rep)
	}
	if got, _ := os.ReadFile(cart); !bytes.Equal(got, old) {
		t.Error("pull wrote over a file whose version is not on record")
	}
}

// TestPushRefusesBadFolders: a file that is not a test, a test of another project or a second
// file with one id stops the push before anything is written (exit 2), naming each.
func TestPushRefusesBadFolders(t *testing.T) {
	dir := demoDir(t, "login")
	noErr(t, os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"id":"x","steps":[{"kind":"teleport"}]}`), 0o644))
	noErr(t, os.WriteFile(filepath.Join(dir, "other.json"), []byte(`{"id":"y","project":"shop","steps":[{"kind":"goto","url":"/"}]}`), 0o644))
	b, _ := demoapp.TestJSON("login")
	noErr(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	noErr(t, os.WriteFile(filepath.Join(dir, "sub", "login-copy.json"), b, 0o644))
	state := t.TempDir()
	_, code, stderr := syncCLI(t, "push", dir, "--project", "demo", "--state", state)
	for _, want := range []string{"broken.json", `unknown step kind "teleport"`, "other.json: test y is of project shop, not demo", "login-copy.json: test id login is also the id in"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not name %q:\n%s", want, stderr)
		}
	}
	if code != exitBadInput {
		t.Errorf("exit %d, want 2", code)
	}
	store, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	defer store.Close()
	if _, err := store.Test(context.Background(), "login"); err == nil {
		t.Error("a refused push wrote a test")
	}
	for _, args := range [][]string{{"push", dir}, {"push", "--project", "demo"}, {"pull", dir, "--project", "demo", "--api", "ftp://x"}} {
		if _, code, _ := syncCLI(t, args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestPushPullThroughTheAPI: against the API of a local stack, from an empty store: the
// project is created through the API, the demo tests are pushed, a repair lands in the
// project, and pull writes the repaired file; a token that does not reach the project is
// refused with the reason.
func TestPushPullThroughTheAPI(t *testing.T) {
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	noErr(t, err)
	t.Cleanup(func() { store.Close() })
	idle := browser.New(browser.Options{})
	t.Cleanup(func() { idle.Close() })
	st, err := stack.New(stack.Config{Template: "../../template.yaml", Services: handler.Services{Store: store, Runner: idle,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		}}})
	noErr(t, err)
	t.Cleanup(st.Wait)
	srv := httptest.NewServer(st.Handler())
	t.Cleanup(srv.Close)
	token := stack.DevToken("ann@example.com", "demo")

	req, _ := http.NewRequest("PUT", srv.URL+"/projects/demo", strings.NewReader(`{"name":"Seedling Supply","allowedOrigins":["http://127.0.0.1:9"],"model":"builtin","autoRepair":true,"radar":true}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	noErr(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("creating the project: %d", resp.StatusCode)
	}
	ids := []string{"login", "checkout", "cart-total", "product-search"}
	dir := demoDir(t, ids...)
	t.Setenv(tokenEnv, token)
	rep, code, stderr := syncCLI(t, "push", dir, "--project", "demo", "--api", srv.URL)
	if code != exitOK || rep.Counts["created"] != len(ids) {
		t.Fatalf("push through the API: exit %d %+v %s", code, rep, stderr)
	}
	if rep, code, _ := syncCLI(t, "push", dir, "--project", "demo", "--api", srv.URL); code != exitOK || rep.Counts["unchanged"] != len(ids) {
		t.Fatalf("second push: exit %d %+v", code, rep)
	}
	repaired := repairInStore(t, store, "checkout", 1, "#add-to-cart")
	pulled := filepath.Join(t.TempDir(), "repo")
	rep, code, _ = syncCLI(t, "pull", pulled, "--project", "demo", "--api", srv.URL)
	if code != exitOK || rep.Counts["created"] != len(ids) {
		t.Fatalf("pull through the API: exit %d %+v", code, rep)
	}
	want, _ := gardener.FormatTest(repaired)
	if got, _ := os.ReadFile(filepath.Join(pulled, "checkout.json")); !bytes.Equal(got, want) {
		t.Errorf("pulled checkout.json:\n%s\nwant:\n%s", got, want)
	}
	// The older copy in dir is refused by a push, and taken over by a pull.
	b, _ := os.ReadFile(filepath.Join(dir, "checkout.json"))
	noErr(t, os.WriteFile(filepath.Join(dir, "checkout.json"), bytes.Replace(b, []byte(`"name": "`), []byte(`"name": "Edited: `), 1), 0o644))
	if rep, code, _ := syncCLI(t, "push", dir, "--project", "demo", "--api", srv.URL); code != exitNegative || outcomes(rep)["checkout"] != "refused" {
		t.Errorf("push over the repair: exit %d %+v", code, rep)
	}
	// Pull keeps the rename too: through the API's repair history it knows what version 1 was
	// (issue 29: it used to overwrite it); without the rename it takes the repair.
	rep, code, _ = syncCLI(t, "pull", dir, "--project", "demo", "--api", srv.URL)
	if code != exitNegative || outcomes(rep)["checkout"] != "refused" || outcomes(rep)["login"] != "unchanged" {
		t.Fatalf("pull over an edit on version 1: exit %d %+v", code, rep)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "checkout.json")); !bytes.Contains(got, []byte("Edited: ")) {
		t.Fatal("pull through the API wrote over a rename made on version 1")
	}
	noErr(t, os.WriteFile(filepath.Join(dir, "checkout.json"), b, 0o644))
	if rep, code, _ := syncCLI(t, "pull", dir, "--project", "demo", "--api", srv.URL); code != exitOK || outcomes(rep)["checkout"] != "updated" {
		t.Errorf("pull of an unedited version 1: exit %d %+v", code, rep)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "checkout.json")); !bytes.Equal(got, want) {
		t.Errorf("pulled checkout.json:\n%s\nwant:\n%s", got, want)
	}
	t.Setenv(tokenEnv, stack.DevToken("eve@example.com", "other"))
	if _, code, stderr := syncCLI(t, "pull", pulled, "--project", "demo", "--api", srv.URL); code != exitBadInput || !strings.Contains(stderr, "project demo does not exist") {
		t.Errorf("pull with a token for another project: exit %d %s", code, stderr)
	}
}

// TestAcceptanceFromAnEmptyStore is the whole flow on the local stack, from an empty
// store: a project created through the API, the tests pushed, the scheduled suite machine
// recording green runs, the app drifting, the suite failing, the repair machine repairing
// (auto-repair) and pull writing the repaired file. The proposing path on the same stack (the
// radar on by the project's setting alone, its schedule recording a baseline, a sweep and the
// staging pass staging proposals, nothing written to a test) is TestDemo's phases 4 and 5.
func TestAcceptanceFromAnEmptyStore(t *testing.T) {
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("SKIP: no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	t.Parallel()
	type world struct {
		app   *demoapp.App
		store gardener.Store
		st    *stack.Stack
		api   string
		call  func(method, path, body string, want int) string
	}
	setup := func(t *testing.T, settings string) world {
		w := world{app: demoapp.New()}
		appSrv := httptest.NewServer(w.app.Handler())
		t.Cleanup(appSrv.Close)
		store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
		noErr(t, err)
		t.Cleanup(func() { store.Close() })
		w.store = store
		// The package's one Chromium: each world's replays get lanes of their own in it.
		w.st, err = stack.New(stack.Config{Template: "../../template.yaml", Services: handler.Services{Store: store, Runner: sharedRunner,
			BaseURLs: map[string]string{"demo": appSrv.URL}, StepTimeout: 5 * time.Second,
			Models: func(ctx context.Context, spec string) (gardener.Model, error) {
				return modelspec.Open(ctx, spec, modelspec.Options{})
			}}})
		noErr(t, err)
		t.Cleanup(w.st.Wait)
		srv := httptest.NewServer(w.st.Handler())
		t.Cleanup(srv.Close)
		w.api = srv.URL
		// push and pull read the token TestMain put in the environment: a parallel test may
		// not set one of its own.
		token := stack.DevToken("ann@example.com", "demo")
		if got := os.Getenv(tokenEnv); got != token {
			t.Fatalf("$%s holds %q, want ann's token for project demo", tokenEnv, got)
		}
		w.call = func(method, path, body string, want int) string {
			t.Helper()
			req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			noErr(t, err)
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != want {
				t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, b, want)
			}
			return string(b)
		}
		w.call("PUT", "/projects/demo", fmt.Sprintf(`{"name":"Seedling Supply","allowedOrigins":[%q],"model":"builtin","plan":"pro",%s}`, appSrv.URL, settings), http.StatusCreated)
		return w
	}
	// suite fires the suite machine's schedule and waits for it and the repairs it starts.
	suite := func(t *testing.T, w world) {
		t.Helper()
		noErr(t, w.st.Scheduler.FireNow(context.Background(), "SuiteStateMachine.Suite"))
		w.st.Wait()
	}
	ctx := context.Background()

	t.Run("auto-repair", func(t *testing.T) {
		t.Parallel()
		w := setup(t, `"autoRepair":true,"radar":false`)
		dir := demoDir(t, "login")
		if rep, code, stderr := syncCLI(t, "push", dir, "--project", "demo", "--api", w.api); code != exitOK || rep.Counts["created"] != 1 {
			t.Fatalf("push: exit %d %+v %s", code, rep, stderr)
		}
		suite(t, w)
		green, err := w.store.LastGreenRun(ctx, "login")
		if err != nil || green.Trigger != gardener.TriggerSchedule {
			t.Fatalf("the suite should record a scheduled green run of login: %+v %v", green, err)
		}
		noErr(t, w.app.SetVariant("id-renamed"))
		suite(t, w)
		if n := len(w.st.Executions("RepairStateMachine")); n != 1 {
			t.Fatalf("the failing suite should start one repair execution, it started %d", n)
		}
		repaired, err := w.store.Test(ctx, "login")
		noErr(t, err)
		if repaired.Version != 2 {
			t.Fatalf("the test after the suite's repair: version %d, steps %v", repaired.Version, repaired.Steps)
		}
		rep, code, _ := syncCLI(t, "pull", dir, "--project", "demo", "--api", w.api)
		if code != exitOK || outcomes(rep)["login"] != "updated" {
			t.Fatalf("pull: exit %d %+v", code, rep)
		}
		want, _ := gardener.FormatTest(repaired)
		if got, _ := os.ReadFile(filepath.Join(dir, "login.json")); !bytes.Equal(got, want) || bytes.Contains(got, []byte(`"#password"`)) {
			t.Errorf("pulled login.json:\n%s", got)
		}
	})
}
