// Command stagingselect is the StagingSelectFunction Lambda: selects at most ten at-risk tests for a staging pass.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{}))
	lambda.Start(deps.StagingSelect)
}
