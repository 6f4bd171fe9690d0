package gardener

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseLocator(t *testing.T) {
	cases := []struct {
		in   string
		want Locator
		str  string
	}{
		{"#login", Locator{Kind: ByCSS, Value: "#login"}, "css=#login"},
		{"css=form > button.primary", Locator{Kind: ByCSS, Value: "form > button.primary"}, "css=form > button.primary"},
		{"input[name=\"q\"]", Locator{Kind: ByCSS, Value: `input[name="q"]`}, `css=input[name="q"]`},
		{"xpath=//button[text()='Go']", Locator{Kind: ByXPath, Value: "//button[text()='Go']"}, "xpath=//button[text()='Go']"},
		{"text=Sign in", Locator{Kind: ByText, Value: "Sign in"}, "text=Sign in"},
		{`text="Sign in"`, Locator{Kind: ByText, Value: "Sign in", Exact: true}, `text="Sign in"`},
		{`role=button[name="Sign in"]`, Locator{Kind: ByRole, Role: "button", Name: "Sign in"}, `role=button[name="Sign in"]`},
		{`role=link[name='Orders']`, Locator{Kind: ByRole, Role: "link", Name: "Orders"}, `role=link[name="Orders"]`},
		{"role=dialog", Locator{Kind: ByRole, Role: "dialog"}, "role=dialog"},
		{"label=Email", Locator{Kind: ByLabel, Value: "Email"}, "label=Email"},
		{"placeholder=Search…", Locator{Kind: ByPlaceholder, Value: "Search…"}, "placeholder=Search…"},
		{"testid=submit-order", Locator{Kind: ByTestID, Value: "submit-order"}, "testid=submit-order"},
		{"a[href*=\"x=1\"]", Locator{Kind: ByCSS, Value: `a[href*="x=1"]`}, `css=a[href*="x=1"]`},
		{"input[type=email]", Locator{Kind: ByCSS, Value: "input[type=email]"}, "css=input[type=email]"},
		{"css=id=login", Locator{Kind: ByCSS, Value: "id=login"}, "css=id=login"},
		{"frame=#pay >> label=Card number", Locator{Kind: ByLabel, Value: "Card number", Frame: "#pay"}, "frame=#pay >> label=Card number"},
		{`frame=iframe[title="Editor"]>>#body`, Locator{Kind: ByCSS, Value: "#body", Frame: `iframe[title="Editor"]`}, `frame=iframe[title="Editor"] >> css=#body`},
		{`frame=#outer >> frame=0 >> role=button[name="Pay"]`, Locator{Kind: ByRole, Role: "button", Name: "Pay", Frame: "#outer >> 0"}, `frame=#outer >> frame=0 >> role=button[name="Pay"]`},
		{"text=a >> b", Locator{Kind: ByText, Value: "a >> b"}, "text=a >> b"},
		{`role=*[name="Search products"]`, Locator{Kind: ByRole, Role: AnyRole, Name: "Search products"}, `role=*[name="Search products"]`},
		{`role=button[name*="Delete Grace Hopper"]`, Locator{Kind: ByRole, Role: "button", Name: "Delete Grace Hopper", NameContains: true}, `role=button[name*="Delete Grace Hopper"]`},
		{`role=*[ name *= 'Cart' ]`, Locator{Kind: ByRole, Role: AnyRole, Name: "Cart", NameContains: true}, `role=*[name*="Cart"]`},
	}
	for _, c := range cases {
		got, err := ParseLocator(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("%q: got %+v want %+v", c.in, got, c.want)
		}
		if got.String() != c.str {
			t.Errorf("%q: String %q want %q", c.in, got.String(), c.str)
		}
		if again, err := ParseLocator(got.String()); err != nil || again != got {
			t.Errorf("%q: round trip gives %+v, %v", c.in, again, err)
		}
	}
	bad := map[string]string{
		"":                          "empty",
		"   ":                       "empty",
		"text=":                     "no value",
		"css=div[":                  "unclosed",
		"xpath=//a[@id='x'":         "unclosed",
		"css=a[title='x]":           "unterminated",
		"role=Button":               "ARIA role",
		`role=button[name=Login]`:   "quoted",
		`role=button[title="x"]`:    "one attribute",
		`role=button[name="x"`:      "not closed",
		`label="unterminated`:       "unterminated",
		`role=button[name=""]`:      "empty",
		"css=div)":                  "unbalanced",
		`text='it's'`:               "unescaped",
		`placeholder=""`:            "empty value",
		"testid=  ":                 "no value",
		`role=button[name="a\q"]`:   "escape",
		`role=button[name="a"]]`:    "unterminated",
		"xpath=//div[contains(.,')": "unterminated",
		"id=login":                  `unknown locator form "id="`,
		"Text=Sign in":              `unknown locator form "Text="`,
		"data-test=x":               `unknown locator form "data-test="`,
		"frame=#pay":                "no locator follows",
		"frame= >> #x":              "no iframe selector",
		"frame=#pay >> ":            "no locator after the frame path",
		"frame=iframe[x >> #a":      "unclosed",
		"frame=#pay >> id=x":        `unknown locator form "id="`,
		"role=*":                    "without a name",
		"role=**[name=\"x\"]":       "ARIA role",
	}
	for in, want := range bad {
		_, err := ParseLocator(in)
		var le *LocatorError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want a LocatorError mentioning %q, got %v", in, want, err)
		}
	}
}

func TestDecodeStepsErrorsNameStepAndField(t *testing.T) {
	cases := []struct {
		name, json, want string
	}{
		{"unknown kind", `[{"kind":"goto","url":"/"},{"kind":"teleport"}]`, `step 2, field "kind": unknown step kind "teleport" (the kinds are goto, click, fill, select, set, check, uncheck, press, hover, assert, assertVisible, assertHidden, assertToast, assertModal, assertValidationError, assertConsole, assertRequest, a11yAudit, wait, screenshot, extract, intent)`},
		{"missing kind", `[{"url":"/"}]`, `step 1, field "kind": is required`},
		{"unknown field", `[{"kind":"click","locator":"#a","colour":"red"}]`, `step 1 (click), field "colour": unknown field`},
		{"field of another kind", `[{"kind":"click","locator":"#a","expected":"x"}]`, `step 1 (click), field "expected": is not a field of a click step`},
		{"missing required", `[{"kind":"fill","locator":"#a"}]`, `step 1 (fill), field "value": is required`},
		{"malformed locator", `[{"kind":"goto","url":"/"},{"kind":"click","locator":"role=button[name=Go]"}]`, `step 2 (click), field "locator": malformed locator`},
		{"inside a block", `[{"kind":"intent","goal":"log in","steps":[{"kind":"goto","url":"/"},{"kind":"fill","locator":"css=div[","value":"x"}]}]`, `step 1.2 (fill), field "locator": malformed locator "css=div[": unclosed '['`},
		{"unknown field in a block", `[{"kind":"intent","goal":"g","steps":[{"kind":"click","locator":"#a","wat":1}]}]`, `step 1.1 (click), field "wat": unknown field`},
		{"unknown kind in a block", `[{"kind":"goto","url":"/"},{"kind":"intent","goal":"g","steps":[{"kind":"goto","url":"/"},{"kind":"teleport"}]}]`, `step 2.2, field "kind": unknown step kind "teleport"`},
		{"missing required in a block", `[{"kind":"intent","goal":"g","steps":[{"kind":"fill","locator":"#a"}]}]`, `step 1.1 (fill), field "value": is required`},
		{"missing kind in a block", `[{"kind":"intent","goal":"g","steps":[{"url":"/"}]}]`, `step 1.1, field "kind": is required`},
		{"block steps not a list", `[{"kind":"goto","url":"/"},{"kind":"intent","goal":"g","steps":{"kind":"goto"}}]`, `step 2 (intent), field "steps": must be a JSON array of steps`},
		{"block without goal", `[{"kind":"intent","steps":[{"kind":"goto","url":"/"}]}]`, `step 1 (intent), field "goal": is required`},
		{"bare locator with an unknown form", `[{"kind":"click","locator":"id=login"}]`, `step 1 (click), field "locator": malformed locator "id=login": unknown locator form "id="`},
		{"wrong type", `[{"kind":"assertRequest","method":"GET","urlPattern":"/x","status":"200"}]`, `step 1 (assertRequest), field "status": must be an integer`},
		{"bad enum", `[{"kind":"assert","assert":"colour","condition":"equals","expected":"x"}]`, `step 1 (assert), field "assert": "colour" is not one of url, text, title, value, variable`},
		{"assert text without locator", `[{"kind":"assert","assert":"text","condition":"equals","expected":"x"}]`, `field "locator": is required for an assert of text`},
		{"assert url with locator", `[{"kind":"assert","assert":"url","locator":"#a","condition":"equals","expected":"x"}]`, `field "locator": does not apply to an assert of url`},
		{"variable without actual", `[{"kind":"assert","assert":"variable","condition":"equals","expected":"x"}]`, `field "actual"`},
		{"bad regex", `[{"kind":"assert","assert":"url","condition":"matches","expected":"("}]`, `field "expected": is not a valid regular expression`},
		{"audit needs threshold or reportOnly", `[{"kind":"a11yAudit"}]`, `field "threshold": give either a threshold or reportOnly: true`},
		{"audit with both", `[{"kind":"a11yAudit","threshold":"serious","reportOnly":true}]`, `field "threshold"`},
		{"wait for url without url", `[{"kind":"wait","for":"url"}]`, `field "url": is required for a wait for url`},
		{"wait for time with locator", `[{"kind":"wait","for":"time","ms":5,"locator":"#a"}]`, `field "locator": does not apply to a wait for time`},
		{"nested intent", `[{"kind":"intent","goal":"g","steps":[{"kind":"intent","goal":"h","steps":[{"kind":"goto","url":"/"}]}]}]`, `step 1 (intent), field "steps": intent blocks do not nest`},
		{"empty intent", `[{"kind":"intent","goal":"g","steps":[]}]`, `field "steps": an intent block needs at least one step`},
		{"duplicate field", `[{"kind":"goto","url":"/a","url":"/b"}]`, `step 1: field "url" appears twice`},
		{"not an object", `[{"kind":"goto","url":"/"}, 7]`, `step 2: must be a JSON object`},
		{"negative timeout", `[{"kind":"goto","url":"/","timeoutMs":-5}]`, `field "timeoutMs": must not be negative`},
		{"bad status", `[{"kind":"assertRequest","method":"GET","urlPattern":"/x","status":999}]`, `field "status": must be an HTTP status`},
		{"bad method", `[{"kind":"assertRequest","method":"FETCH","urlPattern":"/x"}]`, `field "method"`},
		{"set without value", `[{"kind":"set","locator":"#a"}]`, `step 1 (set), field "value": is required`},
		{"four clicks", `[{"kind":"click","locator":"#a","clicks":4}]`, `step 1 (click), field "clicks": must be between 1 and 3`},
		{"clicks as text", `[{"kind":"click","locator":"#a","clicks":"2"}]`, `step 1 (click), field "clicks": must be an integer`},
		{"clicks on a hover", `[{"kind":"hover","locator":"#a","clicks":2}]`, `step 1 (hover), field "clicks": is not a field of a hover step`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeSteps([]byte(c.json))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant it to contain %s", err, c.want)
			}
		})
	}
}

// everyKind is one valid step of each kind, used by round-trip and fuzz tests.
func everyKind() []Step {
	return []Step{
		{Kind: Goto, URL: "/login"},
		{Kind: Fill, Locator: MustLocator("label=Email"), Value: "demo@shop.test"},
		{Kind: Fill, Locator: MustLocator("placeholder=Password"), Value: ""},
		{Kind: Select, Locator: MustLocator("css=#country"), Value: "NL"},
		{Kind: Set, Locator: MustLocator(`role=*[name="Delivery"]`), Value: "express"},
		{Kind: Check, Locator: MustLocator("testid=terms")},
		{Kind: Uncheck, Locator: MustLocator("xpath=//input[@name='news']")},
		{Kind: Press, Key: "Enter"},
		{Kind: Hover, Locator: MustLocator("text=Menu")},
		{Kind: Click, Locator: MustLocator(`role=button[name="Sign in"]`), TimeoutMs: 8000},
		{Kind: Click, Locator: MustLocator("text=Lavender"), Clicks: 2},
		{Kind: Assert, Subject: SubjectURL, Condition: Contains, Expected: "/dashboard"},
		{Kind: Assert, Subject: SubjectText, Locator: MustLocator("#total"), Condition: Matches, Expected: `^\$\d+`},
		{Kind: Assert, Subject: SubjectVariable, Actual: "${total}", Condition: Equals, Expected: "42"},
		{Kind: AssertVisible, Locator: MustLocator("css=#welcome"), Text: "Welcome"},
		{Kind: AssertHidden, Locator: MustLocator("css=#error")},
		{Kind: AssertToast, Text: "Saved"},
		{Kind: AssertModal, Locator: MustLocator("role=dialog"), Text: "Confirm"},
		{Kind: AssertValidationError, Locator: MustLocator("label=Name"), Text: "Required"},
		{Kind: AssertConsole, Level: "error", Pattern: ".", Expect: ExpectNoMatch},
		{Kind: AssertRequest, Method: "POST", URLPattern: "/api/items", Status: 201},
		{Kind: A11yAudit, Scope: MustLocator("css=main"), Threshold: "serious", Rules: []string{"label"}},
		{Kind: A11yAudit, ReportOnly: true},
		{Kind: Wait, For: WaitURL, URL: "/dashboard"},
		{Kind: Wait, For: WaitElement, Locator: MustLocator("css=#list"), State: "visible"},
		{Kind: Wait, For: WaitTime, Ms: 250},
		{Kind: Screenshot, Name: "done"},
		{Kind: Extract, Locator: MustLocator("css=#total"), Variable: "total", Attribute: "data-cents"},
		{Kind: Intent, Goal: "log in", Values: map[string]string{"email": "demo@shop.test"}, Steps: []Step{
			{Kind: Fill, Locator: MustLocator("css=#email"), Value: "demo@shop.test"},
			{Kind: Click, Locator: MustLocator("css=#login")},
		}},
	}
}

func TestStepRoundTrip(t *testing.T) {
	steps := everyKind()
	seen := map[StepKind]bool{}
	for _, s := range steps {
		seen[s.Kind] = true
	}
	for _, k := range Kinds() {
		if !seen[k] {
			t.Errorf("everyKind lacks %s", k)
		}
	}
	b, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeSteps(b)
	if err != nil {
		t.Fatalf("decode of our own encoding: %v\n%s", err, b)
	}
	if len(back) != len(steps) {
		t.Fatalf("got %d steps", len(back))
	}
	for i := range steps {
		if !back[i].Equal(steps[i]) {
			t.Errorf("step %d: %s became %s", i+1, steps[i], back[i])
		}
	}
	// An empty fill value is written out, because "enter nothing" differs from "no value given".
	if !strings.Contains(string(b), `{"kind":"fill","locator":"placeholder=Password","value":""}`) {
		t.Errorf("empty fill value not encoded: %s", b)
	}
}

// TestClicksOfOneAreNone: "clicks": 1 (and 0) is a click step's one click, read back equal to a
// click that never named its count, so a file that spells it out round-trips.
func TestClicksOfOneAreNone(t *testing.T) {
	for _, in := range []string{`[{"kind":"click","locator":"#a","clicks":1}]`, `[{"kind":"click","locator":"#a","clicks":0}]`} {
		steps, err := DecodeSteps([]byte(in))
		if err != nil || steps[0].Clicks != 0 || !steps[0].Equal(Step{Kind: Click, Locator: MustLocator("#a")}) {
			t.Errorf("%s: %+v, %v", in, steps, err)
		}
	}
	steps, err := DecodeSteps([]byte(`[{"kind":"click","locator":"#a","clicks":2}]`))
	if err != nil || steps[0].Clicks != 2 || steps[0].String() != "click css=#a clicks=2" {
		t.Errorf("a double click: %+v, %v", steps, err)
	}
}

// TestViewport: a test's viewport reads strictly (both sides, whole pixels, within bounds, no
// other key), writes back as it was read, and a test without one writes no viewport at all.
func TestViewport(t *testing.T) {
	in := `{"id":"t1","viewport":{"width":390,"height":844},"steps":[{"kind":"goto","url":"/"}]}`
	tt, err := DecodeTest([]byte(in))
	if err != nil || tt.Viewport != (Viewport{Width: 390, Height: 844}) {
		t.Fatalf("got %+v, %v", tt, err)
	}
	b, err := json.Marshal(tt)
	if err != nil || !strings.Contains(string(b), `"viewport":{"width":390,"height":844}`) {
		t.Fatalf("encoded %s, %v", b, err)
	}
	if back, err := DecodeTest(b); err != nil || back.Viewport != tt.Viewport {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	f, err := FormatTest(tt)
	if err != nil || !strings.Contains(string(f), "  \"viewport\": {\"width\": 390, \"height\": 844},\n  \"steps\"") {
		t.Errorf("formatted:\n%s", f)
	}
	if back, err := DecodeTest(f); err != nil || back.Viewport != tt.Viewport {
		t.Errorf("the formatted file reads back %+v, %v", back, err)
	}
	none, _ := DecodeTest([]byte(`{"id":"t2","steps":[{"kind":"goto","url":"/"}]}`))
	for _, enc := range [][]byte{mustMarshal(t, none), mustFormat(t, none)} {
		if strings.Contains(string(enc), "viewport") {
			t.Errorf("a test without a viewport writes one: %s", enc)
		}
	}
	for in, want := range map[string]string{
		`{"id":"t","viewport":{"width":390},"steps":[{"kind":"goto","url":"/"}]}`:                        `needs both "width" and "height"`,
		`{"id":"t","viewport":{"width":390,"height":844,"scale":2},"steps":[{"kind":"goto","url":"/"}]}`: `unknown field "scale"`,
		`{"id":"t","viewport":{"width":390.5,"height":844},"steps":[{"kind":"goto","url":"/"}]}`:         `whole CSS pixels`,
		`{"id":"t","viewport":{"width":50,"height":844},"steps":[{"kind":"goto","url":"/"}]}`:            `viewport width 50 is out of bounds (100 to 4096`,
		`{"id":"t","viewport":{"width":1280,"height":9000},"steps":[{"kind":"goto","url":"/"}]}`:         `viewport height 9000 is out of bounds`,
		`{"id":"t","viewport":"1280x800","steps":[{"kind":"goto","url":"/"}]}`:                           `field "viewport" must be`,
		`{"id":"t","viewport":{"width":1,"width":2,"height":3},"steps":[{"kind":"goto","url":"/"}]}`:     `appears twice`,
	} {
		if _, err := DecodeTest([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustFormat(t *testing.T, tt Test) []byte {
	t.Helper()
	b, err := FormatTest(tt)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeTest(t *testing.T) {
	good := `{"id":"t1","project":"demo","name":"login","status":"pending","version":3,"steps":[{"kind":"goto","url":"/"}]}`
	tt, err := DecodeTest([]byte(good))
	if err != nil || tt.ID != "t1" || tt.Status != StatusPending || tt.Version != 3 || len(tt.Steps) != 1 {
		t.Fatalf("got %+v, %v", tt, err)
	}
	for in, want := range map[string]string{
		`{"id":"t1","steps":[{"kind":"goto","url":"/"}],"owner":"x"}`:     `unknown field "owner"`,
		`{"steps":[{"kind":"goto","url":"/"}]}`:                           `"id" is required`,
		`{"id":"t1","status":"live","steps":[{"kind":"goto","url":"/"}]}`: `"live" is not one of`,
		`{"id":"t1"}`:              `"steps" is required`,
		`{"id":"t1","steps":null}`: `"steps" is required`,
		`{"id":"t1","steps":[]}`:   `"steps" must hold at least one step`,
		`{"id":"t1","steps":[{"kind":"goto","url":"/"},{"kind":"click","locator":"css=("}]}`: `test t1: step 2 (click), field "locator"`,
	} {
		if _, err := DecodeTest([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

func TestIsCheck(t *testing.T) {
	for _, s := range everyKind() {
		want := strings.HasPrefix(string(s.Kind), "assert") || (s.Kind == A11yAudit && !s.ReportOnly) || (s.Kind == Wait && s.For == WaitURL)
		if s.IsCheck() != want {
			t.Errorf("%s: IsCheck %v", s, s.IsCheck())
		}
	}
}
