// Command notify is the NotifyFunction Lambda: publishes auto-repair events to SNS.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{Notifier: true}))
	lambda.Start(deps.Notify)
}
