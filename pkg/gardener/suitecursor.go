package gardener

import (
	"context"
	"time"
)

// SuiteCursor is where the scheduled suite's plan stopped reading: the first test it did not
// read before its deadline. The next plan starts reading there and wraps around, so the tests
// a plan could not read are the first the next one reads. A zero cursor reads from the start
// (projects and their tests by id).
type SuiteCursor struct {
	ProjectID string `json:"projectId"`
	// TestID is the first test of the project not read; empty when the project's tests were
	// not listed at all.
	TestID string    `json:"testId"`
	At     time.Time `json:"at"`
}

// SuiteStore keeps the suite plan's cursor. Put keeps the newer of the stored cursor and the one
// given (by At): a plan that ends after a later one never moves the cursor back.
type SuiteStore interface {
	PutSuiteCursor(ctx context.Context, c SuiteCursor) error
	// SuiteCursor is the stored cursor; *NotFoundError when no plan stopped short yet.
	SuiteCursor(ctx context.Context) (SuiteCursor, error)
}
