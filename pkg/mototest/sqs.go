package mototest

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Queue creates an SQS queue named name on the server and returns its URL and ARN. SNS
// subscriptions and EventBridge targets deliver to it inside moto, so a test reads what the
// adapter under test sent as a subscriber would receive it.
func Queue(t testing.TB, cfg aws.Config, name string) (url, arn string) {
	t.Helper()
	ctx := context.Background()
	client := sqs.NewFromConfig(cfg)
	created, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatalf("create queue %s: %v", name, err)
	}
	attrs, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       created.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
	})
	if err != nil {
		t.Fatalf("read the ARN of queue %s: %v", name, err)
	}
	return aws.ToString(created.QueueUrl), attrs.Attributes[string(types.QueueAttributeNameQueueArn)]
}

// Drain receives and deletes every message waiting on the queue at url and returns their bodies
// in the order received. moto delivers to SQS while it answers the publishing call, so what a
// test sent is waiting when Drain runs.
func Drain(t testing.TB, cfg aws.Config, url string) []string {
	t.Helper()
	ctx := context.Background()
	client := sqs.NewFromConfig(cfg)
	var bodies []string
	for {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatalf("receive from queue %s: %v", url, err)
		}
		if len(out.Messages) == 0 {
			return bodies
		}
		for _, m := range out.Messages {
			bodies = append(bodies, aws.ToString(m.Body))
			if _, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatalf("delete message from queue %s: %v", url, err)
			}
		}
	}
}
