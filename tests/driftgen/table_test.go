package driftgen

import (
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
)

// TestTablePrintsEachClassWithItsOwnColumns: drift kinds count what became of the cases and
// the cases left out, regressions count triaged, refused and false heals; each class has a
// total, and a kind generated but not drawn still shows how many were generated.
func TestTablePrintsEachClassWithItsOwnColumns(t *testing.T) {
	res := func(k Kind, v Verdict) CaseResult {
		return CaseResult{Mutation: Mutation{Kind: k, Class: ClassOf(k)}, Verdict: v, AppBug: v == Triaged && ClassOf(k) == Regression}
	}
	results := []CaseResult{
		res(Overlay, RepairedIntended), res(Overlay, StagedIntended), res(Overlay, Triaged), res(Overlay, StillGreen),
		res(RenameID, RepairedIntended), res(RenameID, Unrepairable), res(RenameID, Wrong),
		res(DeadButton, Triaged), res(DeadButton, Refused), res(HTTP500, FalseHeal), res(HTTP500, NotApplied),
		res(RenameID, CannotTell), res(HTTP500, CannotTell), res(RenameID, Fragile),
	}
	// The rename-id repair survived its second load, the fragile one did not; the staged overlay
	// was held for a flow change.
	results[4].SecondLoad, results[4].Survived = true, true
	results[len(results)-1].SecondLoad = true
	results[1].Hold = gardener.HoldFlowChange
	generated := []Mutation{{Kind: Overlay}, {Kind: Overlay}, {Kind: Overlay}, {Kind: Overlay}, {Kind: Overlay}, {Kind: RenameID}, {Kind: RenameID}, {Kind: RenameID},
		{Kind: Synonym}, {Kind: DeadButton}, {Kind: DeadButton}, {Kind: HTTP500}, {Kind: HTTP500}}
	var b strings.Builder
	Print(&b, Table(results, generated))
	lines := map[string][]string{}
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(l); len(f) > 1 {
			name := f[0]
			if name == "all" {
				name, f = f[0]+" "+f[1], f[1:]
			}
			lines[name] = f[1:]
		}
	}
	for name, want := range map[string]string{
		// generated drawn counted repaired staged triaged cannot-tell wrong fragile flaky app-bug
		// survives-a-second-load | green n/a unrepairable
		"overlay":   "5 4 3 1 1 1 0 0 0 0 0 0/0 1 0 0",
		"rename-id": "3 5 4 1 0 0 1 1 1 0 0 1/2 0 0 1",
		"synonym":   "1 0 0 0 0 0 0 0 0 0 0 0/0 0 0 0",
		"all drift": "9 9 7 2 1 1 1 1 1 0 0 1/2 1 0 1",
		// generated drawn counted triaged cannot-tell refused false-heals app-bug | green n/a
		"dead-button":    "2 2 2 1 0 1 0 1 0 0",
		"http-500":       "2 3 2 0 1 0 1 0 0 1",
		"all regression": "4 5 4 1 1 1 1 1 0 1",
	} {
		if got := strings.Join(lines[name], " "); got != want {
			t.Errorf("%s: %q, want %q\n%s", name, got, want, b.String())
		}
	}
	if !strings.Contains(b.String(), "  overlay: flow change ×1") || !strings.Contains(b.String(), "survives a second load") {
		t.Errorf("the table names no hold rule per kind or no second load:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "unrepairable by reference fix") || !strings.Contains(b.String(), "false heals") || !strings.Contains(b.String(), "cannot tell") {
		t.Errorf("the headers name no reference fix or false heals:\n%s", b.String())
	}
}

// TestCaseNotesMaskWhatAStepEnters: a case's note, which the table run prints, shows a repair's
// ops as people are shown steps: a fill's value masked, its locator in full.
func TestCaseNotesMaskWhatAStepEnters(t *testing.T) {
	fill := gardener.Step{Kind: gardener.Fill, Locator: gardener.MustLocator("label=Password"), Value: "hunter2-secret"}
	res := ladder.Result{Rungs: []ladder.RungReport{{Attempts: []gardener.Attempt{
		{Outcome: "red", Ops: []gardener.Op{{Kind: gardener.OpInsert, Index: 0, Step: &fill}}},
		{Outcome: "green", Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: &fill}, {Kind: gardener.OpDelete, Index: 4}}},
	}}}}
	got := describeOps(res)
	if strings.Contains(got, "hunter2") || !strings.Contains(got, "replace 2: fill label=Password [value redacted") || !strings.Contains(got, "delete 4") {
		t.Errorf("note %q: want the green ops with the fill's value masked", got)
	}
}
