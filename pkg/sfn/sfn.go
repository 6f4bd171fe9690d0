// Package sfn starts and reads AWS Step Functions executions (aws-sdk-go-v2). Machines is the
// handler.Starter of the API function, which starts the repair state machine for a person and
// lets them follow it.
//
// Starting is idempotent by name, as the port promises: a second Start with the same name and
// the same input returns the first execution's ARN whether it still runs or has ended (Step
// Functions itself answers so only while it runs); the same name with another input is an
// ExecutionConflictError.
package sfn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Machines starts executions of any state machine the credentials may start.
type Machines struct {
	client *awssfn.Client
}

// New returns Machines on the Step Functions endpoint of cfg. The client honours
// cfg.BaseEndpoint, which points it at another endpoint (moto_server in the tests).
func New(cfg aws.Config) *Machines {
	return &Machines{client: awssfn.NewFromConfig(cfg)}
}

// StartError is an execution that was not started: its input could not be encoded, or Step
// Functions refused the request (no such machine, a name or input it does not accept) or could
// not be reached.
type StartError struct {
	Machine string
	Name    string
	Err     error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("sfn: start %q on %s: %v", e.Name, e.Machine, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// ExecutionConflictError is a start under a name an execution of the machine already has, with
// another input. It matches gardener.ErrConflict.
type ExecutionConflictError struct {
	Machine string
	Name    string
	// Execution is the ARN of the execution that holds the name.
	Execution string
}

func (e *ExecutionConflictError) Error() string {
	return fmt.Sprintf("sfn: start %q on %s: execution %s has that name with another input", e.Name, e.Machine, e.Execution)
}

// Is lets errors.Is(err, gardener.ErrConflict) match.
func (e *ExecutionConflictError) Is(target error) bool { return target == gardener.ErrConflict }

// DescribeError is an execution that could not be read for another reason than not existing
// (an execution that does not exist is a *gardener.NotFoundError).
type DescribeError struct {
	Execution string
	Err       error
}

func (e *DescribeError) Error() string {
	return fmt.Sprintf("sfn: describe execution %s: %v", e.Execution, e.Err)
}

func (e *DescribeError) Unwrap() error { return e.Err }

// Start starts machine (a state machine ARN) with input, JSON-encoded, under name, and returns
// the execution's ARN. An empty name lets Step Functions choose one, and gives up idempotence.
func (m *Machines) Start(ctx context.Context, machine, name string, input any) (string, error) {
	if strings.TrimSpace(machine) == "" {
		return "", &StartError{Machine: machine, Name: name, Err: errors.New("no state machine ARN given")}
	}
	body, err := json.Marshal(input)
	if err != nil {
		return "", &StartError{Machine: machine, Name: name, Err: fmt.Errorf("encode input: %w", err)}
	}
	in := &awssfn.StartExecutionInput{StateMachineArn: aws.String(machine), Input: aws.String(string(body))}
	if name != "" {
		in.Name = aws.String(name)
	}
	out, err := m.client.StartExecution(ctx, in)
	var exists *types.ExecutionAlreadyExists
	switch {
	case err == nil:
		return aws.ToString(out.ExecutionArn), nil
	case errors.As(err, &exists):
		return m.existing(ctx, machine, name, body, err)
	}
	return "", &StartError{Machine: machine, Name: name, Err: err}
}

// existing returns the execution that holds name when it was started with the same input.
func (m *Machines) existing(ctx context.Context, machine, name string, input []byte, startErr error) (string, error) {
	arn, ok := executionARN(machine, name)
	if !ok {
		return "", &StartError{Machine: machine, Name: name, Err: startErr}
	}
	out, err := m.client.DescribeExecution(ctx, &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
	if err != nil {
		return "", &StartError{Machine: machine, Name: name, Err: fmt.Errorf("%w; reading execution %s that holds the name: %w", startErr, arn, err)}
	}
	if !sameJSON(input, []byte(aws.ToString(out.Input))) {
		return "", &ExecutionConflictError{Machine: machine, Name: name, Execution: arn}
	}
	return arn, nil
}

// executionARN is the ARN Step Functions gives the execution name of a standard state machine:
// arn:<partition>:states:<region>:<account>:stateMachine:<machine>[:<version or alias>] becomes
// arn:<partition>:states:<region>:<account>:execution:<machine>:<name>.
func executionARN(machine, name string) (string, bool) {
	parts := strings.Split(machine, ":")
	if len(parts) < 7 || parts[0] != "arn" || parts[2] != "states" || parts[5] != "stateMachine" || parts[6] == "" {
		return "", false
	}
	return strings.Join(parts[:5], ":") + ":execution:" + parts[6] + ":" + name, true
}

// sameJSON compares two JSON texts ignoring insignificant white space; Step Functions keeps
// the input as sent, and Start always sends it compact.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// Describe returns the execution's status and, once it ended, its output. An execution that
// failed, timed out or was aborted has no output; Describe returns its error and cause instead,
// as the JSON object {"error": …, "cause": …}, so the person following it learns why. An
// execution that does not exist, or an ARN that is not one, is a *gardener.NotFoundError.
func (m *Machines) Describe(ctx context.Context, executionID string) (string, string, error) {
	if strings.TrimSpace(executionID) == "" {
		return "", "", &gardener.NotFoundError{Entity: "execution", ID: executionID}
	}
	out, err := m.client.DescribeExecution(ctx, &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(executionID)})
	if err != nil {
		var missing *types.ExecutionDoesNotExist
		var invalid *types.InvalidArn
		if errors.As(err, &missing) || errors.As(err, &invalid) {
			return "", "", &gardener.NotFoundError{Entity: "execution", ID: executionID}
		}
		return "", "", &DescribeError{Execution: executionID, Err: err}
	}
	output := aws.ToString(out.Output)
	if output == "" && (out.Error != nil || out.Cause != nil) {
		// Two strings always encode.
		failure, _ := json.Marshal(struct {
			Error string `json:"error,omitempty"`
			Cause string `json:"cause,omitempty"`
		}{aws.ToString(out.Error), aws.ToString(out.Cause)})
		output = string(failure)
	}
	return string(out.Status), output, nil
}

// History reads an execution's history: its input (from the ExecutionStarted event) and each
// event's type beside the type of the event it follows (previousEventId), what counting its
// state transitions needs (gardener.Transitions). An execution that does not exist is a
// *gardener.NotFoundError.
func (m *Machines) History(ctx context.Context, executionID string) (json.RawMessage, []gardener.HistoryEvent, error) {
	var input json.RawMessage
	var events []gardener.HistoryEvent
	typeOf := map[int64]string{}
	p := awssfn.NewGetExecutionHistoryPaginator(m.client, &awssfn.GetExecutionHistoryInput{ExecutionArn: aws.String(executionID), MaxResults: 1000})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			var missing *types.ExecutionDoesNotExist
			var invalid *types.InvalidArn
			if errors.As(err, &missing) || errors.As(err, &invalid) {
				return nil, nil, &gardener.NotFoundError{Entity: "execution", ID: executionID}
			}
			return nil, nil, fmt.Errorf("the history of execution %s: %w", executionID, err)
		}
		for _, ev := range page.Events {
			typeOf[ev.Id] = string(ev.Type)
			events = append(events, gardener.HistoryEvent{Type: string(ev.Type), Previous: typeOf[ev.PreviousEventId]})
			if d := ev.ExecutionStartedEventDetails; d != nil && input == nil {
				input = json.RawMessage(aws.ToString(d.Input))
			}
		}
	}
	return input, events, nil
}
