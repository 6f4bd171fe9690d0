// Package mcpserver serves the gardener's manual path to MCP clients (coding assistants and
// their agents): three tools, run_test, suggest_fix and apply_repair, over a Backend that is
// either the local state directory or a deployed review API. run_test replays a test now and
// records its run (the green run a later repair compares a failure with) through the same use
// case as POST /tests/{testId}/runs; suggest_fix climbs the same ladder as the automatic path in
// propose mode — the same rungs, assertion floor, green gate and trust checks — and stages what
// it proves as the test's open proposal; apply_repair approves such a proposal through the same
// lifecycle as the queue's approve. There is deliberately no tool to approve or dismiss queue
// rows for a person: that stays a dashboard and API action.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// Backend is where the tools act: the local state directory, or a deployed API.
type Backend interface {
	// Suggest climbs the ladder in propose mode for a failed run, or for a reproduction of a
	// test's current version, and stages a proven fix as the test's open proposal. It writes
	// nothing to the test. by is who asks (the record's; the API backend's token says it there);
	// progress receives each of the ladder's events as it happens, as its
	// gardener.LadderEvent.Line.
	Suggest(ctx context.Context, in SuggestInput, by string, progress func(line string)) (Suggestion, error)
	// Apply approves a proposal for by, through the lifecycle's approve.
	Apply(ctx context.Context, in ApplyInput, by string) (Applied, error)
	// RunNow replays the current version of a test once and records the run, green or red
	// (gardening.RunNow). It writes nothing to the test.
	RunNow(ctx context.Context, in RunInput, by string) (Ran, error)
}

// RunInput names the test to run now.
type RunInput struct {
	TestID string `json:"testId,omitempty" jsonschema:"id of the test whose current version is replayed now and its run recorded"`
}

// Ran is what run_test recorded.
type Ran struct {
	TestID  string `json:"testId"`
	Version int    `json:"version" jsonschema:"the test version that ran"`
	RunID   string `json:"runId" jsonschema:"the run recorded: give it to suggest_fix when it failed"`
	Green   bool   `json:"green" jsonschema:"true when every step passed: the run is then the green run a later repair of this version compares a failure with"`
	// FailedStep and Error say where and how a red run failed, typed values redacted.
	FailedStep string `json:"failedStep,omitempty" jsonschema:"the step a red run failed at, 3.2 inside a block"`
	Error      string `json:"error,omitempty" jsonschema:"how a red run failed (typed values redacted)"`
}

// ranOf is what a run made now says to an agent: the run as people read it (no value a check
// read), and for a red one where and how it failed.
func ranOf(r gardening.RanNow) Ran {
	out := Ran{TestID: r.Run.TestID, Version: r.Run.TestVersion, RunID: r.Run.ID, Green: r.Green}
	if res := r.Run.Result; res != nil && !r.Green {
		out.FailedStep, out.Error = res.FailedStep, res.Message
	}
	return out
}

// SuggestInput names what to repair: a failed run, or a test to reproduce now.
type SuggestInput struct {
	RunID  string   `json:"runId,omitempty" jsonschema:"id of a failed run to repair; give this or testId"`
	TestID string   `json:"testId,omitempty" jsonschema:"id of a test whose current version is replayed now and repaired if it fails; give this or runId"`
	Rungs  []string `json:"rungs,omitempty" jsonschema:"restrict the ladder to these rungs (self-heal, suggest-fix, diagnose-drift); empty climbs all three"`
}

// Suggestion is what suggest_fix established: the outcome, the diff with the class of each
// change, what the floor refused, the trust checks, and the proposal that apply_repair takes.
type Suggestion struct {
	Outcome     string    `json:"outcome" jsonschema:"staged (a proven fix waits as a proposal), triaged (no green proof, or not test drift), refused (every proposed change was refused), no-fix (the test passes), not-eligible"`
	Reason      string    `json:"reason,omitempty" jsonschema:"why the ladder ended as it did"`
	TestID      string    `json:"testId"`
	RunID       string    `json:"runId,omitempty" jsonschema:"the failed run the ladder started from"`
	BaseVersion int       `json:"baseVersion" jsonschema:"the test version the fix was computed and proven against"`
	Version     int       `json:"version" jsonschema:"the test's version now: suggest_fix never changes it"`
	Proven      bool      `json:"proven" jsonschema:"true when a re-run of the test with the fix applied went green"`
	Strategy    string    `json:"strategy,omitempty" jsonschema:"the rung whose candidate went green"`
	FailedStep  string    `json:"failedStep,omitempty"`
	Error       string    `json:"error,omitempty" jsonschema:"how the test failed"`
	Diff        []string  `json:"diff" jsonschema:"the fix as lines, one per changed step (typed values redacted)"`
	Changes     []Change  `json:"changes" jsonschema:"each change with its class: repair, review or protected"`
	Refusals    []Refusal `json:"refusals" jsonschema:"changes the assertion floor refused, with the step and why"`
	Notes       []string  `json:"notes" jsonschema:"flow, behaviour and trust notes a reviewer must read"`
	Contract    Contract  `json:"contract" jsonschema:"the requirement contract: what the test enters, sends and checks, kept or not"`
	Sensitivity *Count    `json:"sensitivity,omitempty" jsonschema:"checks proven sensitive (they fail when what they check is broken) of those the fix touched"`
	Unverified  string    `json:"unverified,omitempty" jsonschema:"why the fix is UNVERIFIED, when it is"`
	NeedsPerson string    `json:"needsPerson,omitempty" jsonschema:"why the gardener would not apply this fix by itself"`
	ProposalID  string    `json:"proposalId,omitempty" jsonschema:"the staged proposal: give it to apply_repair"`
	Staged      string    `json:"staged,omitempty" jsonschema:"what staging did: staged, restated (recorded on the open proposal), superseded, duplicate, declined (a person dismissed this fix before)"`
	Cost        string    `json:"cost,omitempty" jsonschema:"what the repair used (state transitions, Lambda invocations and GB-seconds, DynamoDB request units, model tokens) and its cost in USD at list prices, as recorded with its run"`
}

// Change is one change of a fix and its class.
type Change struct {
	Class  string `json:"class" jsonschema:"repair (locator or wait), review (an action changed), protected (a check changed)"`
	Step   string `json:"step" jsonschema:"the step as a person counts it, 3.2 inside a block"`
	Detail string `json:"detail"`
}

// Refusal is a change the assertion floor refused.
type Refusal struct {
	Step   string `json:"step"`
	Reason string `json:"reason"`
}

// Contract is a proof's requirement contract.
type Contract struct {
	Kept         int           `json:"kept"`
	Total        int           `json:"total"`
	Requirements []Requirement `json:"requirements"`
}

// Requirement is one thing the test enters, sends or checks, and whether the fix keeps it.
type Requirement struct {
	Step   string `json:"step"`
	What   string `json:"what" jsonschema:"enters, sends or checks"`
	Detail string `json:"detail"`
	Kept   bool   `json:"kept"`
	// By is the repaired test's action that keeps it (its values masked), when it is kept.
	By string `json:"by,omitempty" jsonschema:"the repaired action that keeps it, its values masked"`
}

// Count is n of total.
type Count struct {
	Sensitive int `json:"sensitive"`
	Total     int `json:"total"`
}

// ApplyInput names the proposal to apply.
type ApplyInput struct {
	ProposalID string `json:"proposalId,omitempty" jsonschema:"a proposal id from suggest_fix or a row of the project's queue; give this or runId"`
	RunID      string `json:"runId,omitempty" jsonschema:"the failed run suggest_fix was asked about: applies the open proposal computed for it; give this or proposalId"`
	Propagate  bool   `json:"propagate,omitempty" jsonschema:"also carry the healed locator to the project's other tests that use it, each proven by its own green re-run (an agent's copies are staged for a person); without it the answer names them and leaves them"`
}

// Applied is what apply_repair wrote.
type Applied struct {
	ProposalID string   `json:"proposalId"`
	TestID     string   `json:"testId"`
	RepairID   string   `json:"repairId" jsonschema:"the repair record: revert it from the console or the API"`
	Version    int      `json:"version" jsonschema:"the test's version after the repair"`
	ApprovedBy string   `json:"approvedBy"`
	Diff       []string `json:"diff"`
	// Others are the other tests that use a locator the fix healed, one line each; Propagated
	// says what carrying the heal did to each, when propagate was asked.
	Others     []string `json:"others,omitempty" jsonschema:"other tests that use a locator the fix healed: the steps and the locator"`
	Propagated []string `json:"propagated,omitempty" jsonschema:"with propagate: what became of each other test (written, staged for a person, left as it is) and why"`
}

// InputError is a tool input that is wrong; it names the field.
type InputError struct {
	Field  string
	Reason string
}

func (e *InputError) Error() string { return e.Field + ": " + e.Reason }

// RefusedError is an apply_repair the gardener refuses: the proposal is stale, was not proven,
// is not open, or answers a control run.
type RefusedError struct {
	ProposalID string
	Reason     string
}

func (e *RefusedError) Error() string {
	if e.ProposalID == "" {
		return "refused: " + e.Reason
	}
	return fmt.Sprintf("proposal %s refused: %s", e.ProposalID, e.Reason)
}

// Options configure the server.
type Options struct {
	// Version is the gardener's version, reported to clients.
	Version string
	// Approver names who approves for a session; nil uses "mcp:" and the client's name from
	// its initialize request. The API backend ignores it: the API records its token's caller.
	Approver func(clientName string) string
}

// New builds the MCP server with the three tools over b. Each tool's arguments are checked
// against its input schema before the SDK sees them (checkingArguments), so a wrong one is
// answered naming the argument.
func New(b Backend, o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "drift-gardener", Version: o.Version}, &mcp.ServerOptions{
		Instructions: "Drift Gardener repairs browser tests broken by app drift. run_test runs a test now and records its run: a green run is what a later repair compares a failure with (without one the gardener cannot tell drift from a bug). suggest_fix proposes a repair for a failed run (or a test reproduced now) and writes nothing to the test; apply_repair applies a proposal that is still fresh and was proven green. Protected checks are never changed by any of them: a person changes them in the step editor.",
	})
	t := &tools{b: b, approver: o.Approver}
	schemas := map[string]*jsonschema.Schema{}
	s.AddReceivingMiddleware(checkingArguments(schemas))
	addTool(s, schemas, &mcp.Tool{
		Name:        "run_test",
		Description: "Run the current version of a test now in headless Chromium and record the run, as POST /tests/{testId}/runs does. A green run is the baseline a later repair of this version compares a failure with: without one, a repair that finds no green proof cannot tell drift from a bug. A red run is recorded too (never as green), and its runId is what suggest_fix takes. Writes nothing to the test.",
		Annotations: &mcp.ToolAnnotations{Title: "Run a test now", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, t.run)
	addTool(s, schemas, &mcp.Tool{
		Name:        "suggest_fix",
		Description: "Run the repair ladder (self-heal, suggest-fix, diagnose-drift) in propose mode on a failed run, or on a test reproduced now. Returns the diff with change classes, assertion-floor refusals, notes, requirement contract and sensitivity, and stages a fix proven green as a proposal whose id apply_repair takes. Writes nothing to the test.",
		Annotations: &mcp.ToolAnnotations{Title: "Suggest a fix", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, t.suggest)
	addTool(s, schemas, &mcp.Tool{
		Name:        "apply_repair",
		Description: "Apply a proposal from suggest_fix (or a queue row you may see) to its test: only when the test is still at the version the fix was proven on and the proof was green. Records you as the approver; the test's version goes up and the repair can be reverted. Names the other tests that use a locator the fix healed; with propagate, carries the heal to them (each replayed with it; your copies are staged for a person).",
		Annotations: &mcp.ToolAnnotations{Title: "Apply a repair", DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}, t.apply)
	return s
}

func ptr[T any](v T) *T { return &v }

// checkIDs checks the ids a tool was given as field, id pairs (gardening.CheckIDs; an empty one
// was not given), answering the first refused as the tool's input error naming the field.
func checkIDs(fieldIDs ...string) error {
	err := gardening.CheckIDs(fieldIDs...)
	var bad *gardener.IDError
	if errors.As(err, &bad) {
		return &InputError{Field: bad.Field, Reason: bad.Reason}
	}
	return err
}

type tools struct {
	b        Backend
	approver func(string) string
}

func (t *tools) suggest(ctx context.Context, req *mcp.CallToolRequest, in SuggestInput) (*mcp.CallToolResult, Suggestion, error) {
	in.RunID, in.TestID = strings.TrimSpace(in.RunID), strings.TrimSpace(in.TestID)
	switch {
	case in.RunID == "" && in.TestID == "":
		return nil, Suggestion{}, &InputError{Field: "runId", Reason: "give a failed run's id (runId) or a test's id (testId)"}
	case in.RunID != "" && in.TestID != "":
		return nil, Suggestion{}, &InputError{Field: "testId", Reason: "give runId or testId, not both"}
	}
	if err := checkIDs("runId", in.RunID, "testId", in.TestID); err != nil {
		return nil, Suggestion{}, err
	}
	for i, r := range in.Rungs {
		if !gardening.IsRung(gardener.Strategy(r)) {
			return nil, Suggestion{}, &InputError{Field: fmt.Sprintf("rungs[%d]", i), Reason: gardening.NotARung(r)}
		}
	}
	out, err := t.b.Suggest(ctx, in, t.approverOf(req), notifier(ctx, req))
	if err != nil {
		return nil, Suggestion{}, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summarize(out)}}}, out, nil
}

func (t *tools) apply(ctx context.Context, req *mcp.CallToolRequest, in ApplyInput) (*mcp.CallToolResult, Applied, error) {
	in.ProposalID, in.RunID = strings.TrimSpace(in.ProposalID), strings.TrimSpace(in.RunID)
	switch {
	case in.ProposalID == "" && in.RunID == "":
		return nil, Applied{}, &InputError{Field: "proposalId", Reason: "give the proposal id suggest_fix returned (proposalId), or the run it was asked about (runId)"}
	case in.ProposalID != "" && in.RunID != "":
		return nil, Applied{}, &InputError{Field: "runId", Reason: "give proposalId or runId, not both"}
	}
	if err := checkIDs("proposalId", in.ProposalID, "runId", in.RunID); err != nil {
		return nil, Applied{}, err
	}
	out, err := t.b.Apply(ctx, in, t.approverOf(req))
	if err != nil {
		return nil, Applied{}, err
	}
	text := fmt.Sprintf("Applied proposal %s: test %s is now version %d (repair %s, approved by %s).", out.ProposalID, out.TestID, out.Version, out.RepairID, out.ApprovedBy)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

func (t *tools) run(ctx context.Context, req *mcp.CallToolRequest, in RunInput) (*mcp.CallToolResult, Ran, error) {
	if in.TestID = strings.TrimSpace(in.TestID); in.TestID == "" {
		return nil, Ran{}, &InputError{Field: "testId", Reason: "give the id of the test to run"}
	}
	if err := checkIDs("testId", in.TestID); err != nil {
		return nil, Ran{}, err
	}
	out, err := t.b.RunNow(ctx, in, t.approverOf(req))
	if err != nil {
		return nil, Ran{}, err
	}
	text := fmt.Sprintf("GREEN: test %s version %d passed; run %s is recorded as the green run a later repair of this version compares a failure with.", out.TestID, out.Version, out.RunID)
	if !out.Green {
		text = fmt.Sprintf("FAILED: test %s version %d failed at step %s: %s\nrun %s is recorded (not as a green run); suggest_fix with this runId proposes a repair.", out.TestID, out.Version, out.FailedStep, out.Error, out.RunID)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// runError names, for the agent, a test that is not there: class is the application layer's
// (the API's status read back as one), where says where it was looked for.
func runError(in RunInput, class gardening.ErrorClass, err error, where string) error {
	if class == gardening.ClassNotFound {
		return &InputError{Field: "testId", Reason: fmt.Sprintf("no test %q %s", in.TestID, where)}
	}
	return fmt.Errorf("run_test: %w", err)
}

// approverOf is who the session's client is: "mcp:" and the name its initialize request gave.
func (t *tools) approverOf(req *mcp.CallToolRequest) string {
	name := ""
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			name = strings.TrimSpace(p.ClientInfo.Name)
		}
	}
	if name == "" {
		name = "unnamed-client"
	}
	if t.approver != nil {
		return t.approver(name)
	}
	return "mcp:" + name
}

// notifier sends each progress line as a progress notification, when the client asked for
// them with a progress token.
func notifier(ctx context.Context, req *mcp.CallToolRequest) func(string) {
	if req == nil || req.Session == nil || req.Params == nil {
		return func(string) {}
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return func(string) {}
	}
	n := 0
	return func(line string) {
		n++
		// A client gone away must not stop the ladder: the proposal is still staged.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: line})
	}
}

// summarize is the text a client shows beside the structured result.
func summarize(s Suggestion) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: test %s", strings.ToUpper(s.Outcome), s.TestID)
	if s.Reason != "" {
		fmt.Fprintf(&b, " — %s", s.Reason)
	}
	b.WriteByte('\n')
	if s.Error != "" {
		fmt.Fprintf(&b, "failed at step %s: %s\n", s.FailedStep, s.Error)
	}
	if len(s.Diff) > 0 {
		fmt.Fprintf(&b, "fix (%s), proven green on version %d:\n", s.Strategy, s.BaseVersion)
		for _, l := range s.Diff {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	for _, c := range s.Changes {
		fmt.Fprintf(&b, "  [%s] step %s: %s\n", c.Class, c.Step, c.Detail)
	}
	for _, r := range s.Refusals {
		fmt.Fprintf(&b, "Refused (step %s): %s\n", r.Step, r.Reason)
	}
	if s.Contract.Total > 0 {
		fmt.Fprintf(&b, "Requirement contract: %d of %d kept (steps numbered as in the recorded test)\n", s.Contract.Kept, s.Contract.Total)
	}
	if s.Sensitivity != nil {
		fmt.Fprintf(&b, "checks proven sensitive in %d of %d\n", s.Sensitivity.Sensitive, s.Sensitivity.Total)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if s.NeedsPerson != "" {
		fmt.Fprintf(&b, "a person must look: %s\n", s.NeedsPerson)
	}
	if s.ProposalID != "" {
		fmt.Fprintf(&b, "proposal %s (%s): apply it with apply_repair; nothing was written to the test\n", s.ProposalID, s.Staged)
	} else {
		b.WriteString("nothing was staged and nothing was written to the test\n")
	}
	return b.String()
}

// suggestError names, for the agent, the field whose object is missing or the rule that
// refuses the request, as both backends answer it: class is the application layer's (the API's
// status read back as one), where says where the object was looked for.
func suggestError(in SuggestInput, class gardening.ErrorClass, err error, where string) error {
	reason := err.Error()
	var api *APIError
	if errors.As(err, &api) {
		reason = api.Message
	}
	field, id := "testId", in.TestID
	if in.RunID != "" {
		field, id = "runId", in.RunID
	}
	switch class {
	case gardening.ClassNotFound:
		return &InputError{Field: field, Reason: fmt.Sprintf("no %s %q %s", strings.TrimSuffix(field, "Id"), id, where)}
	case gardening.ClassBadInput:
		return &InputError{Field: "rungs", Reason: reason}
	case gardening.ClassRefused:
		return &RefusedError{Reason: reason}
	}
	return fmt.Errorf("suggest_fix: %w", err)
}

// openProposalOf is the proposal apply_repair applies for a run: the open one among the run's
// test's proposals, computed on the version the run failed on. A control run or a probe has
// none.
func openProposalOf(run gardener.Run, proposals []gardener.Proposal) (gardener.Proposal, error) {
	// The run is judged by the gate every door asks, in its words; the version is judged
	// against the proposals below.
	if err := gardener.RunGate(&run, gardener.Test{ID: run.TestID, Version: run.TestVersion}); err != nil {
		return gardener.Proposal{}, &RefusedError{Reason: err.Error()}
	}
	for _, p := range proposals {
		if p.Status != gardener.ProposalProposed || p.TestID != run.TestID {
			continue
		}
		if run.TestVersion != 0 && p.BaseVersion != run.TestVersion {
			return gardener.Proposal{}, &RefusedError{ProposalID: p.ID, Reason: fmt.Sprintf("the open proposal of test %s was computed on version %d, not on version %d that run %s failed on", run.TestID, p.BaseVersion, run.TestVersion, run.ID)}
		}
		return p, nil
	}
	return gardener.Proposal{}, &RefusedError{Reason: fmt.Sprintf("test %s has no open proposal for run %s: ask suggest_fix first", run.TestID, run.ID)}
}
