// Command suggestfix is the SuggestFixFunction Lambda: rung 2 of the ladder, in the Chromium image.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.SuggestFixFunction) }
