// Command propagate is the PropagateFunction Lambda: carries a written locator heal to the other tests that use it, in the Chromium image.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{Browser: true}))
	lambda.Start(deps.Propagate)
}
