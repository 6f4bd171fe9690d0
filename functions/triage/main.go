// Command triage is the TriageFunction Lambda: files the triage issue of a ladder that ended without a green proof.
package main

import (
	"github.com/driftgardener/gardener/pkg/cloud"
	"github.com/driftgardener/gardener/pkg/handler"
)

func main() { cloud.Start(handler.TriageFunction) }
