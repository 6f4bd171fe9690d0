package asl

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/aws/aws-lambda-go/lambda/messages"
)

// Predefined error names of the Amazon States Language that the interpreter raises or matches.
const (
	ErrAll               = "States.ALL"
	ErrTaskFailed        = "States.TaskFailed"
	ErrTimeout           = "States.Timeout"
	ErrRuntime           = "States.Runtime"
	ErrNoChoiceMatched   = "States.NoChoiceMatched"
	ErrIntrinsicFailure  = "States.IntrinsicFailure"
	ErrResultPathMatch   = "States.ResultPathMatchFailure"
	ErrDataLimitExceeded = "States.DataLimitExceeded"
)

// Failure is an ASL error: a name that Retry and Catch match, and a cause for people. A state
// that fails produces one; so does an execution. An Invoker may return a *Failure to raise a
// named error directly; a Go Lambda handler does not need to.
type Failure struct {
	Name  string `json:"Error"`
	Cause string `json:"Cause"`

	aborted bool // the execution was cancelled or timed out around the state that failed
}

func (f *Failure) Error() string { return f.Name + ": " + f.Cause }

// terminal reports whether no Retry or Catch may handle the error: the spec makes
// States.Runtime and States.DataLimitExceeded end the execution.
func (f *Failure) terminal() bool {
	return f.aborted || f.Name == ErrRuntime || f.Name == ErrDataLimitExceeded
}

func fail(name, format string, args ...any) *Failure {
	return &Failure{Name: name, Cause: fmt.Sprintf(format, args...)}
}

// ErrorName is the error name Step Functions sees when a Go Lambda returns err: aws-lambda-go
// reports the dynamic type's name without package or pointer (*bedrock.ThrottlingError is
// "ThrottlingError", errors.New gives "errorString", fmt.Errorf with %w gives "wrapError";
// wrapping hides the inner type, exactly as in Lambda).
func ErrorName(err error) string {
	switch e := err.(type) {
	case *Failure:
		return e.Name
	case messages.InvokeResponse_Error:
		return e.Type
	case *messages.InvokeResponse_Error:
		return e.Type
	}
	return reflectName(err)
}

func reflectName(v any) string {
	t := reflect.TypeOf(v)
	if t == nil {
		return "nil"
	}
	if t.Kind() == reflect.Pointer {
		return t.Elem().Name()
	}
	return t.Name()
}

// lambdaFailure turns an error returned by an invoker into the Failure Step Functions records
// for a Lambda function error: the error type as Error, the function's error payload as Cause.
func lambdaFailure(err error) *Failure {
	if f, ok := err.(*Failure); ok {
		return &Failure{Name: f.Name, Cause: f.Cause}
	}
	name := ErrorName(err)
	msg := err.Error()
	if e, ok := err.(messages.InvokeResponse_Error); ok {
		msg = e.Message
	}
	cause, _ := json.Marshal(struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType"`
	}{msg, name})
	return &Failure{Name: name, Cause: string(cause)}
}

// matches reports whether an ErrorEquals list handles the error name: States.ALL matches any
// error, States.TaskFailed any but States.Timeout (as the Step Functions documentation puts
// it), and otherwise names must be equal. Terminal errors never get this far.
func matches(errorEquals []string, name string) bool {
	for _, want := range errorEquals {
		switch {
		case want == name, want == ErrAll:
			return true
		case want == ErrTaskFailed && name != ErrTimeout:
			return true
		}
	}
	return false
}
