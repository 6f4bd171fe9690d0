// Command stagingsummary is the StagingSummaryFunction Lambda: writes the staging pass summary.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.StagingSummaryFunction) }
