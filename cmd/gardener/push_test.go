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
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/workspace"
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
	if code != exitNegative || outcomes(rep)["login"] != "refused" || !strings.Contains(rep.Tests[0].Reason+rep.Tests[1].Reason+rep.Tests[2].Reason, "made on version 2, and test login is at version 3 in project demo") {
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
	// Without the edit the file is version 2 as the project held it, and pull takes version 3:
	// the repaired step and the version line change, the rest stays as the file had it.
	b, _ = os.ReadFile(login)
	before := bytes.Replace(b, []byte(`"demo12345"`), []byte(`"demo1234"`), 1)
	noErr(t, os.WriteFile(login, before, 0o644))
	rep, code, _ = syncCLI(t, "pull", dir, "--project", "demo", "--state", state)
	if code != exitOK || outcomes(rep)["login"] != "updated" || outcomes(rep)["cart-total"] != "unchanged" {
		t.Fatalf("pull after the repair: exit %d %+v", code, rep)
	}
	got, _ := os.ReadFile(login)
	if test, err := gardener.DecodeTest(got); err != nil || test.Version != 3 || !slices.EqualFunc(test.Steps, repaired.Steps, gardener.Step.Equal) {
		t.Errorf("pulled file reads %+v, %v; want version 3's steps", test, err)
	}
	if removed, added := changedLines(string(before), string(got)); len(removed) != 2 || len(added) != 2 || !strings.Contains(added[1], `"#pass"`) {
		t.Errorf("pull removed %q, added %q; want the version line and step 4's", removed, added)
	}
	// An edit on the pulled version is not overwritten by the next pull.
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
	// A hand-written copy that names no version is version 1's: refused as well, nothing
	// written (it used to be saved over the repair as version 3); with the repaired steps it
	// is unchanged.
	plain := t.TempDir()
	noErr(t, os.WriteFile(filepath.Join(plain, "checkout.json"), withoutVersion(t, "checkout"), 0o644))
	rep, code, _ = syncCLI(t, "push", plain, "--project", "demo", "--api", srv.URL)
	if code != exitNegative || outcomes(rep)["checkout"] != "refused" || !strings.Contains(rep.Tests[0].Reason, "names no version, so it is a copy of version 1 (what creating the test made), and test checkout is at version 2 in project demo") ||
		!strings.Contains(rep.Tests[0].Reason, "gardener pull "+plain+" --project demo --api "+srv.URL) {
		t.Errorf("push --api of a file without a version over the repair: exit %d %+v", code, rep)
	}
	if got, err := store.Test(context.Background(), "checkout"); err != nil || got.Version != 2 || !slices.EqualFunc(got.Steps, repaired.Steps, gardener.Step.Equal) {
		t.Errorf("the refused push --api wrote checkout: %+v %v", got, err)
	}
	same, err := gardener.EditTestFile(withoutVersion(t, "checkout"), repaired)
	noErr(t, err)
	noErr(t, os.WriteFile(filepath.Join(plain, "checkout.json"), bytes.Replace(same, []byte("  \"version\": 2,\n"), nil, 1), 0o644))
	if rep, code, _ := syncCLI(t, "push", plain, "--project", "demo", "--api", srv.URL); code != exitOK || outcomes(rep)["checkout"] != "unchanged" || rep.Tests[0].Version != 2 {
		t.Errorf("push --api of the repaired steps without a version: exit %d %+v", code, rep)
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
	// Into the team's file the repair is written in place: its step and the version line.
	inPlace, err := gardener.EditTestFile(b, repaired)
	noErr(t, err)
	if got, _ := os.ReadFile(filepath.Join(dir, "checkout.json")); !bytes.Equal(got, inPlace) {
		t.Errorf("pulled checkout.json:\n%s\nwant:\n%s", got, inPlace)
	}
	// --branch through the API: the commit's message is the repair record GET /tests/{id}/repairs
	// gives.
	repo := gitRepo(t)
	noErr(t, os.WriteFile(filepath.Join(repo, "checkout.json"), b, 0o644))
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "--quiet", "-m", "checkout at version 1")
	rep, code, stderr = syncCLI(t, "pull", repo, "--project", "demo", "--api", srv.URL, "--branch", "gardener/repairs")
	if code != exitOK || outcomes(rep)["checkout"] != "updated" || rep.Counts["created"] != 3 {
		t.Fatalf("pull --branch through the API: exit %d %+v %s", code, rep, stderr)
	}
	if msg := gitIn(t, repo, "log", "-1", "--format=%B", "gardener/repairs", "--", "checkout.json"); !strings.Contains(msg, "Repair rp-checkout: version 1 -> 2") || !strings.Contains(msg, "Approved by: nobody (auto-repair)") {
		t.Errorf("the commit of checkout through the API:\n%s", msg)
	}
	if _, code, stderr := syncCLI(t, "pull", repo, "--project", "demo", "--api", srv.URL, "--branch", "no..good"); code != exitBadInput || !strings.Contains(stderr, "not a branch name") {
		t.Errorf("pull --branch with a bad name: exit %d %s", code, stderr)
	}
	t.Setenv(tokenEnv, stack.DevToken("eve@example.com", "other"))
	if _, code, stderr := syncCLI(t, "pull", pulled, "--project", "demo", "--api", srv.URL); code != exitBadInput || !strings.Contains(stderr, "project demo does not exist") {
		t.Errorf("pull with a token for another project: exit %d %s", code, stderr)
	}
	// A token the API does not take is bad input too (exit 2), for push and pull alike.
	t.Setenv(tokenEnv, "not-a-token")
	for _, verb := range []string{"push", "pull"} {
		if _, code, stderr := syncCLI(t, verb, pulled, "--project", "demo", "--api", srv.URL); code != exitBadInput || !strings.Contains(stderr, "the API refused the token in $"+tokenEnv+" (401") {
			t.Errorf("%s with a refused token: exit %d %s", verb, code, stderr)
		}
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
		original, _ := demoapp.TestJSON("login")
		want, err := gardener.EditTestFile(original, repaired)
		noErr(t, err)
		if got, _ := os.ReadFile(filepath.Join(dir, "login.json")); !bytes.Equal(got, want) || bytes.Contains(got, []byte(`"#password"`)) {
			t.Errorf("pulled login.json:\n%s", got)
		}
	})
}

// gitIn runs git in dir for a test, with no configuration but the repository's own.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitRepo is a fresh repository on branch main with an identity to commit as, isolated from
// the machine's git configuration.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("SKIP: pull --commit is tested with real git, which is not installed (%v); install it with: apt-get install -y git", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := t.TempDir()
	gitIn(t, repo, "init", "--quiet", "--initial-branch=main")
	gitIn(t, repo, "config", "user.name", "Team CI")
	gitIn(t, repo, "config", "user.email", "ci@example.com")
	return repo
}

// TestPullCommitsRepairsOnABranch: pull --branch writes the repaired tests into a team's
// repository and commits each on the branch with its repair record as the message (never a
// typed value); a file the team edited meanwhile is refused and left uncommitted; a change
// outside pull's files stops it before anything is written; --commit commits on the current
// branch.
func TestPullCommitsRepairsOnABranch(t *testing.T) {
	repo := gitRepo(t)
	dir := filepath.Join(repo, "tests")
	noErr(t, os.MkdirAll(dir, 0o755))
	for _, id := range []string{"login", "cart-total", "product-search"} {
		b, err := demoapp.TestJSON(id)
		noErr(t, err)
		noErr(t, os.WriteFile(filepath.Join(dir, id+".json"), b, 0o644))
	}
	state := t.TempDir()
	if rep, code, stderr := syncCLI(t, "push", dir, "--project", "demo", "--state", state); code != exitOK || rep.Counts["created"] != 3 {
		t.Fatalf("push: exit %d %+v %s", code, rep, stderr)
	}
	// A test the project has and the repository does not yet.
	if rep, code, _ := syncCLI(t, "push", demoDir(t, "checkout"), "--project", "demo", "--state", state); code != exitOK || rep.Counts["created"] != 1 {
		t.Fatalf("push of checkout: exit %d %+v", code, rep)
	}
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "--quiet", "-m", "the team's tests")
	mainHead := gitIn(t, repo, "rev-parse", "main")

	store, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	ctx := context.Background()
	repair := func(id string, step int, loc string, r gardener.Repair) gardener.Test {
		cur, err := store.Test(ctx, id)
		noErr(t, err)
		steps := gardener.CloneSteps(cur.Steps)
		steps[step].Locator = gardener.MustLocator(loc)
		r.ProjectID, r.TestID, r.PreSteps, r.FromVersion, r.ToVersion = cur.ProjectID, id, cur.Steps, cur.Version, cur.Version+1
		r.Verdict.Strategy = gardener.StrategySelfHeal
		r.Verdict.Changes = []gardener.Change{{Class: gardener.ClassRepair, Path: fmt.Sprint(step + 1)}}
		written, err := store.WriteRepair(ctx, gardener.WriteRepair{Steps: steps, Repair: r})
		noErr(t, err)
		return written
	}
	login := repair("login", 3, "#pass", gardener.Repair{ID: "rp-login-1", RunID: "run-7", ApprovedBy: "ann@example.com"})
	repair("cart-total", 1, "#add", gardener.Repair{ID: "rp-cart-1", RunID: "run-8", Auto: true})
	noErr(t, store.Close())

	// The team edited cart-total meanwhile, and has not committed it yet.
	cart := filepath.Join(dir, "cart-total.json")
	b, _ := os.ReadFile(cart)
	edited := bytes.Replace(b, []byte(`"name": "`), []byte(`"name": "Team: `), 1)
	noErr(t, os.WriteFile(cart, edited, 0o644))

	// A change outside the test files stops the pull before anything is written.
	noErr(t, os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("wip"), 0o644))
	_, code, stderr := syncCLI(t, "pull", dir, "--project", "demo", "--state", state, "--branch", "gardener/repairs")
	if code != exitBadInput || !strings.Contains(stderr, "notes.txt") {
		t.Fatalf("pull with a change outside its files: exit %d %s", code, stderr)
	}
	if branches := gitIn(t, repo, "branch", "--list", "gardener/repairs"); branches != "" {
		t.Fatalf("a refused pull made the branch: %s", branches)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "login.json")); bytes.Contains(got, []byte(`"#pass"`)) {
		t.Fatal("a refused pull wrote a test")
	}
	noErr(t, os.Remove(filepath.Join(repo, "notes.txt")))

	rep, code, stderr := syncCLI(t, "pull", dir, "--project", "demo", "--state", state, "--branch", "gardener/repairs")
	if code != exitNegative || rep.Branch != "gardener/repairs" || outcomes(rep)["login"] != "updated" || outcomes(rep)["checkout"] != "created" || outcomes(rep)["cart-total"] != "refused" {
		t.Fatalf("pull --branch: exit %d %+v %s", code, rep, stderr)
	}
	// The commits are on the branch; the checkout is back on main, where it was.
	if cur := gitIn(t, repo, "branch", "--show-current"); cur != "main" || rep.Back != "main" {
		t.Errorf("the current branch is %q (report: back on %q, %q), want main again", cur, rep.Back, rep.Stayed)
	}
	if got := gitIn(t, repo, "rev-parse", "main"); got != mainHead {
		t.Error("pull --branch committed on main")
	}
	if n := gitIn(t, repo, "rev-list", "--count", "main..gardener/repairs"); n != "2" {
		t.Errorf("%s commits on the branch, want 2 (login, checkout)", n)
	}
	original, _ := demoapp.TestJSON("login")
	want, _ := gardener.EditTestFile(original, login)
	if got := gitIn(t, repo, "show", "gardener/repairs:tests/login.json"); got != strings.TrimSpace(string(want)) {
		t.Errorf("the committed login.json:\n%s\nwant:\n%s", got, want)
	}
	msg := gitIn(t, repo, "log", "-1", "--format=%B", "gardener/repairs", "--", "tests/login.json")
	for _, w := range []string{"repair test login, version 1 -> 2", "Repair rp-login-1: version 1 -> 2", "Run: run-7", "Strategy: self-heal", "Changes: 1 repair, 0 review, 0 protected", "Approved by: ann@example.com"} {
		if !strings.Contains(msg, w) {
			t.Errorf("the commit message does not say %q:\n%s", w, msg)
		}
	}
	// login fills in "demo123": a typed value never reaches a commit message.
	if all := gitIn(t, repo, "log", "--format=%B", "main..gardener/repairs"); strings.Contains(all, "demo123") || !strings.Contains(all, "add test checkout at version 1") {
		t.Errorf("the branch's messages:\n%s", all)
	}
	if log := gitIn(t, repo, "log", "--oneline", "main..gardener/repairs", "--", "tests/cart-total.json"); log != "" {
		t.Errorf("the refused cart-total was committed: %s", log)
	}
	if got, _ := os.ReadFile(cart); !bytes.Equal(got, edited) {
		t.Error("pull wrote over the team's edit of cart-total")
	}
	if st := gitIn(t, repo, "status", "--porcelain"); st != "M tests/cart-total.json" {
		t.Errorf("git status after the pull: %q, want only the team's edit", st)
	}

	// Nothing new in the project: nothing is committed, and the report does not claim a commit.
	var out bytes.Buffer
	if code := dispatch([]string{"pull", dir, "--project", "demo", "--state", state, "--branch", "gardener/repairs"}, nil, &out, io.Discard); code != exitNegative ||
		!strings.Contains(out.String(), "nothing to commit: no test file changed, so branch gardener/repairs has no new commit") || strings.Contains(out.String(), "committed") ||
		!strings.Contains(out.String(), "checked out main again") {
		t.Errorf("a pull with nothing new: exit %d\n%s", code, out.String())
	}
	if n := gitIn(t, repo, "rev-list", "--count", "main..gardener/repairs"); n != "2" {
		t.Errorf("%s commits on the branch after a pull with nothing new, want still 2", n)
	}
	if cur := gitIn(t, repo, "branch", "--show-current"); cur != "main" {
		t.Errorf("the current branch after a pull with nothing new is %q, want main", cur)
	}

	// --commit commits on the branch checked out: the next repair of login lands there too.
	gitIn(t, repo, "switch", "--quiet", "gardener/repairs")
	store, err = embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	repair("login", 2, "#user", gardener.Repair{ID: "rp-login-2", RunID: "run-9", Auto: true})
	noErr(t, store.Close())
	rep, code, _ = syncCLI(t, "pull", dir, "--project", "demo", "--state", state, "--commit")
	if code != exitNegative || outcomes(rep)["login"] != "updated" || rep.Tests[2].Commit == "" {
		t.Fatalf("pull --commit: exit %d %+v", code, rep)
	}
	if head := gitIn(t, repo, "rev-parse", "gardener/repairs"); head != rep.Tests[2].Commit {
		t.Errorf("the branch is at %s, the report names commit %s", head, rep.Tests[2].Commit)
	}
	if msg := gitIn(t, repo, "log", "-1", "--format=%B"); !strings.Contains(msg, "Repair rp-login-2: version 2 -> 3") || strings.Contains(msg, "rp-login-1") || !strings.Contains(msg, "Approved by: nobody (auto-repair)") {
		t.Errorf("the second commit's message:\n%s", msg)
	}
	// Outside a working tree --commit is bad input.
	if _, code, stderr := syncCLI(t, "pull", t.TempDir(), "--project", "demo", "--state", state, "--commit"); code != exitBadInput || !strings.Contains(stderr, "git working tree") {
		t.Errorf("pull --commit outside a repository: exit %d %s", code, stderr)
	}
}

// TestPullRefusesAFileWithoutAVersion: a hand-written file holding a test the project has, with
// no version and other steps, is not overwritten (it used to be: a file naming no version was
// taken as behind).
func TestPullRefusesAFileWithoutAVersion(t *testing.T) {
	dir := demoDir(t, "login")
	state := t.TempDir()
	if rep, code, _ := syncCLI(t, "push", dir, "--project", "demo", "--state", state); code != exitOK || rep.Counts["created"] != 1 {
		t.Fatalf("push: exit %d %+v", code, rep)
	}
	mine := filepath.Join(t.TempDir(), "tests")
	noErr(t, os.MkdirAll(mine, 0o755))
	b, _ := demoapp.TestJSON("login")
	b = bytes.Replace(b, []byte(`"version": 1,`), nil, 1)
	b = bytes.Replace(b, []byte(`"#password"`), []byte(`"#pw"`), 1)
	noErr(t, os.WriteFile(filepath.Join(mine, "login.json"), b, 0o644))
	rep, code, _ := syncCLI(t, "pull", mine, "--project", "demo", "--state", state)
	if code != exitNegative || outcomes(rep)["login"] != "refused" || !strings.Contains(rep.Tests[0].Reason, "edited here since version 1") {
		t.Fatalf("pull over a file without a version: exit %d %+v", code, rep)
	}
	if got, _ := os.ReadFile(filepath.Join(mine, "login.json")); !bytes.Equal(got, b) {
		t.Error("pull wrote over a file without a version")
	}

	// A team's first hour: the file they wrote names no version and holds no edit; a repair
	// moved the project to version 2. The file is version 1's content, so pull updates it.
	plain, _ := demoapp.TestJSON("login")
	plain = bytes.Replace(plain, []byte(`"version": 1,`), nil, 1)
	noErr(t, os.WriteFile(filepath.Join(mine, "login.json"), plain, 0o644))
	store, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	repairInStore(t, store, "login", 2, "label=Password")
	noErr(t, store.Close())
	rep, code, _ = syncCLI(t, "pull", mine, "--project", "demo", "--state", state)
	if code != exitOK || outcomes(rep)["login"] != "updated" {
		t.Fatalf("pull of an unedited file without a version after a repair: exit %d %+v", code, rep)
	}
	if got, _ := os.ReadFile(filepath.Join(mine, "login.json")); !bytes.Contains(got, []byte(`"version": 2`)) || !bytes.Contains(got, []byte(`label=Password`)) {
		t.Errorf("pull did not write the repaired test: %s", got)
	}
}

// withoutVersion is a demo test's file as a person writes it by hand (docs/first-hour.md): no
// version line.
func withoutVersion(t *testing.T, id string) []byte {
	t.Helper()
	b, err := demoapp.TestJSON(id)
	noErr(t, err)
	out := bytes.Replace(b, []byte("  \"version\": 1,\n"), nil, 1)
	if bytes.Equal(out, b) {
		t.Fatalf("the demo's %s.json has no version line to leave out", id)
	}
	return out
}

// TestPushRefusesAFileWithoutAVersionOverARepair: a file that names no version is a copy of
// version 1; pushed onto a test a repair moved to version 2, with other steps, it is refused
// with the file, the test, both versions and "gardener pull" named, and writes nothing: not the
// test, not the file, while the folder's other file is pushed as before. The same steps as the
// project's are no refusal: unchanged, and the file learns its version. (It used to be saved
// over the repair as version 3, exit 0.)
func TestPushRefusesAFileWithoutAVersionOverARepair(t *testing.T) {
	dir := t.TempDir()
	login, cart := filepath.Join(dir, "login.json"), filepath.Join(dir, "cart-total.json")
	noErr(t, os.WriteFile(login, withoutVersion(t, "login"), 0o644))
	noErr(t, os.WriteFile(cart, withoutVersion(t, "cart-total"), 0o644))
	state := t.TempDir()
	if rep, code, stderr := syncCLI(t, "push", dir, "--project", "demo", "--state", state); code != exitOK || rep.Counts["created"] != 2 {
		t.Fatalf("first push: exit %d %+v %s", code, rep, stderr)
	}
	// The team's files stay as they wrote them (the test came into the state some other way,
	// e.g. "gardener repair FILE" without --write); a repair moves login to version 2.
	handWritten := withoutVersion(t, "login")
	noErr(t, os.WriteFile(login, handWritten, 0o644))
	noErr(t, os.WriteFile(cart, withoutVersion(t, "cart-total"), 0o644))
	store, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	// The project the push made is on the builtin model: its tests can be repaired at once.
	if p, err := store.Project(context.Background(), "demo"); err != nil || p.Model != builtin.Name {
		t.Errorf("the project push made: %+v (%v), want it on the builtin model", p, err)
	}
	repaired := repairInStore(t, store, "login", 3, "label=Password")
	noErr(t, store.Close())
	// Meanwhile cart-total is renamed in its file: that file is pushed, login's is refused.
	renamed := bytes.Replace(withoutVersion(t, "cart-total"), []byte(`"name": "`), []byte(`"name": "Renamed: `), 1)
	noErr(t, os.WriteFile(cart, renamed, 0o644))

	var out bytes.Buffer
	code := dispatch([]string{"push", dir, "--project", "demo", "--state", state}, nil, &out, io.Discard)
	text := out.String()
	if code != exitNegative {
		t.Errorf("push of a file without a version over a repair: exit %d, want 1\n%s", code, text)
	}
	for _, want := range []string{
		"refused   login", login, "names no version, so it is a copy of version 1",
		"test login is at version 2 in project demo", "gardener pull " + dir + " --project demo --state " + state,
		"updated   cart-total (version 2)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("push's report does not say %q:\n%s", want, text)
		}
	}
	store, err = embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	got, err := store.Test(context.Background(), "login")
	noErr(t, err)
	if got.Version != 2 || !slices.EqualFunc(got.Steps, repaired.Steps, gardener.Step.Equal) {
		t.Errorf("the refused push wrote login: version %d, steps %v; want the repair's version 2", got.Version, got.Steps)
	}
	if cartGot, err := store.Test(context.Background(), "cart-total"); err != nil || cartGot.Version != 2 || !strings.HasPrefix(cartGot.Name, "Renamed: ") {
		t.Errorf("the folder's other file was not pushed: %+v %v", cartGot, err)
	}
	noErr(t, store.Close())
	if b, _ := os.ReadFile(login); !bytes.Equal(b, handWritten) {
		t.Errorf("the refused push changed the file:\n%s", b)
	}

	// The repaired steps, still with no version line: nothing to write, so no refusal.
	same, err := gardener.EditTestFile(handWritten, repaired)
	noErr(t, err)
	same = bytes.Replace(same, []byte("  \"version\": 2,\n"), nil, 1)
	noErr(t, os.WriteFile(login, same, 0o644))
	rep, code, _ := syncCLI(t, "push", dir, "--project", "demo", "--state", state)
	if code != exitOK || outcomes(rep)["login"] != "unchanged" {
		t.Fatalf("push of the project's steps without a version: exit %d %+v", code, rep)
	}
	if b, _ := os.ReadFile(login); !bytes.Contains(b, []byte(`"version": 2,`)) {
		t.Errorf("the unchanged file does not name the version it is a copy of:\n%s", b)
	}
}

// TestPullUpdatesAFileHoldingALaterVersion: a file that names no version and holds an edit that
// run --record saved into the state as version 2 (run does not write the version line back),
// which a repair then moved to version 3, holds exactly version 2's steps: pull writes version 3
// over it, losing nothing. Edited once more here, it is refused.
func TestPullUpdatesAFileHoldingALaterVersion(t *testing.T) {
	dir := demoDir(t, "login")
	state := t.TempDir()
	if rep, code, _ := syncCLI(t, "push", dir, "--project", "demo", "--state", state); code != exitOK || rep.Counts["created"] != 1 {
		t.Fatalf("push: exit %d %+v", code, rep)
	}
	store, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	v1, err := store.Test(context.Background(), "login")
	noErr(t, err)
	edit := v1.Clone()
	edit.Steps[3].Locator = gardener.MustLocator("#pw") // the password fill
	v2, err := (&workspace.Service{Store: store}).SyncTest(context.Background(), edit, nil)
	noErr(t, err)
	repairInStore(t, store, "login", 3, "label=Password")
	noErr(t, store.Close())
	if v2.Test.Version != 2 {
		t.Fatalf("the edit was saved as version %d, want 2", v2.Test.Version)
	}

	mine := filepath.Join(t.TempDir(), "tests")
	noErr(t, os.MkdirAll(mine, 0o755))
	b := bytes.Replace(withoutVersion(t, "login"), []byte(`"#password"`), []byte(`"#pw"`), 1)
	noErr(t, os.WriteFile(filepath.Join(mine, "login.json"), b, 0o644))
	rep, code, _ := syncCLI(t, "pull", mine, "--project", "demo", "--state", state)
	if code != exitOK || outcomes(rep)["login"] != "updated" {
		t.Fatalf("pull of a file holding version 2's steps: exit %d %+v", code, rep)
	}
	if got, _ := os.ReadFile(filepath.Join(mine, "login.json")); !bytes.Contains(got, []byte(`"version": 3`)) || !bytes.Contains(got, []byte(`label=Password`)) {
		t.Errorf("pull did not write version 3: %s", got)
	}

	edited := bytes.Replace(b, []byte(`"#pw"`), []byte(`"#pass"`), 1)
	noErr(t, os.WriteFile(filepath.Join(mine, "login.json"), edited, 0o644))
	if rep, code, _ := syncCLI(t, "pull", mine, "--project", "demo", "--state", state); code != exitNegative || outcomes(rep)["login"] != "refused" {
		t.Fatalf("pull over an edited file: exit %d %+v", code, rep)
	}
	if got, _ := os.ReadFile(filepath.Join(mine, "login.json")); !bytes.Equal(got, edited) {
		t.Error("pull wrote over an edited file")
	}
}
