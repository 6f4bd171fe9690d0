// Command selfheal is the SelfHealFunction Lambda: rung 1 of the ladder, in the Chromium image.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.SelfHealFunction) }
