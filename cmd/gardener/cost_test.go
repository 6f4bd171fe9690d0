package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
)

// TestRepairSummaryShowsTheCost: the summary `gardener repair` prints ends with what the repair
// used and what it cost at list prices, as recorded with its run.
func TestRepairSummaryShowsTheCost(t *testing.T) {
	u := gardener.RepairUsage{WriteUnits: 12, ReadUnits: 30.5, Model: "bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0", ModelCalls: 2, InputTokens: 4000, OutputTokens: 600}
	c := gardener.RepairCost{RunID: "r1", Usage: u, Cost: gardener.ListPrices.Cost(u)}
	var b bytes.Buffer
	printRepair(&b, marksFor(false), &repairOutput{Outcome: ladder.Refused, TestID: "login", RunID: "r1", Cost: &c})
	// 4 × $0.003 + 0.6 × $0.015 + 12 × $0.625/M + 30.5 × $0.125/M = $0.02101131…
	want := "cost $0.02101 at us-east-1 list prices of " + gardener.ListPrices.AsOf + ": 0 state transitions, 0 Lambda invocations (0.000 GB-s), 12.0 DynamoDB write / 30.5 read units, tokens in/out 4000/600\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("summary:\n%s\nwant it to end with:\n%s", b.String(), want)
	}
}
