package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/pkg/workspace"
)

func init() {
	register("repair", command{
		summary:  "run the repair ladder on one saved test",
		synopsis: []string{"--base-url URL [flags] TEST.json"},
		about: `Replays TEST.json against the app at URL. A test that passes has its green run recorded, for
later repairs to compare with. A test that fails goes up the repair ladder (self-heal, suggest,
diagnose); a fix proven green is written to the local state in apply mode (and to TEST.json
with --write, changing only the repaired steps and the version line: the file keeps its own
layout; "gardener fmt" rewrites it in the canonical one), or staged for review in propose mode
("gardener queue" lists it, "gardener approve" applies it). The run the repair answers is
printed with its id. A test file that names no project is in project local of the state.
Progress goes to stdout, or to stderr with --json. Exit status: 0 passed (nothing to repair),
repaired or staged; 1 no proven fix (triaged, refused); 2 bad input; 3 a runtime failure: the
browser, the state, or the network (the app at URL could not be reached, or a page of the test
could not be loaded: nothing is judged).`,
		run: runRepair,
	})
}

// defaultStateDir keeps the local state beside where the command runs, like a build cache.
const defaultStateDir = ".gardener"

type repairFlags struct {
	baseURL, mode, model, state, region, endpoint, by string
	json, write, noPropagate                          bool
	stepTimeout                                       time.Duration
}

func runRepair(ctx context.Context, c *cli, args []string) int {
	fs := c.flags("repair")
	var f repairFlags
	fs.StringVar(&f.baseURL, "base-url", "", "the app's base `URL` (required)")
	fs.StringVar(&f.mode, "mode", "apply", "apply (write a trusted fix) or propose (stage it for review)")
	fs.StringVar(&f.model, "model", "builtin", "builtin, or bedrock:MODEL_ID")
	fs.StringVar(&f.state, "state", defaultStateDir, "`DIR` of the local state (last green runs, proposals, repairs)")
	fs.StringVar(&f.region, "region", "", regionFlag)
	fs.StringVar(&f.endpoint, "bedrock-endpoint", "", "override the Bedrock runtime endpoint `URL`")
	fs.StringVar(&f.by, "by", "", "who is asking (recorded on a written fix); default cli:$USER")
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of text")
	fs.BoolVar(&f.write, "write", false, "also write a repaired test back to TEST.json")
	fs.BoolVar(&f.noPropagate, "no-propagate", false, "do not carry a healed locator to the state's other tests")
	stepTimeoutVar(fs, &f.stepTimeout, 0, stepTimeoutUsage)
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.badUsage(fs, "give one test file (got %d arguments)", len(pos))
	}
	if err := checkHTTPURL("--base-url", f.baseURL); err != nil {
		return c.badUsage(fs, "%v", err)
	}
	mode := gardener.Mode(f.mode)
	if mode != gardener.ModeApply && mode != gardener.ModePropose {
		return c.badUsage(fs, "--mode %q: give apply or propose", f.mode)
	}
	test, err := readTest(pos[0])
	if err != nil {
		return c.fail("repair", exitBadInput, err)
	}
	if f.region, err = awsRegion(ctx, f.region); err != nil {
		return c.fail("repair", exitBadInput, err)
	}
	model, err := modelspec.Open(ctx, f.model, modelspec.Options{Region: f.region, Endpoint: f.endpoint})
	if err != nil {
		return c.fail("repair", exitBadInput, err)
	}
	if f.by == "" {
		f.by = localUser()
	}
	progress := c.stdout
	if f.json {
		progress = c.stderr
	}
	out, err := repairOne(ctx, c, f, mode, model, test, pos[0], progress)
	if err != nil {
		return c.fail("repair", exitOf(err), withReachHint(err))
	}
	if f.json {
		if err := writeJSON(c.stdout, out); err != nil {
			return c.fail("repair", exitFailure, err)
		}
	} else {
		printRepair(c.stdout, marksFor(c.term), out)
	}
	switch {
	case out.Failure != nil && out.Failure.ErrorKind.Network():
		return c.fail("repair", exitFailure, fmt.Errorf("%s: step %s could not load its page over the network (%s): the app was not reached, so nothing was repaired", out.TestID, out.Failure.Step, out.Failure.Message))
	case out.Outcome == ladder.Repaired, out.Outcome == ladder.Staged, out.Outcome == ladder.NoFix:
		return exitOK
	}
	return exitNegative
}

// repairOutput is the one object `--json` prints.
type repairOutput struct {
	Outcome     ladder.Outcome         `json:"outcome"`
	Reason      string                 `json:"reason,omitempty"`
	TestID      string                 `json:"testId"`
	RunID       string                 `json:"runId,omitempty"` // the run the repair answers
	BaseVersion int                    `json:"baseVersion"`
	Version     int                    `json:"version"` // the test's version after the command
	Failure     *ladder.FailureSummary `json:"failure,omitempty"`
	Strategy    gardener.Strategy      `json:"strategy,omitempty"`
	Ops         []gardener.Op          `json:"ops"`
	Diff        []gardener.DiffEntry   `json:"diff"`
	Changes     []gardener.Change      `json:"changes"`
	Steps       []gardener.Step        `json:"steps,omitempty"`
	Refusals    []gardener.Refusal     `json:"refusals"`
	Notes       []gardener.Note        `json:"notes"`
	Contract    gardener.Contract      `json:"contract"`
	Sensitivity *gardener.Sensitivity  `json:"sensitivity,omitempty"`
	Unverified  string                 `json:"unverified,omitempty"`
	Rungs       []ladder.RungReport    `json:"rungs"`
	ModelCalls  int                    `json:"modelCalls"`
	Tokens      tokens                 `json:"tokens"`
	Timings     ladder.Timings         `json:"timings"`
	Triage      *gardener.TriageIssue  `json:"triage,omitempty"`
	Diagnosis   *gardener.Diagnosis    `json:"diagnosis,omitempty"`
	Persisted   tend.Persisted         `json:"persisted"`
	Propagated  []tend.PropagatedWrite `json:"propagated,omitempty"`
	Recorded    bool                   `json:"recordedGreen,omitempty"`
	// Cost is what the repair used, at list prices, as recorded with its run.
	Cost *gardener.RepairCost `json:"cost,omitempty"`
}

type tokens struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

func repairOne(ctx context.Context, c *cli, f repairFlags, mode gardener.Mode, model gardener.Model, file gardener.Test, path string, progress io.Writer) (*repairOutput, error) {
	store, err := openState(f.state)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	// Before anything is synced or recorded: a test replayed against no app would be judged on
	// the network's failure.
	reach := reachOnce(reachCLI)
	if err := reachApp(ctx, reach, f.baseURL); err != nil {
		return nil, err
	}
	ws := &workspace.Service{Store: store, OnReplay: announceRecording(progress)}
	settings := workspace.Settings{Model: ptr(model.Name()), Origins: []string{originOf(f.baseURL)}}
	if mode == gardener.ModeApply {
		// Apply mode writes only in a project that repairs itself. Propose mode is asked of the
		// repair itself (RepairRequest.Propose) and leaves the project's setting as it is: the
		// staged row then says the request asked to propose, not that auto-repair is off.
		settings.AutoRepair = ptr(true)
	}
	project, err := ws.EnsureProject(ctx, file.ProjectID, settings)
	if err != nil {
		return nil, err
	}
	writes := fileWritesIn(f.state)
	synced, err := syncTestFile(ctx, ws, writes, path, file, progress)
	if err != nil {
		return nil, err
	}
	test := synced.Test
	switch {
	case synced.Outcome == workspace.SyncBehind:
	case synced.Moved && synced.Outcome == workspace.SyncSaved:
		fmt.Fprintf(progress, "state: %s was at version %d in %s, not the file's %d; the file's steps are saved over it as version %d\n", test.ID, test.Version-1, f.state, file.Version, test.Version)
	case test.Version != file.Version:
		fmt.Fprintf(progress, "state: %s is version %d in %s\n", test.ID, test.Version, f.state)
	}

	runner, closeRunner := c.browserFor(f.stepTimeout)
	defer closeRunner()
	app, err := gardening.New(gardening.Deps{Store: store, Reach: reach, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	here := gardening.Here{
		Runner: runner, Model: model, NoPropagate: f.noPropagate,
		Options:  gardener.ReplayOptions{BaseURL: f.baseURL, AllowedOrigins: project.AllowedOrigins},
		Progress: func(e ladder.Event) { fmt.Fprintln(progress, e.Line()) },
		OnRecord: announceRecording(progress),
	}
	if f.write {
		// Recorded before the repair can write the store, so that a crash between the store's
		// write and the file's leaves a record the next sync completes the write from.
		here.BeforeWrite = func() error {
			onDisk := file
			if synced.Outcome == workspace.SyncBehind {
				onDisk = synced.Test
			}
			mark, err := workspace.MarkOf(onDisk)
			if err != nil {
				return err
			}
			return writes.begin(test.ID, mark)
		}
	}
	rep, err := app.RepairHere(ctx, gardening.Person(f.by), gardening.RepairRequest{TestID: test.ID, Propose: mode == gardener.ModePropose}, here)
	if err != nil {
		return nil, err
	}
	tended := rep.Tended
	out := toOutput(tended, test)
	out.Recorded = rep.Recorded
	out.Cost = rep.Cost
	if rep.Run != nil {
		out.RunID = rep.Run.ID
	}
	if rep.RecordMillis > 0 {
		out.Timings.Reproduce += rep.RecordMillis
		out.Timings.Total += rep.RecordMillis
		out.Timings.Replays++
	}
	if a := tended.Persisted.Applied; a != nil {
		out.Version = a.Test.Version
		if f.write {
			if err := c.haltAt("state written"); err != nil {
				return nil, err
			}
			if err := updateTestFile(path, a.Test); err != nil {
				return nil, err
			}
			fmt.Fprintf(progress, "wrote %s (version %d)\n", path, a.Test.Version)
			if err := c.haltAt("file written"); err != nil {
				return nil, err
			}
		}
	}
	if f.write {
		if err := writes.done(test.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// announceRecording says which test is replayed to record a first green run, before the wait.
func announceRecording(progress io.Writer) func(gardener.Test) {
	return func(t gardener.Test) {
		fmt.Fprintf(progress, "[record] replaying %s version %d to record what a green run does\n", t.ID, t.Version)
	}
}

func ptr[T any](v T) *T { return &v }

func originOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return u.Scheme + "://" + u.Host
}

func toOutput(t tend.Tended, test gardener.Test) *repairOutput {
	r := t.Result
	// The triage shown is the issue persisting filed, not the ladder's draft: a climb with no
	// green run to compare with files none.
	out := &repairOutput{
		Outcome: r.Outcome, Reason: r.Reason, TestID: test.ID, BaseVersion: test.Version, Version: test.Version,
		Failure: r.Failure, Ops: []gardener.Op{}, Diff: r.Diff, Changes: []gardener.Change{}, Steps: r.Steps,
		Refusals: r.Refusals, Notes: []gardener.Note{}, Rungs: r.Rungs, ModelCalls: len(r.ModelCalls),
		Tokens: tokens{Input: r.Usage.InputTokens, Output: r.Usage.OutputTokens}, Timings: r.Timings,
		Triage: t.Persisted.Triage, Diagnosis: r.Diagnosis, Persisted: t.Persisted, Propagated: t.Propagated,
	}
	if out.Refusals == nil {
		out.Refusals = []gardener.Refusal{}
	}
	if v := r.Verdict; v != nil {
		out.Strategy, out.Ops, out.Changes, out.Notes, out.Contract, out.Unverified = v.Strategy, v.Ops, v.Changes, v.Notes, v.Contract.Redacted(), v.Unverified
		s := v.Sensitivity
		out.Sensitivity = &s
	}
	if t.Persisted.Outcome != "" && t.Persisted.Outcome != out.Outcome {
		// The write-time gate may have staged a fix the ladder would have applied.
		out.Outcome, out.Reason = t.Persisted.Outcome, t.Persisted.Reason
	}
	return out
}

// headings are the words printRepair opens with, one an outcome: "no-fix" (the API's name for
// a test that passes when reproduced) is no failed repair, and reads as what happened.
var headings = map[ladder.Outcome]string{ladder.NoFix: "PASSES"}

func printRepair(w io.Writer, m marks, o *repairOutput) {
	heading := cmp.Or(headings[o.Outcome], strings.ToUpper(string(o.Outcome)))
	fmt.Fprintf(w, "\n%s: %s", heading, o.TestID)
	if o.Reason != "" {
		fmt.Fprintf(w, " — %s", o.Reason)
	}
	fmt.Fprintln(w)
	switch {
	case o.Recorded:
		fmt.Fprintf(w, "run %s: green, recorded for later repairs to compare with\n", o.RunID)
	case o.RunID != "":
		fmt.Fprintf(w, "run %s\n", o.RunID)
	}
	if o.Failure != nil {
		fmt.Fprintf(w, "failed at step %s (%s): %s\n", o.Failure.Step, o.Failure.ErrorKind, o.Failure.Message)
	}
	if len(o.Diff) > 0 {
		fmt.Fprintf(w, "fix (%s):\n", o.Strategy)
		for _, l := range strings.Split(strings.TrimRight(gardener.RenderDiff(o.Diff), "\n"), "\n") {
			fmt.Fprintln(w, "  "+l)
		}
	}
	for _, c := range o.Changes {
		fmt.Fprintf(w, "  [%s] step %s: %s\n", c.Class, c.Path, c.Detail)
	}
	if len(o.Changes) > 0 {
		counts := gardener.Summarize(o.Changes)
		fmt.Fprintf(w, "  changes: %d repair, %d to review, %d protected\n", counts[gardener.ClassRepair], counts[gardener.ClassReview], counts[gardener.ClassProtected])
	}
	for _, r := range o.Refusals {
		fmt.Fprintln(w, r.String())
	}
	if n := len(o.Contract.Requirements); n > 0 {
		k, _ := o.Contract.Kept()
		// A requirement names its step as the recorded test numbers it; the repaired test may
		// number it otherwise (a step inserted before it), so the action that keeps it is shown.
		fmt.Fprintf(w, "Requirement contract: %d of %d kept (steps numbered as in the recorded test)\n", k, n)
		for _, r := range o.Contract.Redacted().Requirements {
			mark, by := "kept    ", ""
			if !r.Kept {
				mark = "NOT KEPT"
			} else if r.By != "" {
				by = ": " + r.By
			}
			fmt.Fprintf(w, "    %s step %s %s %s%s\n", mark, r.Step, r.What, r.Detail, by)
		}
	}
	if s := o.Sensitivity; s != nil {
		fmt.Fprintf(w, "checks proven sensitive in %d of %d\n", s.Sensitive, s.Total)
	}
	for _, n := range o.Notes {
		fmt.Fprintf(w, "%s %s\n", m.warn, n.Text)
	}
	if o.Triage != nil && (o.Outcome == ladder.Triaged || o.Outcome == ladder.Refused) {
		fmt.Fprintf(w, "triage issue %s: %s\n", o.Triage.ID, o.Triage.Classification)
		for _, e := range o.Triage.Evidence {
			fmt.Fprintf(w, "    evidence: %s\n", e)
		}
		for _, a := range o.Triage.Attempts {
			fmt.Fprintf(w, "    %s: %s\n", a.Rung, a.Outcome)
		}
	}
	if s := o.Persisted.Staged; s != nil {
		fmt.Fprintf(w, "staged as proposal %s (%s)\n", s.Proposal.ID, s.Outcome)
	}
	if a := o.Persisted.Applied; a != nil {
		fmt.Fprintf(w, "written: %s is now version %d (repair %s)\n", o.TestID, a.Test.Version, a.Repair.ID)
	}
	for _, p := range o.Propagated {
		state := "left alone: " + p.Reason
		if p.Green {
			state = "green"
			if p.Persisted != nil {
				state += ", " + string(p.Persisted.Outcome)
			}
		}
		fmt.Fprintf(w, "propagated to %s: %s\n", p.TestID, state)
	}
	fmt.Fprintf(w, "%s, tokens in/out %d/%d, %s, %d ms\n", plural(o.ModelCalls, "model call", "model calls"), o.Tokens.Input, o.Tokens.Output, plural(o.Timings.Replays, "replay", "replays"), o.Timings.Total)
	if o.Cost != nil {
		fmt.Fprintf(w, "cost %s\n", o.Cost.Summary())
	}
}
