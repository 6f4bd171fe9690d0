// Package recorder converts what browser recorders save into gardener tests: a Chrome DevTools
// Recorder recording (the JSON schema of @puppeteer/replay: a title and a list of typed steps,
// each element step with several selectors) and a Selenium IDE project (a .side file: tests of
// commands, each with several targets). Import tells the two apart by their content. Of an
// element's selectors the most resilient becomes the step's locator and the others its recorded
// alternatives; what has no faithful equivalent is refused, every refusal at once with the step
// (or the test and command) and the reason, and nothing is converted then; what replays the same
// without it (a page scroll, a log line) is dropped with a note.
package recorder

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Format is a kind of recording, named as people know it.
type Format string

// The formats Import reads.
const (
	ChromeRecorder Format = "Chrome DevTools Recorder recording"
	SeleniumIDE    Format = "Selenium IDE project"
)

// Refusal is a step (or a Selenium IDE command) that cannot be converted.
type Refusal struct {
	// Test names the test of a Selenium IDE project the command is in; "" for a Chrome Recorder
	// recording, which is one test.
	Test   string
	Step   int    // 1-based, as the recorder numbers its steps or commands
	Type   string // the recorder's step type or command
	Reason string
}

func (r Refusal) String() string {
	if r.Test != "" {
		return fmt.Sprintf("test %q, command %d (%s): %s", r.Test, r.Step, r.Type, r.Reason)
	}
	return fmt.Sprintf("step %d (%s): %s", r.Step, r.Type, r.Reason)
}

// RefusedError lists every step that cannot be converted.
type RefusedError struct{ Refusals []Refusal }

func (e *RefusedError) Error() string {
	lines := make([]string, len(e.Refusals))
	for i, r := range e.Refusals {
		lines[i] = r.String()
	}
	return "the recording cannot be imported:\n  " + strings.Join(lines, "\n  ")
}

// Note is a step converted with a change the user should know of, or dropped.
type Note struct {
	Test string // as in Refusal
	Step int
	Text string
}

func (n Note) String() string {
	if n.Test != "" {
		return fmt.Sprintf("test %q, command %d: %s", n.Test, n.Step, n.Text)
	}
	return fmt.Sprintf("step %d: %s", n.Step, n.Text)
}

// Imported is what Import converted: the format it read, its tests (id and project are the
// caller's, the name the recording's) and the notes on what changed.
type Imported struct {
	Format Format
	Tests  []gardener.Test
	Notes  []Note
}

// Import converts a recording in either format, told apart by its content: a JSON object with
// "steps" is a Chrome Recorder recording, one with "tests" a Selenium IDE project. name is the
// file's name, for the one check the extension allows: a .side file that holds no project is
// refused as such. Every refusal is reported at once, and with one no test is returned.
func Import(data []byte, name string) (Imported, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return Imported{}, fmt.Errorf("not a recording: a %s and a %s are JSON objects, and this is not one (%s)", ChromeRecorder, SeleniumIDE, jsonProblem(err))
	}
	_, steps := top["steps"]
	_, tests := top["tests"]
	side := strings.EqualFold(filepath.Ext(name), ".side")
	switch {
	case tests && !steps:
		ts, notes, err := ConvertSide(data)
		return Imported{Format: SeleniumIDE, Tests: ts, Notes: notes}, err
	case side:
		return Imported{}, fmt.Errorf("a .side file holds a %s, an object with \"tests\"; this one has none", SeleniumIDE)
	case steps && !tests:
		t, notes, err := Convert(data)
		var ts []gardener.Test
		if err == nil {
			ts = []gardener.Test{t}
		}
		return Imported{Format: ChromeRecorder, Tests: ts, Notes: notes}, err
	}
	return Imported{}, fmt.Errorf("not a recording: a %s is an object with \"steps\", a %s an object with \"tests\"; this one has %s", ChromeRecorder, SeleniumIDE, map[bool]string{true: "both", false: "neither"}[steps && tests])
}

func jsonProblem(err error) string {
	if err == nil {
		return "it is null"
	}
	return err.Error()
}

// checked holds a converted test to what a hand-written test file is: its steps go through the
// test format's own decoder.
func checked(steps []gardener.Step) error {
	b, err := json.Marshal(steps)
	if err != nil {
		return err
	}
	if _, err := gardener.DecodeSteps(b); err != nil {
		return fmt.Errorf("the converted steps do not validate: %w", err)
	}
	return nil
}

// origin is the scheme and host of an absolute URL, "" for any other.
func origin(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return ""
}

// relative makes a URL on origin o a path, so the test replays against any base URL.
func relative(o, raw string) string {
	if o == "" {
		return raw
	}
	if rest, ok := strings.CutPrefix(raw, o); ok && (rest == "" || strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, "?")) {
		if rest == "" {
			return "/"
		}
		return rest
	}
	return raw
}

// How resilient a selector's form is, most first: a role with its name names the element as a
// person does, a test id is there to be found, an accessible name alone and a text are what
// people read, CSS follows the markup, CSS through shadow roots more of it, XPath the position.
const (
	rankRole = iota
	rankTestID
	rankName
	rankText
	rankCSS
	rankPierce
	rankXPath
)

// ranked is a converted selector and how resilient its form is.
type ranked struct {
	loc  gardener.Locator
	rank int
}

// candidates collects a step's converted selectors without duplicates, in the order given.
type candidates []ranked

func (c *candidates) add(l gardener.Locator, rank int) {
	if !slices.ContainsFunc(*c, func(x ranked) bool { return x.loc == l }) {
		*c = append(*c, ranked{l, rank})
	}
}

// parse adds a locator written in the test format.
func (c *candidates) parse(s string, rank int) bool {
	l, err := gardener.ParseLocator(s)
	if err != nil {
		return false
	}
	c.add(l, rank)
	return true
}

// pick makes the most resilient candidate the locator and the rest its alternatives, in the
// recorder's order where ranks tie.
func (c candidates) pick() (gardener.Locator, []gardener.Locator, error) {
	if len(c) == 0 {
		return gardener.Locator{}, nil, errors.New("no candidates")
	}
	all := slices.Clone(c)
	slices.SortStableFunc(all, func(a, b ranked) int { return a.rank - b.rank })
	var alts []gardener.Locator
	for _, r := range all[1:] {
		alts = append(alts, r.loc)
	}
	return all[0].loc, alts, nil
}

// viewport keeps a recording's one viewport: the first given; a later one of another size is
// refused by the caller, since a test replays at one size.
type viewport struct {
	size gardener.Viewport
	at   int // the step or command that set it
}

// set takes the size w×h given at step n, and says why it cannot be the test's, or "".
func (v *viewport) set(n, w, h int) string {
	size := gardener.Viewport{Width: w, Height: h}
	if err := size.Check(); err != nil {
		return err.Error()
	}
	if v.size.IsZero() {
		v.size, v.at = size, n
		return ""
	}
	if v.size != size {
		return fmt.Sprintf("it changes the viewport to %s after step %d set %s; a test replays at one viewport, set before its first step", size, v.at, v.size)
	}
	return ""
}

// cssIdent reports whether s can follow # or . in a CSS selector as it is.
func cssIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' || strings.HasPrefix(s, "--") || s[0] == '-' && len(s) > 1 && s[1] >= '0' && s[1] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 0x7f) {
			return false
		}
	}
	return true
}

// cssString quotes s as a CSS string.
func cssString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\a `).Replace(s) + `"`
}

// xpathString quotes s as an XPath 1.0 literal, which has no escapes: a text holding both
// kinds of quote is spelt with concat().
func xpathString(s string) string {
	if !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	parts := strings.Split(s, `"`)
	for i, p := range parts {
		parts[i] = `"` + p + `"`
	}
	return "concat(" + strings.Join(parts, `, '"', `) + ")"
}
