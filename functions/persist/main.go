// Command persist is the PersistFunction Lambda: writes a green rung's decision after checking its proof.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.PersistFunction) }
