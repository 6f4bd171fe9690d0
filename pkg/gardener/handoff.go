package gardener

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// MaxPropagated bounds the other tests one heal propagates to: each is a replay inside the
// propagate function's time limit, and each is named in what the repair machine passes on,
// under Step Functions' 256 KiB. Tests past it are repaired when their own runs fail.
const MaxPropagated = 50

// MaxNamed bounds the test and project ids a pass names in what a state machine passes on (the
// tests a staging pass or a suite leaves for the next one, the projects a suite skips): past it
// a count says how many more. The store keeps them all (the at-risk ledger, the tests).
const MaxNamed = 100

// Named is ids as a pass names them: the first MaxNamed, and how many more there are.
func Named(ids []string) (named []string, more int) {
	if len(ids) <= MaxNamed {
		return ids, 0
	}
	return ids[:MaxNamed], len(ids) - MaxNamed
}

// Clip shortens s to at most n bytes, on a character boundary, marking the cut with "…": a
// message passed between states, whose whole the store keeps.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Handoff is what one task of a state machine hands the next when it may be larger than Step
// Functions passes between states (256 KiB): a rung's decision with its verdict, its attempts
// and its refusals. The execution passes the id and a brief; the next task reads the body here.
// Its id is the digest of its body, so a retried task keeps the same handoff and a body that
// does not match its id is refused on reading.
type Handoff struct {
	ID        string          `json:"id"`
	ProjectID string          `json:"projectId"`
	TestID    string          `json:"testId"`
	Body      json.RawMessage `json:"body"`
	At        time.Time       `json:"at"`
}

// NewHandoff keeps v, of a test of a project, under the digest of its JSON.
func NewHandoff(projectID, testID string, v any, at time.Time) (Handoff, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return Handoff{}, fmt.Errorf("handoff of test %s: %w", testID, err)
	}
	return Handoff{ID: HandoffID(body), ProjectID: projectID, TestID: testID, Body: body, At: at}, nil
}

// HandoffID names a handoff by its body.
func HandoffID(body []byte) string {
	sum := sha256.Sum256(body)
	return "handoff-" + hex.EncodeToString(sum[:16])
}

// Decode reads the body into v after checking that it is the body the id names.
func (h Handoff) Decode(v any) error {
	if HandoffID(h.Body) != h.ID {
		return &CorruptError{Records: []CorruptRecord{{Entity: "handoff", ID: h.ID, Err: fmt.Errorf("its body does not match its id")}}}
	}
	if err := json.Unmarshal(h.Body, v); err != nil {
		return &CorruptError{Records: []CorruptRecord{{Entity: "handoff", ID: h.ID, Err: err}}}
	}
	return nil
}
