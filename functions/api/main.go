// Command api is the ApiFunction Lambda: the review API behind the HttpApi.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{Notifier: true, Starter: true}))
	lambda.Start(deps.API())
}
