package bedrock

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/smithy-go"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// The error types below are part of this package's contract. Step Functions routes a Lambda's
// error on its Go type name (ThrottlingError, ServiceError, …), so the names are stable, every
// ask returns them unwrapped, and a handler that wraps one must unwrap it again before it
// returns. What a state machine should do with each:
//
//	ThrottlingError     retry with backoff (Bedrock said slow down)
//	ServiceError        retry a few times (Bedrock or the model failed, or could not be reached)
//	RefusalError        do not retry; the rung has no candidate
//	InvalidOutputError  do not retry; the rung has no candidate, and the answer is in the record
//	RequestError        do not retry; the call itself is wrong (access, model id, quota, input)
//	AskError            do not retry; the ask was malformed and nothing was sent (asks.go)
//
// A context that ends (deadline or cancel) is returned as an error that errors.Is matches with
// context.DeadlineExceeded or context.Canceled.

// ThrottlingError is Bedrock refusing a call for rate: ThrottlingException or HTTP 429. The SDK
// retries it only a few times (WithMaxAttempts), so that the state machine's Retry, with its
// visible, configurable backoff, is what waits out a busy model.
type ThrottlingError struct {
	Model   string
	Ask     string
	Code    string // the service's error code, e.g. ThrottlingException
	Status  int    // HTTP status, 0 when unknown
	Message string
	Err     error
}

func (e *ThrottlingError) Error() string {
	return fmt.Sprintf("%s %s ask: throttled (%s): %s", e.Model, e.Ask, codeStatus(e.Code, e.Status), e.Message)
}

func (e *ThrottlingError) Unwrap() error { return e.Err }

// Retryable tells the ladder to stop and return the error as it is, so the state machine's
// Retry (which matches this type's name) backs off and tries the rung again.
func (e *ThrottlingError) Retryable() bool { return true }

// ServiceError is Bedrock or the model failing on its side: HTTP 5xx, ServiceUnavailable,
// InternalServer, ModelTimeout, ModelNotReady, ModelError; or no Converse response at all — the
// endpoint unreachable, or a body that is not a Converse response. A retry may succeed.
type ServiceError struct {
	Model   string
	Ask     string
	Code    string
	Status  int
	Message string
	Err     error
}

func (e *ServiceError) Error() string {
	return fmt.Sprintf("%s %s ask: service error (%s): %s", e.Model, e.Ask, codeStatus(e.Code, e.Status), e.Message)
}

func (e *ServiceError) Unwrap() error { return e.Err }

// Retryable: see ThrottlingError.Retryable.
func (e *ServiceError) Retryable() bool { return true }

// RequestError is a call Bedrock rejected for what it is — access denied, an unknown model id,
// an exceeded quota, a request it does not accept. Retrying the same call fails the same way.
type RequestError struct {
	Model   string
	Ask     string
	Code    string
	Status  int
	Message string
	Err     error
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("%s %s ask: request rejected (%s): %s", e.Model, e.Ask, codeStatus(e.Code, e.Status), e.Message)
}

func (e *RequestError) Unwrap() error { return e.Err }

// RefusalError is the model declining to answer: a content filter or guardrail stopped it, or
// it wrote text instead of calling the tool. Text is what it wrote, if anything.
type RefusalError struct {
	Model      string
	Ask        string
	StopReason string
	Text       string
	Usage      gardener.Usage // what the refusal cost
}

func (e *RefusalError) Error() string {
	if e.Text == "" {
		return fmt.Sprintf("%s %s ask: the model declined (stop reason %s)", e.Model, e.Ask, e.StopReason)
	}
	return fmt.Sprintf("%s %s ask: the model declined (stop reason %s): %s", e.Model, e.Ask, e.StopReason, e.Text)
}

// InvalidOutputError is an answer that cannot be used: not the tool's schema, a step or op the
// strict domain decoders refuse, an index out of range, a locator that does not parse, or an
// answer cut off. Input is the tool input as the model gave it, for the record.
type InvalidOutputError struct {
	Model  string
	Ask    string
	Reason string
	Input  string
	Usage  gardener.Usage // what the unusable answer cost
	Err    error          // the domain error behind Reason, when there is one
}

func (e *InvalidOutputError) Error() string {
	return fmt.Sprintf("%s %s ask: invalid answer: %s", e.Model, e.Ask, e.Reason)
}

func (e *InvalidOutputError) Unwrap() error { return e.Err }

func codeStatus(code string, status int) string {
	switch {
	case code != "" && status != 0:
		return fmt.Sprintf("%s, HTTP %d", code, status)
	case code != "":
		return code
	case status != 0:
		return fmt.Sprintf("HTTP %d", status)
	}
	return "no response"
}

// serviceCodes are the error codes Bedrock documents as failures on its side that a later call
// may not meet. ModelNotReadyException comes with HTTP 429 but means the model is loading, not
// that the caller is too fast.
var serviceCodes = map[string]bool{
	"ServiceUnavailableException": true,
	"InternalServerException":     true,
	"ModelTimeoutException":       true,
	"ModelNotReadyException":      true,
	"ModelErrorException":         true,
}

// classify turns what the SDK returned into the error types above.
func classify(ctx context.Context, model, ask string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		// The SDK reports an ended context in several shapes; name the context's own error so
		// errors.Is finds it whichever shape this was.
		return fmt.Errorf("%s %s ask: %w (%v)", model, ask, cerr, err)
	}
	var status int
	var withStatus interface{ HTTPStatusCode() int }
	if errors.As(err, &withStatus) {
		status = withStatus.HTTPStatusCode()
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		code, msg := apiErr.ErrorCode(), apiErr.ErrorMessage()
		switch {
		case serviceCodes[code]:
			return &ServiceError{model, ask, code, status, msg, err}
		case code == "ThrottlingException" || status == 429:
			return &ThrottlingError{model, ask, code, status, msg, err}
		case status >= 500:
			return &ServiceError{model, ask, code, status, msg, err}
		}
		return &RequestError{model, ask, code, status, msg, err}
	}
	var deser *smithy.DeserializationError
	if errors.As(err, &deser) {
		return &ServiceError{model, ask, "", status, "the response is not a Converse response: " + deser.Error(), err}
	}
	// No service error code at all: the endpoint could not be reached or answered nothing
	// readable; as far as the state machine is concerned, the service is unavailable.
	return &ServiceError{model, ask, "", status, err.Error(), err}
}
