package mcpserver_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
	"github.com/driftgardener/gardener/pkg/mcpserver"
)

// TestApplyNamesTheOtherTests: apply_repair answers the other tests that use the locator the
// fix healed; asked to propagate with no browser to replay them in, it refuses before writing.
func TestApplyNamesTheOtherTests(t *testing.T) {
	ctx := context.Background()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.PutProject(ctx, gardener.Project{ID: "p", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{"http://127.0.0.1:9"}}); err != nil {
		t.Fatal(err)
	}
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/"}, {Kind: gardener.Click, Locator: gardener.MustLocator("css=#go")}}
	for _, id := range []string{"t", "u"} {
		if err := store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "p", Version: 1, Status: gardener.StatusActive, Steps: steps}); err != nil {
			t.Fatal(err)
		}
	}
	fixed := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator(`role=button[name="Go"]`)}
	ops := []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &fixed}}
	if _, err := lifecycle.New(store, nil).Stage(ctx, gardener.Proposal{ID: "prop-1", ProjectID: "p", TestID: "t", BaseVersion: 1, Verdict: gardener.Verdict{Strategy: gardener.StrategySelfHeal, Ops: ops, IntentConfirmed: true}}); err != nil {
		t.Fatal(err)
	}
	proof := gardener.RunResult{Passed: true}
	if err := store.PutRun(ctx, gardener.Run{ID: gardener.ProofID("t", 1, ops), ProjectID: "p", TestID: "t", TestVersion: 1, Trigger: gardener.TriggerProof, Probe: true, Result: &proof, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	local := &mcpserver.Local{Store: store}
	if _, err := local.Apply(ctx, mcpserver.ApplyInput{ProposalID: "prop-1", Propagate: true}, "mcp:unit"); err == nil || !strings.Contains(err.Error(), "no browser") {
		t.Fatalf("propagating with no browser: %v", err)
	}
	if tt, _ := store.Test(ctx, "t"); tt.Version != 1 {
		t.Fatalf("a refused apply wrote the test: version %d", tt.Version)
	}
	a, err := local.Apply(ctx, mcpserver.ApplyInput{ProposalID: "prop-1"}, "mcp:unit")
	if err != nil || a.Version != 2 || strings.Join(a.Others, "|") != "u: step 2 uses css=#go" || len(a.Propagated) != 0 {
		t.Fatalf("apply: %+v %v; want u named as using css=#go", a, err)
	}
}
