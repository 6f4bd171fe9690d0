package sns_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssns "github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/mototest"
	"github.com/driftgardener/gardener/pkg/sns"
)

func TestMain(m *testing.M) { mototest.Main(m) }

// The port the Lambda functions use.
var _ handler.Notifier = (*sns.Topic)(nil)

// envelope is what an SQS subscriber of an SNS topic receives (raw delivery off).
type envelope struct {
	Type              string
	TopicArn          string
	Subject           string
	Message           string
	MessageAttributes map[string]struct{ Type, Value string }
}

// subscribed creates a topic with an SQS queue subscribed to it.
func subscribed(t *testing.T, cfg aws.Config) (topicARN, queueURL string) {
	t.Helper()
	ctx := context.Background()
	client := awssns.NewFromConfig(cfg)
	topic, err := client.CreateTopic(ctx, &awssns.CreateTopicInput{Name: aws.String(mototest.Name("auto-repair"))})
	if err != nil {
		t.Fatalf("create topic: %v", err)
	}
	url, arn := mototest.Queue(t, cfg, mototest.Name("auto-repair-inbox"))
	if _, err := client.Subscribe(ctx, &awssns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(arn)}); err != nil {
		t.Fatalf("subscribe queue %s to topic %s: %v", arn, aws.ToString(topic.TopicArn), err)
	}
	return aws.ToString(topic.TopicArn), url
}

func TestPublishDelivers(t *testing.T) {
	long := strings.Repeat("Auto-repaired: checkout-flow ", 10)
	cases := []struct {
		name        string
		subject     string
		message     any
		wantSubject string
		wantBody    string
		wantKind    string
	}{
		{
			name:    "notification",
			subject: "Auto-repaired: t-1 (version 3)",
			message: handler.Notification{Kind: handler.NotifyApplied, ProjectID: "p-1", TestID: "t-1", RepairID: "rp-1",
				Subject: "Auto-repaired: t-1 (version 3)", Summary: "self-heal: 1 op(s)"},
			wantSubject: "Auto-repaired: t-1 (version 3)",
			wantBody:    `{"kind":"applied","projectId":"p-1","testId":"t-1","repairId":"rp-1","subject":"Auto-repaired: t-1 (version 3)","summary":"self-heal: 1 op(s)"}`,
			wantKind:    "applied",
		},
		{
			name:        "long subject cut",
			subject:     long,
			message:     map[string]string{"kind": "staged"},
			wantSubject: strings.TrimSpace(long[:sns.MaxSubject-len("…")]) + "…",
			wantBody:    `{"kind":"staged"}`,
			wantKind:    "staged",
		},
		{
			name:        "subject with line breaks",
			subject:     "Not repaired:\nt-2\r\n",
			message:     map[string]any{"kind": 7},
			wantSubject: "Not repaired: t-2",
			wantBody:    `{"kind":7}`,
		},
		{
			name:     "no subject, not an object",
			subject:  "  ",
			message:  []string{"a", "b"},
			wantBody: `["a","b"]`,
		},
	}
	cfg := mototest.Config(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topicARN, queue := subscribed(t, cfg)
			topic, err := sns.New(cfg, topicARN)
			if err != nil {
				t.Fatal(err)
			}
			if err := topic.Publish(context.Background(), c.subject, c.message); err != nil {
				t.Fatalf("Publish: %v", err)
			}
			bodies := mototest.Drain(t, cfg, queue)
			if len(bodies) != 1 {
				t.Fatalf("queue received %d messages, want 1: %q", len(bodies), bodies)
			}
			var got envelope
			if err := json.Unmarshal([]byte(bodies[0]), &got); err != nil {
				t.Fatalf("delivery is not an SNS envelope: %v: %s", err, bodies[0])
			}
			if got.Type != "Notification" || got.TopicArn != topicARN {
				t.Errorf("envelope type %q topic %q, want Notification from %s", got.Type, got.TopicArn, topicARN)
			}
			if got.Subject != c.wantSubject {
				t.Errorf("subject %q, want %q", got.Subject, c.wantSubject)
			}
			if got.Message != c.wantBody {
				t.Errorf("message %s, want %s", got.Message, c.wantBody)
			}
			kind := got.MessageAttributes[sns.KindAttribute]
			if kind.Value != c.wantKind || (c.wantKind != "" && kind.Type != "String") {
				t.Errorf("kind attribute %+v, want String %q", kind, c.wantKind)
			}
		})
	}
}

func TestPublishFails(t *testing.T) {
	cfg := mototest.Config(t)
	topicARN, queue := subscribed(t, cfg)
	cases := []struct {
		name    string
		topic   string
		message any
		want    string
	}{
		{"unencodable message", topicARN, map[string]any{"kind": "applied", "f": func() {}}, "encode message"},
		{"no such topic", topicARN + "-gone", map[string]string{"kind": "applied"}, "NotFound"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topic, err := sns.New(cfg, c.topic)
			if err != nil {
				t.Fatal(err)
			}
			err = topic.Publish(context.Background(), "subject", c.message)
			var pe *sns.PublishError
			if !errors.As(err, &pe) || pe.Topic != c.topic || pe.Subject != "subject" {
				t.Fatalf("Publish error %v (%T), want a *sns.PublishError naming topic %s and the subject", err, err, c.topic)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.topic) {
				t.Errorf("error %q does not say %q and name the topic", err, c.want)
			}
		})
	}
	if bodies := mototest.Drain(t, cfg, queue); len(bodies) != 0 {
		t.Errorf("failed publishes delivered %d messages: %q", len(bodies), bodies)
	}
}

func TestNewRefusesNoTopic(t *testing.T) {
	if _, err := sns.New(aws.Config{}, " "); err == nil {
		t.Fatal("New with a blank topic ARN returned no error")
	}
}

func TestSubject(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"kept", "Repair staged for review: t-1", "Repair staged for review: t-1"},
		{"empty", "", ""},
		{"control characters", "a\tb\x00c\u0085d", "a b c d"},
		{"invalid UTF-8", "bad \xff byte", "bad \uFFFD byte"},
		{"exactly the limit", strings.Repeat("x", sns.MaxSubject), strings.Repeat("x", sns.MaxSubject)},
		{"one over", strings.Repeat("x", sns.MaxSubject+1), strings.Repeat("x", sns.MaxSubject-3) + "…"},
		{"two-byte rune across the cut", "x" + strings.Repeat("é", 60), "x" + strings.Repeat("é", 47) + "…"},
		{"four-byte rune across the cut", "ab" + strings.Repeat("🌱", 30), "ab" + strings.Repeat("🌱", 23) + "…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := sns.Subject(c.in)
			if got != c.want {
				t.Errorf("Subject(%q) = %q, want %q", c.in, got, c.want)
			}
			if len(got) > sns.MaxSubject || !utf8.ValidString(got) {
				t.Errorf("Subject(%q) = %q: %d bytes, valid UTF-8 %v", c.in, got, len(got), utf8.ValidString(got))
			}
		})
	}
}

func FuzzSubject(f *testing.F) {
	f.Add("Auto-repaired: t-1 (version 3)")
	f.Add(strings.Repeat("é", 60))
	f.Fuzz(func(t *testing.T, s string) {
		got := sns.Subject(s)
		if len(got) > sns.MaxSubject || !utf8.ValidString(got) || strings.ContainsAny(got, "\r\n") {
			t.Errorf("Subject(%q) = %q is not a subject SNS accepts", s, got)
		}
	})
}

// BenchmarkPublish is one Publish round trip to moto_server, to a topic without subscribers.
func BenchmarkPublish(b *testing.B) {
	cfg := mototest.Config(b)
	client := awssns.NewFromConfig(cfg)
	created, err := client.CreateTopic(context.Background(), &awssns.CreateTopicInput{Name: aws.String(mototest.Name("bench"))})
	if err != nil {
		b.Fatal(err)
	}
	topic, err := sns.New(cfg, aws.ToString(created.TopicArn))
	if err != nil {
		b.Fatal(err)
	}
	n := handler.Notification{Kind: handler.NotifyStaged, ProjectID: "p-1", TestID: "t-1", ProposalID: "pr-1", Subject: "Repair staged for review: t-1"}
	for b.Loop() {
		if err := topic.Publish(context.Background(), n.Subject, n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSubject(b *testing.B) {
	s := strings.Repeat("Auto-repaired: checkout-flow é ", 10)
	for b.Loop() {
		sns.Subject(s)
	}
}
