package gardener_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestNotesNameTheirKindOnce: a note read beside its label drops the words of its text that name
// the kind again, and read alone (the reason a person must look) names its kind once, in words,
// never as the stored kind.
func TestNotesNameTheirKindOnce(t *testing.T) {
	cases := []struct {
		note        gardener.Note
		label, body string
		said        string
	}{
		{gardener.Note{Kind: gardener.NoteUnprovenCheck, Step: "5", Text: "unproven check: step 5, which the repair changed or now precedes, passes anyway"},
			"Unproven check", "step 5, which the repair changed or now precedes, passes anyway", "unproven check: step 5, which the repair changed or now precedes, passes anyway"},
		{gardener.Note{Kind: gardener.NoteUnverified, Text: "UNVERIFIED: a chat edit is staged without a re-run"},
			"UNVERIFIED", "a chat edit is staged without a re-run", "UNVERIFIED: a chat edit is staged without a re-run"},
		{gardener.Note{Kind: gardener.NoteBehaviorChange, Text: "behavior change: step 3 no longer does x"},
			"Behaviour change", "step 3 no longer does x", "behaviour change: step 3 no longer does x"},
		// A text that does not name its kind is kept whole, and the kind is named before it.
		{gardener.Note{Kind: gardener.NoteFlowChange, Text: "the repaired test clicks another control"},
			"Flow change", "the repaired test clicks another control", "flow change: the repaired test clicks another control"},
		// Words that only start like the kind are not it.
		{gardener.Note{Kind: gardener.NoteInsensitiveCheck, Text: "insensitive checks abound"}, "Insensitive check", "insensitive checks abound", "insensitive check: insensitive checks abound"},
		{gardener.Note{Kind: "from-the-future", Text: "something new"}, "from-the-future", "something new", "from-the-future: something new"},
	}
	for _, c := range cases {
		if got := c.note.Kind.Label(); got != c.label {
			t.Errorf("%s: label %q, want %q", c.note.Kind, got, c.label)
		}
		if got := c.note.Body(); got != c.body {
			t.Errorf("%s: body %q, want %q", c.note.Kind, got, c.body)
		}
		if got := c.note.Said(); got != c.said {
			t.Errorf("%s: said %q, want %q", c.note.Kind, got, c.said)
		}
	}
	v := gardener.Verdict{IntentConfirmed: true, Notes: []gardener.Note{cases[0].note}}
	if _, why := v.NeedsPerson(); why != cases[0].said {
		t.Errorf("NeedsPerson says %q, want %q", why, cases[0].said)
	}
	if d := gardener.Decide(v, gardener.ModeApply, gardener.FromProject, gardener.ActorSchedule); d.Reason != "a person must look: "+cases[0].said {
		t.Errorf("Decide's reason is %q", d.Reason)
	}
}

// TestFindingsListEachOnce: UNVERIFIED kept both as the verdict's reason and as a note, and an
// unkept requirement both in the contract and as a note, are each one finding; one only in the
// reason or the contract is a finding too.
func TestFindingsListEachOnce(t *testing.T) {
	contract := gardener.Contract{Requirements: []gardener.Requirement{
		{Step: "2", What: "sends", Detail: "POST /api/login", Kept: false},
		{Step: "3", What: "checks", Detail: "the heading", Kept: false},
		{Step: "4", What: "checks", Detail: "the URL", Kept: true}}}
	both := gardener.Verdict{Unverified: "no fill re-ran", Contract: contract, Notes: []gardener.Note{
		{Kind: gardener.NoteUnverified, Text: "UNVERIFIED: no fill re-ran"},
		{Kind: gardener.NoteRequirementNotKept, Step: "2", Text: "requirement not kept: step 2 no longer sends POST /api/login"}}}
	kinds := func(ns []gardener.Note) []string {
		var out []string
		for _, n := range ns {
			out = append(out, string(n.Kind)+"@"+n.Step)
		}
		return out
	}
	if got, want := kinds(both.Findings()), []string{"unverified@", "requirement-not-kept@2", "requirement-not-kept@3"}; !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	reasonOnly := gardener.Verdict{Unverified: "no fill re-ran"}
	if f := reasonOnly.Findings(); len(f) != 1 || f[0].Kind != gardener.NoteUnverified || f[0].Body() != "no fill re-ran" {
		t.Errorf("findings of a verdict UNVERIFIED with no note: %+v", f)
	}
}

// TestApprovalCautions: approving asks for a confirmation exactly when the fix is UNVERIFIED or
// deletes a step (inside an intent block too), naming the step as people read it.
func TestApprovalCautions(t *testing.T) {
	steps, err := gardener.DecodeSteps([]byte(`[
 {"kind": "goto", "url": "/login"},
 {"kind": "fill", "locator": "label=Password", "value": "hunter2"},
 {"kind": "intent", "goal": "sign in", "steps": [{"kind": "click", "locator": "css=#a"}, {"kind": "click", "locator": "css=#b"}]},
 {"kind": "assertVisible", "locator": "css=#welcome"}
]`))
	if err != nil {
		t.Fatal(err)
	}
	block := steps[2].Clone()
	block.Steps = block.Steps[:1]
	moved := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator("css=#c")}
	cases := []struct {
		name string
		p    gardener.Proposal
		want []string
	}{
		{"a proven locator move", gardener.Proposal{Verdict: gardener.Verdict{Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: &moved}}}}, nil},
		{"UNVERIFIED", gardener.Proposal{Verdict: gardener.Verdict{Unverified: "a fill re-ran empty"}},
			[]string{"It is UNVERIFIED, so no green re-run proves it: a fill re-ran empty."}},
		{"the goto and a value deleted", gardener.Proposal{Verdict: gardener.Verdict{Ops: []gardener.Op{{Kind: gardener.OpDelete, Index: 1}, {Kind: gardener.OpDelete, Index: 0}}}},
			[]string{"It deletes step 1 (goto /login).", "It deletes step 2 (fill label=Password [value redacted, 7 chars])."}},
		{"a step of an intent block deleted", gardener.Proposal{Verdict: gardener.Verdict{Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: &block}}}},
			[]string{"It deletes step 3.2 (click css=#b) inside the intent block."}},
	}
	for _, c := range cases {
		got := gardener.ApprovalCautions(c.p, steps)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		for _, g := range got {
			if strings.Contains(g, "hunter2") {
				t.Errorf("%s: a caution shows the typed value: %s", c.name, g)
			}
		}
	}
	// Against a version that is gone, a delete is named by its number only.
	if got := gardener.ApprovalCautions(cases[2].p, nil); !slices.Equal(got, []string{"It deletes step 1 of the version it was computed on.", "It deletes step 2 of the version it was computed on."}) {
		t.Errorf("without the steps: %q", got)
	}
}

// TestProposalOrigin: a row no app change triggered says what did: a person's chat request is
// not a failed run.
func TestProposalOrigin(t *testing.T) {
	chat := gardener.Proposal{Verdict: gardener.Verdict{Strategy: gardener.StrategyChat}}
	failed := gardener.Proposal{FailedStep: "3", Error: "element-not-found"}
	swept := gardener.Proposal{FailedStep: "3", Triggers: []gardener.AppChange{{ID: "c"}}}
	if got := chat.Origin(); !strings.Contains(got, "a person's request in a chat") || strings.Contains(got, "failed run of") {
		t.Errorf("a chat edit's origin: %q", got)
	}
	if got := failed.Origin(); !strings.HasPrefix(got, "a failed run of the test") {
		t.Errorf("a failed run's origin: %q", got)
	}
	if got := swept.Origin(); got != "" {
		t.Errorf("a row with app changes says %q beside them", got)
	}
}

// TestOpenTriage: an issue is open until a green run or a written repair comes after it; the
// newest comes first, and other tests' issues are not the test's.
func TestOpenTriage(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	issues := []gardener.TriageIssue{
		{ID: "old", TestID: "a", At: t0},
		{ID: "new", TestID: "a", At: t0.Add(2 * time.Hour)},
		{ID: "other", TestID: "b", At: t0.Add(3 * time.Hour)},
	}
	ids := func(is []gardener.TriageIssue) []string {
		var out []string
		for _, i := range is {
			out = append(out, i.ID)
		}
		return out
	}
	for _, c := range []struct {
		answered time.Time
		want     []string
	}{
		{time.Time{}, []string{"new", "old"}},
		{t0.Add(time.Hour), []string{"new"}},
		{t0.Add(2 * time.Hour), nil},
	} {
		if got := ids(gardener.OpenTriage(issues, "a", c.answered)); !slices.Equal(got, c.want) {
			t.Errorf("answered %v: open %v, want %v", c.answered, got, c.want)
		}
	}
}
