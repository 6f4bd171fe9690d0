// Command eligibility is the EligibilityFunction Lambda: the repair machine's first state, the run-selection gate.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{}))
	lambda.Start(deps.Eligibility)
}
