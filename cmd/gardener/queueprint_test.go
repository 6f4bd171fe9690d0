package main

import (
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/radar"
)

// TestQueueSaysWhatTheConsoleSays: gardener queue prints what put a row in the queue in the
// domain's words (the console's and the API's origin), so a chat edit's row is not said to be
// triggered by a failed run, and it prints the row's withheld changes and the cautions a person
// confirms before approving, as the console's queue shows them.
func TestQueueSaysWhatTheConsoleSays(t *testing.T) {
	chat := gardener.Proposal{ID: "p-chat", TestID: "t-1", Verdict: gardener.Verdict{Strategy: gardener.StrategyChat, Unverified: "a chat edit is not replayed"}}
	failed := gardener.Proposal{ID: "p-run", TestID: "t-2", FailedStep: "2", Error: "no element"}
	q := radar.Queue{ProjectID: "shop", Rows: []radar.QueueRow{
		{ProposalID: chat.ID, TestID: chat.TestID, StagedAt: time.Now(), Origin: chat.Origin(),
			Withheld: []gardener.Refusal{{Path: "5", Kind: gardener.AssertVisible, Reason: "Outcome assertions are only changed by a human"}},
			Confirm:  []string{"It is UNVERIFIED, so no green re-run proves it: a chat edit is not replayed."}},
		{ProposalID: failed.ID, TestID: failed.TestID, StagedAt: time.Now(), Origin: failed.Origin(), FailedStep: "2", Error: "no element"},
	}}
	var b strings.Builder
	printQueue(&b, q)
	out := b.String()
	chatRow, runRow, _ := strings.Cut(out, "p-run")
	for _, want := range []string{"triggered by: " + chat.Origin(), "step 5 (assertVisible): Outcome assertions are only changed by a human", "It is UNVERIFIED"} {
		if !strings.Contains(chatRow, want) {
			t.Errorf("the chat edit's row lacks %q:\n%s", want, chatRow)
		}
	}
	if strings.Contains(chatRow, "triggered by a failed run") {
		t.Errorf("the chat edit's row says a failed run put it there:\n%s", chatRow)
	}
	if want := "triggered by: " + failed.Origin(); !strings.Contains(runRow, want) {
		t.Errorf("the failed run's row lacks %q:\n%s", want, runRow)
	}
}
