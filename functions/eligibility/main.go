// Command eligibility is the EligibilityFunction Lambda: the repair machine's first state, the run-selection gate.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.EligibilityFunction) }
