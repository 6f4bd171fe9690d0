// Package eventbridge puts the gardener's events on an Amazon EventBridge bus (aws-sdk-go-v2).
// Bus is the handler.Publisher of the Lambda functions: the radar's "Radar Sweep Completed"
// reaches the staging state machine through a rule on this bus that matches Source.
package eventbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awseb "github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
)

// Source is the source of every event the gardener puts; the rules in template.yaml match it.
const Source = "drift-gardener"

// Bus puts events on one event bus.
type Bus struct {
	client *awseb.Client
	name   string
}

// New returns the Bus with the given name or ARN. The client honours cfg.BaseEndpoint, which
// points it at another endpoint (moto_server in the tests).
func New(cfg aws.Config, bus string) (*Bus, error) {
	if strings.TrimSpace(bus) == "" {
		return nil, errors.New("eventbridge: no event bus name given")
	}
	return &Bus{client: awseb.NewFromConfig(cfg), name: bus}, nil
}

// Name is the bus's name or ARN, as given to New.
func (b *Bus) Name() string { return b.name }

// PutError is an event that did not reach the bus: its detail is not a JSON object, or the
// request failed as a whole (no such bus, no access, the service unreachable).
type PutError struct {
	Bus        string
	DetailType string
	Err        error
}

func (e *PutError) Error() string {
	return fmt.Sprintf("eventbridge: put %q on bus %s: %v", e.DetailType, e.Bus, e.Err)
}

func (e *PutError) Unwrap() error { return e.Err }

// FailedEntryError is an event the bus refused although the request succeeded: PutEvents
// reports such a failure only in the entry, with a code and a message.
type FailedEntryError struct {
	Bus        string
	DetailType string
	Code       string
	Message    string
}

func (e *FailedEntryError) Error() string {
	return fmt.Sprintf("eventbridge: bus %s refused %q: %s: %s", e.Bus, e.DetailType, e.Code, e.Message)
}

// Retryable reports whether the same event may succeed when put again: the codes EventBridge
// documents as retryable.
func (e *FailedEntryError) Retryable() bool {
	return e.Code == "InternalFailure" || e.Code == "ThrottlingException"
}

// PutEvent puts one event with the given detail type and detail, JSON-encoded, on the bus,
// with Source as its source. The detail must encode to a JSON object, as EventBridge requires.
func (b *Bus) PutEvent(ctx context.Context, detailType string, detail any) error {
	body, err := json.Marshal(detail)
	if err != nil {
		return &PutError{Bus: b.name, DetailType: detailType, Err: fmt.Errorf("encode detail: %w", err)}
	}
	if body[0] != '{' {
		return &PutError{Bus: b.name, DetailType: detailType, Err: fmt.Errorf("detail %.40s is not a JSON object", body)}
	}
	out, err := b.client.PutEvents(ctx, &awseb.PutEventsInput{Entries: []types.PutEventsRequestEntry{{
		EventBusName: aws.String(b.name),
		Source:       aws.String(Source),
		DetailType:   aws.String(detailType),
		Detail:       aws.String(string(body)),
	}}})
	if err != nil {
		return &PutError{Bus: b.name, DetailType: detailType, Err: err}
	}
	if out.FailedEntryCount == 0 {
		return nil
	}
	fe := &FailedEntryError{Bus: b.name, DetailType: detailType, Code: "Unknown", Message: "the entry carries no error code"}
	if len(out.Entries) > 0 && out.Entries[0].ErrorCode != nil {
		fe.Code, fe.Message = aws.ToString(out.Entries[0].ErrorCode), aws.ToString(out.Entries[0].ErrorMessage)
	}
	return fe
}
