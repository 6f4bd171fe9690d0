package gardener

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
	Steps     []Step     `json:"steps"`
}

// Clone returns a deep copy: candidates are applied to copies, never to the stored test.
func (t Test) Clone() Test {
	c := t
	c.Steps = CloneSteps(t.Steps)
	return c
}

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
		Steps     json.RawMessage `json:"steps"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&wire); err != nil {
		return fmt.Errorf("test: %w", err)
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
		if !slices.Contains([]string{"id", "project", "name", "status", "version", "steps"}, k) {
			return fmt.Errorf("test %s: unknown field %q", wire.ID, k)
		}
	}
	if strings.TrimSpace(wire.ID) == "" {
		return fmt.Errorf("test: field \"id\" is required")
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
	steps, err := DecodeSteps(wire.Steps)
	if err != nil {
		return fmt.Errorf("test %s: %w", wire.ID, err)
	}
	if len(steps) == 0 {
		return fmt.Errorf("test %s: field \"steps\" must hold at least one step", wire.ID)
	}
	*t = Test{ID: wire.ID, ProjectID: wire.ProjectID, Name: wire.Name, Status: wire.Status, Version: wire.Version, Steps: steps}
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
