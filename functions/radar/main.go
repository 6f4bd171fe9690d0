// Command radar is the RadarFunction Lambda: the scheduled radar sweep, in the Chromium image.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/cloud"
)

func main() {
	deps := cloud.Must(cloud.Load(context.Background(), cloud.Needs{Browser: true, Events: true}))
	lambda.Start(deps.Radar(cloud.RadarProjects()))
}
