package gardener

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// TestStatus is where a saved test is in its review life. Only active tests are in service; the
// gardeners never touch the others (spec: "A test awaiting review").
type TestStatus string

// Test statuses.
const (
	StatusDraft    TestStatus = "draft"
	StatusPending  TestStatus = "pending"
	StatusActive   TestStatus = "active"
	StatusRejected TestStatus = "rejected"
	StatusArchived TestStatus = "archived"
)

// Test is a saved browser test. Version rises by one with every write of its steps, which is
// what makes a proposal computed against an older version detectably stale.
type Test struct {
	ID        string     `json:"id"`
	ProjectID string     `json:"project"`
	Name      string     `json:"name"`
	Status    TestStatus `json:"status"`
	Version   int        `json:"version"`
	// Viewport is the size of the page the test replays in; zero replays at the runner's.
	Viewport Viewport `json:"viewport,omitzero"`
	Steps    []Step   `json:"steps"`
}

// Viewport is the size of a page's layout viewport in CSS pixels: what a test recorded at a
// phone's or a narrow window's width needs, since a page lays itself out (and shows or hides
// its elements) by it.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// The bounds of a viewport: from a small phone's width to a 4K screen's, so that a page's
// screenshots and snapshots stay within a replay's memory.
const (
	MinViewport = 100
	MaxViewport = 4096
)

// IsZero reports whether no viewport is set.
func (v Viewport) IsZero() bool { return v == Viewport{} }

func (v Viewport) String() string { return fmt.Sprintf("%dx%d", v.Width, v.Height) }

// Check says why a viewport is out of bounds, or nil; the zero viewport (none) is in bounds.
func (v Viewport) Check() error {
	if v.IsZero() {
		return nil
	}
	for _, d := range []struct {
		name string
		n    int
	}{{"width", v.Width}, {"height", v.Height}} {
		if d.n < MinViewport || d.n > MaxViewport {
			return fmt.Errorf("viewport %s %d is out of bounds (%d to %d CSS pixels)", d.name, d.n, MinViewport, MaxViewport)
		}
	}
	return nil
}

// decodeViewport reads a test's "viewport" strictly: an object of exactly width and height,
// each a whole number within bounds.
func decodeViewport(raw json.RawMessage) (Viewport, error) {
	var wire struct {
		Width  *int `json:"width"`
		Height *int `json:"height"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&wire); err != nil {
		return Viewport{}, fmt.Errorf("field \"viewport\" must be {\"width\": W, \"height\": H} in whole CSS pixels: %w", WordJSONError(err))
	}
	if wire.Width == nil || wire.Height == nil {
		return Viewport{}, errors.New(`field "viewport" needs both "width" and "height"`)
	}
	v := Viewport{Width: *wire.Width, Height: *wire.Height}
	if err := v.Check(); err != nil {
		return Viewport{}, fmt.Errorf("field \"viewport\": %w", err)
	}
	return v, nil
}

// Clone returns a deep copy: candidates are applied to copies, never to the stored test.
func (t Test) Clone() Test {
	c := t
	c.Steps = CloneSteps(t.Steps)
	return c
}

// CopyOf is the version a copy of t (a test file, a PUT's body) was made on: the version it
// names, or 1 when it names none, since a file written by hand (docs/first-hour.md) is what
// creating the test made of it. A copy that names no version is thus never taken as current: a
// push of it onto a test a repair moved past version 1 is refused rather than written over the
// repair. push, pull and PUT /tests/{id} all read a copy's version here.
func (t Test) CopyOf() int { return max(t.Version, 1) }

// DecodeTest reads a test strictly: unknown fields anywhere, a key named twice, data after the
// test, an unknown status, a missing id and every step problem DecodeSteps finds are errors
// that name where they are.
func DecodeTest(data []byte) (Test, error) {
	var t Test
	v, err := single(data, "test")
	if err != nil {
		return t, err
	}
	err = json.Unmarshal(v, &t)
	return t, err
}

// UnmarshalJSON implements the strict decoding of DecodeTest.
func (t *Test) UnmarshalJSON(data []byte) error {
	var wire struct {
		ID        string          `json:"id"`
		ProjectID string          `json:"project"`
		Name      string          `json:"name"`
		Status    TestStatus      `json:"status"`
		Version   int             `json:"version"`
		Viewport  json.RawMessage `json:"viewport"`
		Steps     json.RawMessage `json:"steps"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&wire); err != nil {
		return fmt.Errorf("test: %w", WordJSONError(err))
	}
	if err := duplicateKey(data, "steps"); err != nil {
		return fmt.Errorf("test %s: %w", wire.ID, err)
	}
	// encoding/json matches field names regardless of case, so {"id":…,"ID":…} would pass the
	// checks above with the last one kept.
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return fmt.Errorf("test %s: %w", wire.ID, err)
	}
	for k := range keys {
		if !slices.Contains([]string{"id", "project", "name", "status", "version", "viewport", "steps"}, k) {
			return fmt.Errorf("test %s: unknown field %q", wire.ID, k)
		}
	}
	if strings.TrimSpace(wire.ID) == "" {
		return fmt.Errorf("test: field \"id\" is required")
	}
	// encoding/json reads invalid UTF-8 as U+FFFD: the raw field is checked, so that such an id
	// is refused rather than quietly renamed.
	for _, f := range []struct{ key, id string }{{"id", wire.ID}, {"project", wire.ProjectID}} {
		if f.key == "project" && f.id == "" {
			continue
		}
		if !utf8.Valid(keys[f.key]) {
			return fmt.Errorf("test: %w", &IDError{Field: f.key, Reason: "the id is not valid UTF-8"})
		}
		if err := CheckID(f.key, f.id); err != nil {
			return fmt.Errorf("test: %w", err)
		}
	}
	// A hand-written test file (what `gardener run` and `repair` read) names no review status:
	// it is in service.
	if wire.Status == "" {
		wire.Status = StatusActive
	}
	if !slices.Contains([]TestStatus{StatusDraft, StatusPending, StatusActive, StatusRejected, StatusArchived}, wire.Status) {
		return fmt.Errorf("test %s: field \"status\": %q is not one of draft, pending, active, rejected, archived", wire.ID, wire.Status)
	}
	if wire.Version < 0 {
		return fmt.Errorf("test %s: field \"version\" must not be negative", wire.ID)
	}
	// "steps": null is as absent as no "steps" at all; a test with no steps replays nothing and
	// so would pass every run, which no repair or edit may leave behind either.
	if len(wire.Steps) == 0 || string(bytes.TrimSpace(wire.Steps)) == "null" {
		return fmt.Errorf("test %s: field \"steps\" is required", wire.ID)
	}
	var vp Viewport
	if len(wire.Viewport) > 0 && string(bytes.TrimSpace(wire.Viewport)) != "null" {
		var err error
		if vp, err = decodeViewport(wire.Viewport); err != nil {
			return fmt.Errorf("test %s: %w", wire.ID, err)
		}
	}
	steps, err := DecodeSteps(wire.Steps)
	if err != nil {
		return fmt.Errorf("test %s: %w", wire.ID, err)
	}
	if len(steps) == 0 {
		return fmt.Errorf("test %s: field \"steps\" must hold at least one step", wire.ID)
	}
	*t = Test{ID: wire.ID, ProjectID: wire.ProjectID, Name: wire.Name, Status: wire.Status, Version: wire.Version, Viewport: vp, Steps: steps}
	return nil
}

// Plan is a project's billing plan; the gardeners are a Pro feature.
type Plan string

// Plans.
const (
	PlanFree Plan = "free"
	PlanPro  Plan = "pro"
)

// Project holds the settings that decide whether and how the gardener tends a project's tests.
type Project struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Plan Plan   `json:"plan"`
	// AutoRepair is "Repair failed runs automatically": on, failed unattended runs are repaired
	// and written; off, radar sweeps stage proposals for a person. One gardener per project.
	AutoRepair bool `json:"autoRepair"`
	// Model is the AI configuration, "builtin" or "bedrock:MODEL_ID"; empty means no key, in
	// which case nothing that writes a repair runs.
	Model string `json:"model,omitempty"`
	Radar bool   `json:"radar"`
	// AllowedOrigins are the origins a replay may navigate to; everything else is blocked.
	AllowedOrigins []string `json:"allowedOrigins"`
	// SetupTestID names the test (a login, say) a radar sweep replays first when the pages it
	// visits need a session.
	SetupTestID string `json:"setupTestId,omitempty"`
	Version     int    `json:"version"`
}
