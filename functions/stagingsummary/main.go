// Command stagingsummary is the StagingSummaryFunction Lambda: writes the staging pass summary.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{}))
	lambda.Start(deps.Summary)
}
