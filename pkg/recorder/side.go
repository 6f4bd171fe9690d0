package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Project is the part of a Selenium IDE project (.side) the conversion reads.
type Project struct {
	Name  string     `json:"name"`
	URL   string     `json:"url"`
	Tests []SideTest `json:"tests"`
}

// SideTest is one test of a project.
type SideTest struct {
	Name     string    `json:"name"`
	Commands []Command `json:"commands"`
}

// Command is one command of a test: what it does, the element it does it to (Target, with the
// other ways the IDE recorded to find the element in Targets, each a locator and its kind) and
// its value.
type Command struct {
	Command string     `json:"command"`
	Target  string     `json:"target"`
	Targets [][]string `json:"targets"`
	Value   string     `json:"value"`
}

// ConvertSide reads a Selenium IDE project and returns one test per test of the project, in its
// order, with the notes on what changed. Every refusal of every test is reported at once, and
// with one no test is returned.
func ConvertSide(data []byte) ([]gardener.Test, []Note, error) {
	var p Project
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&p); err != nil {
		return nil, nil, fmt.Errorf("the project is not Selenium IDE JSON: %w", err)
	}
	if len(p.Tests) == 0 {
		return nil, nil, errors.New("the project has no tests")
	}
	var tests []gardener.Test
	var notes []Note
	var refusals []Refusal
	for i, st := range p.Tests {
		name := strings.TrimSpace(st.Name)
		if name == "" {
			name = fmt.Sprintf("test %d", i+1)
		}
		c := sideConverter{test: name, origin: origin(p.URL), stored: map[string]bool{}}
		for j, cmd := range st.Commands {
			c.command(j+1, cmd)
		}
		notes = append(notes, c.notes...)
		refusals = append(refusals, c.refusals...)
		if len(c.refusals) > 0 {
			continue
		}
		if len(c.steps) == 0 {
			refusals = append(refusals, Refusal{Test: name, Step: len(st.Commands), Type: "test", Reason: "it has no command the gardener can replay"})
			continue
		}
		if err := checked(c.steps); err != nil {
			return nil, notes, fmt.Errorf("test %q: %w", name, err)
		}
		tests = append(tests, gardener.Test{Name: name, Status: gardener.StatusActive, Version: 1, Viewport: c.viewport.size, Steps: c.steps})
	}
	if len(refusals) > 0 {
		return nil, notes, &RefusedError{Refusals: refusals}
	}
	return tests, notes, nil
}

type sideConverter struct {
	test     string
	origin   string // the project's origin: URLs on it become paths
	steps    []gardener.Step
	notes    []Note
	refusals []Refusal
	viewport viewport
	frame    []string // the frame path selectFrame chose, outermost first
	stored   map[string]bool
}

func (c *sideConverter) refuse(n int, cmd, reason string) {
	c.refusals = append(c.refusals, Refusal{Test: c.test, Step: n, Type: cmd, Reason: reason})
}

func (c *sideConverter) note(n int, format string, args ...any) {
	c.notes = append(c.notes, Note{Test: c.test, Step: n, Text: fmt.Sprintf(format, args...)})
}

// sideElement maps the commands that act on or check an element: the step kind, how the
// command's value is read (into the step's value, the expected text, a wait's state, a
// variable, an option, keys, or not at all) and a note on what the step does otherwise. A
// command of no kind is refused, its note the reason.
var sideElement = map[string]struct {
	kind  gardener.StepKind
	value string // "value", "expected", "none", or a wait state
	note  string
}{
	"click":                     {gardener.Click, "none", ""},
	"clickAt":                   {gardener.Click, "none", "clickAt clicks the element's centre, not the offset it names"},
	"type":                      {gardener.Fill, "value", ""},
	"editContent":               {gardener.Fill, "value", ""},
	"check":                     {gardener.Check, "none", ""},
	"uncheck":                   {gardener.Uncheck, "none", ""},
	"mouseOver":                 {gardener.Hover, "none", ""},
	"assertText":                {gardener.Assert, "expected", ""},
	"verifyText":                {gardener.Assert, "expected", "verifyText becomes a check that fails the run (Selenium IDE's verify goes on after a mismatch)"},
	"assertValue":               {gardener.Assert, "expected", ""},
	"verifyValue":               {gardener.Assert, "expected", "verifyValue becomes a check that fails the run (Selenium IDE's verify goes on after a mismatch)"},
	"assertSelectedValue":       {gardener.Assert, "expected", ""},
	"verifySelectedValue":       {gardener.Assert, "expected", "verifySelectedValue becomes a check that fails the run (Selenium IDE's verify goes on after a mismatch)"},
	"assertElementPresent":      {gardener.AssertVisible, "none", "the element must also be visible: a check finds what a person can see"},
	"verifyElementPresent":      {gardener.AssertVisible, "none", "the element must also be visible, and the check fails the run (Selenium IDE's verify goes on)"},
	"assertElementNotPresent":   {gardener.AssertHidden, "none", "an element that is there but hidden counts as not present"},
	"verifyElementNotPresent":   {gardener.AssertHidden, "none", "an element that is there but hidden counts as not present, and the check fails the run (Selenium IDE's verify goes on)"},
	"waitForElementVisible":     {gardener.Wait, "visible", ""},
	"waitForElementNotVisible":  {gardener.Wait, "hidden", ""},
	"waitForElementPresent":     {gardener.Wait, "attached", ""},
	"waitForElementNotPresent":  {gardener.Wait, "hidden", "an element that is there but hidden counts as not present"},
	"doubleClick":               {gardener.Click, "none", ""},
	"doubleClickAt":             {gardener.Click, "none", "doubleClickAt double-clicks the element's centre, not the offset it names"},
	"storeText":                 {gardener.Extract, "variable", ""},
	"storeAttribute":            {gardener.Extract, "variable", ""},
	"select":                    {gardener.Select, "option", ""},
	"sendKeys":                  {gardener.Press, "keys", ""},
	"assertNotText":             {"", "", "a check that text is not shown has no step kind: assert the text that is"},
	"verifyNotText":             {"", "", "a check that text is not shown has no step kind: assert the text that is"},
	"assertChecked":             {"", "", "no check reads whether a box is checked: assert what checking it shows"},
	"assertNotChecked":          {"", "", "no check reads whether a box is checked: assert what checking it shows"},
	"verifyChecked":             {"", "", "no check reads whether a box is checked: assert what checking it shows"},
	"verifyNotChecked":          {"", "", "no check reads whether a box is checked: assert what checking it shows"},
	"assertSelectedLabel":       {"", "", "a check reads a select's value, not its label: use assertSelectedValue"},
	"verifySelectedLabel":       {"", "", "a check reads a select's value, not its label: use verifySelectedValue"},
	"assertEditable":            {"", "", "no check reads whether a field is editable"},
	"assertNotEditable":         {"", "", "no check reads whether a field is editable"},
	"verifyEditable":            {"", "", "no check reads whether a field is editable"},
	"verifyNotEditable":         {"", "", "no check reads whether a field is editable"},
	"waitForElementEditable":    {"", "", "no wait is for a field to become editable"},
	"waitForElementNotEditable": {"", "", "no wait is for a field to become editable"},
	"waitForText":               {"", "", "a wait is for an element, not its text: wait for the element, then assertText"},
	"addSelection":              {"", "", "a select step picks one option: a multiple choice has no step kind"},
	"removeSelection":           {"", "", "a select step picks one option: a multiple choice has no step kind"},
	"submit":                    {"", "", "a form is submitted the way a person does it: click its button"},
	"mouseOut":                  {"", "", "moving the pointer off an element has no step kind (hover moves it onto one)"},
	"mouseDown":                 {"", "", "a press without its release has no step kind: click"},
	"mouseUp":                   {"", "", "a release without its press has no step kind: click"},
	"mouseDownAt":               {"", "", "a press without its release has no step kind: click"},
	"mouseUpAt":                 {"", "", "a release without its press has no step kind: click"},
	"mouseMoveAt":               {"", "", "moving the pointer by an offset has no step kind: hover the element"},
	"dragAndDropToObject":       {"", "", "dragging has no step kind"},
}

// sideRefused are commands refused whatever their target, with the reason.
var sideRefused = map[string]string{
	"runScript":                              "a test runs no script of its own",
	"executeScript":                          "a test runs no script of its own",
	"executeAsyncScript":                     "a test runs no script of its own",
	"if":                                     "a test is one list of steps, without conditions or loops",
	"elseIf":                                 "a test is one list of steps, without conditions or loops",
	"else":                                   "a test is one list of steps, without conditions or loops",
	"end":                                    "a test is one list of steps, without conditions or loops",
	"while":                                  "a test is one list of steps, without conditions or loops",
	"do":                                     "a test is one list of steps, without conditions or loops",
	"repeatIf":                               "a test is one list of steps, without conditions or loops",
	"times":                                  "a test is one list of steps, without conditions or loops",
	"forEach":                                "a test is one list of steps, without conditions or loops",
	"break":                                  "a test is one list of steps, without conditions or loops",
	"run":                                    "it runs another test; put that test's commands in its place",
	"store":                                  "a test stores what it reads from the page, not a value it is given: give the value where it is used",
	"storeValue":                             "a variable holds an element's text or an attribute (storeText, storeAttribute), not a field's value",
	"storeTitle":                             "a variable holds an element's text or an attribute, not the title: assertTitle checks it",
	"storeXpathCount":                        "a variable holds an element's text or an attribute, not a count",
	"storeJson":                              "a variable holds an element's text or an attribute, not JSON",
	"storeWindowHandle":                      "a test replays in one window",
	"selectWindow":                           "a test replays in one window",
	"close":                                  "closing the window ends the test; remove the command",
	"assertAlert":                            "a JavaScript dialog is checked with assertModal, by its text: write that step",
	"assertConfirmation":                     "a JavaScript dialog is checked with assertModal, by its text: write that step",
	"assertPrompt":                           "a JavaScript dialog is checked with assertModal, by its text: write that step",
	"verifyAlert":                            "a JavaScript dialog is checked with assertModal, by its text: write that step",
	"webdriverAnswerOnVisiblePrompt":         "the gardener answers no JavaScript prompt",
	"webdriverChooseOkOnVisibleConfirmation": "the gardener answers no JavaScript confirmation with a choice",
	"webdriverChooseCancelOnVisibleConfirmation": "the gardener answers no JavaScript confirmation with a choice",
	"webdriverChooseCancelOnVisiblePrompt":       "the gardener answers no JavaScript prompt",
	"answerOnNextPrompt":                         "the gardener answers no JavaScript prompt",
	"chooseCancelOnNextConfirmation":             "the gardener answers no JavaScript confirmation with a choice",
	"chooseCancelOnNextPrompt":                   "the gardener answers no JavaScript prompt",
	"chooseOkOnNextConfirmation":                 "the gardener answers no JavaScript confirmation with a choice",
	"assertNotSelectedValue":                     "a check that a value is not selected has no step kind: assert the value that is",
	"assertNotSelectedLabel":                     "a check that a label is not selected has no step kind",
	"verifyNotSelectedValue":                     "a check that a value is not selected has no step kind: assert the value that is",
	"verifyNotSelectedLabel":                     "a check that a label is not selected has no step kind",
}

// sideDropped are commands that change nothing a replay does, dropped with a note.
var sideDropped = map[string]string{
	"echo":     "echo only prints its text",
	"setSpeed": "the gardener replays at its own pace, waiting for each element",
	"debugger": "a breakpoint stops nothing in a replay",
}

// varRef is a ${name} reference in a value.
var varRef = regexp.MustCompile(`\$\{([^}]*)\}`)

func (c *sideConverter) command(n int, cmd Command) {
	name := strings.TrimSpace(cmd.Command)
	switch {
	case name == "":
		c.note(n, "an empty command, skipped")
		return
	case strings.HasPrefix(name, "//"):
		c.note(n, "%s is commented out in Selenium IDE, and left out", strings.TrimPrefix(name, "//"))
		return
	}
	if why, ok := sideDropped[name]; ok {
		c.note(n, "%s dropped: %s", name, why)
		return
	}
	if why, ok := sideRefused[name]; ok {
		c.refuse(n, name, why)
		return
	}
	switch name {
	case "open":
		if strings.TrimSpace(cmd.Target) == "" {
			c.refuse(n, name, "it opens no URL")
			return
		}
		c.add(n, gardener.Step{Kind: gardener.Goto, URL: relative(c.origin, strings.TrimSpace(cmd.Target))})
		return
	case "setWindowSize":
		w, h, ok := windowSize(cmd.Target)
		if !ok {
			c.refuse(n, name, fmt.Sprintf("the size %q is not WIDTHxHEIGHT in pixels", cmd.Target))
			return
		}
		if why := c.viewport.set(n, w, h); why != "" {
			c.refuse(n, name, strings.Replace(why, "after step", "after command", 1))
			return
		}
		c.note(n, "the window size %dx%d is kept as the test's viewport, the page's size: the window's frame has none in a headless browser", w, h)
		return
	case "pause":
		ms, err := strconv.Atoi(strings.TrimSpace(firstNonEmpty(cmd.Target, cmd.Value)))
		if err != nil || ms < 1 || ms > gardener.MaxStepMillis {
			c.refuse(n, name, fmt.Sprintf("the pause %q is not a number of milliseconds from 1 to %d", firstNonEmpty(cmd.Target, cmd.Value), gardener.MaxStepMillis))
			return
		}
		c.add(n, gardener.Step{Kind: gardener.Wait, For: gardener.WaitTime, Ms: ms})
		return
	case "assertTitle", "verifyTitle":
		if name == "verifyTitle" {
			c.note(n, "verifyTitle becomes a check that fails the run (Selenium IDE's verify goes on after a mismatch)")
		}
		c.add(n, gardener.Step{Kind: gardener.Assert, Subject: gardener.SubjectTitle, Condition: gardener.Equals, Expected: cmd.Target})
		return
	case "selectFrame":
		c.selectFrame(n, cmd)
		return
	}
	m, ok := sideElement[name]
	if !ok {
		c.refuse(n, name, "not a Selenium IDE command this import knows")
		return
	}
	if m.kind == "" {
		c.refuse(n, name, m.note)
		return
	}
	target, attribute := cmd.Target, ""
	if name == "storeAttribute" {
		i := strings.LastIndex(target, "@")
		if i < 0 || i == len(target)-1 {
			c.refuse(n, name, fmt.Sprintf("the target %q names no attribute (locator@attribute)", target))
			return
		}
		target, attribute = target[:i], target[i+1:]
	}
	loc, alts, why := c.targets(target, cmd.Targets, name == "storeAttribute")
	if why != "" {
		c.refuse(n, name, why)
		return
	}
	s := gardener.Step{Kind: m.kind, Locator: loc, Alternatives: alts}
	switch m.value {
	case "value":
		s.Value = cmd.Value
	case "expected":
		s.Subject, s.Condition, s.Expected = gardener.SubjectText, gardener.Equals, cmd.Value
		if name != "assertText" && name != "verifyText" {
			s.Subject = gardener.SubjectValue
		}
	case "visible", "hidden", "attached":
		s.For, s.State = gardener.WaitElement, m.value
		if t := strings.TrimSpace(cmd.Value); t != "" {
			ms, err := strconv.Atoi(t)
			if err != nil || ms < 1 || ms > gardener.MaxStepMillis {
				c.refuse(n, name, fmt.Sprintf("the wait %q is not a number of milliseconds from 1 to %d", t, gardener.MaxStepMillis))
				return
			}
			s.TimeoutMs = ms
		}
	case "variable":
		v := strings.TrimSpace(cmd.Value)
		if v == "" {
			c.refuse(n, name, "it names no variable to store into")
			return
		}
		s.Variable, s.Attribute = v, attribute
	case "option":
		v, why := selectOption(cmd.Value)
		if why != "" {
			c.refuse(n, name, why)
			return
		}
		s.Value = v
	case "keys":
		c.sendKeys(n, s, cmd.Value)
		return
	}
	if name == "doubleClick" || name == "doubleClickAt" {
		s.Clicks = 2
	}
	if m.note != "" {
		c.note(n, "%s", m.note)
	}
	c.add(n, s)
}

// add appends a step once every variable its values use has been stored by an earlier command.
func (c *sideConverter) add(n int, s gardener.Step) {
	for _, v := range []string{s.URL, s.Value, s.Expected} {
		for _, m := range varRef.FindAllStringSubmatch(v, -1) {
			if !c.stored[m[1]] {
				c.refuse(n, "variable", fmt.Sprintf("it uses ${%s}, which no command before it stores (storeText or storeAttribute)", m[1]))
				return
			}
		}
	}
	if s.Kind == gardener.Extract {
		c.stored[s.Variable] = true
	}
	c.steps = append(c.steps, s)
}

// sideKeys are the ${KEY_…} names of Selenium IDE and the keys a press step names.
var sideKeys = map[string]string{
	"ENTER": "Enter", "RETURN": "Enter", "TAB": "Tab", "ESC": "Escape", "ESCAPE": "Escape",
	"BACKSPACE": "Backspace", "BKSP": "Backspace", "DELETE": "Delete", "DEL": "Delete",
	"UP": "ArrowUp", "DOWN": "ArrowDown", "LEFT": "ArrowLeft", "RIGHT": "ArrowRight",
	"HOME": "Home", "END": "End", "PAGE_UP": "PageUp", "PGUP": "PageUp", "PAGE_DOWN": "PageDown",
	"PGDN": "PageDown", "SPACE": "Space",
}

var keyToken = regexp.MustCompile(`\$\{KEY_([A-Z_0-9]+)\}`)

// sendKeys presses each ${KEY_…} of value on the element. Text between them is refused: it is
// typed after what the field holds, and a fill replaces it.
func (c *sideConverter) sendKeys(n int, s gardener.Step, value string) {
	rest := keyToken.ReplaceAllString(value, "")
	if rest != "" {
		c.refuse(n, "sendKeys", "it types text without clearing the field first, which no step does (fill replaces the field's text): use type, or send only keys such as ${KEY_ENTER}")
		return
	}
	tokens := keyToken.FindAllStringSubmatch(value, -1)
	if len(tokens) == 0 {
		c.refuse(n, "sendKeys", "it sends no keys")
		return
	}
	var keys []gardener.Step
	for _, t := range tokens {
		k, ok := sideKeys[t[1]]
		if !ok {
			c.refuse(n, "sendKeys", fmt.Sprintf("${KEY_%s} is not a key a press step names (Enter, Tab, Escape, Backspace, Delete, arrows, Home, End, PageUp, PageDown, Space)", t[1]))
			return
		}
		p := s
		p.Kind, p.Key = gardener.Press, k
		keys = append(keys, p)
	}
	for _, p := range keys {
		c.add(n, p)
	}
}

// selectOption reads a select command's option locator: label=, value= or a bare label.
func selectOption(v string) (string, string) {
	kind, rest, ok := strings.Cut(v, "=")
	if !ok {
		return v, ""
	}
	switch kind {
	case "label", "value":
		// A select step takes the option whose value is the text, else the one whose label is.
		return rest, ""
	case "index":
		return "", fmt.Sprintf("it picks the option at %s; a select step picks an option by its value or label, which a reordered list keeps", v)
	case "id":
		return "", fmt.Sprintf("it picks the option by its id (%s); a select step picks an option by its value or label", v)
	}
	return v, ""
}

// selectFrame scopes the commands after it to a frame: index=N, relative=top or parent, or a
// locator of the iframe (id=, name= or css=).
func (c *sideConverter) selectFrame(n int, cmd Command) {
	t := strings.TrimSpace(cmd.Target)
	switch {
	case t == "relative=top":
		c.frame = nil
	case t == "relative=parent":
		if len(c.frame) > 0 {
			c.frame = c.frame[:len(c.frame)-1]
		}
	case strings.HasPrefix(t, "index="):
		i, err := strconv.Atoi(strings.TrimPrefix(t, "index="))
		if err != nil || i < 0 {
			c.refuse(n, "selectFrame", fmt.Sprintf("%q is not a frame's index", t))
			return
		}
		c.frame = append(c.frame, strconv.Itoa(i))
	default:
		var all candidates
		if !all.sideTarget(t) {
			c.refuse(n, "selectFrame", fmt.Sprintf("the frame %q is not an index, relative=top or parent, or an iframe's id=, name= or css= locator", t))
			return
		}
		loc, _, _ := all.pick()
		if loc.Kind != gardener.ByCSS {
			c.refuse(n, "selectFrame", fmt.Sprintf("the frame %q is named by other than CSS; a frame path names an iframe by CSS or index", t))
			return
		}
		c.frame = append(c.frame, loc.Value)
	}
}

// targets converts a command's target and its recorded alternatives: the most resilient
// becomes the locator, the rest its alternatives, each scoped to the frame selectFrame chose.
// attribute says the target carried an @attribute (storeAttribute), which only its own
// target names; the alternatives are then left out.
func (c *sideConverter) targets(target string, targets [][]string, attribute bool) (gardener.Locator, []gardener.Locator, string) {
	var all candidates
	var skipped []string
	sels := []string{target}
	if !attribute {
		for _, t := range targets {
			if len(t) > 0 && t[0] != target {
				sels = append(sels, t[0])
			}
		}
	}
	for _, s := range sels {
		if strings.TrimSpace(s) == "" {
			continue
		}
		if !all.sideTarget(s) {
			skipped = append(skipped, s)
		}
	}
	loc, alts, err := all.pick()
	if err != nil {
		if len(skipped) == 0 {
			return gardener.Locator{}, nil, "it has no target"
		}
		return gardener.Locator{}, nil, fmt.Sprintf("none of its targets has a locator form (%s): the forms are id=, name=, css=, xpath=, linkText= and partialLinkText=", strings.Join(skipped, ", "))
	}
	frame := strings.Join(c.frame, gardener.FrameSeparator)
	loc.Frame = frame
	for i := range alts {
		alts[i].Frame = frame
	}
	return loc, alts, ""
}

// sideTarget adds the locator one Selenium IDE target converts to, and reports whether it had
// a form.
func (all *candidates) sideTarget(t string) bool {
	kind, rest, _ := strings.Cut(t, "=")
	switch {
	case strings.HasPrefix(t, "//") || strings.HasPrefix(t, "(/"):
		return all.parse("xpath="+t, rankXPath)
	case rest == "":
		return false
	}
	switch kind {
	case "id":
		if cssIdent(rest) {
			return all.parse("css=#"+rest, rankCSS)
		}
		return all.parse("css=[id="+cssString(rest)+"]", rankCSS)
	case "name":
		return all.parse("css=[name="+cssString(rest)+"]", rankCSS)
	case "css":
		if m := testID.FindStringSubmatch(rest); m != nil {
			return all.parse("testid="+m[1]+m[2]+m[3], rankTestID)
		}
		return all.parse("css="+rest, rankCSS)
	case "xpath":
		return all.parse("xpath="+rest, rankXPath)
	case "linkText", "link":
		// A link's whole text, as WebDriver reads it: only links, so a heading of the same words
		// is not found too.
		return all.parse("xpath=//a[normalize-space(.)="+xpathString(strings.Join(strings.Fields(rest), " "))+"]", rankText)
	case "partialLinkText":
		return all.parse("xpath=//a[contains(normalize-space(.), "+xpathString(strings.Join(strings.Fields(rest), " "))+")]", rankText)
	}
	return false
}

// windowSize reads "1280x800".
func windowSize(s string) (int, int, bool) {
	a, b, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if !ok {
		return 0, 0, false
	}
	w, err1 := strconv.Atoi(strings.TrimSpace(a))
	h, err2 := strconv.Atoi(strings.TrimSpace(b))
	return w, h, err1 == nil && err2 == nil
}

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
