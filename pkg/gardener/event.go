package gardener

import (
	"context"
	"fmt"
	"time"
)

// LadderEvent is one line of a repair's progress: what the ladder did, in the order it did it,
// with the fields a screen or a client reads without parsing the message. Seq orders the events
// of one stream: the ladder numbers its own from 1, and an execution's event log renumbers them
// in the order it appended them, across every function of the execution. Nothing in an event
// carries a value a test types: steps are rendered redacted, and a step's record is its path,
// kind and verdict only.
type LadderEvent struct {
	Seq     int        `json:"seq"`
	At      time.Time  `json:"at"`
	Stage   EventStage `json:"stage"`
	Rung    Strategy   `json:"rung,omitempty"`
	TestID  string     `json:"testId,omitempty"`
	Message string     `json:"message"`
	// Step is the step the event is about, as a person counts it ("4", "3.2"): the failing step
	// of a reproduction or a red proof, the step a refusal protects, one step of a proof.
	Step string   `json:"step,omitempty"`
	Kind StepKind `json:"kind,omitempty"`
	// Passed is the verdict of a reproduction, a proof or one step of a proof.
	Passed *bool `json:"passed,omitempty"`
	// Ops are a candidate's operations as diff lines, fill values redacted.
	Ops []string `json:"ops,omitempty"`
	// Reason is why: a refusal's, an eligibility refusal's, an outcome's.
	Reason string `json:"reason,omitempty"`
	// Outcome is how a ladder run, or the execution's persist step, ended.
	Outcome string `json:"outcome,omitempty"`
	// Snapshot summarises the page the failure left, at the snapshot stage.
	Snapshot *SnapshotSummary `json:"snapshot,omitempty"`
	// Sensitivity and Contract are the trust checks of a green proof.
	Sensitivity *Sensitivity     `json:"sensitivity,omitempty"`
	Contract    *ContractSummary `json:"contract,omitempty"`
	// Notes are a verdict's notes; Changes its change classes.
	Notes   []Note   `json:"notes,omitempty"`
	Changes []string `json:"changes,omitempty"`
	// Version is the test's version a write produced, at the write stage.
	Version int `json:"version,omitempty"`
	// ProposalID names the staged proposal, at the stage stage.
	ProposalID string `json:"proposalId,omitempty"`
}

// EventStage is what part of a repair an event reports.
type EventStage string

// Stages, in the order a repair meets them.
const (
	EventEligibility EventStage = "eligibility" // the run-selection gate's verdict
	EventReproduce   EventStage = "reproduce"   // replaying the test to see it fail
	EventSnapshot    EventStage = "snapshot"    // the page the failure left
	EventCandidate   EventStage = "candidate"   // a rung's proposal, and what it is based on
	EventRefusal     EventStage = "refusal"     // the assertion floor refused an operation
	EventProof       EventStage = "proof"       // the re-run of a copy with the fix applied
	EventProofStep   EventStage = "proof-step"  // one step of that re-run
	EventSensitivity EventStage = "sensitivity" // checks proven to see a broken page
	EventContract    EventStage = "contract"    // requirements of the last green run kept
	EventVerdict     EventStage = "verdict"     // notes and change classes of the green proof
	EventRung        EventStage = "rung"        // how one rung ended, when each rung runs apart
	EventOutcome     EventStage = "outcome"     // how the ladder ended: once per repair
	EventPropagate   EventStage = "propagate"   // a written heal carried to another test
	EventWrite       EventStage = "write"       // the fix was written to the test
	EventStaged      EventStage = "stage"       // the fix was staged for a person
	EventTriage      EventStage = "triage"      // a triage issue was filed; nothing was written
)

// SnapshotSummary is what a reproduction's snapshot holds, without its content.
type SnapshotSummary struct {
	URL      string `json:"url"`
	Title    string `json:"title,omitempty"`
	Elements int    `json:"elements"`
}

// ContractSummary counts the requirements of the last green run a fix keeps.
type ContractSummary struct {
	Kept  int `json:"kept"`
	Total int `json:"total"`
}

// MaxEventPage bounds how many events one read of an execution's log returns.
const MaxEventPage = 100

// EventStore keeps each execution's events in the order they were appended.
type EventStore interface {
	// AppendEvent adds e to the log of execution, numbering it one past the log's last event
	// (whatever e.Seq says), and returns it as stored. Writers of one execution may be separate
	// processes (each function of a state machine); numbering is the store's, so their events
	// never share a number.
	AppendEvent(ctx context.Context, execution string, e LadderEvent) (LadderEvent, error)
	// Events returns the events of execution numbered above after, in order, at most limit of
	// them (MaxEventPage when limit is not in 1..MaxEventPage). An execution without events, or
	// one never recorded, has none: the log is not an authority on which executions exist.
	Events(ctx context.Context, execution string, after, limit int) ([]LadderEvent, error)
}

// EventPage is the bound a read of the log keeps: limit when it is in 1..MaxEventPage.
func EventPage(limit int) int {
	if limit < 1 || limit > MaxEventPage {
		return MaxEventPage
	}
	return limit
}

// Line is the event as one line of text for a terminal or a log: its number, stage and rung,
// the message, and a candidate's operations indented below it.
func (e LadderEvent) Line() string {
	s := fmt.Sprintf("%3d [%s", e.Seq, e.Stage)
	if e.Rung != "" {
		s += " " + string(e.Rung)
	}
	s += "] " + e.Message
	if e.Stage == EventVerdict || e.Stage == EventPropagate {
		for _, op := range e.Ops {
			s += "\n      " + op
		}
	}
	return s
}

// RepairOutcome is how a repair of testID ended, read from its execution's events: the outcome
// of its outcome event (eligibility, persist or triage appends one, once per repair), or "" while
// none was appended. Events about other tests (a heal propagated to them) are not its outcome.
// A state machine that triaged or found a run ineligible still succeeds, so its status alone
// cannot say whether anything was repaired.
func RepairOutcome(testID string, events []LadderEvent) string {
	o, _ := RepairEnd(testID, events)
	return o
}

// RepairEnd is RepairOutcome with the reason its outcome event gives ("" when it gives none):
// what a person reads beside the outcome (why it was staged, why nothing was written).
func RepairEnd(testID string, events []LadderEvent) (outcome, reason string) {
	for _, e := range events {
		if e.Stage == EventOutcome && e.Outcome != "" && (e.TestID == "" || testID == "" || e.TestID == testID) {
			return e.Outcome, e.Reason
		}
	}
	return "", ""
}
