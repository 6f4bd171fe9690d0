package gardener

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The ids every path mints, in one place: a record one path writes is found by another only
// when both name it alike (a duplicate event finds the repair its first delivery wrote, an
// approval finds the proof a rung recorded, the state machine's triage finds the same issue the
// ladder in one process files).

// ProofID names the proof of ops on a test version: the run record of the re-run of a copy with
// ops applied. Whoever writes or approves a fix recomputes it from what it is asked to write, so
// ops that were never proven find no proof.
func ProofID(testID string, version int, ops []Op) string {
	return "proof-" + opsDigest(testID, version, ops)
}

// ProposalIDOf names the proposal that stages ops on a test version: the same proven fix staged
// twice is the same row.
func ProposalIDOf(testID string, version int, ops []Op) string {
	return "prop-" + opsDigest(testID, version, ops)
}

func opsDigest(testID string, version int, ops []Op) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d", testID, version)
	for _, op := range ops {
		fmt.Fprintf(h, "\x00%s", op.String())
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// RepairIDOfRun names the repair written for a failed run: a second delivery of the run's
// event finds it and writes nothing.
func RepairIDOfRun(runID string) string { return "run-" + runID }

// RepairIDOfProposal names the repair an approval of a proposal writes.
func RepairIDOfProposal(proposalID string) string { return "proposal-" + proposalID }

// GreenRunID names the run that records a written repair's proof as the test's last green run.
func GreenRunID(repairID string) string { return "green-" + repairID }

// PropagatedRunID names the run a propagated fix is attached to: the failed run it answers,
// for the other test. It is one URL path segment ("~", not "/"), since the repair made from it
// is read and reverted by /repairs/{id}.
func PropagatedRunID(runID, testID string) string { return runID + "~" + testID }

// TriageID names the triage issue of a climb: one per failed run, so that the ladder in one
// process and the state machine file the same issue and a duplicate delivery files it once;
// a climb with no run is named by its test and time.
func TriageID(runID, testID string, at time.Time) string {
	if runID != "" {
		return "triage-" + runID
	}
	return "triage-" + testID + "-" + strconv.FormatInt(at.UnixNano(), 36)
}

// NewRunID is the id of a new run: what started it, the test, the time in milliseconds (base
// 36, so ids of one test sort by time) and a random suffix, so that two runs started in the same
// millisecond differ.
func NewRunID(trigger TriggerKind, testID string, at time.Time) string {
	return string(trigger) + "-" + testID + "-" + strconv.FormatInt(at.UnixMilli(), 36) + "-" + randomHex(4)
}

// NewChatProposalID names a proposal a chat edit stages: random, since a chat edit is not a
// proof of anything the store could recompute.
func NewChatProposalID() string { return "chat-" + randomHex(12) }

// maxExecutionName is Step Functions' limit on an execution name.
const maxExecutionName = 80

// NewExecutionName names a manual execution: "manual-", 128 random bits, then as much of the
// run id as fits, for a person reading the console. The random part comes before the cut, so
// two names never collide however long the run id, and a name cannot be guessed from the run
// and the asker.
func NewExecutionName(runID string) string {
	name := "manual-" + randomHex(16) + "-" + executionSafe(runID)
	if len(name) > maxExecutionName {
		name = name[:maxExecutionName]
	}
	return name
}

// executionSafe keeps what a Step Functions execution name allows.
func executionSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// Proven is the green gate's judgement of the run recorded under ProofID(testID, version, ops):
// a green re-run of that test at that version. The persist step and an approval both ask it of
// the store's record, never of a payload.
func Proven(proof Run, testID string, version int) bool {
	return proof.Result != nil && proof.Result.Passed && proof.TestID == testID && proof.TestVersion == version
}

// The id rule. Every id a door is given (a path segment, a body's or a file's field, a tool's
// argument, an event's detail) is checked by CheckID before anything is looked up or written:
// an id is a key of the stores, a URL path segment, a line of a log and a word of a note, and
// one that holds a NUL, a control character, a slash, invalid UTF-8 or 200 KB is none of these
// safely.
const (
	// MaxIDBytes bounds the id of a test or a project, which people name. The ids minted from
	// it (a run, a repair, a green run, a propagated run: see above) stay within MaxAnyIDBytes.
	MaxIDBytes = 128
	// MaxAnyIDBytes bounds any other id a door is given: the ids the gardener mints, which
	// carry a test's id within them, and an execution's name.
	MaxAnyIDBytes = 512
)

// IDAlphabet says, for people, which ids the rule takes.
const IDAlphabet = "ASCII letters and digits, then letters, digits and - _ . : @ ~ +"

// IDError is an id the rule refuses, naming the field it came in and why.
type IDError struct {
	Field  string
	Reason string
}

func (e *IDError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Reason) }

// CheckID checks the id of a test or a project against the id rule (see CheckAnyID), within
// MaxIDBytes.
func CheckID(field, id string) error { return checkID(field, id, MaxIDBytes) }

// CheckAnyID checks any id a door is given: not empty, at most MaxAnyIDBytes, valid UTF-8,
// and of IDAlphabet only (so no NUL, control character, space, slash or '#'), starting with a
// letter or a digit (so never read as a flag, a hidden file or a relative path).
func CheckAnyID(field, id string) error { return checkID(field, id, MaxAnyIDBytes) }

func checkID(field, id string, max int) error {
	switch {
	case id == "":
		return &IDError{field, "an id is required"}
	case len(id) > max:
		return &IDError{field, fmt.Sprintf("an id is at most %d bytes; this one is %d", max, len(id))}
	case !utf8.ValidString(id):
		return &IDError{field, "the id is not valid UTF-8"}
	}
	for i, r := range id {
		if !idRune(r, i == 0) {
			if i == 0 && idRune(r, false) {
				return &IDError{field, fmt.Sprintf("an id starts with a letter or a digit, not %q", r)}
			}
			return &IDError{field, fmt.Sprintf("character %U at byte %d is not allowed in an id (%s)", r, i, IDAlphabet)}
		}
	}
	return nil
}

func idRune(r rune, first bool) bool {
	if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
		return true
	}
	return !first && strings.ContainsRune("-_.:@~+", r)
}
