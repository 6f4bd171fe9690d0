// Command propose is the ProposeFunction Lambda: the ladder in propose mode for a test whose dry-run failed, in the Chromium image.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.ProposeFunction) }
