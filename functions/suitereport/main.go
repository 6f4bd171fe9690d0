// Command suitereport is the SuiteReportFunction Lambda: puts the suite's failed runs on the bus as "Run Failed" for the repair machine.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.SuiteReportFunction) }
