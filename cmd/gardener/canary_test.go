package main

import (
	"bytes"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/tests/canary"
)

// TestRepairTextCarriesNoTypedValue: what `gardener repair` prints for a staged fix and for a
// triaged failure (contract lines kept and NOT KEPT, notes, refusals, the diff, the triage
// issue), on a terminal or not, and the text fields of its --json output, carry no value the
// test types. A requirement recorded before values were masked prints masked too.
func TestRepairTextCarriesNoTypedValue(t *testing.T) {
	f := canary.Climb(t)
	legacy := *f.Held.Verdict
	legacy.Contract.Requirements = append([]gardener.Requirement{{Step: "2", What: "enters", Detail: `"` + canary.Typed + `"`}}, legacy.Contract.Requirements...)
	held := f.Held
	held.Verdict = &legacy
	for _, r := range []tend.Tended{{Result: held}, {Result: f.Triaged}} {
		o := toOutput(r, f.Test)
		for _, term := range []bool{false, true} {
			var out bytes.Buffer
			printRepair(&out, marksFor(term), o)
			canary.Absent(t, "gardener repair ("+string(o.Outcome)+")", out.String())
		}
		canary.AbsentJSON(t, "the notes of --json", o.Notes)
		canary.AbsentJSON(t, "the contract of --json", o.Contract)
		canary.AbsentJSON(t, "the refusals of --json", o.Refusals)
		canary.AbsentTriage(t, "the triage issue of --json", o.Triage)
		canary.Absent(t, "the reason of --json", o.Reason)
	}
}
