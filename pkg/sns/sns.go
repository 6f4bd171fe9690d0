// Package sns publishes the gardener's auto-repair events to people through an Amazon SNS topic
// (aws-sdk-go-v2). Topic is the handler.Notifier of the Lambda functions.
//
// A message is JSON; when it is a JSON object with a string "kind" field (applied, staged,
// triaged, reverted), the kind also travels as the String message attribute "kind", so a
// subscription can filter on it without parsing the body.
package sns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssns "github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
)

// MaxSubject is the longest subject sent, in bytes. SNS wants a subject "less than 100
// characters"; 99 bytes meets that however characters are counted.
const MaxSubject = 99

// KindAttribute is the message attribute that carries a message's "kind".
const KindAttribute = "kind"

// Topic publishes to one SNS topic.
type Topic struct {
	client *awssns.Client
	arn    string
}

// New returns the Topic with the given ARN. The client honours cfg.BaseEndpoint, which points it
// at another endpoint (moto_server in the tests).
func New(cfg aws.Config, topicARN string) (*Topic, error) {
	if strings.TrimSpace(topicARN) == "" {
		return nil, errors.New("sns: no topic ARN given")
	}
	return &Topic{client: awssns.NewFromConfig(cfg), arn: topicARN}, nil
}

// ARN is the topic's ARN.
func (t *Topic) ARN() string { return t.arn }

// PublishError is a message that was not published: it could not be encoded, or the topic
// refused it or could not be reached.
type PublishError struct {
	Topic   string
	Subject string
	Err     error
}

func (e *PublishError) Error() string {
	return fmt.Sprintf("sns: publish %q to topic %s: %v", e.Subject, e.Topic, e.Err)
}

func (e *PublishError) Unwrap() error { return e.Err }

// Publish sends message, JSON-encoded, to the topic. The subject is made acceptable to SNS
// rather than refused (see Subject): a notification with a cut subject is better than none.
func (t *Topic) Publish(ctx context.Context, subject string, message any) error {
	body, err := json.Marshal(message)
	if err != nil {
		return &PublishError{Topic: t.arn, Subject: subject, Err: fmt.Errorf("encode message: %w", err)}
	}
	in := &awssns.PublishInput{TopicArn: aws.String(t.arn), Message: aws.String(string(body))}
	if s := Subject(subject); s != "" {
		in.Subject = aws.String(s)
	}
	if kind := kindOf(body); kind != "" {
		in.MessageAttributes = map[string]types.MessageAttributeValue{
			KindAttribute: {DataType: aws.String("String"), StringValue: aws.String(kind)},
		}
	}
	if _, err := t.client.Publish(ctx, in); err != nil {
		return &PublishError{Topic: t.arn, Subject: subject, Err: err}
	}
	return nil
}

// Subject returns s as SNS accepts a subject: valid UTF-8, line breaks and other control
// characters turned into spaces, surrounding space trimmed, and at most MaxSubject bytes, cut at
// a rune boundary and ended with "…" when it was longer. Empty means no subject.
func Subject(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) <= MaxSubject {
		return s
	}
	const ellipsis = "…"
	cut := MaxSubject - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + ellipsis
}

// kindOf returns the string "kind" field of a JSON object, or "" for anything else.
func kindOf(body []byte) string {
	var v struct {
		Kind any `json:"kind"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	kind, _ := v.Kind.(string)
	return strings.TrimSpace(kind)
}
