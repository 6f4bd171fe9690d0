package gardener

import "fmt"

// Outcome is how one repair ended, the same on every path: the ladder in one process, the
// state machine whose rungs run apart, and every door that reports it.
type Outcome string

// Outcomes.
const (
	// OutcomeRepaired: a green, trusted proof written to the test.
	OutcomeRepaired Outcome = "repaired"
	// OutcomeStaged: a green proof that waits for a person (propose mode, a trust check that
	// asks for a person, or an agent's suggestion).
	OutcomeStaged Outcome = "staged"
	// OutcomeTriaged: no green proof, or diagnosis found an app bug or an environment problem;
	// nothing is written and a triage issue is filed — unless there was no green run to compare
	// with and nothing else to go on (FilesTriage).
	OutcomeTriaged Outcome = "triaged"
	// OutcomeRefused: every change any rung proposed was refused by the assertion floor.
	OutcomeRefused Outcome = "refused"
	// OutcomeNoFix: the test passed when reproduced; there is nothing to repair.
	OutcomeNoFix Outcome = "no-fix"
)

// Actor is who acts on a repair. The same proven fix may be applied for one and only staged
// for another, so every decision that writes names its actor.
type Actor string

// Actors.
const (
	// ActorSchedule is the gardeners themselves: a failed unattended run, a staging pass.
	ActorSchedule Actor = "schedule"
	// ActorPerson is someone at the manual path, the queue or the CLI.
	ActorPerson Actor = "person"
	// ActorAgent is an MCP client: it may apply only what needs no person.
	ActorAgent Actor = "agent"
)

// Disposition says what becomes of a green proof: written now, or staged with the reason a
// person reads on the row.
type Disposition struct {
	Apply  bool   `json:"apply"`
	Reason string `json:"reason,omitempty"`
}

// ModeFrom is what put a repair in its mode, for the reason a proof staged by propose mode
// gives: the project's auto-repair setting, or the request, which may ask to propose in a
// project that repairs itself. The row must not blame a setting that is on.
type ModeFrom string

// Where a mode comes from.
const (
	// FromProject: the project's auto-repair setting (on applies, off proposes). The zero value,
	// so that a decision made before modes said where they came from reads as it did.
	FromProject ModeFrom = ""
	// FromRequest: the request asked to propose (the API's "propose": true, gardener repair
	// --mode propose) or is an agent's suggestion, whatever the project's setting.
	FromRequest ModeFrom = "request"
)

// ModeOf is the mode a repair runs in and what set it: the request's when it asks to propose
// or an agent asks (an agent's suggestion always proposes), else the project's (apply with
// auto-repair on, propose without).
func ModeOf(autoRepair, propose bool, actor Actor) (Mode, ModeFrom) {
	switch {
	case propose || actor == ActorAgent:
		return ModePropose, FromRequest
	case autoRepair:
		return ModeApply, FromProject
	}
	return ModePropose, FromProject
}

// Reasons a green proof is staged rather than written.
const (
	reasonAutoRepairOff = "proposed for review: auto-repair is off"
	reasonAsked         = "proposed for review: the request asked to propose, not to apply"
	reasonAgent         = "proposed for review: an agent's suggestion is applied by apply_repair or a person"
)

// Decide is the one apply-or-stage decision for a green proof, from its verdict, the mode the
// repair runs in, what set that mode and who acts. A verdict that needs a person is staged
// whoever acts; an agent's suggestion is staged (apply_repair or a person applies it);
// otherwise apply mode writes and propose mode stages, saying whether the request asked to
// propose or the project's auto-repair is off.
func Decide(v Verdict, mode Mode, from ModeFrom, actor Actor) Disposition {
	if need, why := v.NeedsPerson(); need {
		return Disposition{Reason: "a person must look: " + why}
	}
	if actor == ActorAgent {
		return Disposition{Reason: reasonAgent}
	}
	if mode != ModeApply {
		if from == FromRequest {
			return Disposition{Reason: reasonAsked}
		}
		return Disposition{Reason: reasonAutoRepairOff}
	}
	return Disposition{Apply: true}
}

// HoldRule is a reason the design gives for staging a green proof for a person even on
// auto-repair (DESIGN invariants 9, 10 and 13). Nothing else holds a fix in apply mode: a
// finding outside this list (an added dismissal, an added input, an insensitive check the test
// always had) is read by a reviewer but never keeps a fix from being written.
type HoldRule string

// The hold rules, in the order a verdict is read for its reason.
const (
	HoldUnverified        HoldRule = "UNVERIFIED"                        // invariant 10
	HoldContractNotKept   HoldRule = "contract not kept"                 // invariant 10
	HoldIntentUnconfirmed HoldRule = "intent not confirmed"              // invariant 9
	HoldBehaviourChange   HoldRule = "behaviour change"                  // invariant 10
	HoldFlowChange        HoldRule = "flow change"                       // invariant 10: an action dropped, navigation added
	HoldInsensitiveCheck  HoldRule = "insensitive check the repair made" // invariant 10
	HoldVolatileLocator   HoldRule = "volatile locator"                  // invariant 13
)

// noteHolds are the notes that name a hold rule. A note kind missing here holds nothing.
var noteHolds = map[NoteKind]HoldRule{
	NoteUnverified:         HoldUnverified,
	NoteRequirementNotKept: HoldContractNotKept,
	NoteIntentUnconfirmed:  HoldIntentUnconfirmed,
	NoteBehaviorChange:     HoldBehaviourChange,
	NoteFlowChange:         HoldFlowChange,
	NoteUnprovenCheck:      HoldInsensitiveCheck,
	NoteVolatileLocator:    HoldVolatileLocator,
}

// Hold is why a proof waits for a person: the rule, and the words the staged row shows.
type Hold struct {
	Rule HoldRule `json:"rule"`
	Text string   `json:"text"`
}

// Hold is the one reading of a verdict for a reason to stage it whatever the mode: the first
// hold rule it meets, in the order UNVERIFIED, the contract, intent, then its notes in order.
// Decide, MayApprove and every door's "why it is staged" read it.
func (v Verdict) Hold() (Hold, bool) {
	if v.Unverified != "" {
		return Hold{Rule: HoldUnverified, Text: "UNVERIFIED: " + v.Unverified}, true
	}
	if !v.Contract.AllKept() {
		return Hold{Rule: HoldContractNotKept, Text: "the requirement contract is not kept"}, true
	}
	if !v.IntentConfirmed {
		return Hold{Rule: HoldIntentUnconfirmed, Text: "a re-derived intent block is not confirmed"}, true
	}
	for _, n := range v.Notes {
		if r, ok := noteHolds[n.Kind]; ok {
			// In words, the kind named once: the reason is shown after "a person must look".
			return Hold{Rule: r, Text: n.Said()}, true
		}
	}
	return Hold{}, false
}

// HeldError is an approval refused because the fix needs a person and an agent asked.
type HeldError struct {
	ProposalID string
	Reason     string
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("proposal %s is held for a person: %s; an agent may apply only a fix that needs no person, so a person must approve it in the queue", e.ProposalID, e.Reason)
}

// Is lets errors.Is(err, ErrIneligible) match: the refusal is about who asks, not the fix.
func (e *HeldError) Is(target error) bool { return target == ErrIneligible }

// MayApprove is the rule of who may approve an open proposal: a person may approve anything in
// the queue, UNVERIFIED included, on purpose; an agent only a fix that needs no person (proven
// green is checked apart, against the store).
func MayApprove(p Proposal, actor Actor) error {
	if actor != ActorAgent {
		return nil
	}
	if need, why := p.Verdict.NeedsPerson(); need {
		return &HeldError{ProposalID: p.ID, Reason: why}
	}
	return nil
}

// ClimbFacts are what a climb's outcome is decided from. The state machine's conclusion adds
// up the facts of every rung that ran apart; the ladder in one process reports its own.
type ClimbFacts struct {
	// Passed: the reproduction passed, so there is nothing to repair.
	Passed bool `json:"passed,omitempty"`
	// Green is the disposition of a green proof; nil without one.
	Green *Disposition `json:"green,omitempty"`
	// Classification is the diagnosis, when a rung made one.
	Classification Classification `json:"classification,omitempty"`
	// Refusals counts the changes the assertion floor refused.
	Refusals int `json:"refusals,omitempty"`
	// Tried counts the candidates that passed the floor and were proven.
	Tried int `json:"tried,omitempty"`
	// Stopped names the error that stopped the ladder, if one did.
	Stopped string `json:"stopped,omitempty"`
	// NoBaseline names the test version the climb had no green run of; nil when it had one.
	// Without a green run there is nothing to compare the failure with, so an app bug or an
	// exhausted ladder is no verdict (invariant 13).
	NoBaseline *TestAtVersion `json:"noBaseline,omitempty"`
}

// TestAtVersion is a version of a test, as the green run a repair compares with is recorded for.
type TestAtVersion struct {
	TestID  string `json:"testId"`
	Version int    `json:"version"`
}

// Add joins the facts of another rung.
func (f ClimbFacts) Add(o ClimbFacts) ClimbFacts {
	f.Passed = f.Passed || o.Passed
	if f.Green == nil {
		f.Green = o.Green
	}
	if f.Classification == "" || f.Classification == Unknown {
		f.Classification = o.Classification
	}
	f.Refusals += o.Refusals
	f.Tried += o.Tried
	if f.Stopped == "" {
		f.Stopped = o.Stopped
	}
	if f.NoBaseline == nil {
		f.NoBaseline = o.NoBaseline
	}
	return f
}

// Conclude is the outcome of a climb and the reason people read, computed once for the local
// and the AWS paths.
func Conclude(f ClimbFacts) (Outcome, string) {
	o, why, _ := conclude(f)
	return o, why
}

// FilesTriage reports whether a climb that ended with these facts files a triage issue (and so
// alerts people). A test that passes, a green proof, and a climb with no green run to compare
// with whose only ground for "not repaired" is that missing comparison file none: the gardener
// cannot tell drift from a bug there, and an app-bug issue on that ground would be a guess.
func FilesTriage(f ClimbFacts) bool {
	_, _, files := conclude(f)
	return files
}

// conclude is the one rule behind Conclude and FilesTriage, so the outcome people read and
// whether an issue is filed for it can never disagree.
func conclude(f ClimbFacts) (Outcome, string, bool) {
	switch {
	case f.Green != nil && f.Green.Apply:
		return OutcomeRepaired, "", false
	case f.Green != nil:
		return OutcomeStaged, f.Green.Reason, false
	case f.Passed:
		return OutcomeNoFix, "the test passes: there is nothing to repair", false
	case f.Classification == Environment:
		return OutcomeTriaged, fmt.Sprintf("diagnosed as %s, not test drift: nothing is repaired", f.Classification), true
	case f.Classification == AppBug && f.NoBaseline != nil:
		// A diagnosis of an app bug compared the failure with nothing: no verdict.
		return OutcomeTriaged, f.NoBaseline.cannotTell(), false
	case f.Classification == AppBug:
		return OutcomeTriaged, fmt.Sprintf("diagnosed as %s, not test drift: nothing is repaired", f.Classification), true
	case f.Refusals > 0 && f.Tried == 0:
		// The floor's refusal does not depend on a green run: it is filed either way.
		return OutcomeRefused, "every proposed change was refused", true
	case f.Stopped != "":
		return OutcomeTriaged, "the ladder stopped on an error: " + f.Stopped, true
	case f.NoBaseline != nil:
		return OutcomeTriaged, f.NoBaseline.cannotTell(), false
	}
	return OutcomeTriaged, "the ladder is exhausted without a green proof", true
}

func (b TestAtVersion) cannotTell() string {
	return fmt.Sprintf("no green run of version %d of test %s is recorded: the gardener cannot tell drift from a bug", b.Version, b.TestID)
}
