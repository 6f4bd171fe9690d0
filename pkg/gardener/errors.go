package gardener

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels for errors.Is; the typed errors below match them. Step Functions routes on the Go
// type name of an error a Lambda returns, so every error a state machine routes on is a type.
var (
	ErrNotFound   = errors.New("not found")
	ErrConflict   = errors.New("conflict")
	ErrIneligible = errors.New("ineligible")
	ErrCorrupt    = errors.New("stored record does not decode")
)

// NotFoundError names the entity that does not exist.
type NotFoundError struct {
	Entity string
	ID     string
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s %q not found", e.Entity, e.ID) }

// Is lets errors.Is(err, ErrNotFound) match.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// ConflictError is a write that lost a race or found the row in another state than expected:
// an approve after a dismiss, a second open proposal, an apply against a moved version.
type ConflictError struct {
	Entity string
	ID     string
	Reason string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Entity, e.ID, e.Reason)
}

// Is lets errors.Is(err, ErrConflict) match.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// IneligibleError says why the gardener will not touch a run or a test.
type IneligibleError struct {
	Reason string
}

func (e *IneligibleError) Error() string { return "not eligible: " + e.Reason }

// Is lets errors.Is(err, ErrIneligible) match.
func (e *IneligibleError) Is(target error) bool { return target == ErrIneligible }

// CorruptError names stored records that do not decode (written by an older, laxer encoder, or
// damaged). Reading one such record returns it. A listing returns it beside the records that
// did decode, because one bad record must not hide the rest: the caller uses the listing and
// reports the error (SplitCorrupt), never drops it silently.
type CorruptError struct {
	Records []CorruptRecord
}

// CorruptRecord is one stored record that does not decode, and why.
type CorruptRecord struct {
	Entity string
	ID     string
	Err    error
}

func (e *CorruptError) Error() string {
	parts := make([]string, len(e.Records))
	for i, r := range e.Records {
		parts[i] = fmt.Sprintf("%s %q does not decode: %v", r.Entity, r.ID, r.Err)
	}
	return strings.Join(parts, "; ")
}

// Is lets errors.Is(err, ErrCorrupt) match.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Add records that the stored entity id does not decode, for err.
func (e *CorruptError) Add(entity, id string, err error) {
	e.Records = append(e.Records, CorruptRecord{Entity: entity, ID: id, Err: err})
}

// Err is e when it names a record, else nil: what a listing returns beside what it read.
func (e *CorruptError) Err() error {
	if e == nil || len(e.Records) == 0 {
		return nil
	}
	return e
}

// SplitCorrupt separates what a listing returned: corrupt is the records it skipped (nil when
// none), failure any other error, in which case the listing is not to be used.
func SplitCorrupt(err error) (corrupt *CorruptError, failure error) {
	if errors.As(err, &corrupt) {
		return corrupt, nil
	}
	return nil, err
}
