package eventbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awseb "github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge/types"

	"github.com/driftgardener/gardener/pkg/eventbridge"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/mototest"
)

func TestMain(m *testing.M) { mototest.Main(m) }

// The port the Lambda functions use.
var _ handler.Publisher = (*eventbridge.Bus)(nil)

const sweepCompleted = "Radar Sweep Completed"

// event is what a rule's SQS target receives.
type event struct {
	Source     string          `json:"source"`
	DetailType string          `json:"detail-type"`
	Detail     json.RawMessage `json:"detail"`
}

// routed creates a bus with a rule like the staging one in template.yaml (source
// drift-gardener, detail type "Radar Sweep Completed") that targets an SQS queue.
func routed(t *testing.T, cfg aws.Config) (bus, queueURL string) {
	t.Helper()
	ctx := context.Background()
	client := awseb.NewFromConfig(cfg)
	bus = mototest.Name("gardener-bus")
	if _, err := client.CreateEventBus(ctx, &awseb.CreateEventBusInput{Name: aws.String(bus)}); err != nil {
		t.Fatalf("create bus %s: %v", bus, err)
	}
	pattern, _ := json.Marshal(map[string][]string{"source": {eventbridge.Source}, "detail-type": {sweepCompleted}})
	rule := mototest.Name("sweep-completed")
	if _, err := client.PutRule(ctx, &awseb.PutRuleInput{Name: aws.String(rule), EventBusName: aws.String(bus), EventPattern: aws.String(string(pattern))}); err != nil {
		t.Fatalf("put rule %s on bus %s: %v", rule, bus, err)
	}
	url, arn := mototest.Queue(t, cfg, mototest.Name("staging-inbox"))
	out, err := client.PutTargets(ctx, &awseb.PutTargetsInput{Rule: aws.String(rule), EventBusName: aws.String(bus),
		Targets: []types.Target{{Id: aws.String("staging"), Arn: aws.String(arn)}}})
	if err != nil || out.FailedEntryCount != 0 {
		t.Fatalf("target queue %s from rule %s: %v %+v", arn, rule, err, out)
	}
	return bus, url
}

func TestPutEventRoutes(t *testing.T) {
	cases := []struct {
		name       string
		detailType string
		detail     any
		wantDetail string // empty: the rule does not match, nothing is delivered
	}{
		{"sweep completed", sweepCompleted, map[string]any{"projectId": "p-1", "atRisk": []string{"t-1", "t-2"}},
			`{"atRisk":["t-1","t-2"],"projectId":"p-1"}`},
		{"raw JSON object", sweepCompleted, json.RawMessage(`{ "projectId": "p-2" }`), `{"projectId":"p-2"}`},
		{"another detail type", "Run Failed", map[string]string{"runId": "r-1"}, ""},
	}
	cfg := mototest.Config(t)
	bus, queue := routed(t, cfg)
	b, err := eventbridge.New(cfg, bus)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := b.PutEvent(context.Background(), c.detailType, c.detail); err != nil {
				t.Fatalf("PutEvent: %v", err)
			}
			bodies := mototest.Drain(t, cfg, queue)
			if c.wantDetail == "" {
				if len(bodies) != 0 {
					t.Fatalf("the rule matched %q: %q", c.detailType, bodies)
				}
				return
			}
			if len(bodies) != 1 {
				t.Fatalf("queue received %d events, want 1: %q", len(bodies), bodies)
			}
			var got event
			if err := json.Unmarshal([]byte(bodies[0]), &got); err != nil {
				t.Fatalf("delivery is not an event: %v: %s", err, bodies[0])
			}
			if got.Source != eventbridge.Source || got.DetailType != c.detailType {
				t.Errorf("source %q detail-type %q, want %q %q", got.Source, got.DetailType, eventbridge.Source, c.detailType)
			}
			if detail := compact(t, got.Detail); detail != c.wantDetail {
				t.Errorf("detail %s, want %s", detail, c.wantDetail)
			}
		})
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("detail %s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestPutEventFails(t *testing.T) {
	cfg := mototest.Config(t)
	bus, queue := routed(t, cfg)
	cases := []struct {
		name       string
		bus        string
		detailType string
		detail     any
		wantCode   string // a *FailedEntryError with this code; empty: a *PutError
		want       string
	}{
		{"no detail type", bus, "", map[string]string{"projectId": "p-1"}, "InvalidArgument", "DetailType"},
		{"detail not an object", bus, sweepCompleted, []string{"t-1"}, "", `["t-1"] is not a JSON object`},
		{"null detail", bus, sweepCompleted, nil, "", "null is not a JSON object"},
		{"unencodable detail", bus, sweepCompleted, map[string]any{"c": make(chan int)}, "", "encode detail"},
		{"no such bus", bus + "-gone", sweepCompleted, map[string]string{"projectId": "p-1"}, "", "ResourceNotFoundException"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := eventbridge.New(cfg, c.bus)
			if err != nil {
				t.Fatal(err)
			}
			err = b.PutEvent(context.Background(), c.detailType, c.detail)
			var failed *eventbridge.FailedEntryError
			var put *eventbridge.PutError
			switch {
			case c.wantCode != "":
				if !errors.As(err, &failed) || failed.Code != c.wantCode || failed.Bus != c.bus {
					t.Fatalf("PutEvent error %v (%T), want a *FailedEntryError with code %s on bus %s", err, err, c.wantCode, c.bus)
				}
			case !errors.As(err, &put) || put.Bus != c.bus || put.DetailType != c.detailType:
				t.Fatalf("PutEvent error %v (%T), want a *PutError naming bus %s and %q", err, err, c.bus, c.detailType)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.bus) {
				t.Errorf("error %q does not say %q and name the bus", err, c.want)
			}
		})
	}
	if bodies := mototest.Drain(t, cfg, queue); len(bodies) != 0 {
		t.Errorf("failed puts delivered %d events: %q", len(bodies), bodies)
	}
}

func TestFailedEntryRetryable(t *testing.T) {
	cases := map[string]bool{
		"InternalFailure":       true,
		"ThrottlingException":   true,
		"AccessDeniedException": false,
		"InvalidArgument":       false,
		"MalformedDetail":       false,
	}
	for code, want := range cases {
		if got := (&eventbridge.FailedEntryError{Code: code}).Retryable(); got != want {
			t.Errorf("Retryable() for %s = %v, want %v", code, got, want)
		}
	}
}

func TestNewRefusesNoBus(t *testing.T) {
	if _, err := eventbridge.New(aws.Config{}, ""); err == nil {
		t.Fatal("New with no bus returned no error")
	}
}

// BenchmarkPutEvent is one PutEvent round trip to moto_server, on a bus without rules.
func BenchmarkPutEvent(b *testing.B) {
	cfg := mototest.Config(b)
	bus := mototest.Name("bench-bus")
	if _, err := awseb.NewFromConfig(cfg).CreateEventBus(context.Background(), &awseb.CreateEventBusInput{Name: aws.String(bus)}); err != nil {
		b.Fatal(err)
	}
	eb, err := eventbridge.New(cfg, bus)
	if err != nil {
		b.Fatal(err)
	}
	detail := map[string]any{"projectId": "p-1", "atRisk": []string{"t-1", "t-2"}}
	for b.Loop() {
		if err := eb.PutEvent(context.Background(), sweepCompleted, detail); err != nil {
			b.Fatal(err)
		}
	}
}
