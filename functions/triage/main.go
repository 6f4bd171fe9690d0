// Command triage is the TriageFunction Lambda: files the triage issue of a ladder that ended without a green proof.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{}))
	lambda.Start(deps.Triage)
}
