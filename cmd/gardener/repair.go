package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/tend"
)

func init() {
	register("repair", command{summary: "run the repair ladder on one test (TEST.json --base-url URL)", run: runRepair})
}

// defaultStateDir keeps the local state beside where the command runs, like a build cache.
const defaultStateDir = ".gardener"

// splitArgs lets the positional argument come before the flags, as people type it:
// `gardener repair TEST.json --base-url URL`.
func splitArgs(args []string) (positional []string, flags []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !isBoolFlag(a) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		positional = append(positional, a)
	}
	return positional, flags
}

func isBoolFlag(a string) bool {
	switch strings.TrimLeft(a, "-") {
	case "json", "write", "list", "no-propagate":
		return true
	}
	return false
}

type repairFlags struct {
	baseURL, mode, model, state, region, endpoint, by string
	json, write, noPropagate                          bool
	stepTimeout                                       time.Duration
}

func runRepair(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	pos, rest := splitArgs(args)
	fs := flag.NewFlagSet("repair", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f repairFlags
	fs.StringVar(&f.baseURL, "base-url", "", "the app's base URL (required)")
	fs.StringVar(&f.mode, "mode", "apply", "apply (write a trusted fix) or propose (stage it for review)")
	fs.StringVar(&f.model, "model", "builtin", "builtin, or bedrock:MODEL_ID")
	fs.StringVar(&f.state, "state", defaultStateDir, "directory of the local state (last green runs, proposals, repairs)")
	fs.StringVar(&f.region, "region", os.Getenv("AWS_REGION"), "AWS region for bedrock")
	fs.StringVar(&f.endpoint, "bedrock-endpoint", "", "override the Bedrock runtime endpoint")
	fs.StringVar(&f.by, "by", "", "who is asking (recorded on a written fix); default cli:$USER")
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of text")
	fs.BoolVar(&f.write, "write", false, "also write a repaired test back to TEST.json")
	fs.BoolVar(&f.noPropagate, "no-propagate", false, "do not carry a healed locator to the state's other tests")
	fs.DurationVar(&f.stepTimeout, "step-timeout", 0, "default time limit of a step (0: the runner's default)")
	if err := fs.Parse(rest); err != nil {
		return 2
	}
	if len(pos) != 1 || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: gardener repair TEST.json --base-url URL [--mode apply|propose] [--model builtin|bedrock:MODEL_ID] [--json] [--state DIR] [--write]")
		return 2
	}
	if err := checkBaseURL(f.baseURL); err != nil {
		fmt.Fprintln(stderr, "gardener repair:", err)
		return 2
	}
	mode := gardener.Mode(f.mode)
	if mode != gardener.ModeApply && mode != gardener.ModePropose {
		fmt.Fprintf(stderr, "gardener repair: --mode %q: give apply or propose\n", f.mode)
		return 2
	}
	test, err := readTest(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "gardener repair:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	model, err := modelspec.Open(ctx, f.model, modelspec.Options{Region: f.region, Endpoint: f.endpoint})
	if err != nil {
		fmt.Fprintln(stderr, "gardener repair:", err)
		return 2
	}
	if f.by == "" {
		f.by = "cli:" + orDefault(os.Getenv("USER"), "local")
	}
	progress := stdout
	if f.json {
		progress = stderr
	}
	out, code := repairOne(ctx, f, mode, model, test, pos[0], progress)
	if out == nil {
		return code
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(stderr, "gardener repair:", err)
			return 2
		}
	} else {
		printRepair(stdout, out)
	}
	return code
}

func checkBaseURL(s string) error {
	if s == "" {
		return errors.New("--base-url is required")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--base-url %q is not an http(s) URL", s)
	}
	return nil
}

func readTest(path string) (gardener.Test, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return gardener.Test{}, err
	}
	t, err := gardener.DecodeTest(b)
	if err != nil {
		return gardener.Test{}, fmt.Errorf("%s: %w", path, err)
	}
	if t.ProjectID == "" {
		t.ProjectID = "local"
	}
	return t, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// repairOutput is the one object `--json` prints.
type repairOutput struct {
	Outcome     ladder.Outcome         `json:"outcome"`
	Reason      string                 `json:"reason,omitempty"`
	TestID      string                 `json:"testId"`
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
}

type tokens struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

func repairOne(ctx context.Context, f repairFlags, mode gardener.Mode, model gardener.Model, file gardener.Test, path string, progress io.Writer) (*repairOutput, int) {
	fail := func(err error) (*repairOutput, int) {
		fmt.Fprintln(progress, "gardener repair:", err)
		return nil, 2
	}
	if err := os.MkdirAll(f.state, 0o755); err != nil {
		return fail(err)
	}
	store, err := embedded.Open(filepath.Join(f.state, "gardener.db"))
	if err != nil {
		return fail(err)
	}
	defer store.Close()
	life := lifecycle.New(store, nil)
	origin := originOf(f.baseURL)
	project, err := store.Project(ctx, file.ProjectID)
	if errors.Is(err, gardener.ErrNotFound) {
		project = gardener.Project{ID: file.ProjectID, Name: file.ProjectID, Plan: gardener.PlanPro}
	} else if err != nil {
		return fail(err)
	}
	project.AutoRepair, project.Model = mode == gardener.ModeApply, model.Name()
	if !containsString(project.AllowedOrigins, origin) {
		project.AllowedOrigins = append(project.AllowedOrigins, origin)
	}
	if err := store.PutProject(ctx, project); err != nil {
		return fail(err)
	}
	test, err := syncTest(ctx, store, life, file)
	if err != nil {
		return fail(err)
	}
	if test.Version != file.Version {
		fmt.Fprintf(progress, "state: %s is version %d in %s\n", test.ID, test.Version, f.state)
	}

	runner := browser.New(browser.Options{StepTimeout: f.stepTimeout})
	defer runner.Close()
	opts := gardener.ReplayOptions{BaseURL: f.baseURL, AllowedOrigins: project.AllowedOrigins}
	lad := &ladder.Ladder{Runner: runner, Model: model, Progress: func(e ladder.Event) {
		fmt.Fprintf(progress, "[%s%s] %s\n", e.Stage, rungTag(e.Rung), e.Message)
	}}
	tender := &tend.Tender{Store: store, Life: life, Ladder: lad, Log: discardLogger()}

	run := gardener.Run{ID: "cli-" + strconv.FormatInt(time.Now().UnixNano(), 36), ProjectID: test.ProjectID, TestID: test.ID, TestVersion: test.Version, Trigger: gardener.TriggerManual, At: time.Now()}
	job := tend.Job{TestID: test.ID, Mode: mode, Run: &run, By: f.by, Options: opts, NoPropagate: f.noPropagate}
	green, err := store.LastGreenRun(ctx, test.ID)
	if err != nil && !errors.Is(err, gardener.ErrNotFound) {
		return fail(err)
	}
	if err != nil || green.TestVersion != test.Version {
		// No green run of this version is known: replay it once. Green, it becomes the record
		// later repairs compare with; red, it is the failure the ladder starts from.
		fmt.Fprintf(progress, "[record] replaying %s version %d to record what a green run does\n", test.ID, test.Version)
		rep, err := runner.Replay(ctx, test, opts)
		if err != nil {
			return fail(err)
		}
		result := rep.Result
		run.Result = &result
		if err := store.PutRun(ctx, run); err != nil {
			return fail(err)
		}
		if rep.Result.Passed {
			return &repairOutput{Outcome: ladder.NoFix, Reason: "the test passes; its green run is recorded for later repairs", TestID: test.ID, BaseVersion: test.Version, Version: test.Version, Recorded: true, Persisted: tend.Persisted{Outcome: ladder.NoFix}}, 0
		}
		job.Failure = &rep
	} else if err := store.PutRun(ctx, run); err != nil {
		return fail(err)
	}
	tended, err := tender.Tend(ctx, job)
	if err != nil {
		return fail(err)
	}
	out := toOutput(tended, test)
	if a := tended.Persisted.Applied; a != nil {
		out.Version = a.Test.Version
		if f.write {
			if err := writeTest(path, a.Test); err != nil {
				return fail(err)
			}
			fmt.Fprintf(progress, "wrote %s (version %d)\n", path, a.Test.Version)
		}
	}
	switch out.Outcome {
	case ladder.Repaired, ladder.Staged, ladder.NoFix:
		return out, 0
	}
	return out, 1
}

// syncTest makes the state hold the file's test: created when new, or saved as a new version
// when the file's steps differ from what the state holds (the file was edited).
func syncTest(ctx context.Context, store gardener.Store, life *lifecycle.Service, file gardener.Test) (gardener.Test, error) {
	stored, err := store.Test(ctx, file.ID)
	if errors.Is(err, gardener.ErrNotFound) {
		return file, store.CreateTest(ctx, file)
	}
	if err != nil {
		return gardener.Test{}, err
	}
	if sameSteps(stored.Steps, file.Steps) && stored.Status == file.Status {
		return stored, nil
	}
	edit := stored
	edit.Steps, edit.Status, edit.Name = file.Steps, file.Status, file.Name
	return life.EditTest(ctx, edit)
}

func sameSteps(a, b []gardener.Step) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// writeTest replaces the file atomically: a crash leaves the old test or the new, never half.
func writeTest(path string, t gardener.Test) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gardener-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func originOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return u.Scheme + "://" + u.Host
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func rungTag(r gardener.Strategy) string {
	if r == "" {
		return ""
	}
	return " " + string(r)
}

func toOutput(t tend.Tended, test gardener.Test) *repairOutput {
	r := t.Result
	out := &repairOutput{
		Outcome: r.Outcome, Reason: r.Reason, TestID: test.ID, BaseVersion: test.Version, Version: test.Version,
		Failure: r.Failure, Ops: []gardener.Op{}, Diff: r.Diff, Changes: []gardener.Change{}, Steps: r.Steps,
		Refusals: r.Refusals, Notes: []gardener.Note{}, Rungs: r.Rungs, ModelCalls: len(r.ModelCalls),
		Tokens: tokens{Input: r.Usage.InputTokens, Output: r.Usage.OutputTokens}, Timings: r.Timings,
		Triage: r.Triage, Diagnosis: r.Diagnosis, Persisted: t.Persisted, Propagated: t.Propagated,
	}
	if out.Refusals == nil {
		out.Refusals = []gardener.Refusal{}
	}
	if v := r.Verdict; v != nil {
		out.Strategy, out.Ops, out.Changes, out.Notes, out.Contract, out.Unverified = v.Strategy, v.Ops, v.Changes, v.Notes, v.Contract, v.Unverified
		s := v.Sensitivity
		out.Sensitivity = &s
	}
	if t.Persisted.Outcome != "" && t.Persisted.Outcome != out.Outcome {
		// The write-time gate may have staged a fix the ladder would have applied.
		out.Outcome, out.Reason = t.Persisted.Outcome, t.Persisted.Reason
	}
	return out
}

func printRepair(w io.Writer, o *repairOutput) {
	fmt.Fprintf(w, "\n%s: %s", strings.ToUpper(string(o.Outcome)), o.TestID)
	if o.Reason != "" {
		fmt.Fprintf(w, " — %s", o.Reason)
	}
	fmt.Fprintln(w)
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
		fmt.Fprintf(w, "  %d repair, %d to review, %d protected\n", counts[gardener.ClassRepair], counts[gardener.ClassReview], counts[gardener.ClassProtected])
	}
	for _, r := range o.Refusals {
		fmt.Fprintln(w, r.String())
	}
	if n := len(o.Contract.Requirements); n > 0 {
		k, _ := o.Contract.Kept()
		fmt.Fprintf(w, "Requirement contract: %d of %d kept\n", k, n)
		for _, r := range o.Contract.Requirements {
			mark := "kept    "
			if !r.Kept {
				mark = "NOT KEPT"
			}
			fmt.Fprintf(w, "    %s step %s %s %s\n", mark, r.Step, r.What, r.Detail)
		}
	}
	if s := o.Sensitivity; s != nil {
		fmt.Fprintf(w, "checks proven sensitive in %d of %d\n", s.Sensitive, s.Total)
	}
	for _, n := range o.Notes {
		fmt.Fprintf(w, "⚠ %s\n", n.Text)
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
	fmt.Fprintf(w, "model calls %d, tokens in/out %d/%d, replays %d, %d ms\n", o.ModelCalls, o.Tokens.Input, o.Tokens.Output, o.Timings.Replays, o.Timings.Total)
}

// discardLogger keeps the tender's structured log lines out of the CLI's own output.
func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
