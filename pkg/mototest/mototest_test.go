package mototest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/driftgardener/gardener/pkg/mototest"
)

func TestMain(m *testing.M) { mototest.Main(m) }

func TestConfigPointsAtTheServer(t *testing.T) {
	cfg := mototest.Config(t)
	endpoint := aws.ToString(cfg.BaseEndpoint)
	if endpoint != mototest.Endpoint(t) || !strings.HasPrefix(endpoint, "http://127.0.0.1:") {
		t.Fatalf("BaseEndpoint %q, want the loopback server %q", endpoint, mototest.Endpoint(t))
	}
	if cfg.Region != "us-east-1" {
		t.Errorf("region %q, want us-east-1", cfg.Region)
	}
	creds, err := cfg.Credentials.Retrieve(context.Background())
	if err != nil || creds.AccessKeyID != "test" || creds.SecretAccessKey != "test" {
		t.Errorf("credentials %+v, %v; want test/test", creds, err)
	}
	resp, err := http.Get(endpoint + "/moto-api/data.json")
	if err != nil {
		t.Fatalf("moto_server does not answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /moto-api/data.json: %s", resp.Status)
	}
}

func TestQueueAndDrain(t *testing.T) {
	cfg := mototest.Config(t)
	url, arn := mototest.Queue(t, cfg, mototest.Name("inbox"))
	if !strings.HasPrefix(arn, "arn:aws:sqs:us-east-1:") || url == "" {
		t.Fatalf("Queue = %q, %q; want a URL and an SQS ARN", url, arn)
	}
	if got := mototest.Drain(t, cfg, url); len(got) != 0 {
		t.Errorf("a new queue holds %q", got)
	}
}

func TestNameIsUnique(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		n := mototest.Name("topic")
		if seen[n] || !strings.HasPrefix(n, "topic-") {
			t.Fatalf("Name returned %q twice or without its prefix", n)
		}
		seen[n] = true
	}
}
