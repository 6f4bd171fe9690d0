// Command propagate is the PropagateFunction Lambda: carries a written locator heal to the other tests that use it, in the Chromium image.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.PropagateFunction) }
