package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Recording is the part of a Chrome Recorder recording the conversion reads.
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
	Width             int     `json:"width"`
	Height            int     `json:"height"`
	DeviceScaleFactor float64 `json:"deviceScaleFactor"`
	IsMobile          bool    `json:"isMobile"`
	HasTouch          bool    `json:"hasTouch"`
}

// Convert reads a Chrome Recorder recording and returns the test it converts to (id and project
// are the caller's), with the notes on what changed. Every refusal is reported at once.
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
	t := gardener.Test{Name: strings.TrimSpace(rec.Title), Status: gardener.StatusActive, Version: 1, Viewport: c.viewport.size, Steps: c.steps}
	if err := checked(t.Steps); err != nil {
		return gardener.Test{}, c.notes, err
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
	held     []string
	viewport viewport
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
		switch {
		case st.IsMobile || st.HasTouch:
			c.refuse(n, st.Type, "it emulates a mobile device (isMobile or hasTouch); a test sets only the viewport's size, and replays as a desktop browser with a mouse")
			return
		case st.DeviceScaleFactor != 0 && st.DeviceScaleFactor != 1:
			c.note(n, "the device scale factor %g is not kept: the page replays at %dx%d CSS pixels, at scale 1", st.DeviceScaleFactor, st.Width, st.Height)
		}
		if why := c.viewport.set(n, st.Width, st.Height); why != "" {
			c.refuse(n, st.Type, why)
		}
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
			c.origin = origin(st.URL)
		}
		add(gardener.Step{Kind: gardener.Goto, URL: relative(c.origin, st.URL)})
	case "click", "doubleClick", "hover", "change", "waitForElement":
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
		case "click", "doubleClick":
			if st.Button != "" && st.Button != "primary" {
				c.refuse(n, st.Type, fmt.Sprintf("a %s-button click has no step kind; only the primary button clicks", st.Button))
				return
			}
			s.Kind = gardener.Click
			if st.Type == "doubleClick" {
				s.Clicks = 2
			}
		case "hover":
			s.Kind = gardener.Hover
		case "change":
			// A recording does not say which control changed: a set step lets the element
			// decide at replay (typed, picked, checked).
			s.Kind, s.Value = gardener.Set, st.Value
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
	case "waitForExpression":
		c.refuse(n, st.Type, "a JavaScript expression is not a check the gardener replays (a test runs no script of its own); wait for the element it waits for, or assert what it reads")
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
			add(gardener.Step{Kind: gardener.Wait, For: gardener.WaitURL, URL: relative(c.origin, ev.URL)})
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

var (
	// ariaSel is an aria/ selector's name and, when the Recorder computed one, its role.
	ariaSel = regexp.MustCompile(`^(.*?)(?:\[role="([^"]*)"\])?$`)
	testID  = regexp.MustCompile(`^\[data-testid=(?:"([^"]+)"|'([^']+)'|([\w-]+))\]$`)
)

// locators converts a step's selectors: the most resilient is the locator, the rest its
// alternatives, duplicates and forms without an equivalent left out. A selector that is a list
// is a path through shadow roots, each part found in the shadow root of the one before; every
// locator form but XPath pierces open shadow roots, so such a path becomes its last part.
func (c *converter) locators(raw []json.RawMessage) (gardener.Locator, []gardener.Locator, string) {
	if len(raw) == 0 {
		return gardener.Locator{}, nil, "it has no selectors"
	}
	var all candidates
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
		sel := parts[len(parts)-1]
		if len(parts) > 1 && strings.HasPrefix(sel, "xpath/") {
			skipped = append(skipped, strings.Join(parts, " >> "))
			continue
		}
		if !all.selector(sel, len(parts) > 1) {
			skipped = append(skipped, sel)
		}
	}
	loc, alts, err := all.pick()
	if err != nil {
		return gardener.Locator{}, nil, fmt.Sprintf("none of its selectors has a locator form (%s): an XPath inside a shadow root and an empty accessible name have none", strings.Join(skipped, ", "))
	}
	return loc, alts, ""
}

// selector adds the locators one Recorder selector converts to; inShadow says it was the last
// part of a path through shadow roots. It reports whether the selector had a form.
func (all *candidates) selector(sel string, inShadow bool) bool {
	css := rankCSS
	if inShadow {
		css = rankPierce
	}
	switch {
	case strings.HasPrefix(sel, "aria/"):
		m := ariaSel.FindStringSubmatch(strings.TrimPrefix(sel, "aria/"))
		name, role := strings.TrimSpace(m[1]), ariaRole(m[2])
		if name == "" {
			return false
		}
		// The role the Recorder computed is the browser's; the page's own markup may give the
		// element another the gardener computes (an editable element, a newer role name), so
		// the name alone follows as an alternative.
		ok := role != "" && all.parse("role="+role+"[name="+strconv.Quote(name)+"]", rankRole)
		return all.parse("role=*[name="+strconv.Quote(name)+"]", rankName) || ok
	case strings.HasPrefix(sel, "text/"):
		// The Recorder's text selectors match text an element contains, as text= does unquoted.
		text := strings.TrimPrefix(sel, "text/")
		if text != strings.TrimSpace(text) || strings.HasPrefix(text, `"`) {
			return false
		}
		return all.parse("text="+text, rankText)
	case strings.HasPrefix(sel, "xpath/"):
		return all.parse("xpath="+strings.TrimPrefix(sel, "xpath/"), rankXPath)
	case strings.HasPrefix(sel, "pierce/"):
		// A CSS selector is matched in the document and in every open shadow root, as pierce/
		// asks.
		return all.parse("css="+strings.TrimPrefix(sel, "pierce/"), rankPierce)
	}
	if m := testID.FindStringSubmatch(sel); m != nil {
		return all.parse("testid="+m[1]+m[2]+m[3], rankTestID)
	}
	return all.parse("css="+sel, css)
}

// ariaRole is the role of an aria/ selector as a role locator reads it, "" when the selector
// names none the gardener computes: the browser's own roles (StaticText, generic), and none.
func ariaRole(r string) string {
	switch r {
	case "image":
		// ARIA 1.3's name for img, which the browser reports; the page's markup says img.
		return "img"
	case "", "generic", "none", "presentation":
		return ""
	}
	for _, ch := range r {
		if (ch < 'a' || ch > 'z') && ch != '-' {
			return ""
		}
	}
	return r
}
