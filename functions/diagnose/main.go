// Command diagnose is the DiagnoseFunction Lambda: rung 3 of the ladder, in the Chromium image.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.DiagnoseFunction) }
