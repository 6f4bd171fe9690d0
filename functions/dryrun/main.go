// Command dryrun is the DryRunFunction Lambda: the staging pass's dry-run of one at-risk test, in the Chromium image.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{Browser: true}))
	lambda.Start(deps.DryRun)
}
