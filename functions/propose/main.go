// Command propose is the ProposeFunction Lambda: the ladder in propose mode for a test whose dry-run failed, in the Chromium image.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{Browser: true}))
	lambda.Start(deps.Propose)
}
