// Command stagingselect is the StagingSelectFunction Lambda: selects at most ten at-risk tests for a staging pass.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.StagingSelectFunction) }
