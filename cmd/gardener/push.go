package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/workspace"
)

func init() {
	register("push", command{
		summary:  "sync a folder of test files to a project (local state or a deployed API)",
		synopsis: []string{"DIR --project P [--api URL [--token-env NAME]] [--state DIR] [--record [--base-url URL]] [--json]"},
		about: `Syncs the test files in DIR (*.json, subfolders included) to project P: in the local
state, or with --api through a deployed API, authenticated by the bearer token in $GARDENER_TOKEN
or the variable --token-env names (against "gardener serve": dev:EMAIL:PROJECTS). Each test is
printed as created, updated, unchanged or refused, with the reason. A file whose test changed in
the project since the version the file names (version 1 when it names none, as a file written by
hand does) - a repair, someone's edit - is refused rather than written over it: pull, redo the
edit, push again. A file that holds what the project holds is unchanged, whatever version it
names. A file's version line is then set to the version the project now holds (added when the
file names none), so the next push knows what it was based on; nothing else in the file changes.
Every file is read first: when one is not a test of P, nothing is pushed. A refused file writes
nothing and leaves its file as it is; the other files are pushed.

--record runs each test the push created or changed once against its app and records the run,
as "gardener run --record" and POST /tests/{testId}/runs do: a passing run is the green run a
later repair of that version compares a failure with (without one a repair that finds no green
proof says it cannot tell drift from a bug). Each is reported as "recorded green run ID" or as
failed with the step and the error: a failing run is recorded, never as a green one. Locally the
test replays in Chromium against --base-url (added to the project's allowed origins), else the
project's first allowed origin; with --api the API replays it in its own browser.

Exit status: 0 all pushed (and, with --record, every run green); 1 some refused, or a recorded
run failed; 2 bad input (nothing pushed; a token the API refuses); 3 the state or the API could not be reached, or could
not replay a test (with --record, an app that does not answer at its base URL: its runs are not
recorded).`,
		run: runPush,
	})
	register("pull", command{
		summary:  "write a project's tests to a folder of test files",
		synopsis: []string{"DIR --project P [--api URL [--token-env NAME]] [--state DIR] [--commit | --branch NAME] [--json]"},
		about: `Writes every test of project P to DIR, so repaired tests can be committed back: into the file
that holds the test's id, changing only the steps that changed and the version line (the file
keeps its own layout, locator spelling and key order, so its diff is the repair), else into a new
DIR/ID.json in the canonical layout (one step per line, a fixed key order; "gardener fmt" applies
it to a file when asked). Each test is printed as created, updated, unchanged or refused. A file edited here is never overwritten: one whose content differs from what the
version it names held is refused with the reason (push it first, or, when the project has moved
on, move it aside, pull and redo the edit). What an older version held is read from the test's
repair history (a repair keeps the steps of the version it repaired); when no record says, the
file is refused too, since an edit in it could not be told apart. With --api the tests and their
repair histories come from a deployed API, authenticated by $GARDENER_TOKEN (or --token-env).

With --commit, DIR must be in a git working tree: each test written is committed on its own, on
the current branch, with its record as the message (the test, its version, and each repair
since the file's version: id, run, strategy, change classes counted, who approved; never a
step, so never a typed value). --branch NAME does the same on branch NAME, created from the
current commit when it does not exist, so CI can open a pull request from it, then checks out
again the branch (or commit) checked out before: the commits are on NAME, the working tree holds
your branch's files (should git refuse to switch back, pull says so and NAME stays checked out).
A pull that changes no file commits nothing and says so. A change in the working tree outside
the test files pull writes stops it before anything is written (exit 2, naming it); a refused
file is left as it is and not committed. git must be installed, with a user.name and user.email
to commit as.

Exit status: 0 all written; 1 some refused; 2 bad input (with --commit: not a git working tree,
a change outside pull's files; a token the API refuses); 3 the state, the API or git could not
do its part.`,
		run: runPull,
	})
}

// syncFlags are push's and pull's flags.
type syncFlags struct {
	apiFlags
	project string
	json    bool
	// commit and branch are pull's: commit what it writes, on the current branch or on branch.
	commit bool
	branch string
	// record and base are push's: run each test it writes once and record the run, replaying
	// against base (local state only).
	record bool
	base   string
}

func (c *cli) syncFlags(name string, args []string) (syncFlags, string, int, bool) {
	fs := c.flags(name)
	var f syncFlags
	fs.StringVar(&f.project, "project", "", "the project's `ID` (required)")
	f.apiFlags.register(fs)
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of text")
	if name == "pull" {
		fs.BoolVar(&f.commit, "commit", false, "commit each test written, with its repairs as the message, on the current git branch")
		fs.StringVar(&f.branch, "branch", "", "like --commit, on git branch `NAME` (created when it does not exist)")
	}
	if name == "push" {
		fs.BoolVar(&f.record, "record", false, "run each test created or changed once and record the run: a passing one is the green run a repair compares with")
		fs.StringVar(&f.base, "base-url", "", "with --record and the local state, the app's `URL` to replay against (default: the project's first allowed origin)")
	}
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return f, "", code, false
	}
	switch {
	case f.base != "" && !f.record:
		return f, "", c.badUsage(fs, "--base-url is for --record: without it nothing is replayed"), false
	case f.base != "" && f.api != "":
		return f, "", c.badUsage(fs, "--base-url is for the local state: with --api the API replays against the project's app"), false
	case f.base != "":
		if err := checkHTTPURL("--base-url", f.base); err != nil {
			return f, "", c.badUsage(fs, "%v", err), false
		}
	}
	switch {
	case len(pos) != 1:
		return f, "", c.badUsage(fs, "give one DIR"), false
	case f.project == "":
		return f, "", c.badUsage(fs, "--project is required"), false
	}
	if err := checkIDArgs(fs, nil, []idArg{{"--project", "projectId"}}); err != nil {
		return f, "", c.badUsage(fs, "%v", err), false
	}
	if _, err := f.client(); err != nil {
		return f, "", c.badUsage(fs, "%v", err), false
	}
	return f, pos[0], exitOK, true
}

// project is where push and pull read and write a project's tests: the local state or an API.
type project interface {
	// tests are the project's tests by id; a *gardener.NotFoundError when it does not exist.
	tests(ctx context.Context) (map[string]gardener.Test, error)
	// put creates the test (create) or replaces it as an edit made on version base; a test
	// that moved from base is a *refusal with moved set, nothing written.
	put(ctx context.Context, t gardener.Test, base int, create bool) (gardener.Test, error)
	// repairs is a test's repair history, newest first: the only record of what a version the
	// project has moved past held (each repair keeps the steps of its FromVersion).
	repairs(ctx context.Context, testID string) ([]gardener.Repair, error)
	// runNow replays the test's current version once and records the run (gardening.RunNow).
	runNow(ctx context.Context, testID string) (gardening.RanNow, error)
	close()
}

// refusal is a test a project did not take, and why. moved says the test is no longer at the
// version the file was made on; version is the one it is at, when the project said (0: not said).
type refusal struct {
	reason  string
	moved   bool
	version int
}

func (r *refusal) Error() string { return r.reason }

// synced is one line of push's or pull's report.
type synced struct {
	File    string `json:"file"`
	TestID  string `json:"testId"`
	Outcome string `json:"outcome"` // created, updated, unchanged, refused
	Version int    `json:"version,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Commit  string `json:"commit,omitempty"` // pull --commit: the commit that holds it
	// Run is push --record's run of the version written.
	Run *recorded `json:"run,omitempty"`
}

// recorded is a run push --record made of a test it wrote: green (the baseline a repair
// compares with), failed (recorded, never as green), or not made (Error).
type recorded struct {
	RunID      string `json:"runId,omitempty"`
	Green      bool   `json:"green"`
	FailedStep string `json:"failedStep,omitempty"`
	Failure    string `json:"failure,omitempty"`
	Error      string `json:"error,omitempty"`
}

// recordedOf is what a run made now says to people: its id, and for a red one where and how it
// failed, in the words the run records (steps redacted, no value a check read).
func recordedOf(ran gardening.RanNow) *recorded {
	r := &recorded{RunID: ran.Run.ID, Green: ran.Green}
	if res := ran.Run.Result; res != nil && !ran.Green {
		r.FailedStep, r.Failure = res.FailedStep, res.Message
	}
	return r
}

// syncReport is what --json prints.
type syncReport struct {
	Project string `json:"project"`
	Branch  string `json:"branch,omitempty"` // pull --commit: the branch committed on
	// Back is pull --branch's: the branch (or, from a detached HEAD, the commit) checked out
	// again after committing on Branch; Stayed, instead, why Branch is still checked out.
	Back   string         `json:"checkedOutAgain,omitempty"`
	Stayed string         `json:"stillOnBranch,omitempty"`
	Tests  []synced       `json:"tests"`
	Counts map[string]int `json:"counts"`
}

func openProject(f syncFlags) (project, error) {
	if api, err := f.client(); err != nil || api != nil {
		return &apiProject{apiClient: api, id: f.project}, err
	}
	store, err := openState(f.state)
	if err != nil {
		return nil, fmt.Errorf("opening the state in %s: %w", f.state, err)
	}
	// --record replays through RunNow, which asks whether the app answers first: one that is
	// down is "not recorded" (exit 3), as through the API's 502.
	app, err := gardening.New(gardening.Deps{Store: store, Reach: reachOnce(reachCLI), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		store.Close()
		return nil, err
	}
	return &stateProject{store: store, app: app, id: f.project, base: f.base}, nil
}

// projectFile is a test file of a project read from a folder.
type projectFile struct {
	path string
	test gardener.Test
}

// readProjectDir reads every *.json under dir as a test of projectID. Its error names each file
// that is not a test, whose test is of another project, or whose id another file has too.
func readProjectDir(dir, projectID string) ([]projectFile, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	var files []projectFile
	var bad []string
	seen := map[string]string{}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(path) != ".json" || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		t, err := gardener.DecodeTest(b)
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("%s: %v", path, err))
		case t.ProjectID != "" && t.ProjectID != projectID:
			bad = append(bad, fmt.Sprintf("%s: test %s is of project %s, not %s", path, t.ID, t.ProjectID, projectID))
		case seen[t.ID] != "":
			bad = append(bad, fmt.Sprintf("%s: test id %s is also the id in %s", path, t.ID, seen[t.ID]))
		default:
			seen[t.ID] = path
			t.ProjectID = projectID
			files = append(files, projectFile{path, t})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, errors.New(strings.Join(bad, "\n"))
	}
	return files, nil
}

// sameTest says whether a file holds what the project holds: steps, status, name and viewport.
func sameTest(a, b gardener.Test) bool {
	return a.Name == b.Name && a.Status == b.Status && a.Viewport == b.Viewport && slices.EqualFunc(a.Steps, b.Steps, gardener.Step.Equal)
}

func runPush(ctx context.Context, c *cli, args []string) int {
	f, dir, code, ok := c.syncFlags("push", args)
	if !ok {
		return code
	}
	files, err := readProjectDir(dir, f.project)
	if err != nil {
		return c.fail("push", exitBadInput, err)
	}
	p, err := openProject(f)
	if err != nil {
		return c.fail("push", exitFailure, err)
	}
	defer p.close()
	if sp, ok := p.(*stateProject); ok && f.record {
		// Chromium is started only when a test is to be replayed.
		sp.browser = func() gardener.Runner {
			if sp.runner == nil {
				var done func()
				sp.runner, done = c.browserFor(0)
				sp.done = done
			}
			return sp.runner
		}
	}
	have, err := p.tests(ctx)
	if errors.Is(err, gardener.ErrNotFound) {
		return c.fail("push", exitBadInput, fmt.Errorf("project %s does not exist: create it first (PUT /projects/%s)", f.project, f.project))
	}
	if err != nil {
		return c.fail("push", exitOf(err), err)
	}
	rep := syncReport{Project: f.project, Counts: map[string]int{}}
	for _, tf := range files {
		s := synced{File: tf.path, TestID: tf.test.ID}
		stored, exists := have[tf.test.ID]
		switch {
		case exists && sameTest(stored, tf.test):
			// Nothing to write, so nothing to lose, whatever version the file names.
			s.Outcome, s.Version = "unchanged", stored.Version
		default:
			// The file is an edit made on the version it names, 1 when it names none; whether
			// the test moved from it is the application layer's to say (gardening.SaveTest,
			// as PUT /tests/{id}), so a hand-written file is never written over a repair.
			written, err := p.put(ctx, tf.test, tf.test.CopyOf(), !exists)
			var no *refusal
			if errors.As(err, &no) {
				s.Outcome, s.Reason = "refused", no.reason
				if no.moved {
					s.Reason = movedReason(f, dir, tf.test, cmp.Or(no.version, stored.Version))
				}
				break
			}
			if err != nil {
				return c.fail("push", exitOf(err), fmt.Errorf("%s: %w", tf.path, err))
			}
			s.Outcome, s.Version = "updated", written.Version
			if !exists {
				s.Outcome = "created"
			}
			stored = written
		}
		// The file records the version it is now the project's copy of.
		if s.Outcome != "refused" && tf.test.Version != stored.Version {
			if err := updateTestFile(tf.path, stored); err != nil {
				return c.fail("push", exitFailure, err)
			}
		}
		// A version the push wrote has no green run yet: --record makes its first run now.
		if f.record && (s.Outcome == "created" || s.Outcome == "updated") {
			ran, err := p.runNow(ctx, s.TestID)
			if err != nil {
				s.Run = &recorded{Error: err.Error()}
			} else {
				s.Run = recordedOf(ran)
			}
		}
		rep.add(s)
	}
	return c.report("push", f, rep)
}

// movedReason is why a file made on a version the project moved past is refused: which
// version it was taken as, which the project holds, and how to redo the edit on it.
func movedReason(f syncFlags, dir string, file gardener.Test, current int) string {
	if file.CopyOf() > current {
		return fmt.Sprintf("names version %d, but test %s is at version %d in project %s: it is not a copy of this project's test (another state's or deployment's?), so it is not pushed", file.Version, file.ID, current, f.project)
	}
	made := copyOf(file, "made on version %d")
	pull := fmt.Sprintf("gardener pull %s --project %s", dir, f.project)
	switch {
	case f.api != "" && f.tokenEnv != tokenEnv:
		pull += fmt.Sprintf(" --api %s --token-env %s", f.api, f.tokenEnv)
	case f.api != "":
		pull += " --api " + f.api
	case f.state != defaultStateDir:
		pull += " --state " + f.state
	}
	return fmt.Sprintf("%s, and test %s is at version %d in project %s (a repair or another edit changed it since): not pushed, so that change is not written over. %s; push again", made, file.ID, current, f.project, pullFirst(pull, current))
}

func runPull(ctx context.Context, c *cli, args []string) int {
	f, dir, code, ok := c.syncFlags("pull", args)
	if !ok {
		return code
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return c.fail("pull", exitBadInput, err)
	}
	var repo *gitTree
	if f.commit || f.branch != "" {
		var err error
		if repo, err = openGitTree(ctx, dir); err != nil {
			return c.fail("pull", exitBadInput, err)
		}
		if f.branch != "" {
			if _, err := repo.git(ctx, nil, "check-ref-format", "--branch", f.branch); err != nil {
				return c.fail("pull", exitBadInput, fmt.Errorf("--branch %s is not a branch name git takes: %w", f.branch, err))
			}
		}
	}
	byID, err := readPullDir(dir, f.project)
	if err != nil {
		return c.fail("pull", exitBadInput, err)
	}
	p, err := openProject(f)
	if err != nil {
		return c.fail("pull", exitFailure, err)
	}
	defer p.close()
	have, err := p.tests(ctx)
	if errors.Is(err, gardener.ErrNotFound) {
		return c.fail("pull", exitBadInput, fmt.Errorf("project %s does not exist", f.project))
	}
	if err != nil {
		return c.fail("pull", exitOf(err), err)
	}
	rep := syncReport{Project: f.project, Counts: map[string]int{}}
	back := func() {} // puts the checkout back where it was before --branch switched it
	if repo != nil {
		// Commits hold what pull wrote and nothing else, so every other change must be out of
		// the way first; the test files it writes may be dirty (an edit there is refused below).
		writes := map[string]bool{}
		for id := range have {
			writes[pullPath(dir, id, byID)] = true
		}
		keep := ""
		if f.api == "" {
			keep = f.state // the state pull reads may live in the working tree
		}
		if dirty, err := repo.dirtyOutside(ctx, dir, writes, keep); err != nil {
			return c.fail("pull", exitFailure, err)
		} else if len(dirty) > 0 {
			return c.fail("pull", exitBadInput, fmt.Errorf("the git working tree %s has changes outside the test files pull writes: %s: commit or stash them first", repo.top, strings.Join(dirty, ", ")))
		}
		if f.branch != "" {
			from, err := repo.checkedOut(ctx)
			if err != nil {
				return c.fail("pull", exitFailure, err)
			}
			switched, err := repo.switchTo(ctx, f.branch)
			if err != nil {
				return c.fail("pull", exitFailure, err)
			}
			if switched {
				// The commits stay on the branch; the person (or CI job) is put back where they
				// were, as they expect of a command that is not checkout. On a failure below too,
				// said on stderr after the failure.
				defer func() {
					if rep.Back == "" && rep.Stayed == "" {
						if err := repo.switchBack(ctx, from); err != nil {
							fmt.Fprintf(c.stderr, "gardener pull: still on branch %s: %v\n", f.branch, err)
						}
					}
				}()
				back = func() {
					if err := repo.switchBack(ctx, from); err != nil {
						rep.Stayed = fmt.Sprintf("switching back to %s failed, so branch %s is still checked out: %v", from.name(), f.branch, err)
						return
					}
					rep.Back = from.name()
				}
			}
			// The branch may hold other versions of the files (an earlier pull's commits).
			if byID, err = readPullDir(dir, f.project); err != nil {
				return c.fail("pull", exitBadInput, fmt.Errorf("on branch %s: %w", f.branch, err))
			}
		}
		if rep.Branch, err = repo.branch(ctx); err != nil {
			return c.fail("pull", exitBadInput, err)
		}
	}
	histories := map[string][]gardener.Repair{}
	history := func(id string) ([]gardener.Repair, error) {
		if rs, ok := histories[id]; ok {
			return rs, nil
		}
		rs, err := p.repairs(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("the repair history of %s: %w", id, err)
		}
		histories[id] = rs
		return rs, nil
	}
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range have {
			if !yield(id) {
				return
			}
		}
	}) {
		t := have[id]
		s := synced{TestID: id, Version: t.Version}
		tf, exists := byID[id]
		if !exists {
			tf.path = filepath.Join(dir, safeName(id)+".json")
			if _, err := os.Stat(tf.path); err == nil {
				s.File, s.Outcome = tf.path, "refused"
				s.Reason = fmt.Sprintf("%s exists and is not a test file of %s", tf.path, f.project)
				rep.add(s)
				continue
			}
		}
		s.File = tf.path
		if exists {
			// A file that names no version (docs/test-format.md: a new file may leave it out) is
			// what creating the test made of it: version 1, compared as such.
			tf.test.Version = tf.test.CopyOf()
		}
		switch {
		case !exists:
			s.Outcome = "created"
		case tf.test.Version == t.Version && sameTest(tf.test, t):
			// The file holds the project's test: it is left as its author laid it out.
			s.Outcome = "unchanged"
		case tf.test.Version == t.Version:
			s.Outcome = "refused"
			s.Reason = fmt.Sprintf("edited here since version %d and not pushed: push it first", t.Version)
		case tf.test.Version > t.Version:
			s.Outcome = "refused"
			s.Reason = fmt.Sprintf("names version %d, but project %s holds version %d: it is not a copy of this project's test", tf.test.Version, f.project, t.Version)
		case sameTest(tf.test, t):
			// Only the version the file names is behind: writing it loses nothing.
			s.Outcome = "updated"
		default:
			// The project moved past the file's version: whether the file was edited here is
			// a comparison with what that version held, which only the repair history keeps.
			rs, err := history(id)
			if err != nil {
				return c.fail("pull", exitOf(err), err)
			}
			if why := editedSince(tf.test, t, rs); why != "" {
				s.Outcome, s.Reason = "refused", why
				break
			}
			s.Outcome = "updated"
		}
		if s.Outcome == "created" || s.Outcome == "updated" {
			if err := updateTestFile(tf.path, t); err != nil {
				return c.fail("pull", exitFailure, err)
			}
			if repo != nil {
				rs, err := history(id)
				if err != nil {
					return c.fail("pull", exitOf(err), err)
				}
				msg := commitMessage(f.project, t, tf.test.Version, exists, rs)
				if s.Commit, err = repo.commit(ctx, tf.path, msg); err != nil {
					return c.fail("pull", exitFailure, err)
				}
			}
		}
		rep.add(s)
	}
	back()
	return c.report("pull", f, rep)
}

// readPullDir reads DIR's test files of the project by test id.
func readPullDir(dir, projectID string) (map[string]projectFile, error) {
	files, err := readProjectDir(dir, projectID)
	if err != nil {
		return nil, err
	}
	byID := map[string]projectFile{}
	for _, tf := range files {
		byID[tf.test.ID] = tf
	}
	return byID, nil
}

// pullPath is the file pull writes test id to: the one that holds it, else DIR/ID.json.
func pullPath(dir, id string, byID map[string]projectFile) string {
	if tf, ok := byID[id]; ok {
		return tf.path
	}
	return filepath.Join(dir, safeName(id)+".json")
}

// commitMessage is the record of one pulled test: which test and version, and each repair that
// took it there from the version the file held (from 0 for a new file). It renders ids,
// versions, names of strategies and people, and counts: never a step, whose value may be
// something typed into the app (a password), and a commit message is public to the repository.
func commitMessage(projectID string, t gardener.Test, from int, existed bool, repairs []gardener.Repair) string {
	var since []gardener.Repair
	for _, r := range repairs {
		if r.FromVersion >= from && r.ToVersion <= t.Version {
			since = append(since, r)
		}
	}
	slices.SortFunc(since, func(a, b gardener.Repair) int {
		return cmp.Or(cmp.Compare(a.FromVersion, b.FromVersion), a.At.Compare(b.At), strings.Compare(a.ID, b.ID))
	})
	var b strings.Builder
	switch {
	case !existed:
		fmt.Fprintf(&b, "gardener: add test %s at version %d\n\n", t.ID, t.Version)
		fmt.Fprintf(&b, "Test %s, version %d, pulled from project %s.\n", t.ID, t.Version, projectID)
	case len(since) > 0:
		fmt.Fprintf(&b, "gardener: repair test %s, version %d -> %d\n\n", t.ID, from, t.Version)
		fmt.Fprintf(&b, "Test %s, version %d -> %d, pulled from project %s.\n", t.ID, from, t.Version, projectID)
	default:
		fmt.Fprintf(&b, "gardener: update test %s, version %d -> %d\n\n", t.ID, from, t.Version)
		fmt.Fprintf(&b, "Test %s, version %d -> %d, pulled from project %s.\n", t.ID, from, t.Version, projectID)
	}
	covered := map[int]bool{}
	for _, r := range since {
		covered[r.FromVersion] = true
		sum := gardener.Summarize(r.Verdict.Changes)
		approved := r.ApprovedBy
		switch {
		case approved == "" && r.Auto:
			approved = "nobody (auto-repair)"
		case approved == "":
			approved = "not recorded"
		}
		fmt.Fprintf(&b, "\nRepair %s: version %d -> %d\n", r.ID, r.FromVersion, r.ToVersion)
		fmt.Fprintf(&b, "Run: %s\n", cmp.Or(r.RunID, "none recorded"))
		fmt.Fprintf(&b, "Strategy: %s\n", cmp.Or(string(r.Verdict.Strategy), "not recorded"))
		fmt.Fprintf(&b, "Changes: %d repair, %d review, %d protected\n", sum[gardener.ClassRepair], sum[gardener.ClassReview], sum[gardener.ClassProtected])
		fmt.Fprintf(&b, "Approved by: %s\n", approved)
		if !r.RevertedAt.IsZero() {
			fmt.Fprintf(&b, "Reverted by: %s\n", cmp.Or(r.RevertedBy, "not recorded"))
		}
	}
	// A version no repair made is an edit (or a revert) in the project: said, so the record
	// does not read as if every change since were a repair.
	var edits []string
	for k := max(from, 1); k < t.Version; k++ {
		if !covered[k] {
			edits = append(edits, fmt.Sprintf("%d -> %d", k, k+1))
		}
	}
	if existed && len(edits) > 0 {
		fmt.Fprintf(&b, "\nChanged in the project without a repair (an edit or a revert): version %s\n", strings.Join(edits, ", "))
	}
	return b.String()
}

// editedSince says why file, which names a version the project's test t has moved past, may
// hold an edit made here and must not be overwritten; "" when it holds exactly what its version
// held. The steps of that version are known from a repair made from it; its name and status
// from t when every version since was a repair (a repair changes steps only). Whatever cannot
// be known is a refusal: a file is never overwritten on a guess.
func editedSince(file, t gardener.Test, repairs []gardener.Repair) string {
	n := file.Version
	var steps []gardener.Step
	known, agree := false, true
	repaired := map[int]bool{} // versions k the history says became k+1 by a repair
	for _, r := range repairs {
		if r.ToVersion == r.FromVersion+1 {
			repaired[r.FromVersion] = true
		}
		if r.FromVersion != n {
			continue
		}
		if known && !slices.EqualFunc(steps, r.PreSteps, gardener.Step.Equal) {
			agree = false
		}
		steps, known = r.PreSteps, true
	}
	// The file may hold exactly what a later version held: its edit was saved into the state as
	// that version by run, repair or sweep, which do not write the version line back. When every
	// version since was a repair, writing the project's over it loses nothing of the file's.
	for _, r := range repairs {
		if r.FromVersion < n || file.Name != t.Name || file.Status != t.Status || !slices.EqualFunc(file.Steps, r.PreSteps, gardener.Step.Equal) {
			continue
		}
		since := true
		for k := r.FromVersion; k < t.Version; k++ {
			since = since && repaired[k]
		}
		if since {
			return ""
		}
	}
	switch {
	case !known:
		return fmt.Sprintf("names version %d; project holds version %d and keeps no record of what version %d held (no repair was made from it), so an edit made here cannot be told apart: not overwritten. If it holds no edit of yours, delete it and pull again", n, t.Version, n)
	case !agree:
		return fmt.Sprintf("names version %d; the repair history disagrees on what version %d held, so an edit made here cannot be told apart: not overwritten. If it holds no edit of yours, delete it and pull again", n, n)
	case !slices.EqualFunc(file.Steps, steps, gardener.Step.Equal):
		return fmt.Sprintf("edited here since version %d (its steps are not version %d's) and project holds version %d: not overwritten. Move it aside, pull, redo the edit on version %d and push it", n, n, t.Version, t.Version)
	case file.Name == t.Name && file.Status == t.Status:
		return ""
	}
	for k := n; k < t.Version; k++ {
		if !repaired[k] {
			return fmt.Sprintf("its name or status is not version %d's, and version %d was not a repair, so whether it was changed here or in the project cannot be told: not overwritten. If it holds no edit of yours, delete it and pull again", t.Version, k+1)
		}
	}
	return fmt.Sprintf("edited here since version %d (its name or status is not version %d's) and project holds version %d: not overwritten. Move it aside, pull, redo the edit on version %d and push it", n, n, t.Version, t.Version)
}

// safeName is a test id as a file name: what is not a letter, digit, '-', '_' or '.' becomes '_'.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, strings.TrimLeft(id, "."))
}

func (r *syncReport) add(s synced) {
	r.Tests = append(r.Tests, s)
	r.Counts[s.Outcome]++
	switch {
	case s.Run == nil:
	case s.Run.Error != "":
		r.Counts["not recorded"]++
	case s.Run.Green:
		r.Counts["recorded green"]++
	default:
		r.Counts["failed"]++
	}
}

// report prints a push or pull and returns its exit status: 1 when something was refused.
func (c *cli) report(name string, f syncFlags, rep syncReport) int {
	if f.json {
		if err := writeJSON(c.stdout, rep); err != nil {
			return c.fail(name, exitFailure, err)
		}
	} else {
		for _, s := range rep.Tests {
			line := fmt.Sprintf("%-9s %s", s.Outcome, s.TestID)
			if s.Version > 0 {
				line += fmt.Sprintf(" (version %d)", s.Version)
			}
			line += "  " + s.File
			if s.Reason != "" {
				line += ": " + s.Reason
			}
			if s.Commit != "" {
				line += fmt.Sprintf(" (commit %.12s)", s.Commit)
			}
			fmt.Fprintln(c.stdout, line)
			if r := s.Run; r != nil {
				switch {
				case r.Error != "":
					fmt.Fprintf(c.stdout, "          not recorded: %s\n", r.Error)
				case r.Green:
					fmt.Fprintf(c.stdout, "          recorded green run %s\n", r.RunID)
				default:
					fmt.Fprintf(c.stdout, "          failed: run %s failed at step %s: %s (recorded, not as a green run)\n", r.RunID, r.FailedStep, r.Failure)
				}
			}
		}
		if rep.Branch != "" {
			fmt.Fprintln(c.stdout, committedLine(rep))
			switch {
			case rep.Back != "":
				fmt.Fprintf(c.stdout, "checked out %s again, as before the pull: the working tree holds its files, not the branch's\n", rep.Back)
			case rep.Stayed != "":
				fmt.Fprintf(c.stdout, "%s\n", rep.Stayed)
			}
		}
		line := fmt.Sprintf("%s %s: %d created, %d updated, %d unchanged, %d refused", name, rep.Project,
			rep.Counts["created"], rep.Counts["updated"], rep.Counts["unchanged"], rep.Counts["refused"])
		if f.record {
			line += fmt.Sprintf("; runs: %d recorded green, %d failed", rep.Counts["recorded green"], rep.Counts["failed"])
			if n := rep.Counts["not recorded"]; n > 0 {
				line += fmt.Sprintf(", %d not recorded", n)
			}
		}
		fmt.Fprintln(c.stdout, line)
	}
	switch {
	case rep.Counts["not recorded"] > 0:
		return exitFailure
	case rep.Counts["refused"] > 0 || rep.Counts["failed"] > 0:
		return exitNegative
	}
	return exitOK
}

// stateProject is a project in the local state, written through the application layer as the
// API writes a deployed one.
type stateProject struct {
	store *embedded.Store
	app   *gardening.Service
	id    string
	// base is the app runNow replays against; browser starts the Chromium it replays in
	// (push --record only), kept in runner until close lets go of it with done.
	base    string
	browser func() gardener.Runner
	runner  gardener.Runner
	done    func()
}

func (s *stateProject) tests(ctx context.Context) (map[string]gardener.Test, error) {
	// The local state holds what its commands made; a project named for the first time is
	// created, as repair and sweep do. The app a push records runs against is one of its
	// origins, as "gardener run --record" makes it.
	set := workspace.Settings{New: newLocalProject}
	if s.base != "" {
		set.Origins = []string{originOf(s.base)}
	}
	if _, err := (&workspace.Service{Store: s.store}).EnsureProject(ctx, s.id, set); err != nil {
		return nil, err
	}
	ts, err := s.store.Tests(ctx, s.id)
	if err != nil {
		return nil, err
	}
	out := map[string]gardener.Test{}
	for _, t := range ts {
		out[t.ID] = t
	}
	return out, nil
}

// put saves t as PUT /tests/{id} does (gardening.SaveTest); what the rules refuse (the test
// moved, it is another project's) is the file's refusal, not the push's failure.
func (s *stateProject) put(ctx context.Context, t gardener.Test, base int, create bool) (gardener.Test, error) {
	if create {
		base = 0
	}
	synced, err := s.app.SaveTest(ctx, gardening.Person(localUser()), t, base)
	switch gardening.ClassOf(err) {
	case gardening.ClassMoved:
		v, _ := gardening.MovedVersion(err)
		return gardener.Test{}, &refusal{reason: err.Error(), moved: true, version: v}
	case gardening.ClassConflict, gardening.ClassBadInput:
		return gardener.Test{}, &refusal{reason: err.Error()}
	}
	return synced.Test, err
}

func (s *stateProject) repairs(ctx context.Context, testID string) ([]gardener.Repair, error) {
	rs, err := s.app.RepairHistory(ctx, testID)
	// A record that does not decode is skipped: a version only it knew stays unknown, and
	// the file that names it is refused.
	if _, failure := gardener.SplitCorrupt(err); failure != nil {
		return nil, failure
	}
	return rs, nil
}

// runNow replays the test through the application layer's RunNow, as run --record does.
func (s *stateProject) runNow(ctx context.Context, testID string) (gardening.RanNow, error) {
	if s.browser == nil {
		return gardening.RanNow{}, errors.New("no browser to replay in")
	}
	ran, err := s.app.RunNow(ctx, gardening.Person(localUser()), testID, gardening.Here{Runner: s.browser(), Options: gardener.ReplayOptions{BaseURL: s.base}})
	if err != nil {
		return ran, err
	}
	t, err := s.store.Test(ctx, testID)
	if err == nil {
		ran.Run = ran.Run.ForPeople(t)
	}
	return ran, nil
}

func (s *stateProject) close() {
	if s.done != nil {
		s.done()
	}
	s.store.Close()
}

// apiProject is a project of a deployed API.
type apiProject struct {
	*apiClient
	id string
}

func (a *apiProject) tests(ctx context.Context) (map[string]gardener.Test, error) {
	var ts []gardener.Test
	status, body, err := a.call(ctx, "GET", "/projects/"+url.PathEscape(a.id)+"/tests", nil, nil, &ts)
	if err != nil {
		return nil, err
	}
	if status == http.StatusNotFound {
		return nil, &gardener.NotFoundError{Entity: "project", ID: a.id}
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET the tests of project %s: %d %s", a.id, status, body)
	}
	out := map[string]gardener.Test{}
	for _, t := range ts {
		out[t.ID] = t
	}
	return out, nil
}

func (a *apiProject) put(ctx context.Context, t gardener.Test, base int, create bool) (gardener.Test, error) {
	header := map[string]string{}
	if !create {
		// Named always, 1 for a file that names none, so that an API that would take a body
		// without a version as made on whatever it holds still refuses a moved test.
		header["If-Match"] = strconv.Quote(strconv.Itoa(base))
	}
	// The version is the If-Match's to name; a file's own may be another project's.
	t.Version = 0
	var out struct {
		Test gardener.Test `json:"test"`
	}
	status, body, err := a.call(ctx, "PUT", "/tests/"+url.PathEscape(t.ID), t, header, &out)
	if err != nil {
		return gardener.Test{}, err
	}
	switch {
	case status == http.StatusOK || status == http.StatusCreated:
		return out.Test, nil
	case status == http.StatusNotFound && create:
		return gardener.Test{}, &refusal{reason: fmt.Sprintf("test id %s is taken by a project this token does not reach (ids are global): rename it", t.ID)}
	case status == http.StatusPreconditionFailed && !create:
		return gardener.Test{}, &refusal{reason: fmt.Sprintf("the API answered %d: %s", status, apiError([]byte(body))), moved: true}
	case status >= 400 && status < 500 && status != http.StatusUnauthorized:
		return gardener.Test{}, &refusal{reason: fmt.Sprintf("the API answered %d: %s", status, apiError([]byte(body)))}
	}
	return gardener.Test{}, fmt.Errorf("PUT test %s: %d %s", t.ID, status, body)
}

func (a *apiProject) repairs(ctx context.Context, testID string) ([]gardener.Repair, error) {
	var rs []gardener.Repair
	status, body, err := a.call(ctx, "GET", "/tests/"+url.PathEscape(testID)+"/repairs", nil, nil, &rs)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET the repairs of test %s: %d %s", testID, status, body)
	}
	return rs, nil
}

// runNow is POST /tests/{testId}/runs: the API replays the test in its own browser and records
// the run.
func (a *apiProject) runNow(ctx context.Context, testID string) (gardening.RanNow, error) {
	var ran gardening.RanNow
	status, body, err := a.call(ctx, "POST", "/tests/"+url.PathEscape(testID)+"/runs", nil, nil, &ran)
	if err != nil {
		return ran, err
	}
	if status != http.StatusCreated {
		return ran, fmt.Errorf("POST /tests/%s/runs: %d %s", testID, status, apiError([]byte(body)))
	}
	return ran, nil
}

func (a *apiProject) close() {}

// gitTree is the git working tree pull --commit commits in, driven through the git binary:
// the team's own git, hooks and configuration included, and no git library to carry.
type gitTree struct {
	top string // the working tree's top folder, as git names it
}

// openGitTree finds the working tree dir is in; its error says what is missing.
func openGitTree(ctx context.Context, dir string) (*gitTree, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("--commit and --branch need git, which is not installed (apt-get install -y git): %w", err)
	}
	out, err := gitRun(ctx, dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("--commit and --branch need %s to be in a git working tree: %w", dir, err)
	}
	return &gitTree{top: strings.TrimSpace(out)}, nil
}

// gitRun runs git in dir and returns its output; its error holds what git said.
func gitRun(ctx context.Context, dir string, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()+" "+out.String()))
	}
	return out.String(), nil
}

func (g *gitTree) git(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	return gitRun(ctx, g.top, stdin, args...)
}

// rel is path (under dir) as git names it: relative to the top, with slashes. dir is resolved
// through symbolic links as git resolves its top, so the two agree.
func (g *gitTree) rel(dir, path string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", err
	}
	inDir, err := filepath.Rel(dir, path)
	if err != nil {
		return "", err
	}
	r, err := filepath.Rel(g.top, filepath.Join(abs, inDir))
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(r), nil
}

// dirtyOutside lists the working tree's changes (untracked files included) that are not one of
// the files in writes (paths under dir) nor under the folder keep.
func (g *gitTree) dirtyOutside(ctx context.Context, dir string, writes map[string]bool, keep string) ([]string, error) {
	allowed := map[string]bool{}
	for path := range writes {
		r, err := g.rel(dir, path)
		if err != nil {
			return nil, err
		}
		allowed[r] = true
	}
	keepRel := ""
	if keep != "" {
		if abs, err := filepath.Abs(keep); err == nil {
			if abs, err = filepath.EvalSymlinks(abs); err == nil {
				// The state as the whole tree (or above it) would excuse every change: not taken.
				if r, err := filepath.Rel(g.top, abs); err == nil && r != "." && r != ".." && !strings.HasPrefix(r, "../") {
					keepRel = filepath.ToSlash(r) + "/"
				}
			}
		}
	}
	out, err := g.git(ctx, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var dirty []string
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		e := fields[i]
		if len(e) < 4 {
			continue
		}
		path := e[3:]
		if e[0] == 'R' || e[0] == 'C' {
			i++ // a rename's or copy's source follows; the change is the new path's
		}
		if allowed[path] || keepRel != "" && strings.HasPrefix(path, keepRel) {
			continue
		}
		dirty = append(dirty, path)
	}
	return dirty, nil
}

// branch is the branch checked out; an error on a detached HEAD, whose commits no branch keeps.
func (g *gitTree) branch(ctx context.Context) (string, error) {
	out, err := g.git(ctx, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return "", fmt.Errorf("--commit needs a branch checked out in %s (HEAD is detached): %w", g.top, err)
	}
	return strings.TrimSpace(out), nil
}

// head is what was checked out: a branch, or on a detached HEAD the commit.
type head struct{ branch, commit string }

func (h head) name() string { return cmp.Or(h.branch, h.commit) }

// checkedOut is the branch checked out, or the commit of a detached HEAD.
func (g *gitTree) checkedOut(ctx context.Context) (head, error) {
	if cur, err := g.git(ctx, nil, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		return head{branch: strings.TrimSpace(cur)}, nil
	}
	out, err := g.git(ctx, nil, "rev-parse", "--verify", "HEAD")
	return head{commit: strings.TrimSpace(out)}, err
}

// switchTo checks out branch name, creating it from the current commit when it does not exist;
// switched is false when it was checked out already. The test files pull may find changed are
// carried over as git carries them, or git refuses.
func (g *gitTree) switchTo(ctx context.Context, name string) (switched bool, err error) {
	if cur, err := g.git(ctx, nil, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil && strings.TrimSpace(cur) == name {
		return false, nil
	}
	if _, err := g.git(ctx, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+name); err == nil {
		_, err = g.git(ctx, nil, "switch", "--quiet", name)
		return err == nil, err
	}
	_, err = g.git(ctx, nil, "switch", "--quiet", "--create", name)
	return err == nil, err
}

// switchBack checks h out again after pull committed on another branch. It is never forced:
// the files pull committed are clean, and one it left changed (a refused edit) is the same in
// both commits, as git required to carry it over, so git carries it back; should anything stand
// in the way, git refuses, the error says so and every file stays as it is.
func (g *gitTree) switchBack(ctx context.Context, h head) error {
	if h.branch != "" {
		_, err := g.git(ctx, nil, "switch", "--quiet", h.branch)
		return err
	}
	_, err := g.git(ctx, nil, "switch", "--quiet", "--detach", h.commit)
	return err
}

// commit commits the file at path (and nothing else staged) with msg, and returns the commit;
// "" when the file is what HEAD holds already.
func (g *gitTree) commit(ctx context.Context, path, msg string) (string, error) {
	rel, err := g.rel(filepath.Dir(path), path)
	if err != nil {
		return "", err
	}
	if _, err := g.git(ctx, nil, "add", "--", rel); err != nil {
		return "", err
	}
	if _, err := g.git(ctx, nil, "diff", "--cached", "--quiet", "--", rel); err == nil {
		return "", nil
	}
	if _, err := g.git(ctx, strings.NewReader(msg), "commit", "--quiet", "--file=-", "--", rel); err != nil {
		return "", err
	}
	out, err := g.git(ctx, nil, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

// committedLine says what a pull onto a branch committed. Only what was committed is said to be:
// a pull that changed no file commits nothing.
func committedLine(rep syncReport) string {
	commits := 0
	for _, s := range rep.Tests {
		if s.Commit != "" {
			commits++
		}
	}
	if commits == 0 {
		return fmt.Sprintf("nothing to commit: no test file changed, so branch %s has no new commit", rep.Branch)
	}
	// plural counts: "1 test file", "2 test files".
	return fmt.Sprintf("committed %s on branch %s", plural(commits, "test file", "test files"), rep.Branch)
}
