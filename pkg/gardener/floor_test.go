package gardener

import (
	"maps"
	"slices"
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

// verdict is what the table says a repair may do with one aspect of a check.
type verdict string

const (
	refused verdict = "refused"
	allowed verdict = "allowed"
)

// mutation changes one aspect of a check. The matrix runs every mutation on every row; a row a
// mutation does not apply to is listed in na with the reason, and the test checks that the
// mutation indeed finds nothing to act on there, so no cell of the matrix is skipped silently.
type mutation struct {
	name    string
	mutate  func(Step) (Step, bool) // nil: the step is deleted; false: nothing to act on
	verdict verdict                 // for every row it applies to
	says    string                  // a part of the refusal's reason at the top level
	na      map[string]string       // row → why the mutation does not apply to it
}

// apply returns the mutated step (nil for a delete) and whether the mutation applies.
func (m mutation) apply(s Step) (*Step, bool) {
	if m.mutate == nil {
		return nil, true
	}
	after, ok := m.mutate(s.Clone())
	return &after, ok
}

// Row groups of the table, for the na lists.
var (
	assertRows     = []string{"assert url", "assert text", "assert title", "assert value", "assert variable"}
	visibilityRows = []string{"assertVisible", "assertHidden", "assertToast", "assertModal", "assertValidationError"}
)

// na builds a row → reason map: every row of checkRows except keep, each with why.
func na(why string, keep ...string) map[string]string {
	out := map[string]string{}
	for _, r := range checkRows {
		if !slices.Contains(keep, r.row) {
			out[r.row] = why
		}
	}
	return out
}

// with merges na maps, the later reason winning for a row both name.
func with(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// only keeps the entries of m for the given rows.
func only(m map[string]string, rows ...string) map[string]string {
	out := map[string]string{}
	for _, r := range rows {
		if why, ok := m[r]; ok {
			out[r] = why
		}
	}
	return out
}

var floorMutations = []mutation{
	{name: "delete", verdict: refused, says: "deleting the check"},
	{name: "change condition", verdict: refused, says: "rewriting the expectation", mutate: func(s Step) (Step, bool) {
		if s.Condition == "" {
			return s, false
		}
		s.Condition = map[Condition]Condition{Equals: Contains, Contains: Equals, Matches: Equals}[s.Condition]
		return s, true
	}, na: na("only an assert compares with a condition; the other checks' conditions are their kind, pattern or match (their own mutations)", assertRows...)},
	{name: "change expected", verdict: refused, says: "rewriting the expectation", mutate: func(s Step) (Step, bool) {
		if s.Kind != Assert {
			return s, false
		}
		s.Expected = "/login"
		return s, true
	}, na: na("only an assert has an expected value; the text a visibility check expects is 'change expected text'", assertRows...)},
	{name: "change actual", verdict: refused, says: "rewriting the expectation", mutate: func(s Step) (Step, bool) {
		if s.Subject != SubjectVariable {
			return s, false
		}
		s.Actual = "${other}"
		return s, true
	}, na: na("only an assert of a variable has an actual expression", "assert variable")},
	{name: "change what is asserted", verdict: refused, says: "rewriting the expectation", mutate: func(s Step) (Step, bool) {
		switch s.Subject {
		case SubjectURL:
			s.Subject = SubjectTitle
		case SubjectTitle:
			s.Subject = SubjectURL
		case SubjectText:
			s.Subject = SubjectValue
		case SubjectValue:
			s.Subject = SubjectText
		case SubjectVariable:
			s.Subject, s.Actual = SubjectTitle, ""
		default:
			return s, false
		}
		return s, true
	}, na: na("only an assert has a subject (url, text, title, value, variable)", assertRows...)},
	{name: "flip visible/hidden", verdict: refused, says: "flipping the check", mutate: func(s Step) (Step, bool) {
		switch s.Kind {
		case AssertVisible:
			s.Kind = AssertHidden
		case AssertHidden:
			s.Kind = AssertVisible
		default:
			return s, false
		}
		return s, true
	}, na: with(
		na("not a visibility check", visibilityRows...),
		only(na("has no hidden counterpart: flipping it is replacing it with another kind ('replace with another check kind')"), "assertToast", "assertModal", "assertValidationError"),
	)},
	{name: "change expected text", verdict: refused, says: "changing the text expected", mutate: func(s Step) (Step, bool) {
		if s.Text == "" {
			return s, false
		}
		s.Text = "Something else"
		return s, true
	}, na: na("has no expected text; an assert's expected value is 'change expected'", visibilityRows...)},
	{name: "drop expected text", verdict: refused, says: "changing the text expected", mutate: func(s Step) (Step, bool) {
		if s.Text == "" || s.Kind == AssertToast {
			return s, false
		}
		s.Text = ""
		return s, true
	}, na: with(
		na("has no expected text", visibilityRows...),
		only(na("its text is required: a toast without one is malformed (TestScreenRefusesMalformedOps)"), "assertToast"),
	)},
	{name: "loosen threshold", verdict: refused, says: "loosening the accessibility audit", mutate: func(s Step) (Step, bool) {
		if s.Threshold == "" {
			return s, false
		}
		s.Threshold = "critical"
		return s, true
	}, na: na("only an a11yAudit has a threshold", "a11yAudit threshold")},
	// The table lets a repair move an audit's scope only; a stricter threshold is still a change
	// to what the test asserts, which is a person's to make.
	{name: "tighten threshold", verdict: refused, says: "changing the threshold", mutate: func(s Step) (Step, bool) {
		if s.Threshold == "" {
			return s, false
		}
		s.Threshold = "minor"
		return s, true
	}, na: na("only an a11yAudit has a threshold", "a11yAudit threshold")},
	{name: "make report-only", verdict: refused, says: "report-only", mutate: func(s Step) (Step, bool) {
		if s.Kind != A11yAudit {
			return s, false
		}
		s.Threshold, s.ReportOnly = "", true
		return s, true
	}, na: na("only an a11yAudit can report without failing", "a11yAudit threshold")},
	{name: "drop rules", verdict: refused, says: "changing the rules", mutate: func(s Step) (Step, bool) {
		if len(s.Rules) == 0 {
			return s, false
		}
		s.Rules = s.Rules[:1]
		return s, true
	}, na: na("only an a11yAudit has rules", "a11yAudit threshold")},
	{name: "change rules", verdict: refused, says: "changing the rules", mutate: func(s Step) (Step, bool) {
		if len(s.Rules) == 0 {
			return s, false
		}
		s.Rules = []string{"region", "label"}
		return s, true
	}, na: na("only an a11yAudit has rules", "a11yAudit threshold")},
	{name: "change level", verdict: refused, says: "changing what the check", mutate: func(s Step) (Step, bool) {
		if s.Level == "" {
			return s, false
		}
		s.Level = "warning"
		return s, true
	}, na: na("only an assertConsole has a level", "assertConsole")},
	{name: "change console pattern", verdict: refused, says: "changing what the check", mutate: func(s Step) (Step, bool) {
		if s.Kind != AssertConsole {
			return s, false
		}
		s.Pattern = "nothing-will-match"
		return s, true
	}, na: na("only an assertConsole has a message pattern", "assertConsole")},
	{name: "change expected match", verdict: refused, says: "changing what the check", mutate: func(s Step) (Step, bool) {
		if s.Expect == "" {
			return s, false
		}
		s.Expect = ExpectMatch
		return s, true
	}, na: na("only an assertConsole expects a match or no match", "assertConsole")},
	{name: "change method", verdict: refused, says: "changing what the check", mutate: func(s Step) (Step, bool) {
		if s.Method == "" {
			return s, false
		}
		s.Method = "GET"
		return s, true
	}, na: na("only an assertRequest has a method", "assertRequest")},
	{name: "change status", verdict: refused, says: "changing what the check", mutate: func(s Step) (Step, bool) {
		if s.Kind != AssertRequest {
			return s, false
		}
		s.Status = 500
		return s, true
	}, na: na("only an assertRequest has a status", "assertRequest")},
	{name: "drop status (any status)", verdict: refused, says: "changing what the check", mutate: func(s Step) (Step, bool) {
		if s.Status == 0 {
			return s, false
		}
		s.Status = 0
		return s, true
	}, na: na("only an assertRequest has a status", "assertRequest")},
	{name: "change URL pattern", verdict: refused, says: "changing what the check", mutate: func(s Step) (Step, bool) {
		if s.URLPattern == "" {
			return s, false
		}
		s.URLPattern = "/api/other"
		return s, true
	}, na: na("only an assertRequest has a URL pattern", "assertRequest")},
	{name: "change wait URL", verdict: refused, says: "changing the URL awaited", mutate: func(s Step) (Step, bool) {
		if s.Kind != Wait {
			return s, false
		}
		s.URL = "/login"
		return s, true
	}, na: na("only a wait for a URL awaits a URL (an assert of the url is 'change expected')", "wait url")},
	{name: "wait for an element instead", verdict: refused, says: "turning the wait for URL", mutate: func(s Step) (Step, bool) {
		if s.Kind != Wait {
			return s, false
		}
		s.For, s.URL, s.Locator = WaitElement, "", MustLocator("css=main")
		return s, true
	}, na: na("only a wait can wait for something else", "wait url")},
	{name: "replace with a non-check", verdict: refused, says: "replacing the check", mutate: func(s Step) (Step, bool) {
		return Step{Kind: Screenshot, Name: "instead"}, true
	}},
	{name: "replace with another check kind", verdict: refused, says: "replacing the check", mutate: func(s Step) (Step, bool) {
		if s.Kind == AssertToast {
			return Step{Kind: AssertModal, Text: s.Text}, true
		}
		return Step{Kind: AssertToast, Text: "anything"}, true
	}},
	{name: "move locator", verdict: allowed, mutate: func(s Step) (Step, bool) {
		if s.Locator.IsZero() {
			return s, false
		}
		s.Locator = MustLocator(`role=region[name="Moved"]`)
		return s, true
	}, na: with(
		only(na("reads no element (the page's URL, its title, a variable)"), "assert url", "assert title", "assert variable"),
		only(na("the table's '—': it reads the console or the network, no element"), "assertConsole", "assertRequest"),
		only(na("its element is its scope: 'move scope'"), "a11yAudit threshold"),
		only(na("the table's '—': it awaits a URL, no element"), "wait url"),
	)},
	{name: "move scope", verdict: allowed, mutate: func(s Step) (Step, bool) {
		if s.Kind != A11yAudit {
			return s, false
		}
		s.Scope = MustLocator("css=#content")
		return s, true
	}, na: na("only an a11yAudit has a scope; the other rows' element is 'move locator'", "a11yAudit threshold")},
	{name: "longer timeout", verdict: allowed, mutate: func(s Step) (Step, bool) {
		s.TimeoutMs = 15000
		return s, true
	}},
}

// TestFloorMatrix runs every row of the DESIGN.md §4.2 table against every mutation, at the top
// level and inside an intent block, and checks the floor's verdict, the refusal's step, kind and
// reason, and that the change class agrees (refused exactly when the class is protected).
func TestFloorMatrix(t *testing.T) {
	rows := map[string]bool{}
	for _, r := range checkRows {
		rows[r.row] = true
		if err := ValidateStep(r.step); err != nil {
			t.Fatalf("row %q: the row's step is malformed: %v", r.row, err)
		}
	}
	for _, m := range floorMutations {
		for r, why := range m.na {
			if !rows[r] || why == "" {
				t.Errorf("mutation %q: n/a entry %q is not a row of the table or gives no reason", m.name, r)
			}
		}
	}
	for _, row := range checkRows {
		for _, m := range floorMutations {
			t.Run(row.row+"/"+m.name, func(t *testing.T) {
				after, applies := m.apply(row.step)
				if why, isNA := m.na[row.row]; isNA {
					if applies {
						t.Fatalf("the table says n/a (%s), but the mutation changes %s", why, row.step)
					}
					t.Logf("n/a: %s", why)
					return
				}
				if !applies {
					t.Fatalf("the mutation finds nothing to change in %s: mark the row n/a with the reason", row.step)
				}
				if after != nil {
					if err := ValidateStep(*after); err != nil {
						t.Fatalf("the mutated step is malformed, so the screen would refuse it for that alone: %v", err)
					}
				}
				t.Run("top level", func(t *testing.T) {
					steps := []Step{{Kind: Goto, URL: "/"}, row.step, {Kind: Click, Locator: MustLocator("css=#next")}}
					op := Op{Kind: OpDelete, Index: 1}
					if after != nil {
						op = Op{Kind: OpReplace, Index: 1, Step: after}
					}
					expectVerdict(t, steps, []Op{op}, m.verdict, "2", row.step.Kind, m.says)
				})
				t.Run("inside a block", func(t *testing.T) {
					block := Step{Kind: Intent, Goal: "reach the page", Values: map[string]string{"who": "demo"}, Steps: []Step{
						{Kind: Click, Locator: MustLocator("css=#open")}, row.step, {Kind: Screenshot, Name: "there"},
					}}
					steps := []Step{{Kind: Goto, URL: "/"}, block, {Kind: Click, Locator: MustLocator("css=#next")}}
					re := block.Clone()
					if after == nil {
						re.Steps = slices.Delete(re.Steps, 1, 2)
					} else {
						re.Steps[1] = after.Clone()
					}
					expectVerdict(t, steps, []Op{{Kind: OpReplace, Index: 1, Step: &re}}, m.verdict, "2.2", row.step.Kind, "")
				})
			})
		}
		t.Run(row.row+"/move out of block", func(t *testing.T) {
			block := Step{Kind: Intent, Goal: "reach the page", Steps: []Step{{Kind: Click, Locator: MustLocator("css=#open")}, row.step}}
			steps := []Step{{Kind: Goto, URL: "/"}, block}
			re := block.Clone()
			re.Steps = re.Steps[:1]
			moved := row.step.Clone()
			ops := []Op{{Kind: OpReplace, Index: 1, Step: &re}, {Kind: OpInsert, Index: 2, Step: &moved}}
			got := Screen(steps, ops)
			if len(got.Refusals) != 1 || got.Refusals[0].Path != "2.2" || got.Refusals[0].Op != 0 {
				t.Fatalf("want the block rewrite refused at step 2.2, got %+v", got.Refusals)
			}
			// The insert alone adds a check, which a repair may; with the rewrite refused the
			// check stays in its block and the copy outside is only an extra check.
			if len(got.Allowed) != 1 || got.Allowed[0].Kind != OpInsert {
				t.Errorf("allowed %v", got.Allowed)
			}
		})
	}
}

// expectVerdict screens ops against steps and checks the verdict, the refused step's path and
// kind, the reason (says, when given), the outcome, and that the change class agrees.
func expectVerdict(t *testing.T, steps []Step, ops []Op, want verdict, path string, kind StepKind, says string) {
	t.Helper()
	got := Screen(steps, ops)
	changed, err := ApplySteps(steps, ops)
	if err != nil {
		t.Fatalf("ops do not apply: %v", err)
	}
	class := Highest(Classify(steps, changed))
	if want == allowed {
		if len(got.Refusals) != 0 || got.Outcome() != SomeAllowed {
			t.Fatalf("want allowed, got refusals %v", got.Refusals)
		}
		if class == ClassProtected || class == "" {
			t.Errorf("an allowed change is classed %q", class)
		}
		return
	}
	if len(got.Allowed) != 0 || len(got.Refusals) != 1 {
		t.Fatalf("want one refusal, got allowed=%v refusals=%v", got.Allowed, got.Refusals)
	}
	r := got.Refusals[0]
	if r.Path != path || r.Index != ops[0].Index || r.Kind != kind || r.Op != 0 {
		t.Errorf("refusal names %+v, want step %s of kind %s", r, path, kind)
	}
	if !strings.HasPrefix(r.String(), "Refused: ") || !strings.Contains(r.Reason, "step "+path+" ") || !strings.HasSuffix(r.Reason, floorRationale) {
		t.Errorf("refusal reason %q does not name step %s or end with the floor's rationale", r.Reason, path)
	}
	if says != "" && !strings.Contains(r.Reason, says) {
		t.Errorf("refusal reason %q does not say %q", r.Reason, says)
	}
	if got.Outcome() != AllRefused {
		t.Errorf("outcome %s, want %s", got.Outcome(), AllRefused)
	}
	if class != ClassProtected {
		t.Errorf("a refused change is classed %q, want protected", class)
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

// TestFloorNonChecksAreFree: waits for an element or a time, screenshots, extracts and
// report-only audits are not checks (DESIGN.md §4.2, below the table), nor are actions; a repair
// may delete them, replace them with another kind, or change any of their fields, at the top
// level and inside a block.
func TestFloorNonChecksAreFree(t *testing.T) {
	free := []struct {
		step    Step
		changes []func(*Step)
	}{
		{Step{Kind: Wait, For: WaitElement, Locator: MustLocator("css=#list")}, []func(*Step){
			func(s *Step) { s.Locator = MustLocator("css=#items") },
			func(s *Step) { s.State = "hidden" },
			func(s *Step) { s.For, s.Locator, s.Ms = WaitTime, Locator{}, 800 },
			func(s *Step) { s.TimeoutMs = 2000 },
		}},
		{Step{Kind: Wait, For: WaitTime, Ms: 500}, []func(*Step){
			func(s *Step) { s.Ms = 50 },
			func(s *Step) { s.For, s.Ms, s.Locator = WaitElement, 0, MustLocator("css=#ready") },
		}},
		{Step{Kind: Screenshot, Name: "after-login"}, []func(*Step){
			func(s *Step) { s.Name = "other" },
			func(s *Step) { s.Locator = MustLocator("css=main") },
		}},
		{Step{Kind: Extract, Locator: MustLocator("css=#total"), Variable: "total"}, []func(*Step){
			func(s *Step) { s.Locator = MustLocator("testid=total") },
			func(s *Step) { s.Variable = "sum" },
			func(s *Step) { s.Attribute = "data-cents" },
		}},
		{Step{Kind: A11yAudit, ReportOnly: true, Rules: []string{"label"}}, []func(*Step){
			func(s *Step) { s.Rules = nil },
			func(s *Step) { s.Scope = MustLocator("css=main") },
			func(s *Step) { s.Rules = []string{"region"} },
		}},
		{Step{Kind: Click, Locator: MustLocator("css=#go")}, []func(*Step){
			func(s *Step) { s.Locator = MustLocator(`role=button[name="Go"]`) },
			func(s *Step) { s.Kind = Hover },
		}},
		{Step{Kind: Fill, Locator: MustLocator("css=#q"), Value: "x"}, []func(*Step){
			func(s *Step) { s.Value = "y" },
			func(s *Step) { s.Kind = Select },
		}},
	}
	hover := Step{Kind: Hover, Locator: MustLocator("text=Menu")}
	for _, f := range free {
		if f.step.IsCheck() {
			t.Fatalf("%s is a check", f.step)
		}
		afters := []*Step{nil, &hover}
		for _, change := range f.changes {
			a := f.step.Clone()
			change(&a)
			if err := ValidateStep(a); err != nil {
				t.Fatalf("change of %s is malformed: %v", f.step, err)
			}
			afters = append(afters, &a)
		}
		for _, a := range afters {
			name := "delete " + f.step.String()
			op := Op{Kind: OpDelete, Index: 1}
			if a != nil {
				name = f.step.String() + " → " + a.String()
				op = Op{Kind: OpReplace, Index: 1, Step: a}
			}
			t.Run(name, func(t *testing.T) {
				steps := []Step{{Kind: Goto, URL: "/"}, f.step}
				if got := Screen(steps, []Op{op}); len(got.Refusals) != 0 || len(got.Allowed) != 1 {
					t.Errorf("top level: refusals %v", got.Refusals)
				}
				block := Step{Kind: Intent, Goal: "g", Steps: []Step{{Kind: Click, Locator: MustLocator("css=#a")}, f.step}}
				re := block.Clone()
				if a == nil {
					re.Steps = re.Steps[:1]
				} else {
					re.Steps[1] = a.Clone()
				}
				if got := Screen([]Step{block}, []Op{{Kind: OpReplace, Index: 0, Step: &re}}); len(got.Refusals) != 0 {
					t.Errorf("inside a block: refusals %v", got.Refusals)
				}
			})
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
	// Ops that cannot apply are proposed changes too: refusing them all is not "no fix found".
	if got := Screen(steps, []Op{{Kind: OpDelete, Index: 7}}); got.Outcome() != AllRefused {
		t.Errorf("only a malformed op: %s", got.Outcome())
	}
	// An empty list, as a model with no fix answers, is no proposal.
	if got := Screen(steps, []Op{}); got.Outcome() != NothingProposed || len(got.Refusals) != 0 {
		t.Errorf("an empty op list: %s", got.Outcome())
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
		{"toast without its text", []Op{{Kind: OpInsert, Index: 1, Step: &Step{Kind: AssertToast}}}},
		{"insert without a step", []Op{{Kind: OpInsert, Index: 1}}},
		{"delete carrying a step", []Op{{Kind: OpDelete, Index: 1, Step: &steps[0]}}},
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

// An audit of the whole page may not be narrowed to a region; an audit that already had a
// region may move it (the trust checks ask whether it is the recorded region).
func TestFloorRefusesNarrowingAnAudit(t *testing.T) {
	whole := Step{Kind: A11yAudit, Threshold: "serious"}
	footer := whole
	footer.Scope = MustLocator("css=footer")
	sc := Screen([]Step{whole}, []Op{{Kind: OpReplace, Index: 0, Step: &footer}})
	if len(sc.Refusals) != 1 || !strings.Contains(sc.Refusals[0].Reason, "narrowing the accessibility audit at step 1 from the whole page to css=footer") {
		t.Fatalf("narrowing the whole page to the footer: %+v", sc)
	}
	if c := Classify([]Step{whole}, []Step{footer}); Highest(c) != ClassProtected {
		t.Errorf("narrowing an audit is class %s, want protected", Highest(c))
	}
	main := whole
	main.Scope = MustLocator("css=main")
	moved := main
	moved.Scope = MustLocator("role=main")
	if sc := Screen([]Step{main}, []Op{{Kind: OpReplace, Index: 0, Step: &moved}}); len(sc.Refusals) != 0 {
		t.Fatalf("moving a region's locator is the floor's to allow: %+v", sc.Refusals)
	}
}

// A step a trust note names is review whatever changed in it; the page-at-failure note, which
// only says where the repair started, raises nothing.
func TestRaiseNotedToReview(t *testing.T) {
	b := []Step{{Kind: Click, Locator: MustLocator(`role=button[name="Pay"]`)}, {Kind: AssertVisible, Locator: MustLocator(`role=heading[name="Paid"]`)}}
	a := CloneSteps(b)
	a[0].TimeoutMs = 5000
	a[1].TimeoutMs = 9000
	changes := Classify(b, a)
	if len(changes) != 2 || changes[0].Class != ClassRepair || changes[1].Class != ClassRepair {
		t.Fatalf("changes %+v", changes)
	}
	got := RaiseNoted(changes, []Note{{Kind: NotePageAtFailure, Step: "1"}, {Kind: NoteInsensitiveCheck, Step: "2"}})
	if got[0].Class != ClassRepair || got[1].Class != ClassReview || !strings.Contains(got[1].Detail, "named by a insensitive-check note") {
		t.Fatalf("raised %+v", got)
	}
}

// ScreenHeal: a step before the failed one is neither rewritten nor deleted by a heal, a step
// may still be inserted there, and refusals keep the op's position among those proposed.
func TestScreenHealRefusesStepsBeforeTheFailure(t *testing.T) {
	steps := loginTest().Steps
	fill := Step{Kind: Fill, Locator: MustLocator("label=E-mail"), Value: "x@shop.test"}
	click := Step{Kind: Click, Locator: MustLocator(`role=button[name="Sign in"]`)}
	extra := Step{Kind: Fill, Locator: MustLocator("label=Name"), Value: "Ann"}
	ops := []Op{{Kind: OpInsert, Index: 1, Step: &extra}, {Kind: OpReplace, Index: 1, Step: &fill}, {Kind: OpDelete, Index: 0}, {Kind: OpReplace, Index: 2, Step: &click}, {Kind: OpDelete, Index: 3}}
	sc := ScreenHeal(steps, ops, 2)
	if len(sc.Allowed) != 2 || sc.Allowed[0].Kind != OpInsert || sc.Allowed[1].Index != 2 {
		t.Fatalf("allowed %v", sc.Allowed)
	}
	if len(sc.Refusals) != 3 || sc.Refusals[0].Op != 1 || sc.Refusals[0].Path != "2" || sc.Refusals[1].Op != 2 || sc.Refusals[2].Op != 4 {
		t.Fatalf("refusals %+v", sc.Refusals)
	}
	if want := "rewriting step 2 (fill label=Email"; !strings.HasPrefix(sc.Refusals[0].Reason, want) || strings.Contains(sc.Refusals[0].Reason, "demo@shop.test") {
		t.Errorf("reason %q, want it to start %q and carry no typed value", sc.Refusals[0].Reason, want)
	}
	if !strings.HasPrefix(sc.Refusals[1].Reason, "deleting step 1") || !strings.Contains(sc.Refusals[2].Reason, "deleting the check at step 4") {
		t.Errorf("reasons %+v", sc.Refusals)
	}
	if got := ScreenHeal(steps, ops[1:2], -1); len(got.Allowed) != 1 {
		t.Errorf("no failed index: %+v", got)
	}
}
