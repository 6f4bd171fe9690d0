package gardening

import (
	"errors"
	"net/http"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// ErrorClass is what kind of refusal an error is, whatever door answers it: each door maps a
// class to its own answer (an HTTP status, an MCP tool error, a CLI exit code), so the same
// refusal answers alike everywhere.
type ErrorClass int

// Error classes.
const (
	// ClassInternal: something failed; the request may be fine.
	ClassInternal ErrorClass = iota
	// ClassBadInput: the request names something it cannot (a field, a rung, a value).
	ClassBadInput
	// ClassNotFound: no such object, or not one the caller may see.
	ClassNotFound
	// ClassConflict: the object moved on (stale, decided already, lost a race).
	ClassConflict
	// ClassRefused: the rules refuse it for this target or this caller (the gate, a fix held
	// for a person).
	ClassRefused
	// ClassUnproven: a write that needs a green proof has none.
	ClassUnproven
	// ClassUnavailable: this process was not built to serve it.
	ClassUnavailable
	// ClassMoved: the caller's copy is of a version the object is no longer at (someone wrote
	// it since it was read); nothing was written. See MovedVersion.
	ClassMoved
	// ClassUnreachable: the app under test could not be reached at its base URL; nothing was
	// replayed, recorded or started (gardener.UnreachableError).
	ClassUnreachable
)

// ClassOf classifies an error of the application layer or the domain.
func ClassOf(err error) ErrorClass {
	var bad *BadRequestError
	var setting *SettingsError
	var id *gardener.IDError
	var floor *lifecycle.RefusedError
	var unproven *lifecycle.UnprovenError
	var plan *PlanError
	var down *gardener.UnreachableError
	if _, moved := MovedVersion(err); moved {
		return ClassMoved
	}
	switch {
	case err == nil:
		return ClassInternal
	case errors.As(err, &down):
		return ClassUnreachable
	case errors.As(err, &unproven):
		return ClassUnproven
	case errors.Is(err, gardener.ErrNotFound):
		return ClassNotFound
	case errors.Is(err, gardener.ErrStale), errors.Is(err, gardener.ErrConflict):
		return ClassConflict
	case errors.Is(err, gardener.ErrIneligible), errors.As(err, &plan):
		return ClassRefused
	case errors.As(err, &bad), errors.As(err, &setting), errors.As(err, &id), errors.As(err, &floor):
		return ClassBadInput
	case errors.Is(err, ErrUnavailable):
		return ClassUnavailable
	}
	return ClassInternal
}

// HTTPStatus is the class's HTTP status, for the API and the console alike.
func (c ErrorClass) HTTPStatus() int {
	switch c {
	case ClassBadInput:
		return http.StatusBadRequest
	case ClassNotFound:
		return http.StatusNotFound
	case ClassConflict, ClassUnproven:
		return http.StatusConflict
	case ClassRefused:
		return http.StatusForbidden
	case ClassUnavailable:
		return http.StatusNotImplemented
	case ClassMoved:
		return http.StatusPreconditionFailed
	case ClassUnreachable:
		// The gardener is up; the app it acts on behind it did not answer, as a gateway's
		// upstream that did not.
		return http.StatusBadGateway
	}
	return http.StatusInternalServerError
}

// MovedVersion is the version the object is at when err refused a write made on another one
// (ClassMoved): a door hands it back (an ETag) so the caller can read that version again.
func MovedVersion(err error) (int, bool) {
	var base *EditBaseError
	var moved *workspace.MovedError
	var settings *SettingsMovedError
	switch {
	case errors.As(err, &settings):
		return settings.Current, true
	case errors.As(err, &base):
		return base.Version, true
	case errors.As(err, &moved):
		return moved.Version, true
	}
	return 0, false
}
