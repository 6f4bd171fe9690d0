// Command dryrun is the DryRunFunction Lambda: the staging pass's dry-run of one at-risk test, in the Chromium image.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.DryRunFunction) }
