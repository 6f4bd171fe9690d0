package gardener

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestPlanStage(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	later := at.Add(time.Hour)
	c1 := AppChange{ID: "c-1", At: at}
	c2 := AppChange{ID: "c-2", At: at.Add(time.Minute)}
	c3 := AppChange{ID: "c-3", At: at.Add(-time.Minute)}
	open := Proposal{ID: "pr-open", TestID: "t", BaseVersion: 3, Status: ProposalProposed, Triggers: []AppChange{c1}, StagedAt: at, UpdatedAt: at}
	p := Proposal{ID: "pr-new", TestID: "t", BaseVersion: 3, Status: ProposalProposed, Triggers: []AppChange{c2, c1, c2}, StagedAt: later, UpdatedAt: later}
	ordered := p
	ordered.Triggers = []AppChange{c1, c2}
	openAt := func(v int, mut func(*Proposal)) *Proposal {
		x := open
		x.BaseVersion = v
		if mut != nil {
			mut(&x)
		}
		return &x
	}
	withVersion := func(v int) Proposal {
		x := p
		x.BaseVersion = v
		return x
	}
	cases := []struct {
		name        string
		p           Proposal
		prior, open *Proposal
		want        StagePlan
		staged      Staged
		err         error
	}{
		{
			name:   "no open row: p is staged with its triggers in order, once each",
			p:      p,
			want:   StagePlan{Outcome: StagedNew, Stage: ordered},
			staged: Staged{Outcome: StagedNew, Proposal: ordered},
		},
		{
			name:  "p's id staged before: a duplicate, whatever is open",
			p:     p,
			prior: &ordered, open: openAt(2, nil),
			want:   StagePlan{Outcome: StagedDuplicate, Duplicate: ordered},
			staged: Staged{Outcome: StagedDuplicate, Proposal: ordered},
		},
		{
			name:  "p's id recorded on the open row before: a duplicate naming that row",
			p:     p,
			prior: openAt(3, nil), open: openAt(3, nil),
			want:   StagePlan{Outcome: StagedDuplicate, Duplicate: open},
			staged: Staged{Outcome: StagedDuplicate, Proposal: open},
		},
		{
			name:   "p is the open row already (staged between the reads): a duplicate",
			p:      p,
			open:   &ordered,
			want:   StagePlan{Outcome: StagedDuplicate, Duplicate: ordered},
			staged: Staged{Outcome: StagedDuplicate, Proposal: ordered},
		},
		{
			name: "open row of the same version: p is recorded on it",
			p:    p,
			open: openAt(3, func(x *Proposal) { x.Restated = 4; x.Triggers = []AppChange{c1, c3} }),
			want: StagePlan{Outcome: StagedRestated, Restated: *openAt(3, func(x *Proposal) {
				x.Restated, x.UpdatedAt, x.Triggers = 5, later, []AppChange{c3, c1, c2}
			})},
			staged: Staged{Outcome: StagedRestated, Proposal: *openAt(3, func(x *Proposal) {
				x.Restated, x.UpdatedAt, x.Triggers = 5, later, []AppChange{c3, c1, c2}
			})},
		},
		{
			name: "open row of an older version: superseded at p's staging time, p staged",
			p:    withVersion(4),
			open: openAt(3, nil),
			want: StagePlan{Outcome: StagedSuperseded, Stage: func() Proposal { x := ordered; x.BaseVersion = 4; return x }(),
				Superseded: *openAt(3, func(x *Proposal) { x.Status, x.DecidedAt, x.UpdatedAt = ProposalSuperseded, later, later })},
			staged: Staged{Outcome: StagedSuperseded, Proposal: func() Proposal { x := ordered; x.BaseVersion = 4; return x }(), Superseded: "pr-open"},
		},
		{
			name: "open row of a newer version: p is stale",
			p:    withVersion(2),
			open: openAt(3, nil),
			err:  &StaleError{TestID: "t", BaseVersion: 2, Version: 3},
		},
		{
			name: "an open row that is not proposed cannot be superseded",
			p:    withVersion(4),
			open: openAt(3, func(x *Proposal) { x.Status = ProposalApplied }),
			err:  &ConflictError{Entity: "proposal", ID: "pr-open", Reason: "is applied, not proposed"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan, err := PlanStage(c.p, c.prior, c.open)
			if c.err != nil {
				if !reflect.DeepEqual(err, c.err) {
					t.Fatalf("error %#v, want %#v", err, c.err)
				}
				if errors.Is(c.err, ErrStale) && !errors.Is(err, ErrStale) {
					t.Fatalf("error %v does not match ErrStale", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(plan, c.want) {
				t.Fatalf("plan\n %+v\nwant\n %+v", plan, c.want)
			}
			if got := plan.Staged(); !reflect.DeepEqual(got, c.staged) {
				t.Fatalf("staged\n %+v\nwant\n %+v", got, c.staged)
			}
		})
	}
}

func TestPlanStageLeavesItsInputs(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	open := Proposal{ID: "pr-open", TestID: "t", BaseVersion: 3, Status: ProposalProposed, Triggers: []AppChange{{ID: "c-1", At: at}}}
	p := Proposal{ID: "pr-new", TestID: "t", BaseVersion: 3, Triggers: []AppChange{{ID: "c-2", At: at}}}
	before := open
	before.Triggers = append([]AppChange(nil), open.Triggers...)
	if _, err := PlanStage(p, nil, &open); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(open, before) {
		t.Fatalf("planning changed the open row it read: %+v, was %+v", open, before)
	}
}
