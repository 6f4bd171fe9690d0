package gardener

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// StepError says which step of a test is malformed and which of its fields. Path is the step's
// position, 1-based as a person counts, with blocks joined by dots: "4" or "3.2" for the second
// step inside the intent block at step 3.
type StepError struct {
	Path   string
	Kind   StepKind
	Field  string
	Reason string
}

func (e *StepError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %s", e.Path)
	if e.Kind != "" {
		fmt.Fprintf(&b, " (%s)", e.Kind)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ", field %q", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// fieldSpec decodes one JSON field into a step.
type fieldSpec func(s *Step, raw json.RawMessage) error

func str(dst func(*Step) *string) fieldSpec {
	return func(s *Step, raw json.RawMessage) error {
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return errors.New("must be a string")
		}
		*dst(s) = v
		return nil
	}
}

func integer(dst func(*Step) *int) fieldSpec {
	return func(s *Step, raw json.RawMessage) error {
		var v int
		if err := json.Unmarshal(raw, &v); err != nil {
			return errors.New("must be an integer")
		}
		if v < 0 {
			return errors.New("must not be negative")
		}
		*dst(s) = v
		return nil
	}
}

// MaxClicks bounds a click step's clicks: a triple click selects a paragraph; more is no
// gesture a person makes.
const MaxClicks = 3

// MaxStepMillis bounds a step's timeoutMs and a wait's ms: 10 minutes. A step that needs more
// is a mistake (or an attempt to hold a browser), and the bound keeps every duration computed
// from these fields far from overflowing.
const MaxStepMillis = 10 * 60 * 1000

// millis decodes a duration in milliseconds, bounded by MaxStepMillis. The number is checked
// as JSON text first, so a value past what an int holds is refused by the same rule rather
// than wrapped or rounded.
func millis(dst func(*Step) *int) fieldSpec {
	return func(s *Step, raw json.RawMessage) error {
		var n json.Number
		// json.Number takes a quoted number too; a duration is a JSON number.
		if err := json.Unmarshal(raw, &n); err != nil || bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) {
			return errors.New("must be an integer number of milliseconds")
		}
		v, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return fmt.Errorf("must be at most %d (10 minutes)", MaxStepMillis)
			}
			return errors.New("must be an integer number of milliseconds")
		}
		if v < 0 {
			return errors.New("must not be negative")
		}
		if v > MaxStepMillis {
			return fmt.Errorf("must be at most %d (10 minutes)", MaxStepMillis)
		}
		*dst(s) = int(v)
		return nil
	}
}

// CheckDurations refuses a step whose timeoutMs or wait ms is out of bounds: what decoding
// checks, for a step built some other way.
func CheckDurations(s Step) error {
	for _, f := range []struct {
		name string
		v    int
	}{{"timeoutMs", s.TimeoutMs}, {"ms", s.Ms}} {
		if f.v < 0 || f.v > MaxStepMillis {
			return fmt.Errorf("%s step: %s %d is out of bounds (0 to %d, 10 minutes)", s.Kind, f.name, f.v, MaxStepMillis)
		}
	}
	return nil
}

func locator(dst func(*Step) *Locator) fieldSpec {
	return func(s *Step, raw json.RawMessage) error {
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return errors.New("must be a locator string")
		}
		l, err := ParseLocator(v)
		if err != nil {
			return err
		}
		*dst(s) = l
		return nil
	}
}

// fields maps every JSON field name to its decoder. Which kinds accept a field is in kindFields.
var fields = map[string]fieldSpec{
	"locator": locator(func(s *Step) *Locator { return &s.Locator }),
	"scope":   locator(func(s *Step) *Locator { return &s.Scope }),
	"url":     str(func(s *Step) *string { return &s.URL }),
	"value":   str(func(s *Step) *string { return &s.Value }),
	"key":     str(func(s *Step) *string { return &s.Key }),
	"clicks": func(s *Step, raw json.RawMessage) error {
		var v int
		if err := json.Unmarshal(raw, &v); err != nil {
			return errors.New("must be an integer (2 for a double click)")
		}
		if v < 0 || v > MaxClicks {
			return fmt.Errorf("must be between 1 and %d", MaxClicks)
		}
		// One click is what a click step makes anyway: kept as no count, so the step reads
		// back equal to one that never gave it.
		if v > 1 {
			s.Clicks = v
		}
		return nil
	},
	"assert": func(s *Step, raw json.RawMessage) error {
		return enum(raw, &s.Subject, SubjectURL, SubjectText, SubjectTitle, SubjectValue, SubjectVariable)
	},
	"condition": func(s *Step, raw json.RawMessage) error {
		return enum(raw, &s.Condition, Equals, Contains, Matches)
	},
	"expected": str(func(s *Step) *string { return &s.Expected }),
	"actual":   str(func(s *Step) *string { return &s.Actual }),
	"text":     str(func(s *Step) *string { return &s.Text }),
	"level": func(s *Step, raw json.RawMessage) error {
		return enum(raw, &s.Level, "error", "warning", "info", "log")
	},
	"pattern": str(func(s *Step) *string { return &s.Pattern }),
	"expect": func(s *Step, raw json.RawMessage) error {
		return enum(raw, &s.Expect, ExpectMatch, ExpectNoMatch)
	},
	"method": func(s *Step, raw json.RawMessage) error {
		return enum(raw, &s.Method, "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
	},
	"status":     integer(func(s *Step) *int { return &s.Status }),
	"urlPattern": str(func(s *Step) *string { return &s.URLPattern }),
	"rules": func(s *Step, raw json.RawMessage) error {
		var v []string
		if err := json.Unmarshal(raw, &v); err != nil {
			return errors.New("must be a list of rule ids")
		}
		for _, r := range v {
			if strings.TrimSpace(r) == "" {
				return errors.New("has an empty rule id")
			}
		}
		s.Rules = v
		return nil
	},
	"threshold": func(s *Step, raw json.RawMessage) error {
		return enum(raw, &s.Threshold, impactOrder...)
	},
	"reportOnly": func(s *Step, raw json.RawMessage) error {
		if err := json.Unmarshal(raw, &s.ReportOnly); err != nil {
			return errors.New("must be true or false")
		}
		return nil
	},
	"for": func(s *Step, raw json.RawMessage) error {
		return enum(raw, &s.For, WaitURL, WaitElement, WaitTime)
	},
	"state": func(s *Step, raw json.RawMessage) error {
		return enum(raw, &s.State, "visible", "hidden", "attached")
	},
	"ms":        millis(func(s *Step) *int { return &s.Ms }),
	"name":      str(func(s *Step) *string { return &s.Name }),
	"variable":  str(func(s *Step) *string { return &s.Variable }),
	"attribute": str(func(s *Step) *string { return &s.Attribute }),
	"goal":      str(func(s *Step) *string { return &s.Goal }),
	"values": func(s *Step, raw json.RawMessage) error {
		var v map[string]string
		if err := json.Unmarshal(raw, &v); err != nil {
			return errors.New("must be an object of string values")
		}
		s.Values = v
		return nil
	},
	"timeoutMs": millis(func(s *Step) *int { return &s.TimeoutMs }),
	"alternatives": func(s *Step, raw json.RawMessage) error {
		var v []string
		if err := json.Unmarshal(raw, &v); err != nil {
			return errors.New("must be a list of locator strings")
		}
		for i, a := range v {
			l, err := ParseLocator(a)
			if err != nil {
				return fmt.Errorf("alternative %d: %w", i+1, err)
			}
			s.Alternatives = append(s.Alternatives, l)
		}
		return nil
	},
	// "steps" is decoded by decodeStep itself, because nested errors need the path.
}

// kindFields lists, per kind, the fields it accepts; required ones are marked with a '!'.
// Requirements that depend on another field (assert text needs a locator) are in validate.
var kindFields = map[StepKind][]string{
	Goto:                  {"url!"},
	Click:                 {"locator!", "clicks"},
	Fill:                  {"locator!", "value!"},
	Select:                {"locator!", "value!"},
	Set:                   {"locator!", "value!"},
	Check:                 {"locator!"},
	Uncheck:               {"locator!"},
	Press:                 {"locator", "key!"},
	Hover:                 {"locator!"},
	Assert:                {"assert!", "condition!", "expected!", "locator", "actual"},
	AssertVisible:         {"locator!", "text"},
	AssertHidden:          {"locator!", "text"},
	AssertToast:           {"text!", "locator"},
	AssertModal:           {"locator", "text"},
	AssertValidationError: {"locator!", "text"},
	AssertConsole:         {"level!", "pattern!", "expect!"},
	AssertRequest:         {"method!", "urlPattern!", "status"},
	A11yAudit:             {"scope", "rules", "threshold", "reportOnly"},
	Wait:                  {"for!", "url", "locator", "state", "ms"},
	Screenshot:            {"name", "locator"},
	Extract:               {"locator!", "variable!", "attribute"},
	Intent:                {"goal!", "values", "steps!"},
}

// Kinds lists every step kind: actions, checks, then waits, captures and intent blocks.
func Kinds() []StepKind {
	return []StepKind{Goto, Click, Fill, Select, Set, Check, Uncheck, Press, Hover,
		Assert, AssertVisible, AssertHidden, AssertToast, AssertModal, AssertValidationError,
		AssertConsole, AssertRequest, A11yAudit, Wait, Screenshot, Extract, Intent}
}

func enum[T ~string](raw json.RawMessage, dst *T, allowed ...T) error {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return errors.New("must be a string")
	}
	if !slices.Contains(allowed, T(v)) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = string(a)
		}
		return fmt.Errorf("%q is not one of %s", v, strings.Join(names, ", "))
	}
	*dst = T(v)
	return nil
}

// kindNames are the step kinds, in the order of Kinds, for an error that lists them.
func kindNames() []string {
	var names []string
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return names
}

// DecodeSteps decodes a JSON array of steps strictly: unknown kinds and fields, missing required
// fields, wrong types and malformed locators are errors naming the step and the field.
// Nothing may follow the array.
func DecodeSteps(data []byte) ([]Step, error) {
	v, err := single(data, "steps")
	if err != nil {
		return nil, err
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(v, &raws); err != nil {
		return nil, fmt.Errorf("steps must be a JSON array: %w", WordJSONError(err))
	}
	return decodeRawSteps(raws, "")
}

func decodeRawSteps(raws []json.RawMessage, prefix string) ([]Step, error) {
	steps := make([]Step, 0, len(raws))
	for i, raw := range raws {
		s, err := decodeStep(raw, prefix+strconv.Itoa(i+1))
		if err != nil {
			return nil, err
		}
		steps = append(steps, s)
	}
	return steps, nil
}

func decodeStep(raw json.RawMessage, path string) (Step, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return Step{}, &StepError{Path: path, Reason: "must be a JSON object"}
	}
	if err := duplicateKey(raw, "steps"); err != nil {
		return Step{}, &StepError{Path: path, Reason: err.Error()}
	}
	kindRaw, ok := obj["kind"]
	if !ok {
		return Step{}, &StepError{Path: path, Field: "kind", Reason: "is required"}
	}
	var kind StepKind
	if err := json.Unmarshal(kindRaw, &kind); err != nil {
		return Step{}, &StepError{Path: path, Field: "kind", Reason: "must be a string"}
	}
	allowed, ok := kindFields[kind]
	if !ok {
		return Step{}, &StepError{Path: path, Field: "kind", Reason: fmt.Sprintf("unknown step kind %q (the kinds are %s)", kind, strings.Join(kindNames(), ", "))}
	}
	s := Step{Kind: kind}
	accepts := map[string]bool{"kind": true, "timeoutMs": true}
	for _, f := range allowed {
		accepts[strings.TrimSuffix(f, "!")] = true
	}
	accepts["alternatives"] = accepts["locator"]
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range obj {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		if k == "kind" {
			continue
		}
		if !accepts[k] {
			reason := "unknown field"
			if _, known := fields[k]; known || k == "steps" {
				reason = fmt.Sprintf("is not a field of a %s step", kind)
			}
			return Step{}, &StepError{Path: path, Kind: kind, Field: k, Reason: reason}
		}
		if k == "steps" {
			// Checked here rather than in decodeRawSteps so that a block whose steps are not a
			// list is reported at the block's own position and field, like every other field.
			var raws []json.RawMessage
			if err := json.Unmarshal(obj[k], &raws); err != nil {
				return Step{}, &StepError{Path: path, Kind: kind, Field: k, Reason: "must be a JSON array of steps"}
			}
			inner, err := decodeRawSteps(raws, path+".")
			if err != nil {
				return Step{}, err
			}
			s.Steps = inner
			continue
		}
		if err := fields[k](&s, obj[k]); err != nil {
			return Step{}, &StepError{Path: path, Kind: kind, Field: k, Reason: err.Error()}
		}
	}
	for _, f := range allowed {
		if name, req := strings.CutSuffix(f, "!"); req {
			if _, present := obj[name]; !present {
				return Step{}, &StepError{Path: path, Kind: kind, Field: name, Reason: "is required"}
			}
		}
	}
	if len(s.Alternatives) > 0 && s.Locator.IsZero() {
		return Step{}, &StepError{Path: path, Kind: kind, Field: "alternatives", Reason: "are alternatives to a locator, and the step has none"}
	}
	if field, reason := validate(s, obj); reason != "" {
		return Step{}, &StepError{Path: path, Kind: kind, Field: field, Reason: reason}
	}
	return s, nil
}

// validate checks what depends on more than one field.
func validate(s Step, obj map[string]json.RawMessage) (field, reason string) {
	has := func(k string) bool { _, ok := obj[k]; return ok }
	nonEmpty := func(name, v string) (string, string) {
		if strings.TrimSpace(v) == "" {
			return name, "must not be empty"
		}
		return "", ""
	}
	switch s.Kind {
	case Goto:
		return nonEmpty("url", s.URL)
	case Press:
		return nonEmpty("key", s.Key)
	case Assert:
		switch s.Subject {
		case SubjectText, SubjectValue:
			if !has("locator") {
				return "locator", fmt.Sprintf("is required for an assert of %s", s.Subject)
			}
		default:
			if has("locator") {
				return "locator", fmt.Sprintf("does not apply to an assert of %s", s.Subject)
			}
		}
		if s.Subject == SubjectVariable {
			if f, r := nonEmpty("actual", s.Actual); r != "" {
				return f, "is required for an assert of variable"
			}
		} else if has("actual") {
			return "actual", "applies only to an assert of variable"
		}
		if s.Condition == Matches {
			if _, err := regexp.Compile(s.Expected); err != nil {
				return "expected", "is not a valid regular expression: " + err.Error()
			}
		}
	case AssertToast:
		return nonEmpty("text", s.Text)
	case AssertConsole:
		if _, err := regexp.Compile(s.Pattern); err != nil {
			return "pattern", "is not a valid regular expression: " + err.Error()
		}
	case AssertRequest:
		if _, err := regexp.Compile(s.URLPattern); err != nil {
			return "urlPattern", "is not a valid regular expression: " + err.Error()
		}
		if s.Status != 0 && (s.Status < 100 || s.Status > 599) {
			return "status", "must be an HTTP status between 100 and 599"
		}
	case A11yAudit:
		if s.ReportOnly == (s.Threshold != "") {
			return "threshold", "give either a threshold or reportOnly: true"
		}
	case Wait:
		need := map[WaitFor]string{WaitURL: "url", WaitElement: "locator", WaitTime: "ms"}[s.For]
		if !has(need) {
			return need, fmt.Sprintf("is required for a wait for %s", s.For)
		}
		for _, other := range []string{"url", "locator", "ms", "state"} {
			if other != need && has(other) && (other != "state" || s.For != WaitElement) {
				return other, fmt.Sprintf("does not apply to a wait for %s", s.For)
			}
		}
		if s.For == WaitURL {
			return nonEmpty("url", s.URL)
		}
		// A step's zero field means "not given" and is not written back, so a wait of 0 ms
		// would encode without the "ms" it needs and never decode again.
		if s.For == WaitTime && s.Ms == 0 {
			return "ms", "must be at least 1 for a wait for time"
		}
	case Extract:
		return nonEmpty("variable", s.Variable)
	case Intent:
		if f, r := nonEmpty("goal", s.Goal); r != "" {
			return f, r
		}
		if len(s.Steps) == 0 {
			return "steps", "an intent block needs at least one step"
		}
		for _, inner := range s.Steps {
			if inner.Kind == Intent {
				return "steps", "intent blocks do not nest"
			}
		}
	}
	return "", ""
}

// duplicateKey refuses an object that names a key twice, at its top level or in any object
// nested in it, except in the value of the top-level key skip (steps, which are checked each at
// their own position): encoding/json would silently keep the last, and a hand-edited test with
// two "expected" values is a mistake to surface. The error names the key and the top-level
// field it is in.
func duplicateKey(raw json.RawMessage, skip string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		if seen[k] {
			return fmt.Errorf("field %q appears twice", k)
		}
		seen[k] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("field %q: %w", k, err)
		}
		if k == skip {
			continue
		}
		if inner, ok := nestedDuplicate(v); ok {
			return fmt.Errorf("field %q: key %q appears twice", k, inner)
		}
	}
	return nil
}

// nestedDuplicate finds a key named twice in one object anywhere inside v.
func nestedDuplicate(v json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(v))
	var walk func() (string, bool)
	walk = func() (string, bool) {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch t {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return "", false
				}
				k, _ := kt.(string)
				if seen[k] {
					return k, true
				}
				seen[k] = true
				if k, dup := walk(); dup {
					return k, true
				}
			}
			_, _ = dec.Token()
		case json.Delim('['):
			for dec.More() {
				if k, dup := walk(); dup {
					return k, true
				}
			}
			_, _ = dec.Token()
		}
		return "", false
	}
	return walk()
}

// single returns the one JSON value data holds, refusing anything after it with the offset and
// the start of what follows, so `{"a":1}{"b":2}` is not read as its first object.
func single(data []byte, what string) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		var syn *json.SyntaxError
		switch {
		case errors.As(err, &syn):
			return nil, fmt.Errorf("%s: at %s: %w", what, position(data, syn.Offset-1), err)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("%s: the JSON ends at %s before its value does: a brace, bracket or quote is not closed", what, position(data, int64(len(data))))
		case errors.Is(err, io.EOF):
			return nil, fmt.Errorf("%s: no JSON value: the input is empty", what)
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	off := dec.InputOffset()
	if rest := bytes.TrimSpace(data[off:]); len(rest) > 0 {
		if len(rest) > 24 {
			rest = append(rest[:24:24], "…"...)
		}
		return nil, fmt.Errorf("%s: trailing data after the top-level value at byte %d (%s): %q", what, off, position(data, off), rest)
	}
	return v, nil
}

// position names byte offset off of data as a person finds it in an editor: line and column,
// both from 1, the column counted in characters.
func position(data []byte, off int64) string {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}

// MarshalJSON writes exactly the fields that belong to the step's kind, in a stable order, so a
// step read and written again is byte-for-byte what a person would have written.
func (s Step) MarshalJSON() ([]byte, error) {
	allowed, ok := kindFields[s.Kind]
	if !ok {
		return nil, fmt.Errorf("cannot encode a step of unknown kind %q", s.Kind)
	}
	var b bytes.Buffer
	b.WriteString(`{"kind":`)
	k, _ := json.Marshal(string(s.Kind))
	b.Write(k)
	names := make([]string, 0, len(allowed)+1)
	for _, f := range allowed {
		names = append(names, strings.TrimSuffix(f, "!"))
	}
	if slices.Contains(names, "locator") {
		names = append(names, "alternatives")
	}
	names = append(names, "timeoutMs")
	required := map[string]bool{}
	for _, f := range allowed {
		if n, req := strings.CutSuffix(f, "!"); req {
			required[n] = true
		}
	}
	for _, n := range names {
		v, zero := s.field(n)
		if zero && !required[n] {
			continue
		}
		enc, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encoding %s field %q: %w", s.Kind, n, err)
		}
		b.WriteString(`,"` + n + `":`)
		b.Write(enc)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// field returns a field's value by JSON name and whether it is the zero value.
func (s Step) field(name string) (any, bool) {
	switch name {
	case "locator":
		return s.Locator, s.Locator.IsZero()
	case "scope":
		return s.Scope, s.Scope.IsZero()
	case "url":
		return s.URL, s.URL == ""
	case "value":
		return s.Value, s.Value == ""
	case "key":
		return s.Key, s.Key == ""
	case "clicks":
		return s.Clicks, s.Clicks == 0
	case "assert":
		return s.Subject, s.Subject == ""
	case "condition":
		return s.Condition, s.Condition == ""
	case "expected":
		return s.Expected, s.Expected == ""
	case "actual":
		return s.Actual, s.Actual == ""
	case "text":
		return s.Text, s.Text == ""
	case "level":
		return s.Level, s.Level == ""
	case "pattern":
		return s.Pattern, s.Pattern == ""
	case "expect":
		return s.Expect, s.Expect == ""
	case "method":
		return s.Method, s.Method == ""
	case "status":
		return s.Status, s.Status == 0
	case "urlPattern":
		return s.URLPattern, s.URLPattern == ""
	case "rules":
		return s.Rules, len(s.Rules) == 0
	case "threshold":
		return s.Threshold, s.Threshold == ""
	case "reportOnly":
		return s.ReportOnly, !s.ReportOnly
	case "for":
		return s.For, s.For == ""
	case "state":
		return s.State, s.State == ""
	case "ms":
		return s.Ms, s.Ms == 0
	case "name":
		return s.Name, s.Name == ""
	case "variable":
		return s.Variable, s.Variable == ""
	case "attribute":
		return s.Attribute, s.Attribute == ""
	case "goal":
		return s.Goal, s.Goal == ""
	case "values":
		return s.Values, len(s.Values) == 0
	case "steps":
		return s.Steps, len(s.Steps) == 0
	case "timeoutMs":
		return s.TimeoutMs, s.TimeoutMs == 0
	case "alternatives":
		alts := make([]string, len(s.Alternatives))
		for i, a := range s.Alternatives {
			alts[i] = a.String()
		}
		return alts, len(alts) == 0
	}
	return nil, true
}

// UnmarshalJSON decodes one step strictly. A step inside a test is better decoded through
// DecodeSteps or Test's decoder, whose errors name its position.
func (s *Step) UnmarshalJSON(b []byte) error {
	d, err := decodeStep(b, "?")
	if err != nil {
		return err
	}
	*s = d
	return nil
}
