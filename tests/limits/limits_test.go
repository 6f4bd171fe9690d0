// Package limits drives each state machine of statemachines/ on the project's ASL interpreter
// with the largest inputs the product lets through, and holds every state's input and output
// under Step Functions' payload limit and every execution's history under its event limit. The
// functions that need no browser are the real handlers over a real store; the browser rungs
// answer with their handler's own result type at the size the bounds allow. docs/limits.md
// says how the history is counted and where the limits come from.
package limits

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/local/asl"
	"github.com/driftgardener/gardener/pkg/tend"
)

// The AWS figures the machines are held to (docs/limits.md cites where they are published).
const (
	maxPayload = 256 * 1024 // bytes of UTF-8 in a state's input or output
	maxHistory = 25000      // events in a standard execution's history
)

var placeholder = regexp.MustCompile(`\$\{(\w+)\}`)

// answer answers one Task resource, named by its logical function name without "Function".
type answer func(ctx context.Context, in json.RawMessage) (json.RawMessage, error)

// measured is what one execution passed: the largest input and output of each state, and its
// history counted as Step Functions counts it.
type measured struct {
	exec    *asl.Execution
	largest map[string]int // "State in" / "State out" → bytes
	events  int
}

// run runs a definition of statemachines/ on the interpreter; a Task whose function is not in
// answers fails the test.
func run(t *testing.T, file, input string, answers map[string]answer) measured {
	t.Helper()
	def, err := os.ReadFile(filepath.Join("..", "..", "statemachines", file))
	if err != nil {
		t.Fatal(err)
	}
	def = placeholder.ReplaceAllFunc(def, func(m []byte) []byte {
		name := strings.TrimSuffix(string(placeholder.FindSubmatch(m)[1]), "Arn")
		return []byte("arn:aws:lambda:us-east-1:000000000000:function:" + name)
	})
	m, err := asl.Parse(def, asl.Config{
		Sleep: func(context.Context, time.Duration) error { return nil },
		Resolve: func(resource string) (asl.Invoker, error) {
			name := strings.TrimSuffix(resource[strings.LastIndex(resource, ":")+1:], "Function")
			a, ok := answers[name]
			if !ok {
				return nil, fmt.Errorf("no answer for %s", name)
			}
			return asl.Invoker(a), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	exec, err := m.Run(context.Background(), "", json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	out := measured{exec: exec, largest: map[string]int{}, events: awsEvents(exec.History)}
	note := func(key string, b json.RawMessage) {
		if len(b) > out.largest[key] {
			out.largest[key] = len(b)
		}
	}
	for _, e := range exec.History {
		switch e.Type {
		case asl.EventStateEntered:
			note(e.State+" in", e.Input)
		case asl.EventStateExited:
			note(e.State+" out", e.Output)
		case asl.EventTaskScheduled:
			note(e.State+" task in", e.Input)
		case asl.EventTaskSucceeded:
			note(e.State+" task out", e.Output)
		case asl.EventExecutionSucceeded:
			note("execution out", e.Output)
		}
	}
	return out
}

// awsEvents counts the history the way Step Functions writes it. The interpreter writes one
// event where AWS writes one (execution started and ended, state entered and exited, task
// scheduled and ended, Map iteration started and ended), and two that AWS leaves implicit
// (RetryScheduled, ErrorCaught). AWS writes three the interpreter does not: a task's
// …Started after each …Scheduled, and MapStateStarted and MapStateSucceeded around a Map's
// iterations. A caught error is counted as the state's exit AWS writes for it.
func awsEvents(h []asl.Event) int {
	n := 0
	for _, e := range h {
		switch e.Type {
		case asl.EventRetryScheduled:
		case asl.EventTaskScheduled:
			n += 2
		case asl.EventStateEntered:
			n++
			if e.StateType == "Map" {
				n += 2
			}
		default:
			n++
		}
	}
	return n
}

// check fails t for every state that passed more than the payload limit, and for a history
// over the event limit; it logs the largest figures either way.
func check(t *testing.T, what string, m measured) {
	t.Helper()
	if m.exec.Status != asl.StatusSucceeded {
		t.Errorf("%s: the execution ended %s: %+v", what, m.exec.Status, m.exec.Failure)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range m.largest {
			if !yield(k) {
				return
			}
		}
	})
	slices.SortStableFunc(keys, func(a, b string) int { return m.largest[b] - m.largest[a] })
	var top []string
	for i, k := range keys {
		if i < 4 {
			top = append(top, fmt.Sprintf("%s %d B", k, m.largest[k]))
		}
		if m.largest[k] > maxPayload {
			t.Errorf("%s: %s is %d bytes, over Step Functions' %d", what, k, m.largest[k], maxPayload)
		}
	}
	if m.events > maxHistory {
		t.Errorf("%s: %d history events, over Step Functions' %d", what, m.events, maxHistory)
	}
	t.Logf("%s: %d history events (limit %d); largest payloads: %s (limit %d)", what, m.events, maxHistory, strings.Join(top, ", "), maxPayload)
}

// real is a handler of handler.Functions built over the services and called as Lambda calls
// it, through JSON, with the task envelope taken off as the local stack and pkg/cloud do.
func real(t *testing.T, f handler.Function, s handler.Services) answer {
	t.Helper()
	h, err := f.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	wrapped := handler.Task(lambda.NewHandler(h), s, handler.Billing{})
	return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		out, err := wrapped.Invoke(ctx, in)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}

// returning answers with v, through JSON.
func returning(v any) answer {
	return func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.Marshal(v) }
}

// failing answers with a Lambda service error, which every Retry of the machines retries:
// the worst a task can do to the history.
func failing(context.Context, json.RawMessage) (json.RawMessage, error) {
	return nil, &asl.Failure{Name: "Lambda.ServiceException", Cause: "the service is unavailable"}
}

func open(t *testing.T) *embedded.Store {
	t.Helper()
	// The worst cases write tens of megabytes; on tmpfs, where there is one, bbolt's fsync of
	// each write costs nothing.
	dir := t.TempDir()
	if shm, err := os.MkdirTemp("/dev/shm", "limits"); err == nil {
		dir = shm
		t.Cleanup(func() { os.RemoveAll(shm) })
	}
	store, err := embedded.Open(filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// longID is an id of the longest a person may name a test.
func longID(prefix string, i int) string {
	s := fmt.Sprintf("%s-%05d-", prefix, i)
	return s + strings.Repeat("x", gardener.MaxIDBytes-len(s))
}

// selector is a long but valid CSS selector, about n bytes, different for each i.
func selector(i, n int) gardener.Locator {
	var b strings.Builder
	fmt.Fprintf(&b, "#app-%d", i)
	for b.Len() < n-40 {
		fmt.Fprintf(&b, " > div.section-%d[data-part=\"p%d\"]", i, b.Len())
	}
	fmt.Fprintf(&b, " > button.go-%d", i)
	return gardener.MustLocator(b.String())
}

// bigSteps is a test of the most steps a test may have, every one with a long selector and a
// long expected text.
func bigSteps(n, selectorBytes int) []gardener.Step {
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/"}}
	for i := 1; len(steps) < n; i++ {
		if i%2 == 1 {
			steps = append(steps, gardener.Step{Kind: gardener.Click, Locator: selector(i, selectorBytes)})
			continue
		}
		steps = append(steps, gardener.Step{Kind: gardener.AssertVisible, Locator: selector(i, selectorBytes), Text: strings.Repeat(fmt.Sprintf("expected text %d ", i), 12)})
	}
	return steps
}

// The bounds the worst cases are built from (docs/limits.md): the most steps a test may have,
// the most tests one heal propagates to, the most at-risk tests and suite items a pass takes.
const (
	testSteps     = 300
	selectorBytes = 1024
)

// seedProject writes an auto-repair Pro project and n tests of testSteps steps each, ids test-…,
// the first with a failed scheduled run r-1.
func seedProject(t *testing.T, store gardener.Store, n int) []gardener.Test {
	t.Helper()
	ctx := context.Background()
	must(t, store.PutProject(ctx, gardener.Project{ID: "acme", Plan: gardener.PlanPro, Model: "builtin", AutoRepair: true, Radar: true, AllowedOrigins: []string{"https://app.test"}}))
	var tests []gardener.Test
	for i := range n {
		// What a propagated write passes on holds no step, so the other tests need not be long
		// to be the worst case; the first is the longest test of the brief.
		n := testSteps
		if i > 0 {
			n = 20
		}
		tc := gardener.Test{ID: longID("test", i), ProjectID: "acme", Name: "big", Status: gardener.StatusActive, Version: 1, Steps: bigSteps(n, selectorBytes)}
		must(t, store.CreateTest(ctx, tc))
		tests = append(tests, tc)
	}
	return tests
}

// worstVerdict is the largest fix a rung can prove on steps: every action re-located with a
// selector as long as the test's, every check a requirement, long notes.
func worstVerdict(steps []gardener.Step, strategy gardener.Strategy) gardener.Verdict {
	v := gardener.Verdict{Strategy: strategy, IntentConfirmed: true}
	for i, s := range steps {
		if s.Kind != gardener.Click {
			if s.Kind == gardener.AssertVisible {
				v.Contract.Requirements = append(v.Contract.Requirements, gardener.Requirement{Step: fmt.Sprint(i + 1), What: "checks", Detail: s.Text, Kept: true})
			}
			continue
		}
		if i == 1 {
			continue // the failed step stays as the proof found it
		}
		after := s
		after.Locator = selector(10000+i, selectorBytes)
		before := s
		v.Ops = append(v.Ops, gardener.Op{Kind: gardener.OpReplace, Index: i, Step: &after})
		v.Changes = append(v.Changes, gardener.Change{Class: gardener.ClassRepair, Before: &before, After: &after, Path: fmt.Sprint(i + 1), Detail: "re-located"})
	}
	for i := range 5 {
		v.Notes = append(v.Notes, gardener.Note{Kind: gardener.NotePageAtFailure, Step: fmt.Sprint(i + 2), Text: strings.Repeat("the page at the failure showed a long note. ", 20)})
	}
	v.Sensitivity = gardener.Sensitivity{Sensitive: len(v.Contract.Requirements), Total: len(v.Contract.Requirements)}
	return v
}

// climbed is what a rung's Climb leaves behind for a green verdict: the proof run of exactly
// its ops, as tend.Climb records it, and the decision.
func climbed(t *testing.T, store gardener.Store, tc gardener.Test, runID string, v gardener.Verdict) tend.Decision {
	t.Helper()
	dec := tend.Decision{ProjectID: tc.ProjectID, TestID: tc.ID, BaseVersion: tc.Version, Mode: gardener.ModeApply, RunID: runID, Actor: gardener.ActorSchedule,
		Outcome: ladder.Repaired, Verdict: &v, Facts: gardener.ClimbFacts{Green: &gardener.Disposition{Apply: true}, Tried: 1}}
	dec.ProofID = gardener.ProofID(tc.ID, tc.Version, v.Ops)
	must(t, store.PutRun(context.Background(), gardener.Run{ID: dec.ProofID, ProjectID: tc.ProjectID, TestID: tc.ID, TestVersion: tc.Version, Trigger: gardener.TriggerProof, Probe: true,
		Result: &gardener.RunResult{TestID: tc.ID, TestVersion: tc.Version, Passed: true, FailedIndex: -1}, At: time.Now()}))
	return dec
}

// redRung is a rung that tried the worst candidate and found no green proof.
func redRung(tc gardener.Test, runID string, rung gardener.Strategy, v gardener.Verdict) tend.Decision {
	issue := &gardener.TriageIssue{ProjectID: tc.ProjectID, TestID: tc.ID, RunID: runID, Classification: gardener.Unknown, FailedStep: "2",
		Error: "step 2 (click): no element matches", Evidence: []string{strings.Repeat("evidence of the failure. ", 20)},
		Attempts: []gardener.Attempt{{Rung: rung, Ops: v.Ops, Outcome: "red at step 3: no element matches"}}}
	return tend.Decision{ProjectID: tc.ProjectID, TestID: tc.ID, BaseVersion: tc.Version, Mode: gardener.ModeApply, RunID: runID, Actor: gardener.ActorSchedule,
		Outcome: ladder.Triaged, Reason: "no green proof", Triage: issue, FailedStep: "2", Error: issue.Error}
}

// TestRepairMachineWorstCase: a failed scheduled run of a test of the most steps, every rung
// climbed, the last green with a fix that re-locates every action, persisted for real and
// propagated to the most other tests one heal reaches, each written for real.
func TestRepairMachineWorstCase(t *testing.T) {
	ctx := context.Background()
	store := open(t)
	tests := seedProject(t, store, 1+gardener.MaxPropagated)
	tc := tests[0]
	for _, id := range []string{"r-1", "r-red"} {
		must(t, store.PutRun(ctx, gardener.Run{ID: id, ProjectID: "acme", TestID: tc.ID, TestVersion: 1, Trigger: gardener.TriggerSchedule, At: time.Now(),
			Result: &gardener.RunResult{TestID: tc.ID, TestVersion: 1, FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrElementNotFound, Message: "no element matches"}}))
	}
	s := handler.Services{Store: store}
	app, err := gardening.New(gardening.Deps{Store: store, Now: time.Now, Log: slog.New(slog.DiscardHandler)})
	must(t, err)
	v := worstVerdict(tc.Steps, gardener.StrategyDiagnose)
	green := climbed(t, store, tc, "r-1", v)
	// Propagation: each other test re-located on every action the same way, proven and written.
	tender := &tend.Tender{Store: store, Life: lifecycle.New(store, time.Now)}
	var props []tend.PropagatedWrite
	for _, o := range tests[1:] {
		ov := worstVerdict(o.Steps, gardener.StrategySelfHeal)
		dec := climbed(t, store, o, "", ov)
		dec.Outcome = ladder.Staged
		p, err := tender.Persist(ctx, dec)
		must(t, err)
		props = append(props, tend.PropagatedWrite{Propagated: ladder.Propagated{TestID: o.ID, BaseVersion: o.Version, Green: true, Ops: ov.Ops, Verdict: &ov}, Persisted: &p})
	}
	// Every rung red, each with the largest candidate tried: the triage issue files them all.
	m := run(t, "repair.asl.json", fmt.Sprintf(`{"detail":{"runId":"r-red","projectId":"acme","testId":%q,"testVersion":1,"trigger":"schedule"}}`, tc.ID), map[string]answer{
		"Eligibility": real(t, handler.EligibilityFunction, s),
		"SelfHeal":    returning(rungResult(t, app, redRung(tc, "r-red", gardener.StrategySelfHeal, v))),
		"SuggestFix":  returning(rungResult(t, app, redRung(tc, "r-red", gardener.StrategySuggestFix, v))),
		"Diagnose":    returning(rungResult(t, app, redRung(tc, "r-red", gardener.StrategyDiagnose, v))),
		"Triage":      real(t, handler.TriageFunction, s),
		"Notify":      returning(map[string]any{}),
	})
	check(t, "repair, a test of 300 steps, every rung red", m)
	if got := m.exec.Path(); !slices.Contains(got, "Triage") {
		t.Errorf("the red case did not reach triage: %v", got)
	}
	issues, err := store.TriageIssues(ctx, "acme")
	must(t, err)
	if len(issues) != 1 || len(issues[0].Attempts) != 3 || len(issues[0].Attempts[0].Ops) != len(v.Ops) {
		t.Errorf("the triage issue does not keep every rung's attempt whole: %d issues", len(issues))
	}
	m = run(t, "repair.asl.json", fmt.Sprintf(`{"detail":{"runId":"r-1","projectId":"acme","testId":%q,"testVersion":1,"trigger":"schedule"}}`, tc.ID), map[string]answer{
		"Eligibility": real(t, handler.EligibilityFunction, s),
		"SelfHeal":    returning(rungResult(t, app, redRung(tc, "r-1", gardener.StrategySelfHeal, v))),
		"SuggestFix":  returning(rungResult(t, app, redRung(tc, "r-1", gardener.StrategySuggestFix, v))),
		"Diagnose":    returning(rungResult(t, app, green)),
		"Persist":     real(t, handler.PersistFunction, s),
		"Propagate":   returning(handler.PropagateResultOf(props)),
		"Triage":      real(t, handler.TriageFunction, s),
		"Notify":      returning(map[string]any{}),
	})
	check(t, "repair, a test of 300 steps, propagated to 50", m)
	if got := m.exec.Path(); !slices.Contains(got, "Persist") || !slices.Contains(got, "Propagate") {
		t.Errorf("the worst case did not reach persist and propagate: %v", got)
	}
}

// rungResult is what a rung's handler returns for its decision: its brief, the whole kept in
// the store.
func rungResult(t *testing.T, app *gardening.Service, dec tend.Decision) handler.RungResult {
	t.Helper()
	r, err := handler.RungResultOf(context.Background(), app, dec, nil, "")
	must(t, err)
	return r
}

// TestMain keeps the handlers' logs, a line for each of thousands of tasks, out of the output.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}

// bus is the event bus the suite report puts failed runs on; it keeps nothing.
type bus struct{}

func (bus) PutEvent(context.Context, string, any) error { return nil }

// failingApp is a browser whose every replay fails at the last step with a long message: the
// largest result a replay returns.
type failingApp struct{}

func (failingApp) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	n := len(t.Steps)
	return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, TestVersion: t.Version, FailedStep: fmt.Sprint(n), FailedIndex: n - 1, ErrorKind: gardener.ErrElementNotFound,
		Message: "no element matches " + strings.Repeat("div.long > ", 1000)}}, nil
}

// seedSuite writes projects of tests for the suite: tests active tests of one project with
// ids of idBytes, and skipped projects with no origin to replay against.
func seedSuite(t *testing.T, store gardener.Store, tests, skipped, idBytes int) {
	t.Helper()
	ctx := context.Background()
	id := func(prefix string, i int) string {
		s := fmt.Sprintf("%s-%05d", prefix, i)
		return s + strings.Repeat("x", max(0, idBytes-len(s)))
	}
	project := id("proj", 0)
	must(t, store.PutProject(ctx, gardener.Project{ID: project, Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{"https://app.test"}}))
	for i := range tests {
		must(t, store.CreateTest(ctx, gardener.Test{ID: id("test", i), ProjectID: project, Status: gardener.StatusActive, Version: 1,
			Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}, {Kind: gardener.Click, Locator: gardener.MustLocator("#go")}}}))
	}
	for i := range skipped {
		must(t, store.PutProject(ctx, gardener.Project{ID: id("idle", i), Plan: gardener.PlanPro}))
	}
}

// TestSuiteMachineWorstCase: a suite over more tests than one execution takes, every id as
// long as a person may name it, every replay failed with a long message and reported, and more
// skipped projects than are named.
func TestSuiteMachineWorstCase(t *testing.T) {
	store := open(t)
	seedSuite(t, store, 600, 150, gardener.MaxIDBytes)
	s := handler.Services{Store: store, Runner: failingApp{}, Events: bus{}, Models: func(context.Context, string) (gardener.Model, error) { return nil, nil }}
	m := run(t, "suite.asl.json", `{"detail":{}}`, map[string]answer{
		"SuitePlan":   real(t, handler.SuitePlanFunction, s),
		"SuiteRun":    real(t, handler.SuiteRunFunction, s),
		"SuiteReport": real(t, handler.SuiteReportFunction, s),
	})
	check(t, "suite, 600 tests and 150 skipped projects of the longest ids, every replay failed", m)
}

// TestSuiteMachineHistory: the most replays one execution takes (ids short enough that the
// item cap binds), every one retried to the end of its Retry and caught: the longest history.
func TestSuiteMachineHistory(t *testing.T) {
	store := open(t)
	seedSuite(t, store, handler.MaxSuiteItems, 0, 8)
	s := handler.Services{Store: store, Events: bus{}, Models: func(context.Context, string) (gardener.Model, error) { return nil, nil }}
	m := run(t, "suite.asl.json", `{"detail":{}}`, map[string]answer{
		"SuitePlan":   real(t, handler.SuitePlanFunction, s),
		"SuiteRun":    failing,
		"SuiteReport": real(t, handler.SuiteReportFunction, s),
	})
	check(t, "suite, 500 replays each failing four times", m)
	if got := len(m.exec.Events(asl.EventIterationStarted)); got != handler.MaxSuiteItems {
		t.Errorf("%d replays, want %d", got, handler.MaxSuiteItems)
	}
}

// TestStagingMachineWorstCase: a sweep that put more tests at risk than a pass names, every id
// as long as a person may name it; the pass dry-runs the most it takes, every one red, every
// one staged, each dry-run's failure a long message.
func TestStagingMachineWorstCase(t *testing.T) {
	ctx := context.Background()
	store := open(t)
	must(t, store.PutProject(ctx, gardener.Project{ID: "acme", Plan: gardener.PlanPro, Model: "builtin", Radar: true, AllowedOrigins: []string{"https://app.test"}}))
	var ids []string
	for i := range 2000 {
		id := longID("risk", i)
		must(t, store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "acme", Status: gardener.StatusActive, Version: 1,
			Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}, {Kind: gardener.Click, Locator: gardener.MustLocator("#go")}}}))
		ids = append(ids, id)
	}
	must(t, store.MarkAtRisk(ctx, "acme", ids, time.Now()))
	s := handler.Services{Store: store}
	dryRun := func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
		var it handler.Item
		must(t, json.Unmarshal(in, &it))
		return json.Marshal(handler.DryRunResult{FailedStep: "2", Error: gardener.Clip("no element matches "+strings.Repeat("div.long > ", 1000), 80),
			Gate: handler.Gate{Eligible: true, RunID: gardener.NewRunID(gardener.TriggerRadar, it.TestID, time.Now()), ProjectID: it.ProjectID, TestID: it.TestID, Mode: gardener.ModePropose}})
	}
	propose := func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
		var g handler.Gate
		must(t, json.Unmarshal(in, &g))
		return json.Marshal(handler.ProposeResult{Outcome: ladder.Staged, Staged: gardener.StagedNew, ProposalID: gardener.ProposalIDOf(g.TestID, 1, nil), ModelCalls: 3})
	}
	m := run(t, "staging.asl.json", `{"detail":{"projectId":"acme","sweepId":"s-1"}}`, map[string]answer{
		"StagingSelect":  real(t, handler.StagingSelectFunction, s),
		"DryRun":         dryRun,
		"Propose":        propose,
		"StagingSummary": real(t, handler.StagingSummaryFunction, s),
	})
	check(t, "staging, 2,000 tests at risk of the longest ids", m)
}
