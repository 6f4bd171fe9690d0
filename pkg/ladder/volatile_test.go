package ladder

import (
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

func cartSteps(cart string) []gardener.Step {
	return []gardener.Step{
		{Kind: gardener.Goto, URL: "/products"},
		{Kind: gardener.Click, Locator: loc(cart)},
		{Kind: gardener.AssertVisible, Locator: loc("css=h1")},
	}
}

func cartProof() gardener.Replay {
	return gardener.Replay{Result: gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{
		{Path: "1", Passed: true}, {Path: "2", Passed: true}, {Path: "3", Passed: true},
	}}}
}

// A heal that names the cart link by "Cart (3)" passes its proof and fails on the next run with
// another quantity: the verdict carries a volatile-locator note, the step is classed review and
// the fix waits for a person even in apply mode. A heal onto a lasting form carries none.
func TestVolatileLocatorNoteClassesTheStepReview(t *testing.T) {
	base := cartSteps("css=.nav-links .cart-link")
	judged := func(healed string) gardener.Verdict {
		t.Helper()
		cand := gardener.Test{ID: "cart", Steps: cartSteps(healed)}
		v, _ := judge(evidence{strategy: gardener.StrategySelfHeal, base: base, cand: cand, proof: cartProof(),
			ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &cand.Steps[1]}}})
		return v
	}
	classOf := func(v gardener.Verdict, path string) gardener.ChangeClass {
		for _, c := range v.Changes {
			if c.Path == path {
				return c.Class
			}
		}
		return ""
	}

	v := judged(`role=link[name="Cart (3)"]`)
	var note *gardener.Note
	for i, n := range v.Notes {
		if n.Kind == gardener.NoteVolatileLocator {
			note = &v.Notes[i]
		}
	}
	if note == nil || note.Step != "2" || !strings.Contains(note.Text, "count") {
		t.Fatalf("notes %+v: want a volatile-locator note on step 2 naming the count", v.Notes)
	}
	if got := note.Kind.Label() + ": " + note.Body(); !strings.HasPrefix(got, "Volatile locator: step 2 now finds its element by role=link") {
		t.Errorf("the note reads %q", got)
	}
	if c := classOf(v, "2"); c != gardener.ClassReview {
		t.Errorf("step 2 classed %q, want review: %+v", c, v.Changes)
	}
	if d := gardener.Decide(v, gardener.ModeApply, gardener.FromProject, gardener.ActorSchedule); d.Apply || !strings.Contains(d.Reason, "volatile locator") {
		t.Errorf("apply mode: %+v, want it staged naming the volatile locator", d)
	}

	v = judged("css=a.basket-link")
	for _, n := range v.Notes {
		if n.Kind == gardener.NoteVolatileLocator {
			t.Fatalf("a lasting locator got a note: %+v", n)
		}
	}
	// The check after the click is not proven sensitive in this bare proof (no probes), so the
	// fix is held for that; never for its locator.
	if d := gardener.Decide(v, gardener.ModeApply, gardener.FromProject, gardener.ActorSchedule); strings.Contains(d.Reason, "volatile") {
		t.Errorf("apply mode, lasting locator: %+v, held for its locator", d)
	}
}

// The note raises a step the change classes alone call repair: a recorded text locator that the
// heal rewrites as a role with the same name (the same element, found another way) is repair,
// but the name carries a price, so the step is review.
func TestVolatileLocatorNoteRaisesARepairToReview(t *testing.T) {
	base := cartSteps("text=Pay $120.00")
	cand := gardener.Test{ID: "pay", Steps: cartSteps(`role=button[name="Pay $120.00"]`)}
	if c := gardener.Classify(base, cand.Steps); len(c) != 1 || c[0].Class != gardener.ClassRepair {
		t.Fatalf("without the note the change is %+v, want one repair", c)
	}
	v, _ := judge(evidence{strategy: gardener.StrategySelfHeal, base: base, cand: cand, proof: cartProof(),
		ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &cand.Steps[1]}}})
	if len(v.Changes) != 1 || v.Changes[0].Class != gardener.ClassReview || !strings.Contains(v.Changes[0].Detail, "volatile-locator note") {
		t.Fatalf("changes %+v: want step 2 raised to review by the volatile-locator note", v.Changes)
	}
}
