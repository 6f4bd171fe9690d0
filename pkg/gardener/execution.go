package gardener

import (
	"context"
	"time"
)

// Execution is what the API records of a state machine execution it started: who may read it
// is decided by its ProjectID, which the API took from the stored run and test, never from the
// caller, and the record is the only place an execution's project is kept.
type Execution struct {
	// ID is the execution's id (its ARN in Step Functions).
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	TestID    string    `json:"testId"`
	RunID     string    `json:"runId"`
	By        string    `json:"by"`
	At        time.Time `json:"at"`
}

// ExecutionStore keeps the records of the executions the API started.
type ExecutionStore interface {
	// PutExecution records an execution; an id recorded before is a *ConflictError.
	PutExecution(ctx context.Context, x Execution) error
	// Execution reads an execution's record; *NotFoundError for one the API did not start.
	Execution(ctx context.Context, id string) (Execution, error)
	// RunExecutions lists the executions started for a run, newest first.
	RunExecutions(ctx context.Context, runID string) ([]Execution, error)
}
