// Package recorder converts a Chrome DevTools Recorder recording (the JSON schema of
// @puppeteer/replay: a title and a list of typed steps, each element step with several selectors)
// into a gardener test. The most resilient selector becomes the step's locator and the others
// its recorded alternatives; what has no faithful equivalent is refused with the step's number
// and the reason, and what replays the same without it (the viewport, a page scroll) is dropped
// with a note.
package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Recording is the part of a Recorder recording the conversion reads.
type Recording struct {
	Title string `json:"title"`
	Steps []Step `json:"steps"`
}

// Step is one Recorder step; which fields are set depends on Type.
type Step struct {
	Type           string            `json:"type"`
	URL            string            `json:"url"`
	Selectors      []json.RawMessage `json:"selectors"`
	Value          string            `json:"value"`
	Key            string            `json:"key"`
	Target         string            `json:"target"`
	Frame          []int             `json:"frame"`
	Button         string            `json:"button"`
	Operator       string            `json:"operator"`
	Count          *int              `json:"count"`
	Visible        *bool             `json:"visible"`
	Attributes     map[string]any    `json:"attributes"`
	Properties     map[string]any    `json:"properties"`
	Timeout        int               `json:"timeout"`
	AssertedEvents []struct {
		Type  string `json:"type"`
		URL   string `json:"url"`
		Title string `json:"title"`
	} `json:"assertedEvents"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Refusal is a step that cannot be converted.
type Refusal struct {
	Step   int    // 1-based, as the Recorder numbers its steps
	Type   string // the Recorder step type
	Reason string
}

func (r Refusal) String() string { return fmt.Sprintf("step %d (%s): %s", r.Step, r.Type, r.Reason) }

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
	Step int
	Text string
}

// Convert reads a recording and returns the test it converts to (id and project are the
// caller's), with the notes on what changed. Every refusal is reported at once.
func Convert(data []byte) (gardener.Test, []Note, error) {
	var rec Recording
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rec); err != nil {
		return gardener.Test{}, nil, fmt.Errorf("the recording is not Recorder JSON: %w", err)
	}
	if len(rec.Steps) == 0 {
		return gardener.Test{}, nil, errors.New("the recording has no steps")
	}
	c := converter{}
	for i, st := range rec.Steps {
		c.step(i+1, st)
	}
	if len(c.held) > 0 {
		c.refuse(len(rec.Steps), "keyDown", fmt.Sprintf("the keys %s are pressed and never released", strings.Join(c.held, ", ")))
	}
	if len(c.refusals) > 0 {
		return gardener.Test{}, c.notes, &RefusedError{Refusals: c.refusals}
	}
	if len(c.steps) == 0 {
		return gardener.Test{}, c.notes, errors.New("the recording has no step the gardener can replay")
	}
	t := gardener.Test{Name: strings.TrimSpace(rec.Title), Status: gardener.StatusActive, Version: 1, Steps: c.steps}
	// The steps go through the test format's own decoder, so an import is held to what a
	// hand-written test file is.
	b, err := json.Marshal(t.Steps)
	if err != nil {
		return gardener.Test{}, c.notes, err
	}
	if _, err := gardener.DecodeSteps(b); err != nil {
		return gardener.Test{}, c.notes, fmt.Errorf("the converted steps do not validate: %w", err)
	}
	return t, c.notes, nil
}

type converter struct {
	steps    []gardener.Step
	notes    []Note
	refusals []Refusal
	// origin is the origin of the first navigation: URLs on it become paths, so the test
	// replays against whatever base URL it is given.
	origin string
	// held are the keys pressed and not yet released; modifiers combine with the next key.
	held []string
}

func (c *converter) refuse(n int, typ, reason string) {
	c.refusals = append(c.refusals, Refusal{Step: n, Type: typ, Reason: reason})
}

func (c *converter) note(n int, format string, args ...any) {
	c.notes = append(c.notes, Note{Step: n, Text: fmt.Sprintf(format, args...)})
}

var modifiers = []string{"Shift", "Control", "Alt", "Meta"}

func (c *converter) step(n int, st Step) {
	if st.Target != "" && st.Target != "main" {
		c.refuse(n, st.Type, fmt.Sprintf("it acts in the target %q, another tab or window; a test replays in one page", st.Target))
		return
	}
	frame, reason := framePath(st.Frame)
	if reason != "" {
		c.refuse(n, st.Type, reason)
		return
	}
	add := func(s gardener.Step) {
		if st.Timeout > 0 {
			s.TimeoutMs = st.Timeout
		}
		c.steps = append(c.steps, s)
	}
	switch st.Type {
	case "setViewport":
		c.note(n, "setViewport %dx%d dropped: the gardener replays at its own viewport", st.Width, st.Height)
	case "navigate":
		if frame != "" {
			c.refuse(n, st.Type, "it navigates an iframe; a test navigates the page, and the frame's steps follow its src")
			return
		}
		if st.URL == "" {
			c.refuse(n, st.Type, "it has no url")
			return
		}
		if c.origin == "" {
			if u, err := url.Parse(st.URL); err == nil && u.Scheme != "" && u.Host != "" {
				c.origin = u.Scheme + "://" + u.Host
			}
		}
		add(gardener.Step{Kind: gardener.Goto, URL: c.relative(st.URL)})
	case "click", "hover", "change", "waitForElement":
		loc, alts, reason := c.locators(st.Selectors)
		if reason != "" {
			c.refuse(n, st.Type, reason)
			return
		}
		// The Recorder names the frame a step acts in by its path of frame indices; each
		// locator of the step keeps it.
		loc.Frame = frame
		for i := range alts {
			alts[i].Frame = frame
		}
		s := gardener.Step{Locator: loc, Alternatives: alts}
		switch st.Type {
		case "click":
			if st.Button != "" && st.Button != "primary" {
				c.refuse(n, st.Type, fmt.Sprintf("a %s-button click has no step kind; only the primary button clicks", st.Button))
				return
			}
			s.Kind = gardener.Click
		case "hover":
			s.Kind = gardener.Hover
		case "change":
			s.Kind, s.Value = gardener.Fill, st.Value
		case "waitForElement":
			if reason := waitable(st); reason != "" {
				c.refuse(n, st.Type, reason)
				return
			}
			s.Kind, s.For, s.State = gardener.Wait, gardener.WaitElement, "visible"
			if st.Visible != nil && !*st.Visible {
				s.State = "attached"
			}
			if st.Count != nil && *st.Count == 0 && (st.Operator == "==" || st.Operator == "<=") {
				s.State = "hidden"
			}
		}
		add(s)
	case "keyDown":
		if st.Key == "" {
			c.refuse(n, st.Type, "it names no key")
			return
		}
		if slices.Contains(modifiers, st.Key) {
			c.held = append(c.held, st.Key)
			return
		}
		key := st.Key
		if len(c.held) > 0 {
			key = strings.Join(c.held, "+") + "+" + st.Key
		}
		c.held = append(c.held, st.Key)
		add(gardener.Step{Kind: gardener.Press, Key: key})
	case "keyUp":
		i := slices.Index(c.held, st.Key)
		if i < 0 {
			c.refuse(n, st.Type, fmt.Sprintf("the key %q is released without being pressed", st.Key))
			return
		}
		c.held = slices.Delete(c.held, i, i+1)
	case "scroll":
		c.note(n, "scroll dropped: the gardener scrolls each element into view before it acts on it")
	case "doubleClick":
		c.refuse(n, st.Type, "a double click has no step kind (a click is one)")
	case "waitForExpression":
		c.refuse(n, st.Type, "a JavaScript expression is not a check the gardener replays; assert what it reads instead")
	case "close":
		c.refuse(n, st.Type, "closing the page ends the test; remove the step")
	case "emulateNetworkConditions":
		c.refuse(n, st.Type, "network emulation is the runner's, not a step")
	case "customStep":
		c.refuse(n, st.Type, "a custom step is an extension of the Recorder the gardener cannot run")
	default:
		c.refuse(n, st.Type, "not a Recorder step type this import knows")
	}
	for _, ev := range st.AssertedEvents {
		if ev.Type != "navigation" {
			continue
		}
		if ev.URL != "" {
			add(gardener.Step{Kind: gardener.Wait, For: gardener.WaitURL, URL: c.relative(ev.URL)})
		}
		if ev.Title != "" {
			add(gardener.Step{Kind: gardener.Assert, Subject: gardener.SubjectTitle, Condition: gardener.Equals, Expected: ev.Title})
		}
	}
}

// framePath converts the Recorder's frame, the indices of the child frames from the page down,
// into a locator's frame path, each step the frame's index among its document's frames.
func framePath(idx []int) (string, string) {
	parts := make([]string, 0, len(idx))
	for _, i := range idx {
		if i < 0 {
			return "", fmt.Sprintf("its frame path %v has a negative index", idx)
		}
		parts = append(parts, strconv.Itoa(i))
	}
	return strings.Join(parts, gardener.FrameSeparator), ""
}

// waitable says why a waitForElement cannot be a wait for an element, or "".
func waitable(st Step) string {
	if len(st.Attributes) > 0 || len(st.Properties) > 0 {
		return "it checks attributes or properties of the element; write an assert step for them"
	}
	if st.Count == nil {
		return ""
	}
	op := st.Operator
	if op == "" {
		op = ">="
	}
	switch {
	case *st.Count == 1 && (op == ">=" || op == "=="):
		return ""
	case *st.Count == 0 && (op == "==" || op == "<="):
		return ""
	}
	return fmt.Sprintf("it waits for %s %d elements; a wait is for one element, shown or gone", op, *st.Count)
}

// relative makes a URL on the recording's origin a path, so the test replays against any base.
func (c *converter) relative(raw string) string {
	if c.origin == "" {
		return raw
	}
	if rest, ok := strings.CutPrefix(raw, c.origin); ok && (rest == "" || strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, "?")) {
		if rest == "" {
			return "/"
		}
		return rest
	}
	return raw
}

// ranked is a converted selector and how resilient its form is (lower is better).
type ranked struct {
	loc  gardener.Locator
	rank int
}

var (
	// prefixed is a Recorder selector of another form than CSS (aria/, text/, xpath/, pierce/).
	prefixed = regexp.MustCompile(`^(aria|text|xpath|pierce)/`)
	ariaRole = regexp.MustCompile(`^(.*)\[role="([a-z]+)"\]$`)
	testID   = regexp.MustCompile(`^\[data-testid=(?:"([^"]+)"|'([^']+)'|([\w-]+))\]$`)
)

// locators converts a step's selectors: the most resilient is the locator, the rest its
// alternatives, duplicates and forms without an equivalent left out. A selector that is a list
// is a path through shadow roots, each part found in the shadow root of the one before; locators
// pierce open shadow roots, so a path of plain CSS parts becomes its last part, as pierce/ does.
// The ranking: a role with its name, a test id, text, CSS, CSS through shadow roots (pierce/ and
// paths), XPath; the Recorder's own order breaks ties.
func (c *converter) locators(raw []json.RawMessage) (gardener.Locator, []gardener.Locator, string) {
	if len(raw) == 0 {
		return gardener.Locator{}, nil, "it has no selectors"
	}
	var all []ranked
	var skipped []string
	for _, r := range raw {
		var parts []string
		var one string
		if err := json.Unmarshal(r, &one); err == nil {
			parts = []string{one}
		} else if err := json.Unmarshal(r, &parts); err != nil {
			return gardener.Locator{}, nil, fmt.Sprintf("a selector is neither a string nor a list of strings: %s", r)
		}
		if len(parts) == 0 {
			continue
		}
		sel := parts[0]
		if len(parts) > 1 {
			if slices.ContainsFunc(parts, prefixed.MatchString) {
				skipped = append(skipped, strings.Join(parts, " >> "))
				continue
			}
			sel = "pierce/" + parts[len(parts)-1]
		}
		rk, ok := convert(sel)
		if !ok {
			skipped = append(skipped, sel)
			continue
		}
		if !slices.ContainsFunc(all, func(x ranked) bool { return x.loc == rk.loc }) {
			all = append(all, rk)
		}
	}
	if len(all) == 0 {
		return gardener.Locator{}, nil, fmt.Sprintf("none of its selectors has a locator form (%s): paths through shadow roots with other than CSS parts, and accessible names without a role, have none", strings.Join(skipped, ", "))
	}
	slices.SortStableFunc(all, func(a, b ranked) int { return a.rank - b.rank })
	alts := make([]gardener.Locator, 0, len(all)-1)
	for _, r := range all[1:] {
		alts = append(alts, r.loc)
	}
	if len(alts) == 0 {
		alts = nil
	}
	return all[0].loc, alts, ""
}

// convert maps one Recorder selector to a locator.
func convert(sel string) (ranked, bool) {
	parse := func(s string, rank int) (ranked, bool) {
		l, err := gardener.ParseLocator(s)
		return ranked{l, rank}, err == nil
	}
	switch {
	case strings.HasPrefix(sel, "aria/"):
		m := ariaRole.FindStringSubmatch(strings.TrimPrefix(sel, "aria/"))
		if m == nil || m[1] == "" {
			return ranked{}, false
		}
		return parse("role="+m[2]+"[name="+strconv.Quote(m[1])+"]", 0)
	case strings.HasPrefix(sel, "text/"):
		// The Recorder's text selectors match text an element contains, as text= does unquoted.
		text := strings.TrimPrefix(sel, "text/")
		if text != strings.TrimSpace(text) || strings.HasPrefix(text, `"`) {
			return ranked{}, false
		}
		return parse("text="+text, 2)
	case strings.HasPrefix(sel, "xpath/"):
		return parse("xpath="+strings.TrimPrefix(sel, "xpath/"), 5)
	case strings.HasPrefix(sel, "pierce/"):
		return parse("css="+strings.TrimPrefix(sel, "pierce/"), 4)
	}
	if m := testID.FindStringSubmatch(sel); m != nil {
		return parse("testid="+m[1]+m[2]+m[3], 1)
	}
	return parse("css="+sel, 3)
}
