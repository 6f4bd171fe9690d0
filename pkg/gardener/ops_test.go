package gardener

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func loginTest() Test {
	return Test{ID: "login", ProjectID: "demo", Name: "log in", Status: StatusActive, Version: 4, Steps: []Step{
		{Kind: Goto, URL: "/login"},
		{Kind: Fill, Locator: MustLocator("label=Email"), Value: "demo@shop.test"},
		{Kind: Click, Locator: MustLocator(`role=button[name="Login"]`)},
		{Kind: Assert, Subject: SubjectURL, Condition: Contains, Expected: "/dashboard"},
	}}
}

func TestApplyNeverTouchesTheOriginal(t *testing.T) {
	orig := loginTest()
	before, _ := json.Marshal(orig)
	signIn := Step{Kind: Click, Locator: MustLocator(`role=button[name="Sign in"]`)}
	got, err := Apply(orig, 4, []Op{
		{Kind: OpReplace, Index: 2, Step: &signIn},
		{Kind: OpInsert, Index: 2, Step: &Step{Kind: Click, Locator: MustLocator("text=Accept cookies")}},
		{Kind: OpInsert, Index: 4, Step: &Step{Kind: Screenshot, Name: "end"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := json.Marshal(orig)
	if string(before) != string(after) {
		t.Fatal("Apply modified its input")
	}
	var kinds []string
	for _, s := range got.Steps {
		kinds = append(kinds, s.String())
	}
	want := []string{"goto /login", `fill label=Email "demo@shop.test"`, "click text=Accept cookies", `click role=button[name="Sign in"]`, `assert url contains "/dashboard"`, "screenshot end"}
	if strings.Join(kinds, "|") != strings.Join(want, "|") {
		t.Errorf("got %q", kinds)
	}
	if got.Version != 4 {
		t.Errorf("Apply changed the version to %d; only a store write raises it", got.Version)
	}
	// Mutating the result must not reach back into the op's step.
	got.Steps[3].Locator = MustLocator("css=#x")
	if signIn.Locator.Name != "Sign in" {
		t.Error("result shares memory with the op")
	}
}

func TestApplyErrors(t *testing.T) {
	tt := loginTest()
	_, err := Apply(tt, 3, nil)
	var stale *StaleError
	if !errors.As(err, &stale) || !errors.Is(err, ErrStale) || stale.BaseVersion != 3 || stale.Version != 4 {
		t.Fatalf("stale: got %v", err)
	}
	s := Step{Kind: Goto, URL: "/"}
	for name, ops := range map[string][]Op{
		"replace out of range": {{Kind: OpReplace, Index: 4, Step: &s}},
		"delete negative":      {{Kind: OpDelete, Index: -1}},
		"insert out of range":  {{Kind: OpInsert, Index: 5, Step: &s}},
		"double delete":        {{Kind: OpDelete, Index: 1}, {Kind: OpDelete, Index: 1}},
		"replace and delete":   {{Kind: OpReplace, Index: 1, Step: &s}, {Kind: OpDelete, Index: 1}},
		"replace without step": {{Kind: OpReplace, Index: 1}},
		"delete with step":     {{Kind: OpDelete, Index: 1, Step: &s}},
	} {
		_, err := Apply(tt, 4, ops)
		var oe *OpError
		if !errors.As(err, &oe) {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

func TestOpJSON(t *testing.T) {
	var ops []Op
	in := `[{"op":"replace","index":2,"step":{"kind":"click","locator":"role=button[name=\"Sign in\"]"}},{"op":"delete","index":1}]`
	if err := json.Unmarshal([]byte(in), &ops); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(ops)
	if string(out) != in {
		t.Errorf("round trip:\n%s\n%s", out, in)
	}
	for bad, want := range map[string]string{
		`{"op":"move","index":1}`:    `"move" is not one of`,
		`{"op":"delete"}`:            `"index" is required`,
		`{"op":"replace","index":1}`: `"step" is required`,
		`{"op":"delete","index":1,"step":{"kind":"goto","url":"/"}}`:                                                          `does not apply`,
		`{"op":"insert","index":0,"step":{"kind":"click"}}`:                                                                   `field "locator": is required`,
		`{"op":"insert","index":0,"why":"x","step":{}}`:                                                                       `unknown field "why"`,
		`{"op":"replace","index":2,"step":{"kind":"click","locator":"css=("}}`:                                                `op replace at index 2: step 3 (click), field "locator": malformed locator`,
		`{"op":"replace","index":2,"step":{"kind":"intent","goal":"g","steps":[{"kind":"goto","url":"/"},{"kind":"click"}]}}`: `op replace at index 2: step 3.2 (click), field "locator": is required`,
	} {
		var op Op
		if err := json.Unmarshal([]byte(bad), &op); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v want %q", bad, err, want)
		}
	}
}

func TestDiff(t *testing.T) {
	tt := loginTest()
	signIn := Step{Kind: Click, Locator: MustLocator(`role=button[name="Sign in"]`)}
	ops := []Op{
		{Kind: OpDelete, Index: 1},
		{Kind: OpReplace, Index: 2, Step: &signIn},
		{Kind: OpInsert, Index: 2, Step: &Step{Kind: Click, Locator: MustLocator("text=Accept")}},
	}
	got := RenderDiff(Diff(tt.Steps, ops))
	want := `- step 2  fill label=Email [value redacted, 14 chars]
+ new before step 3  click text=Accept
- step 3  click role=button[name="Login"]
+ step 3  click role=button[name="Sign in"]
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	b, _ := json.Marshal(Diff(tt.Steps, ops))
	for _, frag := range []string{`"op":"delete","index":1,"step":"2","before":{"kind":"fill"`, `"op":"replace","index":2,"step":"3","before":{"kind":"click","locator":"role=button[name=\"Login\"]"},"after":{"kind":"click","locator":"role=button[name=\"Sign in\"]"}`, `{"op":"insert","index":2,"step":"3","after":{"kind":"click","locator":"text=Accept"}}`} {
		if !strings.Contains(string(b), frag) {
			t.Errorf("JSON diff lacks %s\n%s", frag, b)
		}
	}
}

func TestDiffIntentBlock(t *testing.T) {
	block := Step{Kind: Intent, Goal: "log in", Steps: []Step{
		{Kind: Fill, Locator: MustLocator("css=#email"), Value: "a"},
		{Kind: Click, Locator: MustLocator("css=#login")},
	}}
	re := block.Clone()
	re.Steps[1].Locator = MustLocator("css=#signin")
	got := RenderDiff(Diff([]Step{block}, []Op{{Kind: OpReplace, Index: 0, Step: &re}}))
	want := "~ step 1  intent \"log in\" (2 steps)\n  - step 1.2  click css=#login\n  + step 1.2  click css=#signin\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	b, _ := json.Marshal(Diff([]Step{block}, []Op{{Kind: OpReplace, Index: 0, Step: &re}}))
	if frag := `"inner":[{"class":"review","before":{"kind":"click","locator":"css=#login"},"after":{"kind":"click","locator":"css=#signin"},"path":"1.2"`; !strings.Contains(string(b), frag) {
		t.Errorf("JSON diff lacks the changed inner step %s\n%s", frag, b)
	}
}

func TestClassify(t *testing.T) {
	base := loginTest().Steps
	mod := func(f func([]Step) []Step) []Step { return f(CloneSteps(base)) }
	cases := []struct {
		name  string
		after []Step
		want  []ChangeClass
	}{
		{"nothing", base, nil},
		{"role locator becomes text with the same name", mod(func(s []Step) []Step {
			s[2].Locator = MustLocator("text=Login")
			return s
		}), []ChangeClass{ClassRepair}},
		{"renamed button", mod(func(s []Step) []Step {
			s[2].Locator = MustLocator(`role=button[name="Sign in"]`)
			return s
		}), []ChangeClass{ClassReview}},
		{"css selector is all that names it", mod(func(s []Step) []Step {
			s[1].Locator = MustLocator("css=#email2")
			return s
		}), []ChangeClass{ClassReview}},
		{"longer timeout", mod(func(s []Step) []Step {
			s[2].TimeoutMs = 10000
			return s
		}), []ChangeClass{ClassRepair}},
		{"wait added", mod(func(s []Step) []Step {
			return append(s[:3:3], append([]Step{{Kind: Wait, For: WaitElement, Locator: MustLocator("css=#spinner"), State: "hidden"}}, s[3:]...)...)
		}), []ChangeClass{ClassRepair}},
		{"value changed", mod(func(s []Step) []Step {
			s[1].Value = "other@shop.test"
			return s
		}), []ChangeClass{ClassReview}},
		{"action kind changed", mod(func(s []Step) []Step {
			s[2] = Step{Kind: Press, Key: "Enter"}
			return s
		}), []ChangeClass{ClassReview}},
		{"step added", mod(func(s []Step) []Step {
			return append(s, Step{Kind: Click, Locator: MustLocator("css=#logout")})
		}), []ChangeClass{ClassReview}},
		{"check rewritten", mod(func(s []Step) []Step {
			s[3].Expected = "/login"
			return s
		}), []ChangeClass{ClassProtected}},
		{"check removed", mod(func(s []Step) []Step { return s[:3] }), []ChangeClass{ClassProtected}},
		{"check replaced by an action", mod(func(s []Step) []Step {
			s[3] = Step{Kind: Click, Locator: MustLocator("css=#x")}
			return s
		}), []ChangeClass{ClassProtected}},
		{"action removed", mod(func(s []Step) []Step { return append(s[:1:1], s[2:]...) }), []ChangeClass{ClassReview}},
		{"url changed", mod(func(s []Step) []Step {
			s[0].URL = "/signin"
			return s
		}), []ChangeClass{ClassReview}},
		{"label locator becomes a role with the same name", mod(func(s []Step) []Step {
			s[1].Locator = MustLocator(`role=textbox[name="Email"]`)
			return s
		}), []ChangeClass{ClassRepair}},
		{"label locator becomes a css selector", mod(func(s []Step) []Step {
			s[1].Locator = MustLocator("css=#email")
			return s
		}), []ChangeClass{ClassReview}},
		{"test id names another element", mod(func(s []Step) []Step {
			s[2].Locator = MustLocator("testid=signin")
			return s
		}), []ChangeClass{ClassReview}},
		{"check added", mod(func(s []Step) []Step {
			return append(s, Step{Kind: AssertVisible, Locator: MustLocator("css=#hello")})
		}), []ChangeClass{ClassReview}},
		// Spec 002: an element named another way — a role, a frame — is review even when the
		// name stays: a link "Login" is not the button "Login", and a field in another frame is
		// another field.
		{"role changes under the same name", mod(func(s []Step) []Step {
			s[2].Locator = MustLocator(`role=link[name="Login"]`)
			return s
		}), []ChangeClass{ClassReview}},
		{"element moves into a frame", mod(func(s []Step) []Step {
			s[1].Locator = MustLocator(`frame=#login-frame >> label=Email`)
			return s
		}), []ChangeClass{ClassReview}},
		{"role dropped for any role of the same name", mod(func(s []Step) []Step {
			s[2].Locator = MustLocator(`role=*[name="Login"]`)
			return s
		}), []ChangeClass{ClassReview}},
		{"wait for a URL added", mod(func(s []Step) []Step {
			return append(s, Step{Kind: Wait, For: WaitURL, URL: "/dashboard"})
		}), []ChangeClass{ClassReview}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Classify(base, c.after)
			var classes []ChangeClass
			for _, ch := range got {
				classes = append(classes, ch.Class)
			}
			if len(classes) != len(c.want) {
				t.Fatalf("got %+v want %v", got, c.want)
			}
			for i := range classes {
				if classes[i] != c.want[i] {
					t.Errorf("change %d: %s (%s), want %s", i, classes[i], got[i].Detail, c.want[i])
				}
			}
		})
	}
}

// A role written where the recording accepted any role only narrows the match: the name that
// named the element still does.
func TestClassifyARoleWrittenWhereAnyRoleWasIsRepair(t *testing.T) {
	before := []Step{{Kind: Click, Locator: MustLocator(`role=*[name="Login"]`)}}
	after := []Step{{Kind: Click, Locator: MustLocator(`role=button[name="Login"]`)}}
	if got := Classify(before, after); len(got) != 1 || got[0].Class != ClassRepair {
		t.Fatalf("got %+v, want one repair", got)
	}
	framed := []Step{{Kind: Click, Locator: MustLocator(`frame=#pay >> role=button[name="Login"]`)}}
	if got := Classify(framed, after); len(got) != 1 || got[0].Class != ClassReview {
		t.Fatalf("a step moved out of its frame: got %+v, want one review", got)
	}
}

func TestClassifyIntentTakesTheHighestInnerClass(t *testing.T) {
	block := Step{Kind: Intent, Goal: "log in", Steps: []Step{
		{Kind: Fill, Locator: MustLocator("label=Email"), Value: "a"},
		{Kind: Click, Locator: MustLocator(`role=button[name="Login"]`)},
	}}
	re := block.Clone()
	re.Steps[1].Locator = MustLocator("text=Login")
	got := Classify([]Step{block}, []Step{re})
	if len(got) != 1 || got[0].Class != ClassRepair || len(got[0].Inner) != 1 || got[0].Inner[0].Path != "1.2" {
		t.Fatalf("got %+v", got)
	}
	re.Steps = append(re.Steps, Step{Kind: Click, Locator: MustLocator("css=#extra")})
	if got := Classify([]Step{block}, []Step{re}); got[0].Class != ClassReview {
		t.Errorf("an added step inside a block is review, got %s", got[0].Class)
	}
	re.Goal = "skip"
	if got := Classify([]Step{block}, []Step{re}); got[0].Class != ClassProtected {
		t.Errorf("a goal change is protected, got %s", got[0].Class)
	}
}

func TestClassifyWaitsAndBlocks(t *testing.T) {
	waitEl := Step{Kind: Wait, For: WaitElement, Locator: MustLocator("css=#list")}
	block := Step{Kind: Intent, Goal: "log in", Steps: []Step{{Kind: Click, Locator: MustLocator("css=#login")}}}
	cases := []struct {
		name          string
		before, after []Step
		want          ChangeClass
	}{
		{"wait for an element dropped", []Step{{Kind: Goto, URL: "/"}, waitEl}, []Step{{Kind: Goto, URL: "/"}}, ClassRepair},
		{"wait for an element becomes a wait for a time", []Step{waitEl}, []Step{{Kind: Wait, For: WaitTime, Ms: 300}}, ClassRepair},
		{"wait for an element becomes a wait for a URL", []Step{waitEl}, []Step{{Kind: Wait, For: WaitURL, URL: "/done"}}, ClassReview},
		{"wait for a URL dropped", []Step{{Kind: Goto, URL: "/"}, {Kind: Wait, For: WaitURL, URL: "/done"}}, []Step{{Kind: Goto, URL: "/"}}, ClassProtected},
		{"wait for a URL becomes a wait for an element", []Step{{Kind: Wait, For: WaitURL, URL: "/done"}}, []Step{waitEl}, ClassProtected},
		{"intent block replaced by an action", []Step{block}, []Step{{Kind: Click, Locator: MustLocator("css=#login")}}, ClassProtected},
		{"intent block removed", []Step{{Kind: Goto, URL: "/"}, block}, []Step{{Kind: Goto, URL: "/"}}, ClassProtected},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Classify(c.before, c.after)
			if Highest(got) != c.want || len(got) != 1 {
				t.Fatalf("got %+v, want one change of class %s", got, c.want)
			}
		})
	}
}
