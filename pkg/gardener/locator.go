package gardener

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// LocatorKind says how a locator finds its element.
type LocatorKind string

// The locator forms of a step. A bare string without a known prefix is CSS.
const (
	ByCSS         LocatorKind = "css"
	ByXPath       LocatorKind = "xpath"
	ByText        LocatorKind = "text"
	ByRole        LocatorKind = "role"
	ByLabel       LocatorKind = "label"
	ByPlaceholder LocatorKind = "placeholder"
	ByTestID      LocatorKind = "testid"
)

var locatorKinds = []LocatorKind{ByCSS, ByXPath, ByText, ByRole, ByLabel, ByPlaceholder, ByTestID}

// Locator names the element a step acts on or checks. Role locators carry the ARIA role and,
// optionally, the accessible name; every other form carries its value.
type Locator struct {
	Kind  LocatorKind
	Value string // css selector, xpath, text, label, placeholder or test id
	Role  string // for ByRole; AnyRole with a name: any element of that accessible name
	Name  string // for ByRole: the accessible name, empty when not constrained
	// NameContains is set for role=R[name*="…"]: the accessible name contains Name rather than
	// being it. It is how a heal names a control whose name carries live data by the part that
	// stays ("Delete Grace Hopper" of "Delete Grace Hopper (5)").
	NameContains bool
	// Exact is set when a text, label or placeholder was quoted: match the whole string rather
	// than a substring, as the quoting asks.
	Exact bool
	// Frame is the path of same-origin iframes the element lives in, empty for the top
	// document: each iframe's CSS selector (or its index among its document's frames), from the
	// top down, joined by FrameSeparator. It is written before the locator it scopes:
	// frame=#payment >> label=Card number.
	Frame string
}

// AnyRole is the role of a role locator that names an element by its accessible name alone,
// whatever its role: role=*[name="Search products"]. It is what a recorded accessible-name
// selector without a role (the Chrome Recorder's aria/Search products) becomes.
const AnyRole = "*"

// FrameSeparator joins the frame selectors of a locator's frame path and the locator they scope.
const FrameSeparator = " >> "

// framePrefix introduces one frame of a locator's frame path.
const framePrefix = "frame="

// Frames splits a frame path into its iframe selectors, top first.
func Frames(path string) []string {
	if path == "" {
		return nil
	}
	return strings.Split(path, FrameSeparator)
}

// LocatorError says why a locator string does not parse.
type LocatorError struct {
	Input  string
	Reason string
}

func (e *LocatorError) Error() string {
	return fmt.Sprintf("malformed locator %q: %s", e.Input, e.Reason)
}

// ParseLocator reads the locator forms of DESIGN.md §5. It refuses what would fail at replay time
// in ways we can see now: an empty value, an unknown prefix-like form, unbalanced brackets or
// quotes in a CSS or XPath selector, a malformed role.
func ParseLocator(s string) (Locator, error) {
	in := s
	s = strings.TrimSpace(s)
	var frames []string
	for strings.HasPrefix(s, framePrefix) {
		sel, rest, ok := strings.Cut(s[len(framePrefix):], ">>")
		sel = strings.TrimSpace(sel)
		if !ok {
			return Locator{}, &LocatorError{in, "frame= names an iframe but no locator follows it; write frame=<iframe selector> >> <locator>"}
		}
		if sel == "" {
			return Locator{}, &LocatorError{in, "frame= has no iframe selector"}
		}
		if err := balanced(sel); err != "" {
			return Locator{}, &LocatorError{in, "frame selector " + strconv.Quote(sel) + ": " + err}
		}
		frames = append(frames, sel)
		s = strings.TrimSpace(rest)
	}
	l, err := parseOne(in, s)
	if err != nil {
		return Locator{}, err
	}
	l.Frame = strings.Join(frames, FrameSeparator)
	return l, nil
}

// parseOne reads one locator without a frame path; in is the whole input, for errors.
func parseOne(in, s string) (Locator, error) {
	if s == "" {
		if in = strings.TrimSpace(in); in != "" && strings.HasPrefix(in, framePrefix) {
			return Locator{}, &LocatorError{in, "no locator after the frame path"}
		}
		return Locator{}, &LocatorError{in, "empty"}
	}
	kind, rest := ByCSS, s
	if i := strings.Index(s, "="); i > 0 {
		prefix := s[:i]
		known := false
		for _, k := range locatorKinds {
			if prefix == string(k) {
				kind, rest, known = k, strings.TrimSpace(s[i+1:]), true
				break
			}
		}
		// A word followed by "=" is never CSS ("=" belongs inside [attribute] brackets), so
		// `id=login` or `Text=Sign in` is a misspelt form, refused now rather than read as a
		// selector that matches nothing at replay time.
		if !known && isPrefixWord(prefix) {
			return Locator{}, &LocatorError{in, fmt.Sprintf("unknown locator form %q (css, xpath, text, role, label, placeholder or testid; frame= scopes one of them to an iframe)", prefix+"=")}
		}
	}
	if rest == "" {
		return Locator{}, &LocatorError{in, fmt.Sprintf("no value after %q", string(kind)+"=")}
	}
	l := Locator{Kind: kind}
	switch kind {
	case ByCSS, ByXPath:
		if err := balanced(rest); err != "" {
			return Locator{}, &LocatorError{in, err}
		}
		l.Value = rest
	case ByRole:
		role, name, contains, err := parseRole(rest)
		if err != "" {
			return Locator{}, &LocatorError{in, err}
		}
		l.Role, l.Name, l.NameContains = role, name, contains
	default:
		v, exact, err := unquoteMaybe(rest)
		if err != "" {
			return Locator{}, &LocatorError{in, err}
		}
		if v == "" {
			return Locator{}, &LocatorError{in, "empty value"}
		}
		l.Value, l.Exact = v, exact
	}
	return l, nil
}

// MustLocator parses a locator known to be valid, for tests and literals.
func MustLocator(s string) Locator {
	l, err := ParseLocator(s)
	if err != nil {
		panic(err)
	}
	return l
}

// String renders the canonical form: parsing it gives the same Locator back.
func (l Locator) String() string {
	if l.Frame == "" || l.Kind == "" {
		return l.local()
	}
	var b strings.Builder
	for _, f := range Frames(l.Frame) {
		b.WriteString(framePrefix + f + FrameSeparator)
	}
	return b.String() + l.local()
}

// local renders the locator without its frame path.
func (l Locator) local() string {
	switch l.Kind {
	case "":
		return ""
	case ByRole:
		if l.Name == "" {
			return "role=" + l.Role
		}
		if l.NameContains {
			return "role=" + l.Role + "[name*=" + strconv.Quote(l.Name) + "]"
		}
		return "role=" + l.Role + "[name=" + strconv.Quote(l.Name) + "]"
	case ByCSS, ByXPath:
		return string(l.Kind) + "=" + l.Value
	default:
		if l.Exact || l.Value != strings.TrimSpace(l.Value) {
			return string(l.Kind) + "=" + strconv.Quote(l.Value)
		}
		return string(l.Kind) + "=" + l.Value
	}
}

// IsZero reports whether no locator was given.
func (l Locator) IsZero() bool { return l.Kind == "" }

// SemanticName is what a person would call the element: its role and name, label, placeholder,
// test id or text. CSS and XPath locators have none — the selector is all that names the
// element — which is what the change classes need to tell a repair from a renaming.
func (l Locator) SemanticName() string {
	switch l.Kind {
	case ByRole:
		if l.Name == "" {
			return ""
		}
		return strings.ToLower(strings.TrimSpace(l.Name))
	case ByText, ByLabel, ByPlaceholder:
		return strings.ToLower(strings.TrimSpace(l.Value))
	case ByTestID:
		return "testid:" + l.Value
	}
	return ""
}

// MarshalJSON writes the canonical string form.
func (l Locator) MarshalJSON() ([]byte, error) { return json.Marshal(l.String()) }

// UnmarshalJSON parses the string form.
func (l *Locator) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("locator must be a string")
	}
	p, err := ParseLocator(s)
	if err != nil {
		return err
	}
	*l = p
	return nil
}

// isPrefixWord reports whether s could only be meant as a locator form's name: letters, digits,
// '-' and '_', starting with a letter.
func isPrefixWord(s string) bool {
	for i, r := range s {
		letter := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || ((r < '0' || r > '9') && r != '-' && r != '_')) {
			return false
		}
	}
	return s != ""
}

func isRoleName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' {
			return false
		}
	}
	return true
}

// parseRole reads `button` or `button[name="Sign in"]` (single quotes allowed), or
// `*[name="Sign in"]`: any role, that name; `name*="…"` asks for a name containing the text.
func parseRole(s string) (role, name string, contains bool, problem string) {
	i := strings.IndexByte(s, '[')
	if i < 0 {
		if s == AnyRole {
			return "", "", false, `role=* names no element without a name: write role=*[name="…"]`
		}
		if !isRoleName(s) {
			return "", "", false, fmt.Sprintf("role %q is not an ARIA role name (lower-case letters)", s)
		}
		return s, "", false, ""
	}
	role = s[:i]
	if role != AnyRole && !isRoleName(role) {
		return "", "", false, fmt.Sprintf("role %q is not an ARIA role name (lower-case letters)", role)
	}
	attr := s[i:]
	if !strings.HasSuffix(attr, "]") {
		return "", "", false, "role attribute is not closed with ]"
	}
	attr = strings.TrimSpace(attr[1 : len(attr)-1])
	key, val, ok := strings.Cut(attr, "=")
	key = strings.TrimSpace(key)
	if strings.HasSuffix(key, "*") {
		contains, key = true, strings.TrimSpace(strings.TrimSuffix(key, "*"))
	}
	if !ok || key != "name" {
		return "", "", false, `role accepts one attribute, name="…" (the whole name) or name*="…" (a part of it)`
	}
	v, quoted, p := unquoteMaybe(strings.TrimSpace(val))
	if p != "" {
		return "", "", false, p
	}
	if !quoted {
		return "", "", false, "role name must be quoted"
	}
	if v == "" {
		return "", "", false, "role name is empty"
	}
	return role, v, contains, ""
}

// unquoteMaybe accepts "double", 'single' or bare text; quoted text asks for an exact match.
func unquoteMaybe(s string) (v string, quoted bool, problem string) {
	if len(s) >= 1 && (s[0] == '"' || s[0] == '\'') {
		q := s[0]
		if len(s) < 2 || s[len(s)-1] != q {
			return "", false, "unterminated quote"
		}
		if q == '"' {
			u, err := strconv.Unquote(s)
			if err != nil {
				return "", false, "bad escape in quoted text"
			}
			return u, true, ""
		}
		inner := s[1 : len(s)-1]
		if strings.ContainsRune(inner, '\'') {
			return "", false, "unescaped quote inside single-quoted text"
		}
		return inner, true, ""
	}
	return s, false, ""
}

// balanced checks brackets and quotes of a CSS or XPath selector, the mistakes a hand-edited
// test makes most; the browser remains the final judge of the grammar.
func balanced(s string) string {
	var stack []rune
	var quote rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	escaped := false
	for _, r := range s {
		if escaped {
			escaped = false
			continue
		}
		if r == '\\' {
			escaped = true
			continue
		}
		if quote != 0 {
			if r == quote {
				quote = 0
			}
			continue
		}
		switch r {
		case '"', '\'':
			quote = r
		case '(', '[', '{':
			stack = append(stack, r)
		case ')', ']', '}':
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				return fmt.Sprintf("unbalanced %q", r)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if quote != 0 {
		return "unterminated quote"
	}
	if len(stack) > 0 {
		return fmt.Sprintf("unclosed %q", stack[len(stack)-1])
	}
	return ""
}
