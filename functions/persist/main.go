// Command persist is the PersistFunction Lambda: writes a green rung's decision after checking its proof.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{}))
	lambda.Start(deps.Persist)
}
