package recorder

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// project builds a one-test Selenium IDE project of the given commands.
func project(t *testing.T, cmds ...Command) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"name": "p", "url": "http://app.test", "tests": []any{map[string]any{"name": "t", "commands": cmds}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func cmd(command, target, value string, targets ...string) Command {
	c := Command{Command: command, Target: target, Value: value}
	for _, t := range targets {
		c.Targets = append(c.Targets, []string{t, "x"})
	}
	return c
}

// TestSideCommands: each common command becomes the step that does what it does.
func TestSideCommands(t *testing.T) {
	cases := []struct {
		cmd  Command
		want string
	}{
		{cmd("open", "http://app.test/login", ""), "goto /login"},
		{cmd("open", "https://other.test/x", ""), "goto https://other.test/x"},
		{cmd("click", "id=go", ""), "click css=#go"},
		{cmd("clickAt", "id=go", "10,10"), "click css=#go"},
		{cmd("doubleClick", "css=li.fern", ""), "click css=li.fern clicks=2"},
		{cmd("type", "name=q", "fern"), `fill css=[name="q"] "fern"`},
		{cmd("editContent", "id=bio", "hello"), `fill css=#bio "hello"`},
		{cmd("select", "id=zone", "label=Central European"), `select css=#zone "Central European"`},
		{cmd("select", "id=zone", "value=cet"), `select css=#zone "cet"`},
		{cmd("select", "id=zone", "Pacific"), `select css=#zone "Pacific"`},
		{cmd("check", "id=terms", ""), "check css=#terms"},
		{cmd("uncheck", "id=terms", ""), "uncheck css=#terms"},
		{cmd("mouseOver", "css=.tip", ""), "hover css=.tip"},
		{cmd("assertText", "id=total", "$42.00"), `assert text css=#total equals "$42.00"`},
		{cmd("verifyText", "id=total", "$42.00"), `assert text css=#total equals "$42.00"`},
		{cmd("assertValue", "id=q", "fern"), `assert value css=#q equals "fern"`},
		{cmd("assertSelectedValue", "id=zone", "cet"), `assert value css=#zone equals "cet"`},
		{cmd("assertTitle", "Home · Shop", ""), `assert title equals "Home · Shop"`},
		{cmd("assertElementPresent", "css=.saved", ""), "assertVisible css=.saved"},
		{cmd("assertElementNotPresent", "css=.error", ""), "assertHidden css=.error"},
		{cmd("waitForElementVisible", "id=late", "3000"), "wait element css=#late visible timeout=3000ms"},
		{cmd("waitForElementNotVisible", "id=spinner", ""), "wait element css=#spinner hidden"},
		{cmd("waitForElementPresent", "id=late", ""), "wait element css=#late attached"},
		{cmd("pause", "250", ""), "wait 250ms"},
		{cmd("storeText", "id=total", "total"), "extract css=#total → total"},
		{cmd("storeAttribute", "id=link@href", "where"), "extract css=#link href → where"},
		{cmd("sendKeys", "id=q", "${KEY_ENTER}"), "press css=#q Enter"},
	}
	for _, c := range cases {
		tests, _, err := ConvertSide(project(t, c.cmd))
		if err != nil {
			t.Errorf("%s: %v", c.cmd.Command, err)
			continue
		}
		if got := tests[0].Steps[0].String(); got != c.want {
			t.Errorf("%s %s %s: %s, want %s", c.cmd.Command, c.cmd.Target, c.cmd.Value, got, c.want)
		}
	}
	tests, _, err := ConvertSide(project(t, cmd("sendKeys", "id=q", "${KEY_DOWN}${KEY_DOWN}${KEY_TAB}")))
	if err != nil || len(tests[0].Steps) != 3 || tests[0].Steps[2].Key != "Tab" {
		t.Errorf("keys in a row: %v, %v", tests, err)
	}
}

// TestSideTargets: every target form the IDE records has its locator; the most resilient is the
// locator and the others its alternatives, duplicates left out; an id that is no CSS name is
// quoted; a link's text finds links only.
func TestSideTargets(t *testing.T) {
	tests, _, err := ConvertSide(project(t,
		cmd("click", "css=#buy", "", "css=#buy", "id=buy", "name=buy", "xpath=//button[@id='buy']", "linkText=Buy now", "css=[data-testid='buy']", "identifier=buy"),
		cmd("click", "id=2fast", ""),
		cmd("click", "partialLinkText=Say \"hi\" it's", ""),
		cmd("click", "//a[1]", ""),
	))
	if err != nil {
		t.Fatal(err)
	}
	s := tests[0].Steps
	if got, want := append([]string{s[0].Locator.String()}, locs(s[0].Alternatives)...), []string{"testid=buy", `xpath=//a[normalize-space(.)="Buy now"]`, "css=#buy", `css=[name="buy"]`, "xpath=//button[@id='buy']"}; !slices.Equal(got, want) {
		t.Errorf("ranked %v, want %v", got, want)
	}
	if got := s[1].Locator.String(); got != `css=[id="2fast"]` {
		t.Errorf("an id starting with a digit: %s", got)
	}
	if got := s[2].Locator.String(); got != `xpath=//a[contains(normalize-space(.), concat("Say ", '"', "hi", '"', " it's"))]` {
		t.Errorf("a link text with both quotes: %s", got)
	}
	if got := s[3].Locator.String(); got != "xpath=//a[1]" {
		t.Errorf("a bare XPath: %s", got)
	}
}

// TestSideVariablesAndFrames: a value may use a variable an earlier storeText stored (the
// replay fills it in), and no other; selectFrame scopes the commands after it to a frame by
// index or CSS, relative=parent and top climb out.
func TestSideVariablesAndFrames(t *testing.T) {
	tests, _, err := ConvertSide(project(t,
		cmd("storeText", "id=total", "total"),
		cmd("selectFrame", "index=0", ""),
		cmd("selectFrame", "id=inner", ""),
		cmd("assertText", "id=sum", "${total}"),
		cmd("selectFrame", "relative=parent", ""),
		cmd("click", "id=pay", ""),
		cmd("selectFrame", "relative=top", ""),
		cmd("click", "id=done", ""),
	))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tests[0].Steps {
		got = append(got, s.String())
	}
	want := []string{"extract css=#total → total", `assert text frame=0 >> frame=#inner >> css=#sum equals "${total}"`, "click frame=0 >> css=#pay", "click css=#done"}
	if !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	_, _, err = ConvertSide(project(t, cmd("type", "id=q", "${later}"), cmd("storeText", "id=x", "later")))
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Refusals[0].Step != 1 || !strings.Contains(refused.Refusals[0].Reason, "${later}, which no command before it stores") {
		t.Errorf("a variable stored after it is used: %v", err)
	}
}

// TestSideNotes: commented-out, empty and log-only commands are left out with a note; a window
// size is the test's viewport, noted.
func TestSideNotes(t *testing.T) {
	tests, notes, err := ConvertSide(project(t,
		cmd("open", "/", ""),
		cmd("//click", "id=x", ""),
		cmd("", "", ""),
		cmd("echo", "hello", ""),
		cmd("setWindowSize", "1024x768", ""),
		cmd("verifyTitle", "Home", ""),
	))
	if err != nil {
		t.Fatal(err)
	}
	if len(tests[0].Steps) != 2 || tests[0].Viewport != (gardener.Viewport{Width: 1024, Height: 768}) {
		t.Errorf("steps %v viewport %v", tests[0].Steps, tests[0].Viewport)
	}
	var at []int
	for _, n := range notes {
		at = append(at, n.Step)
		if n.Test != "t" {
			t.Errorf("a note names test %q", n.Test)
		}
	}
	if !slices.Equal(at, []int{2, 3, 4, 5, 6}) {
		t.Errorf("notes at %v: %v", at, notes)
	}
}

// TestSideRefusals: every command without an equivalent in refused/project.side is refused at
// once, naming its test, its number and why; a project with one refused command converts no
// test at all, not even its clean one.
func TestSideRefusals(t *testing.T) {
	tests, _, err := ConvertSide(read(t, "refused/project.side"))
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("refused/project.side converted: %v", err)
	}
	if len(tests) != 0 {
		t.Errorf("a refused project converted %d tests", len(tests))
	}
	why := map[int]string{}
	var at []int
	for _, r := range refused.Refusals {
		if r.Test != "Scripted checkout" {
			t.Errorf("refusal in test %q: %s", r.Test, r)
		}
		at = append(at, r.Step)
		why[r.Step] = r.Reason
	}
	if want := []int{2, 3, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15}; !slices.Equal(at, want) {
		t.Errorf("refused commands %v, want %v", at, want)
	}
	for step, want := range map[int]string{2: "no script", 3: "without conditions or loops", 7: "without clearing", 8: "index=2", 9: "${favourite}", 11: "changes the viewport to 800x600 after command 10", 12: "identifier=search", 15: "not a Selenium IDE command"} {
		if !strings.Contains(why[step], want) {
			t.Errorf("command %d refused for %q, want it to say %q", step, why[step], want)
		}
	}
	if !strings.Contains(err.Error(), `test "Scripted checkout", command 2 (runScript): `) {
		t.Errorf("the error does not name the test, the command and its number:\n%v", err)
	}
}
