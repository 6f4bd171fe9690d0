// Command notify is the NotifyFunction Lambda: publishes auto-repair events to SNS.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.NotifyFunction) }
