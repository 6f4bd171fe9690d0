package gardening_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// green replays every test green on one page, recording each step, and finds every probed
// check failing before its step: a stand-in for the browser where what is under test is which
// tests an approval reaches and what it writes to them, not how a page is replayed (the
// propagation's replay and judgement are the ladder's, tested with Chromium there).
type green struct{ replayed []string }

func (g *green) Replay(_ context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	g.replayed = append(g.replayed, t.ID)
	rep := gardener.Replay{Result: gardener.RunResult{TestID: t.ID, Passed: true, FailedIndex: -1}}
	for i, s := range t.Steps {
		rep.Result.Steps = append(rep.Result.Steps, gardener.StepRecord{Path: strconv.Itoa(i + 1), Kind: s.Kind, URLBefore: o.BaseURL, URLAfter: o.BaseURL, Passed: true})
	}
	for a, checks := range o.Probes {
		if rep.Probes == nil {
			rep.Probes = map[int][]gardener.ProbeResult{}
		}
		for _, c := range checks {
			rep.Probes[a] = append(rep.Probes[a], gardener.ProbeResult{Check: c, Path: strconv.Itoa(a + 1)})
		}
	}
	return rep, nil
}

func (*green) Close() error { return nil }

var (
	oldGo  = gardener.MustLocator("css=#go")
	healed = gardener.MustLocator(`role=button[name="Go on"]`)
)

// approvalShop is a project whose sign-in and checkout tests both click css=#go, with a
// proposal healing it in sign-in; search clicks something else, and an archived test that used
// it is left out.
func approvalShop(t *testing.T) (*gardening.Service, gardener.Store) {
	t.Helper()
	ctx := context.Background()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "gardener.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.PutProject(ctx, gardener.Project{ID: "shop", Name: "Shop", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{"http://app.test"}}))
	flow := func(page, done string, click gardener.Locator) []gardener.Step {
		return []gardener.Step{
			{Kind: gardener.Goto, URL: page},
			{Kind: gardener.Click, Locator: click},
			{Kind: gardener.AssertVisible, Locator: gardener.MustLocator("text=" + done)},
		}
	}
	for _, tt := range []gardener.Test{
		{ID: "signin", Steps: flow("/login", "Welcome", oldGo), Status: gardener.StatusActive},
		{ID: "checkout", Name: "Check out", Steps: flow("/cart", "Thanks", oldGo), Status: gardener.StatusActive},
		{ID: "search", Steps: flow("/", "Results", gardener.MustLocator("css=#q")), Status: gardener.StatusActive},
		{ID: "old", Steps: flow("/old", "Old", oldGo), Status: gardener.StatusArchived},
	} {
		tt.ProjectID, tt.Version = "shop", 1
		must(store.CreateTest(ctx, tt))
	}
	fixed := gardener.Step{Kind: gardener.Click, Locator: healed}
	ops := []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &fixed}}
	_, err = store.StageProposal(ctx, gardener.Proposal{ID: "prop-signin", ProjectID: "shop", TestID: "signin", BaseVersion: 1, Status: gardener.ProposalProposed,
		Verdict:    gardener.Verdict{Strategy: gardener.StrategySelfHeal, IntentConfirmed: true, Ops: ops, Sensitivity: gardener.Sensitivity{Sensitive: 1, Total: 1}},
		FailedStep: "2", Error: "no element matches css=#go", StagedAt: time.Now(), UpdatedAt: time.Now()})
	must(err)
	proof := &gardener.RunResult{TestID: "signin", TestVersion: 1, Passed: true, FailedIndex: -1}
	must(store.PutRun(ctx, gardener.Run{ID: gardener.ProofID("signin", 1, ops), ProjectID: "shop", TestID: "signin", TestVersion: 1, Trigger: gardener.TriggerProof, Probe: true, Result: proof, At: time.Now()}))
	app, err := gardening.New(gardening.Deps{Store: store})
	must(err)
	return app, store
}

func testAt(t *testing.T, store gardener.Store, id string) gardener.Test {
	t.Helper()
	tt, err := store.Test(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// A plain approval names the other active tests that use the healed locator, with their steps,
// and leaves them as they are.
func TestApproveNamesTheOtherTestsUsingTheHealedLocator(t *testing.T) {
	app, store := approvalShop(t)
	a, err := app.Approve(context.Background(), gardening.Person("ann@example.com"), "prop-signin", gardening.ApproveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Test.Version != 2 || len(a.Others) != 1 || a.Others[0].TestID != "checkout" || strings.Join(a.Others[0].Steps, ",") != "2" || a.Others[0].Locators[0] != "css=#go" {
		t.Fatalf("approval: version %d, others %+v; want checkout's step 2 named", a.Test.Version, a.Others)
	}
	if said := a.OthersSaid(); len(said) != 1 || said[0] != "checkout: step 2 uses css=#go" {
		t.Errorf("others said %q", said)
	}
	if c := testAt(t, store, "checkout"); c.Version != 1 || c.Steps[1].Locator != oldGo {
		t.Errorf("a plain approval changed checkout: version %d, step 2 %s", c.Version, c.Steps[1].Locator)
	}
}

// An approval with propagation carries the heal to the other tests through the propagation
// auto-repair runs: replayed green, judged, and written for a person who approved; an agent's
// copies are staged. Without a browser it is refused before anything is written.
func TestApproveWithPropagation(t *testing.T) {
	ctx := context.Background()
	app, store := approvalShop(t)
	_, err := app.Approve(ctx, gardening.Person("ann@example.com"), "prop-signin", gardening.ApproveOptions{Propagate: true})
	if !errors.Is(err, gardening.ErrUnavailable) {
		t.Fatalf("propagation without a browser: %v, want ErrUnavailable", err)
	}
	if s := testAt(t, store, "signin"); s.Version != 1 {
		t.Fatalf("a refused approval wrote sign-in: version %d", s.Version)
	}

	runner := &green{}
	a, err := app.Approve(ctx, gardening.Person("ann@example.com"), "prop-signin", gardening.ApproveOptions{Propagate: true, Here: gardening.Here{Runner: runner}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(runner.replayed, ",") != "checkout" || len(a.Propagated) != 1 || gardening.CarriedOf(a.Propagated[0]) != gardening.CarriedWritten {
		t.Fatalf("replayed %v, propagated %q; want checkout replayed and written", runner.replayed, a.PropagatedSaid())
	}
	c := testAt(t, store, "checkout")
	if c.Version != 2 || c.Steps[1].Locator != healed {
		t.Errorf("checkout after the approval: version %d, step 2 %s; want version 2 with %s", c.Version, c.Steps[1].Locator, healed)
	}
	if said := a.PropagatedSaid(); len(said) != 1 || !strings.HasPrefix(said[0], "checkout: written as version 2") {
		t.Errorf("propagated said %q", said)
	}

	// An agent may apply the proven fix, but its copies wait for a person.
	app, store = approvalShop(t)
	a, err = app.Approve(ctx, gardening.Agent("mcp:client"), "prop-signin", gardening.ApproveOptions{Propagate: true, Here: gardening.Here{Runner: &green{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Propagated) != 1 || gardening.CarriedOf(a.Propagated[0]) != gardening.CarriedStaged {
		t.Fatalf("an agent's propagation: %q, want checkout staged for a person", a.PropagatedSaid())
	}
	if c := testAt(t, store, "checkout"); c.Version != 1 {
		t.Errorf("an agent's propagation wrote checkout: version %d", c.Version)
	}
}

// testsUnread is a store whose list of a project's tests does not answer.
type testsUnread struct{ gardener.Store }

func (testsUnread) Tests(context.Context, string) ([]gardener.Test, error) {
	return nil, errors.New("the store did not answer")
}

// An approval asked to carry the heal whose other tests cannot be read stands, and says that
// carrying stopped, rather than answering as if no other test used the locator.
func TestApprovePropagationSaysWhenTheOtherTestsCannotBeRead(t *testing.T) {
	_, store := approvalShop(t)
	app, err := gardening.New(gardening.Deps{Store: testsUnread{store}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Approve(context.Background(), gardening.Person("ann@example.com"), "prop-signin", gardening.ApproveOptions{Propagate: true, Here: gardening.Here{Runner: &green{}}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Test.Version != 2 || !strings.Contains(a.PropagateError, "the store did not answer") {
		t.Fatalf("approval: version %d, propagateError %q; want the approval written and why carrying stopped", a.Test.Version, a.PropagateError)
	}
}
