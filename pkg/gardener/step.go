package gardener

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// StepKind names what a step does.
type StepKind string

// Actions change the page.
const (
	Goto   StepKind = "goto"
	Click  StepKind = "click"
	Fill   StepKind = "fill"
	Select StepKind = "select"
	// Set sets a form control to a value whatever control it turns out to be at replay: a
	// text field, text area or editable element is typed into (as fill), a <select> picks the
	// option (as select), a checkbox, switch or radio button is checked or unchecked. It is
	// what a recorded change becomes when the recording does not say which control it was.
	Set     StepKind = "set"
	Check   StepKind = "check"
	Uncheck StepKind = "uncheck"
	Press   StepKind = "press"
	Hover   StepKind = "hover"
)

// Checks observe the page and fail the run when the app does not do what the test expects.
const (
	Assert                StepKind = "assert"
	AssertVisible         StepKind = "assertVisible"
	AssertHidden          StepKind = "assertHidden"
	AssertToast           StepKind = "assertToast"
	AssertModal           StepKind = "assertModal"
	AssertValidationError StepKind = "assertValidationError"
	AssertConsole         StepKind = "assertConsole"
	AssertRequest         StepKind = "assertRequest"
	A11yAudit             StepKind = "a11yAudit"
)

// Other steps: waits, captures and intent blocks.
const (
	Wait       StepKind = "wait"
	Screenshot StepKind = "screenshot"
	Extract    StepKind = "extract"
	Intent     StepKind = "intent"
)

// Subject is what an `assert` step compares.
type Subject string

// Assertion subjects.
const (
	SubjectURL      Subject = "url"
	SubjectText     Subject = "text"
	SubjectTitle    Subject = "title"
	SubjectValue    Subject = "value"
	SubjectVariable Subject = "variable"
)

// Condition is how an observed value is compared with the expected one.
type Condition string

// Conditions.
const (
	Equals   Condition = "equals"
	Contains Condition = "contains"
	Matches  Condition = "matches" // a regular expression (RE2)
)

// WaitFor says what a wait step waits for.
type WaitFor string

// Wait targets.
const (
	WaitURL     WaitFor = "url"
	WaitElement WaitFor = "element"
	WaitTime    WaitFor = "time"
)

// Expectation says whether an assertConsole step wants its pattern to appear or not.
type Expectation string

// Console expectations.
const (
	ExpectMatch   Expectation = "match"
	ExpectNoMatch Expectation = "noMatch"
)

// Impact levels of accessibility violations, in rising order; an audit with a threshold fails
// when it finds a violation at or above it.
var impactOrder = []string{"minor", "moderate", "serious", "critical"}

// ImpactRank orders an impact level; -1 for an unknown level.
func ImpactRank(level string) int { return slices.Index(impactOrder, level) }

// Step is one step of a saved test. Which fields are meaningful depends on Kind; the decoder
// refuses fields that do not belong to the kind, so a zero field always means "not given".
type Step struct {
	Kind StepKind

	Locator Locator // element acted on or checked; the field a repair may move
	// Alternatives are other locators recorded for the same element (a Recorder import keeps
	// every selector it was given): the locate engine tries them, in order, when Locator finds
	// nothing.
	Alternatives []Locator
	Scope        Locator // a11yAudit: the part of the page audited (zero: whole page)

	URL   string // goto: target; wait for url: the URL pattern awaited
	Value string // fill, select, set: the value entered or picked
	Key   string // press: the key
	// Clicks is how many clicks a click step makes in a row: 2 is a double click, 3 a triple
	// click; zero (and 1) is one click.
	Clicks int

	Subject   Subject   // assert
	Condition Condition // assert
	Expected  string    // assert
	Actual    string    // assert variable: the expression compared

	Text string // expected text of assertVisible/Hidden/Toast/Modal/ValidationError

	Level   string      // assertConsole: error | warning | info | log
	Pattern string      // assertConsole: regular expression over the message text
	Expect  Expectation // assertConsole

	Method     string // assertRequest
	Status     int    // assertRequest: 0 means any status
	URLPattern string // assertRequest: regular expression over the request URL

	Rules      []string // a11yAudit: axe rule ids; empty means all
	Threshold  string   // a11yAudit: the lowest impact that fails the audit
	ReportOnly bool     // a11yAudit: report violations, never fail

	For   WaitFor // wait
	State string  // wait for element: visible (default) | hidden | attached
	Ms    int     // wait for time

	Name      string // screenshot: file name
	Variable  string // extract: the variable the value is stored in
	Attribute string // extract: attribute read instead of the text

	Goal   string            // intent: what the block achieves, in words
	Values map[string]string // intent: the values the block uses
	Steps  []Step            // intent: the steps between the block's markers

	TimeoutMs int // per-step time limit; zero takes the runner's default
}

// MayChangePage reports whether the step may change what the page shows, so the steps after
// it may act on another page: a goto, a click, a key press, a hover (a menu, a dialog, a
// navigation) or an intent block.
func (s Step) MayChangePage() bool {
	switch s.Kind {
	case Goto, Click, Press, Hover, Intent:
		return true
	}
	return false
}

// IsAction reports whether the step changes the page.
func (s Step) IsAction() bool {
	switch s.Kind {
	case Goto, Click, Fill, Select, Set, Check, Uncheck, Press, Hover:
		return true
	}
	return false
}

// Enters reports whether the step's Value is what the test enters into the page: the text
// a fill or a set types, the option a select or a set picks. Such a value may be a password, so
// no text for people or agents shows it (see Redacted).
func (s Step) Enters() bool {
	switch s.Kind {
	case Fill, Select, Set:
		return true
	}
	return false
}

// IsCheck reports whether the step is an outcome check in the sense of the assertion floor:
// one that can fail the run because the app did something other than what the test expects.
// Waits for an element or a time, screenshots, extracts and report-only audits are not checks;
// a wait for a URL is, because it is how many tests assert where a flow ends.
func (s Step) IsCheck() bool {
	switch s.Kind {
	case Assert, AssertVisible, AssertHidden, AssertToast, AssertModal, AssertValidationError,
		AssertConsole, AssertRequest:
		return true
	case A11yAudit:
		return !s.ReportOnly
	case Wait:
		return s.For == WaitURL
	}
	return false
}

// Target is the locator a step acts on: its element, or an audit's scope.
func (s Step) Target() Locator {
	if s.Kind == A11yAudit {
		return s.Scope
	}
	return s.Locator
}

// PlaceCheck reports whether s is a check that names no element and reads what only a
// navigation or an answer to the app changes: an assert on the URL or the title, a wait for a
// URL, or a toast looked for anywhere on the page (a status message an action's answer shows).
// On a page that has settled with nothing loading, what it waits for is not coming.
func (s Step) PlaceCheck() bool {
	switch s.Kind {
	case Assert:
		return s.Subject == SubjectURL || s.Subject == SubjectTitle
	case Wait:
		return s.For == WaitURL
	case AssertToast:
		return s.Locator.IsZero()
	}
	return false
}

// Clone returns a deep copy, so an in-memory candidate never shares slices with the original.
func (s Step) Clone() Step {
	c := s
	c.Rules = slices.Clone(s.Rules)
	c.Values = maps.Clone(s.Values)
	c.Alternatives = slices.Clone(s.Alternatives)
	if s.Steps != nil {
		c.Steps = CloneSteps(s.Steps)
	}
	return c
}

// CloneSteps deep-copies a step list.
func CloneSteps(steps []Step) []Step {
	if steps == nil {
		return nil
	}
	out := make([]Step, len(steps))
	for i, s := range steps {
		out[i] = s.Clone()
	}
	return out
}

// Equal reports whether two steps are the same in every field.
func (s Step) Equal(o Step) bool {
	if s.Kind != o.Kind || s.Locator != o.Locator || s.Scope != o.Scope || s.URL != o.URL ||
		s.Value != o.Value || s.Key != o.Key || s.Clicks != o.Clicks || s.Subject != o.Subject ||
		s.Condition != o.Condition || s.Expected != o.Expected || s.Actual != o.Actual ||
		s.Text != o.Text || s.Level != o.Level || s.Pattern != o.Pattern || s.Expect != o.Expect ||
		s.Method != o.Method || s.Status != o.Status || s.URLPattern != o.URLPattern ||
		s.Threshold != o.Threshold || s.ReportOnly != o.ReportOnly || s.For != o.For ||
		s.State != o.State || s.Ms != o.Ms || s.Name != o.Name || s.Variable != o.Variable ||
		s.Attribute != o.Attribute || s.Goal != o.Goal || s.TimeoutMs != o.TimeoutMs {
		return false
	}
	if !slices.Equal(s.Rules, o.Rules) || !maps.Equal(s.Values, o.Values) || !slices.Equal(s.Alternatives, o.Alternatives) || len(s.Steps) != len(o.Steps) {
		return false
	}
	for i := range s.Steps {
		if !s.Steps[i].Equal(o.Steps[i]) {
			return false
		}
	}
	return true
}

// Redacted is how a step is shown to people and agents: CLI text, events and SSE, logs, SNS,
// console pages, MCP results, notes, requirements and triage issues all render a step with it
// and nothing else. It is String with what the step enters left out: a fill's or a select's
// value becomes RedactValue's mask, which still says a value was entered and how long it is,
// so a reader can tell an empty fill from a full one without reading a password (a set's
// value too: the same text is typed, or picked). Every other
// field is shown as String shows it: a locator, a URL or a check's expectation is what a
// reviewer needs, and none of them is typed into the app. (An intent block's values are never
// shown by String, and the steps inside it are rendered one by one.)
func (s Step) Redacted() string {
	if !s.Enters() {
		return s.String()
	}
	str := fmt.Sprintf("%s %s %s", s.Kind, s.Locator, RedactValue(s.Value))
	if s.TimeoutMs > 0 {
		str += fmt.Sprintf(" timeout=%dms", s.TimeoutMs)
	}
	return str
}

// RedactValue is the mask that stands for a value a test enters (or an input shows) wherever
// text is meant for people: its length, never its characters. Step.Redacted, the requirement
// contract and the browser's messages all use it, so a masked value reads the same everywhere.
func RedactValue(v string) string {
	return fmt.Sprintf("[value redacted, %s]", chars(utf8.RuneCountInString(v)))
}

// MaskedLength reads a mask RedactValue wrote back to the length it stands for, and whether v is
// such a mask. A door that reads a document made for people (gardener.DataForPeople: the API's
// execution answer) gets masks where the values were; rendering them again as values would mask
// the mask ("[value redacted, 26 chars]"), so it reads the length here instead.
func MaskedLength(v string) (int, bool) {
	rest, ok := strings.CutPrefix(v, "[value redacted, ")
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || v != fmt.Sprintf("[value redacted, %s]", chars(n)) {
		return 0, false
	}
	return n, true
}

// chars is a length in characters as people read it: "1 char", "7 chars".
func chars(n int) string { return Plural(n, "char", "chars") }

// MaxQuotedRunes bounds the page text a run message or a log line quotes: enough to tell one
// text from another, not enough to copy a page into CloudWatch.
const MaxQuotedRunes = 80

// ShowObserved is what a run message or a log may show of what a check of s read on the page:
// an input's value is text a test may have typed (a password), so only its length is shown;
// any other text is quoted and cut to MaxQuotedRunes characters, the cut marked with "…".
func (s Step) ShowObserved(observed string) string {
	if s.Kind == Assert && s.Subject == SubjectValue {
		return RedactValue(observed)
	}
	return QuoteBounded(observed)
}

// QuoteBounded quotes page text for a message or a log, cut to MaxQuotedRunes characters.
func QuoteBounded(text string) string {
	if utf8.RuneCountInString(text) <= MaxQuotedRunes {
		return strconv.Quote(text)
	}
	runes := []rune(text)
	return strconv.Quote(string(runes[:MaxQuotedRunes])) + "… (" + chars(len(runes)) + ")"
}

// String is the one-line form of the whole step, values included, e.g.
// `click role=button[name="Login"]` or `fill label=Email "ann@example.com"`: for comparing and
// hashing steps, and for debugging. It carries what the test types, so no text for people or
// agents uses it: they get Redacted.
func (s Step) String() string {
	var b strings.Builder
	b.WriteString(string(s.Kind))
	add := func(parts ...string) {
		for _, p := range parts {
			if p != "" {
				b.WriteByte(' ')
				b.WriteString(p)
			}
		}
	}
	q := strconv.Quote
	switch s.Kind {
	case Goto:
		add(s.URL)
	case Click:
		add(s.Locator.String())
		if s.Clicks > 1 {
			add(fmt.Sprintf("clicks=%d", s.Clicks))
		}
	case Check, Uncheck, Hover:
		add(s.Locator.String())
	case Fill, Select, Set:
		add(s.Locator.String(), q(s.Value))
	case Press:
		add(s.Locator.String(), s.Key)
	case Assert:
		if s.Subject == SubjectVariable {
			add("variable", s.Actual, string(s.Condition), q(s.Expected))
		} else {
			add(string(s.Subject), s.Locator.String(), string(s.Condition), q(s.Expected))
		}
	case AssertVisible, AssertHidden, AssertToast, AssertModal, AssertValidationError:
		add(s.Locator.String())
		if s.Text != "" {
			add("text", q(s.Text))
		}
	case AssertConsole:
		add(s.Level, string(s.Expect), q(s.Pattern))
	case AssertRequest:
		status := ""
		if s.Status != 0 {
			status = strconv.Itoa(s.Status)
		}
		add(s.Method, q(s.URLPattern), status)
	case A11yAudit:
		add(s.Scope.String())
		if s.ReportOnly {
			add("reportOnly")
		} else {
			add("threshold", s.Threshold)
		}
		if len(s.Rules) > 0 {
			add("rules", strings.Join(s.Rules, ","))
		}
	case Wait:
		switch s.For {
		case WaitURL:
			add("url", s.URL)
		case WaitElement:
			add("element", s.Locator.String(), s.State)
		case WaitTime:
			add(fmt.Sprintf("%dms", s.Ms))
		}
	case Screenshot:
		add(s.Name, s.Locator.String())
	case Extract:
		add(s.Locator.String(), s.Attribute, "→", s.Variable)
	case Intent:
		add(q(s.Goal), fmt.Sprintf("(%d steps)", len(s.Steps)))
	}
	if s.TimeoutMs > 0 && s.Kind != Intent {
		add(fmt.Sprintf("timeout=%dms", s.TimeoutMs))
	}
	return b.String()
}
