// Command suiterun is the SuiteRunFunction Lambda: replays one test of the suite, records the run and reports a failure to the repair machine.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.SuiteRunFunction) }
