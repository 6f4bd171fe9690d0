package gardener

import (
	"errors"
	"fmt"
)

// Sentinels for errors.Is; the typed errors below match them. Step Functions routes on the Go
// type name of an error a Lambda returns, so every error a state machine routes on is a type.
var (
	ErrNotFound   = errors.New("not found")
	ErrConflict   = errors.New("conflict")
	ErrIneligible = errors.New("ineligible")
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
