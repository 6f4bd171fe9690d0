// Command api is the ApiFunction Lambda: the review API behind the HttpApi.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.ApiFunction) }
