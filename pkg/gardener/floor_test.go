package gardener

import (
	"strings"
	"testing"
)

// checkRows are the rows of the assertion-floor table (DESIGN.md §4.2), one representative step
// each; a row's name says which row of the table it stands for.
var checkRows = []struct {
	row  string
	step Step
}{
	{"assert url", Step{Kind: Assert, Subject: SubjectURL, Condition: Contains, Expected: "/dashboard"}},
	{"assert text", Step{Kind: Assert, Subject: SubjectText, Locator: MustLocator("css=#msg"), Condition: Equals, Expected: "Saved"}},
	{"assert title", Step{Kind: Assert, Subject: SubjectTitle, Condition: Equals, Expected: "Dashboard"}},
	{"assert value", Step{Kind: Assert, Subject: SubjectValue, Locator: MustLocator("label=Email"), Condition: Equals, Expected: "a@b.c"}},
	{"assert variable", Step{Kind: Assert, Subject: SubjectVariable, Actual: "${total}", Condition: Equals, Expected: "42"}},
	{"assertVisible", Step{Kind: AssertVisible, Locator: MustLocator("css=#welcome"), Text: "Welcome"}},
	{"assertHidden", Step{Kind: AssertHidden, Locator: MustLocator("css=#error"), Text: "Invalid"}},
	{"assertToast", Step{Kind: AssertToast, Locator: MustLocator("role=status"), Text: "Saved"}},
	{"assertModal", Step{Kind: AssertModal, Locator: MustLocator("role=dialog"), Text: "Confirm"}},
	{"assertValidationError", Step{Kind: AssertValidationError, Locator: MustLocator("label=Email"), Text: "Required"}},
	{"assertConsole", Step{Kind: AssertConsole, Level: "error", Pattern: "Uncaught", Expect: ExpectNoMatch}},
	{"assertRequest", Step{Kind: AssertRequest, Method: "POST", URLPattern: "/api/items", Status: 201}},
	{"a11yAudit threshold", Step{Kind: A11yAudit, Scope: MustLocator("css=main"), Threshold: "serious", Rules: []string{"color-contrast", "label"}}},
	{"wait url", Step{Kind: Wait, For: WaitURL, URL: "/dashboard"}},
}

// mutation changes one aspect of a check; applies says whether the aspect exists on the step.
type mutation struct {
	name    string
	mutate  func(Step) (Step, bool)
	allowed bool // what the table says for every row the mutation applies to
}

var mutations = []mutation{
	{"delete", nil, false},
	{"change condition", func(s Step) (Step, bool) {
		if s.Condition == "" {
			return s, false
		}
		s.Condition = map[Condition]Condition{Equals: Contains, Contains: Equals, Matches: Equals}[s.Condition]
		return s, true
	}, false},
	{"change expected", func(s Step) (Step, bool) {
		if s.Kind != Assert {
			return s, false
		}
		s.Expected = "/login"
		return s, true
	}, false},
	{"change actual", func(s Step) (Step, bool) {
		if s.Subject != SubjectVariable {
			return s, false
		}
		s.Actual = "${other}"
		return s, true
	}, false},
	{"flip visible/hidden", func(s Step) (Step, bool) {
		switch s.Kind {
		case AssertVisible:
			s.Kind = AssertHidden
		case AssertHidden:
			s.Kind = AssertVisible
		default:
			return s, false
		}
		return s, true
	}, false},
	{"change expected text", func(s Step) (Step, bool) {
		if s.Text == "" {
			return s, false
		}
		s.Text = "Something else"
		return s, true
	}, false},
	{"loosen threshold", func(s Step) (Step, bool) {
		if s.Threshold == "" {
			return s, false
		}
		s.Threshold = "critical"
		return s, true
	}, false},
	{"make report-only", func(s Step) (Step, bool) {
		if s.Kind != A11yAudit {
			return s, false
		}
		s.Threshold, s.ReportOnly = "", true
		return s, true
	}, false},
	{"drop rules", func(s Step) (Step, bool) {
		if len(s.Rules) == 0 {
			return s, false
		}
		s.Rules = s.Rules[:1]
		return s, true
	}, false},
	{"change rules", func(s Step) (Step, bool) {
		if len(s.Rules) == 0 {
			return s, false
		}
		s.Rules = []string{"region", "label"}
		return s, true
	}, false},
	{"change level", func(s Step) (Step, bool) {
		if s.Level == "" {
			return s, false
		}
		s.Level = "warning"
		return s, true
	}, false},
	{"change console pattern", func(s Step) (Step, bool) {
		if s.Kind != AssertConsole {
			return s, false
		}
		s.Pattern = "nothing-will-match"
		return s, true
	}, false},
	{"change expected match", func(s Step) (Step, bool) {
		if s.Expect == "" {
			return s, false
		}
		s.Expect = ExpectMatch
		return s, true
	}, false},
	{"change method", func(s Step) (Step, bool) {
		if s.Method == "" {
			return s, false
		}
		s.Method = "GET"
		return s, true
	}, false},
	{"change status", func(s Step) (Step, bool) {
		if s.Kind != AssertRequest {
			return s, false
		}
		s.Status = 500
		return s, true
	}, false},
	{"change URL pattern", func(s Step) (Step, bool) {
		if s.URLPattern == "" {
			return s, false
		}
		s.URLPattern = "/api/other"
		return s, true
	}, false},
	{"change wait URL", func(s Step) (Step, bool) {
		if s.Kind != Wait {
			return s, false
		}
		s.URL = "/login"
		return s, true
	}, false},
	{"replace with another kind", func(s Step) (Step, bool) {
		return Step{Kind: Screenshot, Name: "instead"}, true
	}, false},
	{"move locator", func(s Step) (Step, bool) {
		if s.Locator.IsZero() {
			return s, false
		}
		s.Locator = MustLocator(`role=region[name="Moved"]`)
		return s, true
	}, true},
	{"move scope", func(s Step) (Step, bool) {
		if s.Kind != A11yAudit {
			return s, false
		}
		s.Scope = MustLocator("css=#content")
		return s, true
	}, true},
	{"longer timeout", func(s Step) (Step, bool) {
		s.TimeoutMs = 15000
		return s, true
	}, true},
}

func TestFloorMatrix(t *testing.T) {
	covered := map[string]int{}
	for _, row := range checkRows {
		for _, m := range mutations {
			var op Op
			if m.mutate == nil {
				op = Op{Kind: OpDelete, Index: 1}
			} else {
				after, ok := m.mutate(row.step.Clone())
				if !ok {
					continue
				}
				op = Op{Kind: OpReplace, Index: 1, Step: &after}
			}
			covered[row.row]++
			t.Run(row.row+"/"+m.name, func(t *testing.T) {
				steps := []Step{{Kind: Goto, URL: "/"}, row.step, {Kind: Click, Locator: MustLocator("css=#next")}}
				if err := ValidateStep(row.step); err != nil {
					t.Fatalf("row step is malformed: %v", err)
				}
				got := Screen(steps, []Op{op})
				if m.allowed {
					if len(got.Refusals) != 0 || got.Outcome() != SomeAllowed {
						t.Fatalf("want allowed, got refusals %v", got.Refusals)
					}
					return
				}
				if len(got.Allowed) != 0 || len(got.Refusals) != 1 {
					t.Fatalf("want one refusal, got allowed=%v refusals=%v", got.Allowed, got.Refusals)
				}
				r := got.Refusals[0]
				if r.Path != "2" || r.Index != 1 || r.Kind != row.step.Kind || r.Op != 0 {
					t.Errorf("refusal names %+v, want step 2 of kind %s", r, row.step.Kind)
				}
				if !strings.HasPrefix(r.String(), "Refused: ") || !strings.Contains(r.Reason, "step 2") {
					t.Errorf("refusal reason %q does not name the step", r.Reason)
				}
				if got.Outcome() != AllRefused {
					t.Errorf("outcome %s, want %s", got.Outcome(), AllRefused)
				}
			})
		}
	}
	for _, row := range checkRows {
		// Every row must meet at least delete, one protected change, and one free change.
		if covered[row.row] < 3 {
			t.Errorf("row %q exercised by only %d mutations", row.row, covered[row.row])
		}
	}
}

func TestFloorSpecWording(t *testing.T) {
	steps := []Step{
		{Kind: Goto, URL: "/login"},
		{Kind: Fill, Locator: MustLocator("label=Email"), Value: "a@b.c"},
		{Kind: Click, Locator: MustLocator(`role=button[name="Login"]`)},
		{Kind: Assert, Subject: SubjectURL, Condition: Contains, Expected: "/dashboard"},
	}
	after := steps[3]
	after.Expected = "/login"
	got := Screen(steps, []Op{{Kind: OpReplace, Index: 3, Step: &after}})
	want := `Refused: rewriting the expectation at step 4 from "url contains /dashboard" to "url contains /login". Outcome assertions are only changed by a human — an auto-rewrite to observed reality cannot fail.`
	if len(got.Refusals) != 1 || got.Refusals[0].String() != want {
		t.Fatalf("got %v\nwant %s", got.Refusals, want)
	}
}

// nonChecks may be changed or removed freely by a repair.
func TestFloorNonChecksAreFree(t *testing.T) {
	free := []Step{
		{Kind: Wait, For: WaitElement, Locator: MustLocator("css=#list")},
		{Kind: Wait, For: WaitTime, Ms: 500},
		{Kind: Screenshot, Name: "after-login"},
		{Kind: Extract, Locator: MustLocator("css=#total"), Variable: "total"},
		{Kind: A11yAudit, ReportOnly: true, Rules: []string{"label"}},
		{Kind: Click, Locator: MustLocator("css=#go")},
		{Kind: Fill, Locator: MustLocator("css=#q"), Value: "x"},
	}
	replacement := Step{Kind: Hover, Locator: MustLocator("text=Menu")}
	for _, s := range free {
		steps := []Step{{Kind: Goto, URL: "/"}, s}
		for _, op := range []Op{{Kind: OpDelete, Index: 1}, {Kind: OpReplace, Index: 1, Step: &replacement}} {
			got := Screen(steps, []Op{op})
			if len(got.Refusals) != 0 || len(got.Allowed) != 1 {
				t.Errorf("%s of %s: refusals %v", op.Kind, s, got.Refusals)
			}
		}
	}
}

func TestFloorIntentBlocks(t *testing.T) {
	block := Step{Kind: Intent, Goal: "log in as the demo user", Values: map[string]string{"email": "demo@shop.test"}, Steps: []Step{
		{Kind: Fill, Locator: MustLocator("css=#email"), Value: "demo@shop.test"},
		{Kind: Click, Locator: MustLocator("css=#login")},
		{Kind: Assert, Subject: SubjectURL, Condition: Contains, Expected: "/dashboard"},
	}}
	steps := []Step{{Kind: Goto, URL: "/login"}, block, {Kind: AssertVisible, Locator: MustLocator("css=#hello")}}
	with := func(f func(*Step)) *Step { b := block.Clone(); f(&b); return &b }
	cases := []struct {
		name    string
		ops     []Op
		refused string // the path named, or "" when allowed
	}{
		{"re-derived actions, check kept", []Op{{Kind: OpReplace, Index: 1, Step: with(func(b *Step) {
			b.Steps[0].Locator = MustLocator("label=Email")
			b.Steps[1] = Step{Kind: Click, Locator: MustLocator(`role=button[name="Sign in"]`)}
			b.Steps = append([]Step{{Kind: Click, Locator: MustLocator("text=Accept cookies")}}, b.Steps...)
		})}}, ""},
		{"check dropped from block", []Op{{Kind: OpReplace, Index: 1, Step: with(func(b *Step) { b.Steps = b.Steps[:2] })}}, "2.3"},
		{"check rewritten inside block", []Op{{Kind: OpReplace, Index: 1, Step: with(func(b *Step) { b.Steps[2].Expected = "/login" })}}, "2.3"},
		{"check moved out of block", []Op{
			{Kind: OpReplace, Index: 1, Step: with(func(b *Step) { b.Steps = b.Steps[:2] })},
			{Kind: OpInsert, Index: 2, Step: &Step{Kind: Assert, Subject: SubjectURL, Condition: Contains, Expected: "/dashboard"}},
		}, "2.3"},
		{"goal changed", []Op{{Kind: OpReplace, Index: 1, Step: with(func(b *Step) { b.Goal = "skip login" })}}, "2"},
		{"values changed", []Op{{Kind: OpReplace, Index: 1, Step: with(func(b *Step) { b.Values["email"] = "other@x" })}}, "2"},
		{"block deleted", []Op{{Kind: OpDelete, Index: 1}}, "2"},
		{"block replaced by its steps", []Op{{Kind: OpReplace, Index: 1, Step: &block.Steps[0]}}, "2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Screen(steps, c.ops)
			if c.refused == "" {
				if len(got.Refusals) != 0 {
					t.Fatalf("refused: %v", got.Refusals)
				}
				return
			}
			if len(got.Refusals) != 1 || got.Refusals[0].Path != c.refused {
				t.Fatalf("want a refusal at step %s, got %+v", c.refused, got.Refusals)
			}
		})
	}
}

func TestScreenOutcomes(t *testing.T) {
	steps := []Step{{Kind: Goto, URL: "/"}, {Kind: Assert, Subject: SubjectTitle, Condition: Equals, Expected: "Shop"}}
	if got := Screen(steps, nil); got.Outcome() != NothingProposed {
		t.Errorf("no ops: %s", got.Outcome())
	}
	if got := Screen(steps, []Op{{Kind: OpDelete, Index: 1}}); got.Outcome() != AllRefused {
		t.Errorf("only a delete of a check: %s", got.Outcome())
	}
	mixed := Screen(steps, []Op{{Kind: OpDelete, Index: 1}, {Kind: OpInsert, Index: 1, Step: &Step{Kind: Wait, For: WaitTime, Ms: 100}}})
	if mixed.Outcome() != SomeAllowed || len(mixed.Allowed) != 1 || len(mixed.Refusals) != 1 {
		t.Errorf("mixed: %+v", mixed)
	}
}

func TestScreenRefusesMalformedOps(t *testing.T) {
	steps := []Step{{Kind: Goto, URL: "/"}, {Kind: Click, Locator: MustLocator("css=#a")}}
	bad := Step{Kind: Click} // no locator
	cases := []struct {
		name string
		ops  []Op
	}{
		{"index past the end", []Op{{Kind: OpReplace, Index: 5, Step: &steps[0]}}},
		{"negative index", []Op{{Kind: OpDelete, Index: -1}}},
		{"insert past the end", []Op{{Kind: OpInsert, Index: 3, Step: &steps[0]}}},
		{"two changes to one step", []Op{{Kind: OpDelete, Index: 1}, {Kind: OpDelete, Index: 1}}},
		{"replace without a step", []Op{{Kind: OpReplace, Index: 1}}},
		{"malformed step", []Op{{Kind: OpReplace, Index: 1, Step: &bad}}},
		{"unknown op", []Op{{Kind: "move", Index: 1}}},
	}
	for _, c := range cases {
		got := Screen(steps, c.ops)
		if len(got.Refusals) == 0 {
			t.Errorf("%s: not refused", c.name)
		}
		if _, err := ApplySteps(steps, got.Allowed); err != nil {
			t.Errorf("%s: allowed ops do not apply: %v", c.name, err)
		}
	}
}
