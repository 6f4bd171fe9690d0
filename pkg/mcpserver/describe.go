package mcpserver

import (
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
	"github.com/driftgardener/gardener/pkg/tend"
)

// describeVerdict fills what a proven fix established, as a reviewer reads it: the diff against
// the steps it was computed from, the change classes, notes, contract and sensitivity.
func describeVerdict(s *Suggestion, base []gardener.Step, v gardener.Verdict) {
	s.Proven = true
	s.Strategy = string(v.Strategy)
	s.Diff = diffLines(base, v.Ops)
	for _, c := range v.Changes {
		s.Changes = append(s.Changes, Change{Class: string(c.Class), Step: c.Path, Detail: c.Detail})
	}
	for _, n := range v.Notes {
		s.Notes = append(s.Notes, n.Text)
	}
	kept, total := v.Contract.Kept()
	s.Contract = Contract{Kept: kept, Total: total}
	for _, r := range v.Contract.Redacted().Requirements {
		s.Contract.Requirements = append(s.Contract.Requirements, Requirement{Step: r.Step, What: r.What, Detail: r.Detail, Kept: r.Kept, By: r.By})
	}
	s.Sensitivity = &Count{Sensitive: v.Sensitivity.Sensitive, Total: v.Sensitivity.Total}
	s.Unverified = v.Unverified
	if need, why := v.NeedsPerson(); need {
		s.NeedsPerson = why
	}
}

// diffLines renders ops against the base steps, typed values redacted: the answer lands in an
// assistant's context and its transcript.
func diffLines(base []gardener.Step, ops []gardener.Op) []string {
	out := []string{}
	for _, e := range gardener.Diff(base, ops) {
		out = append(out, e.Lines()...)
	}
	return out
}

// describeRefusals adds the floor's refusals.
func describeRefusals(s *Suggestion, refusals []gardener.Refusal) {
	for _, r := range refusals {
		s.Refusals = append(s.Refusals, Refusal{Step: r.Path, Reason: r.Reason})
	}
}

// describeStaged adds what staging did; a declined fix has no proposal to apply.
func describeStaged(s *Suggestion, p tend.Persisted) {
	if p.Outcome != "" && p.Outcome != ladder.Outcome(s.Outcome) {
		s.Outcome, s.Reason = string(p.Outcome), p.Reason
	}
	st := p.Staged
	if st == nil {
		return
	}
	s.Staged = string(st.Outcome)
	if st.Outcome == gardener.StagedDeclined {
		s.Notes = append(s.Notes, "a person dismissed this same fix for this version and these app changes before: it is not staged again")
		return
	}
	s.ProposalID = st.Proposal.ID
}

// finish makes the lists of s [] rather than null, as the API answers. The reason of a staged
// fix is the ladder's, as the decision worded it (gardener.Decide): the queue row of the same
// proposal says it in the same words, so the tool does not word it again.
func finish(s *Suggestion) {
	if s.Diff == nil {
		s.Diff = []string{}
	}
	if s.Changes == nil {
		s.Changes = []Change{}
	}
	if s.Refusals == nil {
		s.Refusals = []Refusal{}
	}
	if s.Notes == nil {
		s.Notes = []string{}
	}
	if s.Contract.Requirements == nil {
		s.Contract.Requirements = []Requirement{}
	}
}
