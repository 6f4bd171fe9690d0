package gardener

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestIDRule: the ids in use pass, and each class of hostile id is refused naming the field.
func TestIDRule(t *testing.T) {
	longest := strings.Repeat("t", MaxIDBytes)
	run := NewRunID(TriggerSchedule, longest, time.Now())
	for _, id := range []string{"login", "checkout-2", "crewdesk.sign_in", "team@shop:cart", "a~b+c", "0",
		run, RepairIDOfRun(PropagatedRunID(run, longest)), GreenRunID(RepairIDOfRun(PropagatedRunID(run, longest))),
		ProofID(longest, 7, nil), NewExecutionName(run)} {
		if err := CheckAnyID("id", id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	if err := CheckID("testId", longest); err != nil {
		t.Errorf("a test id of %d bytes: %v", MaxIDBytes, err)
	}
	for _, c := range []struct{ id, says string }{
		{"", "required"},
		{"leak\x00evil", "U+0000"},
		{"r\nforged", "U+000A"},
		{"a b", "U+0020"},
		{"a/b", "U+002F"},
		{"a#b", "U+0023"},
		{"a%00b", "U+0025"},
		{"bad\xffid", "not valid UTF-8"},
		{"caf\u00e9", "U+00E9"},
		{"-flag", "starts with"},
		{".hidden", "starts with"},
		{longest + "t", "at most 128"},
		{strings.Repeat("a", 200<<10), "at most 128"},
	} {
		err := CheckID("testId", c.id)
		var bad *IDError
		if !errors.As(err, &bad) || bad.Field != "testId" || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%.40q: %v, want a refusal of field testId saying %q", c.id, err, c.says)
		}
	}
}

// TestProjectUpdateThatChangesNothingKeepsItsVersion: a settings write of what is stored is no
// new version, so an If-Match another writer holds is still good.
func TestProjectUpdateThatChangesNothingKeepsItsVersion(t *testing.T) {
	p := Project{ID: "p", Radar: true, AllowedOrigins: []string{"http://a"}, Version: 4}
	same, err := p.Updated(func(q *Project) error { q.Radar = true; return nil })
	if err != nil || same.Version != 4 {
		t.Fatalf("a no-op update: version %d, %v; want 4", same.Version, err)
	}
	moved, err := p.Updated(func(q *Project) error { q.Radar = false; return nil })
	if err != nil || moved.Version != 5 {
		t.Fatalf("a change: version %d, %v; want 5", moved.Version, err)
	}
}
