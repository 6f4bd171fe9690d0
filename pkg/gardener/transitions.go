package gardener

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// The transitions below are what a Store's writes do to a record, and the orders its listings
// promise. Each is decided here once; the drivers read, call them and write the result
// atomically (or express the same rule in their backend's conditional update), and
// pkg/storetest proves them equal.

// Close is the open row p moved to status, decided by by at at. A row no longer proposed is a
// *ConflictError: someone decided it first.
func (p Proposal) Close(status ProposalStatus, by string, at time.Time) (Proposal, error) {
	if p.Status != ProposalProposed {
		return p, &ConflictError{Entity: "proposal", ID: p.ID, Reason: fmt.Sprintf("is %s, not proposed", p.Status)}
	}
	p.Status = status
	p.DecidedBy, p.DecidedAt, p.UpdatedAt = by, at, at
	return p, nil
}

// Check refuses an approval of row p that was computed for another test or version than a
// names: its steps would be written over the wrong test.
func (a ApplyProposal) Check(p Proposal) error {
	if p.TestID != a.TestID || p.BaseVersion != a.BaseVersion {
		return fmt.Errorf("apply proposal %s: it is of test %s version %d, not test %s version %d", a.ProposalID, p.TestID, p.BaseVersion, a.TestID, a.BaseVersion)
	}
	return nil
}

// Validate refuses a status CloseProposal cannot move a row to: applied is ApplyProposal's, and
// proposed is no decision.
func (c CloseProposal) Validate() error {
	switch c.Status {
	case ProposalDismissed, ProposalStale, ProposalSuperseded:
		return nil
	default:
		return fmt.Errorf("close proposal %s: %q is not dismissed, stale or superseded", c.ProposalID, c.Status)
	}
}

// Remembers reports whether closing remembers c.Dismissal: only a dismissal does, and only when
// it names changes.
func (c CloseProposal) Remembers() bool {
	return c.Status == ProposalDismissed && len(c.Dismissal.Changes) > 0
}

// AddTo is the set of change fingerprints dismissed at k's test version once k is dismissed:
// known with k's changes added, each once.
func (k DismissalKey) AddTo(known []string) []string {
	for _, ch := range k.Changes {
		if !slices.Contains(known, ch) {
			known = append(known, ch)
		}
	}
	return known
}

// CoveredBy reports whether every change of k is among the fingerprints dismissed at k's test
// version. A key without changes is never covered: there is nothing to recognise it by.
func (k DismissalKey) CoveredBy(dismissed []string) bool {
	if len(k.Changes) == 0 {
		return false
	}
	for _, ch := range k.Changes {
		if !slices.Contains(dismissed, ch) {
			return false
		}
	}
	return true
}

// Revert is r reverted by by at at, its badge cleared. A repair reverted already is a
// *ConflictError.
func (r Repair) Revert(by string, at time.Time) (Repair, error) {
	if !r.RevertedAt.IsZero() {
		return r, &ConflictError{Entity: "repair", ID: r.ID, Reason: fmt.Sprintf("was reverted already by %s", r.RevertedBy)}
	}
	r.RevertedAt, r.RevertedBy, r.Badge = at, by, false
	return r, nil
}

// Reviewed is r marked reviewed by by: its badge cleared, the fix kept. Only a repair still
// badged Auto-repaired is reviewed: one reverted, one reviewed already and one a person approved
// (it never carried the badge) are a *ConflictError naming why, so a second click or a stale page
// changes nothing and says so.
func (r Repair) Reviewed(by string) (Repair, error) {
	switch {
	case !r.RevertedAt.IsZero():
		return r, &ConflictError{Entity: "repair", ID: r.ID, Reason: fmt.Sprintf("was reverted by %s: there is no fix left to review", r.RevertedBy)}
	case r.ReviewedBy != "":
		return r, &ConflictError{Entity: "repair", ID: r.ID, Reason: fmt.Sprintf("was reviewed already by %s", r.ReviewedBy)}
	case !r.Badge:
		return r, &ConflictError{Entity: "repair", ID: r.ID, Reason: "carries no Auto-repaired badge: a person approved it"}
	}
	r.Badge, r.ReviewedBy = false, by
	return r, nil
}

// Edited is the stored test t after a person's edit e, made against e.Version: e's name, status
// and steps at the next version, in t's project. An edit made against another version than
// t's is a *ConflictError, so a save never overwrites a write it did not see.
func (t Test) Edited(e Test) (Test, error) {
	if t.Version != e.Version {
		return Test{}, &ConflictError{Entity: "test", ID: e.ID, Reason: fmt.Sprintf("edited against version %d but the test is at version %d", e.Version, t.Version)}
	}
	if err := StepsRoundTrip(e.Steps); err != nil {
		return Test{}, fmt.Errorf("test %s: %w", e.ID, err)
	}
	out := e.Clone()
	out.ProjectID = t.ProjectID
	out.Version = t.Version + 1
	return out, nil
}

// WithSteps is t with steps written at the next version, if t is at base; else a *StaleError,
// because whatever computed steps did so against a version that moved. Steps that would not
// read back as they are (StepsRoundTrip) are refused, naming the step and field.
func (t Test) WithSteps(base int, steps []Step) (Test, error) {
	if t.Version != base {
		return t, &StaleError{TestID: t.ID, BaseVersion: base, Version: t.Version}
	}
	if err := StepsRoundTrip(steps); err != nil {
		return t, fmt.Errorf("test %s: %w", t.ID, err)
	}
	t.Steps = CloneSteps(steps)
	t.Version++
	return t, nil
}

// Green reports whether r counts as its test's green run, the one the ladder compares a failure
// with: it passed, and it is neither a control run nor a probe.
func (r Run) Green() bool {
	return r.Result != nil && r.Result.Passed && !r.Control && !r.Probe && r.TestID != ""
}

// Seen is the ledger entry after a sweep found its test at risk at at: a new entry (zero
// FirstSeen) is first seen then, one already on the ledger keeps its FirstSeen.
func (a AtRisk) Seen(at time.Time) AtRisk {
	if a.FirstSeen.IsZero() {
		a.FirstSeen = at
	}
	a.LastSeen = at
	return a
}

// SortAtRisk orders an at-risk ledger longest at risk first (FirstSeen, then test id), so a
// staging pass capped at ten takes the oldest and the next sweep the rest.
func SortAtRisk(ledger []AtRisk) {
	slices.SortStableFunc(ledger, func(a, b AtRisk) int {
		if c := a.FirstSeen.Compare(b.FirstSeen); c != 0 {
			return c
		}
		return strings.Compare(a.TestID, b.TestID)
	})
}

// NewestFirst orders records by time descending, then id descending, so records of equal time
// list stably: the order of every newest-first listing of a Store. Negated, it is the
// oldest-first order of the queue.
func NewestFirst(aAt time.Time, aID string, bAt time.Time, bID string) int {
	if c := bAt.Compare(aAt); c != 0 {
		return c
	}
	return strings.Compare(bID, aID)
}

// Updated is p changed by update, at the next version. update gets a copy, so a failed update
// leaves p as it was; it may not change the project's id. An update that changes nothing
// answers p at its own version, and a store then writes nothing.
func (p Project) Updated(update func(*Project) error) (Project, error) {
	next := p
	next.AllowedOrigins = slices.Clone(p.AllowedOrigins)
	if err := update(&next); err != nil {
		return p, err
	}
	if next.ID != p.ID {
		return p, fmt.Errorf("update project %s: the update changed its id to %q", p.ID, next.ID)
	}
	// A write that changes nothing is no new version: another writer holding this version's
	// ETag would be refused for nothing. The store writes nothing when the version stays.
	if reflect.DeepEqual(next, p) {
		return p, nil
	}
	next.Version = p.Version + 1
	return next, nil
}
