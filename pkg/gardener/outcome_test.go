package gardener

import "testing"

// TestRepairOutcome: a repair's outcome is its own test's outcome event, the first one; rung
// events, other tests' outcomes and a log without one say nothing.
func TestRepairOutcome(t *testing.T) {
	cases := []struct {
		name   string
		test   string
		events []LadderEvent
		want   string
	}{
		{"no events", "t", nil, ""},
		{"undecided", "t", []LadderEvent{{Stage: EventReproduce, TestID: "t"}, {Stage: EventRung, TestID: "t", Outcome: "no-fix"}}, ""},
		{"triaged", "t", []LadderEvent{{Stage: EventRung, TestID: "t", Outcome: "no-fix"}, {Stage: EventOutcome, TestID: "t", Outcome: "triaged"}, {Stage: EventTriage, TestID: "t"}}, "triaged"},
		{"another test's outcome is not this repair's", "t", []LadderEvent{{Stage: EventOutcome, TestID: "u", Outcome: "repaired"}, {Stage: EventOutcome, TestID: "t", Outcome: "staged"}}, "staged"},
		{"not eligible, no test named", "t", []LadderEvent{{Stage: EventEligibility}, {Stage: EventOutcome, Outcome: "not-eligible"}}, "not-eligible"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RepairOutcome(c.test, c.events); got != c.want {
				t.Errorf("RepairOutcome = %q, want %q", got, c.want)
			}
		})
	}
}
