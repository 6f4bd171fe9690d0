package lifecycle_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// dismissFirst is a store on which another writer dismisses the proposal just before an
// approval's write reaches it: the approval read the row open, and loses the race.
type dismissFirst struct {
	*embedded.Store
}

func (s dismissFirst) ApplyProposal(ctx context.Context, a gardener.ApplyProposal) (gardener.Test, error) {
	if _, err := s.CloseProposal(ctx, gardener.CloseProposal{ProposalID: a.ProposalID, Status: gardener.ProposalDismissed, By: "bob@example.com", At: a.Repair.At}); err != nil {
		return gardener.Test{}, err
	}
	return s.Store.ApplyProposal(ctx, a)
}

// TestApprovalLosingARaceIsRefusedAlike: an approval whose row another writer decided between
// its read and its write is refused with the words of an approval of a row read decided (the
// second of two clicks), not with the store's transition error wrapped in another prefix; and
// it writes nothing.
func TestApprovalLosingARaceIsRefusedAlike(t *testing.T) {
	ctx := context.Background()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.PutProject(ctx, gardener.Project{ID: "p", Plan: gardener.PlanPro, Model: "builtin"}); err != nil {
		t.Fatal(err)
	}
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/"}, {Kind: gardener.Click, Locator: gardener.MustLocator("css=#go")}}
	if err := store.CreateTest(ctx, gardener.Test{ID: "t", ProjectID: "p", Version: 1, Status: gardener.StatusActive, Steps: steps}); err != nil {
		t.Fatal(err)
	}
	fixed := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator(`role=button[name="Go"]`)}
	ops := []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &fixed}}
	if _, err := lifecycle.New(store, nil).Stage(ctx, gardener.Proposal{ID: "prop-1", ProjectID: "p", TestID: "t", BaseVersion: 1, Verdict: gardener.Verdict{Strategy: gardener.StrategySelfHeal, Ops: ops, IntentConfirmed: true}}); err != nil {
		t.Fatal(err)
	}
	_, raced := lifecycle.New(dismissFirst{store}, nil).Approve(ctx, "prop-1", "ann@example.com")
	_, again := lifecycle.New(store, nil).Approve(ctx, "prop-1", "ann@example.com")
	if raced == nil || again == nil || raced.Error() != again.Error() {
		t.Errorf("an approval that lost the race: %v\nan approval of the decided row: %v\nwant the same refusal", raced, again)
	}
	if tt, _ := store.Test(ctx, "t"); tt.Version != 1 {
		t.Errorf("a refused approval wrote the test: version %d", tt.Version)
	}
}
