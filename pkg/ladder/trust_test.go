package ladder

import (
	"fmt"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

func loc(s string) gardener.Locator { return gardener.MustLocator(s) }

func checkout() []gardener.Step {
	return []gardener.Step{
		{Kind: gardener.Goto, URL: "/checkout"},
		{Kind: gardener.Fill, Locator: loc("label=Card number"), Value: "4242 4242"},
		{Kind: gardener.Click, Locator: loc(`role=button[name="Pay"]`)},
		{Kind: gardener.AssertToast, Text: "Paid"},
	}
}

func greenRun() *gardener.RunResult {
	return &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{
		{Path: "1", URLAfter: "http://app/checkout", Passed: true},
		{Path: "2", Values: []string{"4242 4242"}, Passed: true},
		{Path: "3", Requests: []gardener.Request{{Method: "POST", URL: "http://app/payments?x=1", Status: 201}, {Method: "GET", URL: "http://app/logo.png", Status: 200}}, Passed: true},
		{Path: "4", Observed: "Paid", Passed: true},
	}}
}

func TestContractKeptAndNotKept(t *testing.T) {
	before := checkout()
	after := gardener.CloneSteps(before)
	after[2].Locator = loc(`role=button[name="Pay now"]`)
	proof := *greenRun()
	c := contract(before, after, stepPairs(before, after), greenRun(), proof)
	if k, n := c.Kept(); k != 3 || n != 3 {
		t.Fatalf("kept %d of %d: %+v", k, n, c.Requirements)
	}
	want := []string{"enters [value redacted, 9 chars]", "sends POST /payments", `checks assertToast text "Paid"`}
	for i, r := range c.Requirements {
		if r.What+" "+r.Detail != want[i] {
			t.Errorf("requirement %d: %s %s, want %s", i, r.What, r.Detail, want[i])
		}
	}
	// The same proof, but the click no longer sends the payment: NOT KEPT.
	proof.Steps[2].Requests = nil
	c = contract(before, after, stepPairs(before, after), greenRun(), proof)
	if c.AllKept() || c.Requirements[1].Kept {
		t.Errorf("a request the repaired step no longer sends must not be kept: %+v", c.Requirements)
	}
}

func TestBehaviourAndFlowNotes(t *testing.T) {
	before := checkout()
	// The fill became a click on a simulator button: a behaviour change, and a flow change.
	after := gardener.CloneSteps(before)
	after[1] = gardener.Step{Kind: gardener.Click, Locator: loc("text=Use test card")}
	pairs := stepPairs(before, after)
	b := behaviourNotes(pairs, nil, gardener.RunResult{})
	if len(b) != 1 || b[0].Kind != gardener.NoteBehaviorChange || b[0].Step != "2" || !strings.Contains(b[0].Text, "no longer does fill label=Card number [value redacted, 9 chars]") {
		t.Fatalf("behaviour notes: %+v", b)
	}
	f := flowNotes(pairs, gardener.RunResult{})
	if len(f) != 1 || f[0].Kind != gardener.NoteFlowChange || !strings.Contains(f[0].Text, "performs click text=Use test card at step 2") {
		t.Fatalf("flow notes: %+v", f)
	}
	// A value moved to another control raises no note.
	moved := gardener.CloneSteps(before)
	moved[1] = gardener.Step{Kind: gardener.Select, Locator: loc("label=Card"), Value: "4242 4242"}
	if n := behaviourNotes(stepPairs(before, moved), nil, gardener.RunResult{}); len(n) != 0 {
		t.Errorf("value moved to a dropdown: %+v", n)
	}
	// A dropped navigation click is a flow change.
	dropped := append(gardener.CloneSteps(before[:2]), before[3])
	if n := flowNotes(stepPairs(before, dropped), gardener.RunResult{}); len(n) != 1 || !strings.Contains(n[0].Text, "no longer performs click") {
		t.Errorf("dropped click: %+v", n)
	}
}

func TestUnverified(t *testing.T) {
	steps := checkout()
	proof := *greenRun()
	if u := unverified(steps, proof); u != "" {
		t.Fatalf("unexpected: %s", u)
	}
	proof.Steps[1].Values = []string{""}
	if u := unverified(steps, proof); !strings.Contains(u, "step 2") {
		t.Errorf("empty fill not flagged: %q", u)
	}
}

func TestApplyWithOriginAndMerge(t *testing.T) {
	base := checkout()
	click := gardener.Step{Kind: gardener.Click, Locator: loc("text=Accept")}
	ops := []gardener.Op{{Kind: gardener.OpInsert, Index: 1, Step: &click}, {Kind: gardener.OpDelete, Index: 3}}
	steps, origin, err := applyWithOrigin(base, ops)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 4 || fmt.Sprint(origin) != "[0 -1 1 2]" {
		t.Errorf("origin %v for %d steps", origin, len(steps))
	}
	r1 := gardener.Step{Kind: gardener.Click, Locator: loc("css=#a")}
	r2 := gardener.Step{Kind: gardener.Click, Locator: loc("css=#b")}
	merged := mergeOps([]gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: &r1}, ops[0]}, gardener.Op{Kind: gardener.OpReplace, Index: 2, Step: &r2})
	if len(merged) != 2 || merged[1].Step.Locator != r2.Locator || merged[0].Kind != gardener.OpInsert {
		t.Errorf("merge: %v", merged)
	}
}

func TestHealedLocatorsAndPropagationOps(t *testing.T) {
	base := checkout()
	fixed := base[2]
	fixed.Locator = loc("testid=pay")
	v := gardener.Verdict{Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: &fixed}}}
	changes := HealedLocators(base, v)
	if len(changes) != 1 || changes[0].From != base[2].Locator || changes[0].To != fixed.Locator {
		t.Fatalf("changes %+v", changes)
	}
	other := []gardener.Step{
		{Kind: gardener.Goto, URL: "/cart"},
		{Kind: gardener.Intent, Goal: "pay", Steps: []gardener.Step{{Kind: gardener.Click, Locator: loc(`role=button[name="Pay"]`)}}},
		{Kind: gardener.AssertVisible, Locator: loc(`role=button[name="Pay"]`)},
	}
	ops := locatorOps(other, changes)
	if len(ops) != 2 || ops[0].Index != 1 || ops[0].Step.Steps[0].Locator != fixed.Locator || ops[1].Step.Locator != fixed.Locator {
		t.Fatalf("ops %v", ops)
	}
	// A fix that also changed what the step does is not a locator heal.
	fixed.Kind = gardener.Hover
	if got := HealedLocators(base, v); len(got) != 0 {
		t.Errorf("kind change propagated: %+v", got)
	}
}

// TestSetStepsEnterValues: a set step enters its value as a fill or a select does — the contract
// requires it (masked), a repair that turns it into a fill of the same value raises no note, one
// that drops it is a behaviour change, and a proof that recorded it empty is UNVERIFIED.
func TestSetStepsEnterValues(t *testing.T) {
	before := checkout()
	before[1] = gardener.Step{Kind: gardener.Set, Locator: loc("label=Card number"), Value: "4242 4242"}
	c := contract(before, before, stepPairs(before, before), greenRun(), *greenRun())
	if len(c.Requirements) == 0 || c.Requirements[0].What+" "+c.Requirements[0].Detail != "enters [value redacted, 9 chars]" || !c.Requirements[0].Kept {
		t.Fatalf("requirements %+v", c.Requirements)
	}
	typed := gardener.CloneSteps(before)
	typed[1].Kind = gardener.Fill
	if n := behaviourNotes(stepPairs(before, typed), nil, gardener.RunResult{}); len(n) != 0 {
		t.Errorf("a set that became a fill of the same value: %+v", n)
	}
	dropped := gardener.CloneSteps(before)
	dropped[1] = gardener.Step{Kind: gardener.Click, Locator: loc("text=Use test card")}
	if n := behaviourNotes(stepPairs(before, dropped), nil, gardener.RunResult{}); len(n) != 1 || !strings.Contains(n[0].Text, "no longer does set label=Card number [value redacted, 9 chars]") {
		t.Errorf("a set replaced by a click: %+v", n)
	}
	proof := *greenRun()
	proof.Steps[1].Values = []string{""}
	if u := unverified(before, proof); !strings.Contains(u, "step 2 (set label=Card number [value redacted, 9 chars])") {
		t.Errorf("a set recorded empty: %q", u)
	}
}
