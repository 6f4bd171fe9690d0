// Command diagnose is the DiagnoseFunction Lambda: rung 3 of the ladder, in the Chromium image.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/gardener"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{Browser: true}))
	lambda.Start(deps.Rung(gardener.StrategyDiagnose))
}
