package console_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// xssName and xssText are what a hostile test name and a hostile page show: were either
// rendered as markup, window.__xss would be set.
const (
	xssName = `Checkout <script>window.__xss="name"</script><img src=x onerror="window.__xss='img'">`
	xssText = `Pay <script>window.__xss="diff"</script>`
)

// world is a seeded store: one project with staged proposals, applied auto-repairs, an at-risk
// test and a triage issue, and another project its visitor may not see.
type world struct {
	store *embedded.Store
	now   time.Time
	// proposals by test id; repairs by test id; runs by purpose.
	proposals map[string]string
	repairs   map[string]string
	failedRun string
	control   string
	// asked are the paths a server over this world was asked for.
	asked sync.Map
}

func decodeSteps(t testing.TB, js string) []gardener.Step {
	t.Helper()
	s, err := gardener.DecodeSteps([]byte(js))
	if err != nil {
		t.Fatalf("steps %s: %v", js, err)
	}
	return s
}

func step(t testing.TB, js string) *gardener.Step {
	return &decodeSteps(t, "["+js+"]")[0]
}

const checkoutSteps = `[
 {"kind": "goto", "url": "/cart"},
 {"kind": "fill", "locator": "label=Coupon", "value": "SAVE10"},
 {"kind": "click", "locator": "css=#checkout"},
 {"kind": "assert", "assert": "url", "condition": "contains", "expected": "/checkout"},
 {"kind": "assertVisible", "locator": "role=heading[name=\"Checkout\"]"}
]`

// seed fills a fresh store.
func seed(t testing.TB) *world {
	t.Helper()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	w := &world{store: store, now: now, proposals: map[string]string{}, repairs: map[string]string{}}
	for _, p := range []gardener.Project{
		{ID: "shop", Name: "Plant shop", Plan: gardener.PlanPro, Model: "builtin", Radar: true, AllowedOrigins: []string{"http://shop.test"}},
		{ID: "other", Name: "Someone else's", Plan: gardener.PlanPro, Model: "builtin", Radar: true},
	} {
		if err := store.PutProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	names := map[string]string{
		"approve-me": "Apply a coupon", "dismiss-me": "Check out as a guest", "hostile": xssName,
		"at-risk": "Browse the catalogue", "revert-me": "Log in", "review-me": "Sign up", "quiet": "Read the FAQ",
		"chat-me": "Search the catalogue",
	}
	for _, id := range []string{"approve-me", "dismiss-me", "hostile", "at-risk", "revert-me", "review-me", "quiet", "chat-me"} {
		if err := store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "shop", Name: names[id], Status: gardener.StatusActive, Version: 1, Steps: decodeSteps(t, checkoutSteps)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.CreateTest(ctx, gardener.Test{ID: "secret", ProjectID: "other", Name: "Not yours", Status: gardener.StatusActive, Version: 1, Steps: decodeSteps(t, checkoutSteps)}); err != nil {
		t.Fatal(err)
	}
	// The radar: a baseline, app changes on the cart page, and one test still at risk.
	swept := now.Add(-2 * time.Hour)
	if err := store.PutBaseline(ctx, gardener.Baseline{ProjectID: "shop", At: swept,
		Tests: map[string][]string{"at-risk": {"http://shop.test/cart"}, "approve-me": {"http://shop.test/cart"}},
		Pages: map[string]gardener.PageBaseline{"http://shop.test/cart": {URL: "http://shop.test/cart", Fingerprint: "f1"}}}); err != nil {
		t.Fatal(err)
	}
	change := gardener.AppChange{ID: "chg-1", ProjectID: "shop", URL: "http://shop.test/cart", Kind: "changed", Detail: "the checkout button's id changed (#checkout → #pay)", At: now.Add(-time.Hour), Fingerprint: "f2"}
	hostile := gardener.AppChange{ID: "chg-2", ProjectID: "shop", URL: "javascript:window.__xss='href'", Kind: "changed", Detail: `<img src=x onerror="window.__xss='detail'">`, At: now.Add(-time.Hour), Fingerprint: "f3"}
	for _, c := range []gardener.AppChange{change, hostile} {
		if err := store.PutAppChange(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.MarkAtRisk(ctx, "shop", []string{"at-risk"}, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	// The last sweep missed a page (its error shows page text), and the last pass staged two
	// fixes, found one test still passing and deferred one.
	if err := store.PutSweepSummary(ctx, gardener.SweepSummary{ProjectID: "shop", At: now.Add(-time.Hour), Pages: 2, Changes: 2, AtRisk: 3,
		Unreached: []gardener.UnreachedPage{{URL: "http://shop.test/account", Why: `navigation failed: <img src=x onerror="window.__xss='unreached'">`}}}); err != nil {
		t.Fatal(err)
	}
	pass := gardener.NewPassSummary("shop", now.Add(-50*time.Minute), []string{"at-risk"})
	pass.Add("approve-me", gardener.PassStaged, "")
	pass.Add("dismiss-me", gardener.PassStaged, "")
	pass.Add("quiet", gardener.PassPassing, "")
	if err := store.PutPassSummary(ctx, pass); err != nil {
		t.Fatal(err)
	}
	life := lifecycle.New(store, func() time.Time { return now.Add(-30 * time.Minute) })
	clicks := func(locator string) gardener.Verdict {
		s := step(t, fmt.Sprintf(`{"kind": "click", "locator": %q}`, locator))
		before := decodeSteps(t, checkoutSteps)[2]
		return gardener.Verdict{Strategy: gardener.StrategySelfHeal,
			Ops:     []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: s}},
			Changes: []gardener.Change{{Class: gardener.ClassRepair, Before: &before, After: s, Path: "3", Detail: "the same button, found by its new id"}},
			Contract: gardener.Contract{Requirements: []gardener.Requirement{
				{Step: "2", What: "enters", Detail: `"SAVE10"`, Kept: true},
				{Step: "3", What: "sends", Detail: "POST /api/checkout", Kept: true, By: "click " + locator}}},
			Sensitivity: gardener.Sensitivity{Sensitive: 2, Total: 2}, IntentConfirmed: true}
	}
	held := clicks("css=#pay")
	// The notes as the ladder words them: each names its kind in its text, so it reads alone.
	held.Notes = []gardener.Note{
		{Kind: gardener.NoteUnprovenCheck, Step: "4", Text: "unproven check: step 4, which the repair changed or now precedes, also passes when step 3 does nothing"},
		{Kind: gardener.NoteFlowChange, Step: "3", Text: "the repaired test clicks a different control before the check"},
		{Kind: gardener.NoteInsensitiveCheck, Step: "5", Text: "insensitive check: step 5 passes even when step 3 does nothing"}}
	held.Contract.Requirements[1].Kept = false
	held.Sensitivity.Sensitive = 1
	// Why it is held, as the gardener decides it for an unattended repair: the contract first.
	heldWhy := gardener.Decide(held, gardener.ModeApply, gardener.FromProject, gardener.ActorSchedule).Reason
	for _, p := range []gardener.Proposal{
		{ID: "p-approve", TestID: "approve-me", BaseVersion: 1, Verdict: clicks("css=#pay"), Triggers: []gardener.AppChange{change}, FailedStep: "3", Error: "element-not-found: css=#checkout matched nothing"},
		{ID: "p-dismiss", TestID: "dismiss-me", BaseVersion: 1, Verdict: held, Triggers: []gardener.AppChange{change}, FailedStep: "3", Error: "element-not-found: css=#checkout matched nothing", Reason: heldWhy},
		{ID: "p-hostile", TestID: "hostile", BaseVersion: 1, Verdict: clicks("text=" + xssText), Triggers: []gardener.AppChange{hostile}, FailedStep: "3", Error: `element-not-found: <b onmouseover="window.__xss='error'">`},
	} {
		p.ProjectID = "shop"
		if _, err := life.Stage(ctx, p); err != nil {
			t.Fatalf("staging %s: %v", p.ID, err)
		}
		w.proposals[p.TestID] = p.ID
	}
	// A chat edit a person asked for, staged through the use case every door calls: it deletes
	// the goto (allowed, UNVERIFIED, so approving it asks for a confirmation) and the URL check
	// (withheld by the floor).
	app, err := gardening.New(gardening.Deps{Store: store, Now: func() time.Time { return now.Add(-10 * time.Minute) }})
	if err != nil {
		t.Fatal(err)
	}
	edited, err := app.Edit(ctx, gardening.Person("bob@example.com"), "chat-me", gardening.EditRequest{Source: gardening.EditChat, Version: 1,
		Ops: []gardener.Op{{Kind: gardener.OpDelete, Index: 0}, {Kind: gardener.OpDelete, Index: 3}}})
	if err != nil || edited.Outcome != "staged" || len(edited.Withheld) != 1 {
		t.Fatalf("staging the chat edit: %+v, %v; want it staged with one change withheld", edited, err)
	}
	w.proposals["chat-me"] = edited.Proposal.ID
	// Two applied auto-repairs from scheduled runs, badged until someone looks.
	for _, id := range []string{"revert-me", "review-me"} {
		run := gardener.Run{ID: "sched-" + id, ProjectID: "shop", TestID: id, TestVersion: 1, Trigger: gardener.TriggerSchedule, At: now.Add(-3 * time.Hour),
			Result: &gardener.RunResult{TestID: id, TestVersion: 1, FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound,
				Message: "css=#checkout matched nothing", FinalURL: "http://shop.test/cart",
				Steps: []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, URLAfter: "http://shop.test/cart", Passed: true}, {Path: "2", Kind: gardener.Fill, Passed: true}, {Path: "3", Kind: gardener.Click}}}}
		if err := store.PutRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		t0, err := store.Test(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		v := clicks("css=#pay")
		fixed, err := gardener.ApplySteps(t0.Steps, v.Ops)
		if err != nil {
			t.Fatal(err)
		}
		r := gardener.Repair{ID: "run-" + run.ID, ProjectID: "shop", TestID: id, RunID: run.ID, Verdict: v, PreSteps: t0.Steps,
			FromVersion: 1, ToVersion: 2, At: now.Add(-2*time.Hour - 30*time.Minute), Auto: true, Badge: true}
		if _, err := store.WriteRepair(ctx, gardener.WriteRepair{Steps: fixed, Repair: r}); err != nil {
			t.Fatal(err)
		}
		w.repairs[id] = r.ID
		w.failedRun = run.ID
		// What the repair machine's execution measured, as the local stack records it.
		u := gardener.RepairUsage{Transitions: 14, WriteUnits: 23, ReadUnits: 41.5, Model: "bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0",
			ModelCalls: 1, InputTokens: 2310, OutputTokens: 164, Lambda: []gardener.LambdaUse{
				{Function: "EligibilityFunction", Architecture: "arm64", MemoryMB: 512, Invocations: 1, BilledMillis: 12},
				{Function: "SelfHealFunction", Architecture: "arm64", MemoryMB: 2048, Invocations: 1, BilledMillis: 4210},
				{Function: "PersistFunction", Architecture: "arm64", MemoryMB: 512, Invocations: 1, BilledMillis: 31},
			}}
		if err := store.PutRepairCost(ctx, gardener.RepairCost{RunID: run.ID, ProjectID: "shop", TestID: id, Execution: "auto-" + run.ID,
			At: now.Add(-2*time.Hour - 30*time.Minute), Usage: u, Cost: gardener.ListPrices.Cost(u)}); err != nil {
			t.Fatal(err)
		}
	}
	// The regression the ladder would not repair.
	if err := store.PutTriageIssue(ctx, gardener.TriageIssue{ID: "triage-1", ProjectID: "shop", TestID: "at-risk", RunID: "sched-at-risk",
		Classification: gardener.AppBug, FailedStep: "4", Error: `assertion-failed: url contains "/checkout", was "/error"`,
		Evidence: []string{"the page at failure shows \"Something went wrong\"", "POST /api/checkout answered 500"},
		Attempts: []gardener.Attempt{{Rung: gardener.StrategyDiagnose, Outcome: "app bug: nothing repaired"}}, At: now.Add(-20 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	w.control = "control-quiet"
	if err := store.PutRun(ctx, gardener.Run{ID: w.control, ProjectID: "shop", TestID: "quiet", TestVersion: 1, Trigger: gardener.TriggerManual, Control: true, At: now,
		Result: &gardener.RunResult{TestID: "quiet", FailedStep: "4", ErrorKind: gardener.ErrAssertionFailed, Message: "falsified expectation failed, as required"}}); err != nil {
		t.Fatal(err)
	}
	return w
}
