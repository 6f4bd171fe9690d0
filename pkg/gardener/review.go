package gardener

import (
	"fmt"
	"slices"
	"time"
)

// Origin says, in words, what put a proposal in the queue when no app change did (its Triggers
// are empty): a chat edit a person asked for, or a failed run. It is "" when app changes
// triggered it: they are listed instead.
func (p Proposal) Origin() string {
	switch {
	case len(p.Triggers) > 0:
		return ""
	case p.Verdict.Strategy == StrategyChat:
		return "a person's request in a chat: the chat assistant's edit of the test, not a failed run or an app change"
	case p.FailedStep != "" || p.Error != "":
		return "a failed run of the test; no app change is recorded for it"
	}
	return "no app change or failed run is recorded for it"
}

// ApprovalCautions are what a person confirms before approving p, each in words; none when one
// click is enough. An UNVERIFIED fix is written without a green re-run, so nothing proved it;
// a fix that deletes a step takes away something the test did, which a glance at a diff can
// miss. steps are the steps of the version p was computed on, which name what a delete removes;
// nil when the test has moved on (the approval will be refused as stale, and the steps a delete
// named are gone).
func ApprovalCautions(p Proposal, steps []Step) []string {
	var out []string
	if p.Verdict.Unverified != "" {
		out = append(out, "It is UNVERIFIED, so no green re-run proves it: "+p.Verdict.Unverified+".")
	}
	if steps == nil {
		for _, op := range SortOps(p.Verdict.Ops) {
			if op.Kind == OpDelete {
				out = append(out, fmt.Sprintf("It deletes step %d of the version it was computed on.", op.Index+1))
			}
		}
		return out
	}
	for _, e := range Diff(steps, p.Verdict.Ops) {
		switch {
		case e.Op == OpDelete:
			out = append(out, fmt.Sprintf("It deletes step %s (%s).", e.Path, e.Before.Redacted()))
		case e.Op == OpReplace:
			for _, in := range e.Inner {
				if in.After == nil && in.Before != nil {
					out = append(out, fmt.Sprintf("It deletes step %s (%s) inside the intent block.", in.Path, in.Before.Redacted()))
				}
			}
		}
	}
	return out
}

// OpenTriage are the triage issues of testID nothing has answered yet, newest first: those filed
// after the test's last green run and after the last repair written to it (answered is the later
// of the two; zero when there is neither). A green run shows the failure is gone, and a written
// repair is the answer to the failure the issue was about.
func OpenTriage(issues []TriageIssue, testID string, answered time.Time) []TriageIssue {
	var out []TriageIssue
	for _, is := range issues {
		if is.TestID == testID && is.At.After(answered) {
			out = append(out, is)
		}
	}
	slices.SortStableFunc(out, func(a, b TriageIssue) int { return b.At.Compare(a.At) })
	return out
}
