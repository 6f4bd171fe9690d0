// Command radar is the RadarFunction Lambda: the scheduled radar sweep, in the Chromium image.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.RadarFunction) }
