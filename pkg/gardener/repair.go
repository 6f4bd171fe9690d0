package gardener

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Strategy names the rung (or shortcut) whose candidate went green.
type Strategy string

// Strategies.
const (
	StrategySelfHeal    Strategy = "self-heal"
	StrategyIntent      Strategy = "intent" // self-heal re-derived an intent block
	StrategySuggestFix  Strategy = "suggest-fix"
	StrategyDiagnose    Strategy = "diagnose-drift"
	StrategyReplay      Strategy = "replay-staged" // a staged fix replayed at zero model cost
	StrategyPropagation Strategy = "propagation"   // a proven locator heal from another test
	StrategyManual      Strategy = "manual"
	// StrategyChat names a chat edit staged for a person: a chat assistant's edit of a test on
	// a person's request, screened by the floor and never re-run before it is staged.
	StrategyChat Strategy = "chat-edit"
)

// NoteKind says which trust check wrote a note.
type NoteKind string

// Notes a proof can carry. Flow-change, behaviour-change, unproven-check, requirement-not-kept,
// unverified, intent-unconfirmed and volatile-locator notes keep a repair from being applied
// without a person (noteHolds); the others are findings a reviewer reads.
const (
	NotePageAtFailure NoteKind = "page-at-failure"
	// NoteFlowChange: the repair dropped an action the last green run performed, replaced one
	// with another kind, or added navigation.
	NoteFlowChange NoteKind = "flow-change"
	// NoteActionAdded: the repair added a click, key press or hover and nothing else about the
	// flow changed (a click that dismisses an overlay); the checks after it must be proven
	// sensitive for it to be applied alone.
	NoteActionAdded NoteKind = "action-added"
	// NoteInputAdded: the repair added a step that enters, picks or ticks a value the recorded
	// test never gave (a field the form now requires). Nothing the recording entered is lost, so
	// it is no behaviour change; and it neither drops an action nor adds navigation, so it is
	// no flow change the design holds (invariant 10). It is an added action under its own
	// name: its step is classed review and a person reads it, but it holds nothing by itself.
	// What a new value could fake is a check it now precedes, and a check the repair leaves
	// insensitive holds the fix on its own account (an unproven check).
	NoteInputAdded NoteKind = "input-added"
	// NoteBehaviorChange: a step no longer enters, picks or uploads what the recorded step did.
	NoteBehaviorChange NoteKind = "behavior-change"
	// NoteInsensitiveCheck: a check the repair did not touch also passes before its step.
	NoteInsensitiveCheck NoteKind = "insensitive-check"
	// NoteUnprovenCheck: a check the repair changed, or which its new steps now precede, is not
	// proven sensitive to them.
	NoteUnprovenCheck      NoteKind = "unproven-check"
	NoteRequirementNotKept NoteKind = "requirement-not-kept"
	NoteUnverified         NoteKind = "unverified"
	NoteIntentUnconfirmed  NoteKind = "intent-unconfirmed"
	// NoteVolatileLocator: the repair wrote a locator that names live data or a generated part
	// (see Volatility), because no stable form matched the element; it passes on this run's data
	// and may fail on the next.
	NoteVolatileLocator NoteKind = "volatile-locator"
)

// Note is one finding about a proof, written for a person.
type Note struct {
	Kind NoteKind `json:"kind"`
	Step string   `json:"step,omitempty"`
	Text string   `json:"text"`
}

// NeedsPerson reports whether the note keeps a repair out of auto-apply: it names one of the
// reasons the design gives for holding a fix (noteHolds).
func (n Note) NeedsPerson() bool {
	_, ok := noteHolds[n.Kind]
	return ok
}

// Requirement is one thing a step did on its last green run that the repaired step must still
// do: a value entered, a request sent, a check made. Detail and By are text for people, so they
// never carry a value the test types: a value entered is RedactValue's mask, and By is the
// repaired step as Step.Redacted renders it.
type Requirement struct {
	Step   string `json:"step"`
	What   string `json:"what"` // enters | sends | checks
	Detail string `json:"detail"`
	Kept   bool   `json:"kept"`
	By     string `json:"by,omitempty"` // the repaired action that keeps it
}

// EntersValue is the requirement that the step at path still enters value, kept or not, by the
// repaired step by (nil when the repair removed it), built as a person may read it.
func EntersValue(path, value string, kept bool, by *Step) Requirement {
	r := Requirement{Step: path, What: "enters", Detail: RedactValue(value), Kept: kept}
	if by != nil {
		r.By = by.Redacted()
	}
	return r
}

// Redacted is how a requirement is shown to people and agents. A requirement built by
// EntersValue is already masked and comes back as it is; one recorded before values were
// masked (its Detail the quoted value) is masked here, so a stored verdict never shows its
// value on any door. Requirements that are not values entered are shown as they are.
func (r Requirement) Redacted() Requirement {
	if r.What != "enters" || strings.HasPrefix(r.Detail, "[value redacted, ") {
		return r
	}
	v, err := strconv.Unquote(r.Detail)
	if err != nil {
		v = r.Detail
	}
	r.Detail = RedactValue(v)
	// A requirement recorded before values were masked rendered By in full alongside, value
	// included: only the step kind and locator would be safe to keep, so it is dropped rather
	// than parsed (a requirement made since carries By already redacted).
	r.By = ""
	return r
}

// Redacted is the contract with every requirement as Requirement.Redacted shows it.
func (c Contract) Redacted() Contract {
	if c.Requirements == nil {
		return c
	}
	out := Contract{Requirements: make([]Requirement, len(c.Requirements))}
	for i, r := range c.Requirements {
		out.Requirements[i] = r.Redacted()
	}
	return out
}

// Contract is the requirement contract of a proof.
type Contract struct {
	Requirements []Requirement `json:"requirements"`
}

// Kept counts the requirements kept and the total.
func (c Contract) Kept() (kept, total int) {
	for _, r := range c.Requirements {
		if r.Kept {
			kept++
		}
	}
	return kept, len(c.Requirements)
}

// AllKept reports whether every requirement is kept.
func (c Contract) AllKept() bool { k, t := c.Kept(); return k == t }

// Sensitivity is the result of the check that follows a green proof: how many of the test's
// checks would have noticed if the step before them had done nothing.
type Sensitivity struct {
	Sensitive   int      `json:"sensitive"`
	Total       int      `json:"total"`
	Insensitive []string `json:"insensitive,omitempty"` // paths of the checks that see nothing
}

// Verdict is everything a green proof established beyond "it went green".
type Verdict struct {
	Strategy    Strategy    `json:"strategy"`
	Ops         []Op        `json:"ops"`
	Changes     []Change    `json:"changes"`
	Notes       []Note      `json:"notes,omitempty"`
	Contract    Contract    `json:"contract"`
	Sensitivity Sensitivity `json:"sensitivity"`
	Unverified  string      `json:"unverified,omitempty"` // the reason, when UNVERIFIED
	// IntentConfirmed is false when the proof re-derived an intent block that did not do what it
	// did on its last green run and no outcome check after it passed.
	IntentConfirmed bool `json:"intentConfirmed"`
}

// NeedsPerson reports whether the proof must be staged for a person even in auto-repair mode,
// and why, in the words a staged row shows (see Verdict.Hold, which decides it).
func (v Verdict) NeedsPerson() (bool, string) {
	h, ok := v.Hold()
	return ok, h.Text
}

// ProposalStatus is where a staged proposal is in its life.
type ProposalStatus string

// Proposal statuses (spec: "Statuses a row can end in").
const (
	ProposalProposed   ProposalStatus = "proposed"
	ProposalApplied    ProposalStatus = "applied"
	ProposalDismissed  ProposalStatus = "dismissed"
	ProposalStale      ProposalStatus = "stale"
	ProposalSuperseded ProposalStatus = "superseded"
)

// AppChange is one change the radar found on a page of the app.
type AppChange struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	URL       string    `json:"url"`
	Kind      string    `json:"kind"` // removed | changed | moved | added
	Detail    string    `json:"detail"`
	At        time.Time `json:"at"`
	// Fingerprint is the page's fingerprint after the change; it tells a change seen before
	// from a new one (see DismissalOf).
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Proposal is a proven fix staged for a person. At most one per test is open (proposed).
type Proposal struct {
	ID          string         `json:"id"`
	ProjectID   string         `json:"projectId"`
	TestID      string         `json:"testId"`
	BaseVersion int            `json:"baseVersion"`
	Status      ProposalStatus `json:"status"`
	Verdict     Verdict        `json:"verdict"`
	Triggers    []AppChange    `json:"triggers"`
	FailedStep  string         `json:"failedStep"`
	Error       string         `json:"error"`
	// RunID is the failed run the fix was computed from; empty for a radar sweep's dry run or a
	// chat edit. The repair an approval writes carries it, so its record names the run.
	RunID string `json:"runId,omitempty"`
	// Reason says why a person must look when the proposal was staged from apply mode.
	Reason string `json:"reason,omitempty"`
	// Withheld are the changes the proposal's source asked for that the assertion floor refused
	// (a chat edit's changes to checks): nothing of them is in Verdict.Ops, and a person who
	// wants them makes them in the step editor.
	Withheld  []Refusal `json:"withheld,omitempty"`
	Restated  int       `json:"restated"`
	StagedAt  time.Time `json:"stagedAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	DecidedBy string    `json:"decidedBy,omitempty"`
	DecidedAt time.Time `json:"decidedAt,omitzero"`
}

// Repair is one write of a fix to a test: auto-applied, approved from the queue, or manual. Every
// repair is kept (a history, not one slot).
type Repair struct {
	ID          string    `json:"id"`
	ProjectID   string    `json:"projectId"`
	TestID      string    `json:"testId"`
	RunID       string    `json:"runId,omitempty"` // the run that triggered it
	ProposalID  string    `json:"proposalId,omitempty"`
	Verdict     Verdict   `json:"verdict"`
	PreSteps    []Step    `json:"preSteps"` // the complete pre-repair step list
	FromVersion int       `json:"fromVersion"`
	ToVersion   int       `json:"toVersion"`
	At          time.Time `json:"at"`
	Auto        bool      `json:"auto"`
	ApprovedBy  string    `json:"approvedBy,omitempty"`
	// Badge is the Auto-repaired flag shown in the builder until a person marks it reviewed.
	Badge      bool      `json:"badge"`
	ReviewedBy string    `json:"reviewedBy,omitempty"`
	RevertedAt time.Time `json:"revertedAt,omitzero"`
	RevertedBy string    `json:"revertedBy,omitempty"`
}

// RevertRefusal says why r cannot be reverted while its test is at version, in the words every
// door shows beside the repair; "" when it can be. A revert writes the pre-repair steps back
// over exactly the version the repair wrote: once reverted, or once the test moved past that
// version (an edit, another repair), it would throw work away.
func (r Repair) RevertRefusal(version int) string {
	switch {
	case !r.RevertedAt.IsZero():
		return fmt.Sprintf("Reverted by %s on %s.", r.RevertedBy, r.RevertedAt.UTC().Format("2006-01-02 15:04 UTC"))
	case r.ToVersion != version:
		return fmt.Sprintf("Not revertable: the test is at version %d, this repair wrote version %d.", version, r.ToVersion)
	}
	return ""
}

// RevertConsequence is what reverting r does to its test, as the revert's confirmation states
// it (honest about the consequence): a repair that only moved steps to other locators leaves
// those selectors failing again; one that added steps (a dismissal, a fill of a newly required
// field, a menu opened) takes them out again; any other leaves the test failing where it failed.
func (r Repair) RevertConsequence() string {
	inserted, other := 0, false
	for _, op := range r.Verdict.Ops {
		switch {
		case op.Kind == OpInsert:
			inserted++
		case op.Kind == OpReplace && op.Step != nil && op.Index >= 0 && op.Index < len(r.PreSteps) && locatorOnly(r.PreSteps[op.Index], *op.Step):
		default:
			other = true
		}
	}
	switch {
	case inserted == 0 && !other:
		return "the selector the repair fixed will fail again until it is repaired another way"
	case !other && inserted == 1:
		return "the step the repair added will be gone again, and the test will fail where it failed before until it is repaired another way"
	case !other:
		return "the steps the repair added will be gone again, and the test will fail where it failed before until it is repaired another way"
	}
	return "the test will fail again where it failed before the repair until it is repaired another way"
}

// locatorOnly reports whether after is before with only its locator (and alternatives) changed.
func locatorOnly(before, after Step) bool {
	b := before.Clone()
	b.Locator, b.Alternatives = after.Locator, after.Alternatives
	return b.Equal(after)
}

// Classification is what a diagnosis says a failure is.
type Classification string

// Classifications.
const (
	TestDrift   Classification = "test-drift"
	AppBug      Classification = "app-bug"
	Environment Classification = "environment"
	Unknown     Classification = "unknown"
)

// Attempt is one candidate a rung tried, and what became of it.
type Attempt struct {
	Rung     Strategy  `json:"rung"`
	Ops      []Op      `json:"ops,omitempty"`
	Refusals []Refusal `json:"refusals,omitempty"`
	Outcome  string    `json:"outcome"` // green | red at step N: … | refused | no candidate
}

// TriageIssue is filed when the ladder exhausts without a green proof, or when diagnosis says the
// failure is not drift. Nothing is written to the test.
type TriageIssue struct {
	ID             string         `json:"id"`
	ProjectID      string         `json:"projectId"`
	TestID         string         `json:"testId"`
	RunID          string         `json:"runId,omitempty"`
	Classification Classification `json:"classification"`
	FailedStep     string         `json:"failedStep"`
	Error          string         `json:"error"`
	Evidence       []string       `json:"evidence"`
	Attempts       []Attempt      `json:"attempts"`
	At             time.Time      `json:"at"`
	// Unchanged, for an issue a staging pass filed, is the test version and the page changes it
	// climbed the ladder for: while both stay the same, another climb would find nothing new.
	Unchanged *DismissalKey `json:"unchanged,omitempty"`
}

// ModelCall is one call to the model, kept in the test's AI history.
type ModelCall struct {
	TestID       string    `json:"testId"`
	Ask          string    `json:"ask"` // locator | operations | diagnosis | intent
	Model        string    `json:"model"`
	InputTokens  int       `json:"inputTokens"`
	OutputTokens int       `json:"outputTokens"`
	Outcome      string    `json:"outcome"`
	At           time.Time `json:"at"`
}
