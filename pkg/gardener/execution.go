package gardener

import (
	"context"
	"encoding/json"
	"time"
)

// Execution is what the API records of a state machine execution it started: who may read it
// is decided by its ProjectID, which the API took from the stored run and test, never from the
// caller, and the record is the only place an execution's project is kept.
type Execution struct {
	// ID is the execution's id (its ARN in Step Functions).
	ID string `json:"id"`
	// Name is the name the API started it under: the key of its event log, which the functions
	// it runs know from their input (they are not told the id Step Functions gives it).
	Name      string    `json:"name,omitempty"`
	ProjectID string    `json:"projectId"`
	TestID    string    `json:"testId"`
	RunID     string    `json:"runId"`
	By        string    `json:"by"`
	At        time.Time `json:"at"`
}

// MachineExecution is an execution of a state machine as the local stack's in-process
// interpreter keeps it (Step Functions keeps its own): its name, machine and input, and once it
// ended, its status and output. Kept in the store, it outlives the process, so a restarted
// stack still answers for the executions of the one before, and one that was running when that
// process died reads as ABORTED instead of starting again under the same name.
type MachineExecution struct {
	// ID is the execution's ARN.
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Machine string          `json:"machine"`
	Input   json.RawMessage `json:"input"`
	// Status is RUNNING until it ended: SUCCEEDED, FAILED or ABORTED.
	Status string          `json:"status"`
	Output json.RawMessage `json:"output,omitempty"`
	// Cause says why an execution did not succeed.
	Cause   string    `json:"cause,omitempty"`
	Started time.Time `json:"started"`
	Stopped time.Time `json:"stopped,omitzero"`
}

// ExecutionStore keeps the records of the executions the API started.
type ExecutionStore interface {
	// PutExecution records an execution; an id recorded before is a *ConflictError.
	PutExecution(ctx context.Context, x Execution) error
	// Execution reads an execution's record; *NotFoundError for one the API did not start.
	Execution(ctx context.Context, id string) (Execution, error)
	// RunExecutions lists the executions started for a run, newest first.
	RunExecutions(ctx context.Context, runID string) ([]Execution, error)
	// ClaimExecution makes c the claim of its (RunID, By) in one conditional write: it wins when
	// no claim is held, or when the held one's Name is supersede (the claim of an execution its
	// caller saw end). Otherwise it writes nothing and returns the held claim beside a
	// *ConflictError, so that of any number of racing starters exactly one wins.
	ClaimExecution(ctx context.Context, c ExecutionClaim, supersede string) (ExecutionClaim, error)
}

// ExecutionClaim is one person's hold on the manual ladder of one run: while its execution
// runs, their second request answers with it instead of starting another. It names the
// execution by what it is started with, not by the id Step Functions gives it, so that the claim
// is taken before the start: starting Name with Input again returns the same execution (and
// starts it, if the holder stopped between its claim and its start), so whoever reads the claim
// finds the execution. A claim is superseded by the next request once its execution ended.
type ExecutionClaim struct {
	RunID string          `json:"runId"`
	By    string          `json:"by"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	At    time.Time       `json:"at"`
}
