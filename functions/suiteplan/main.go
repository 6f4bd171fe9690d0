// Command suiteplan is the SuitePlanFunction Lambda: lists the active tests the scheduled suite replays.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.SuitePlanFunction) }
