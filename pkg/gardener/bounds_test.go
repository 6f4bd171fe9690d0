package gardener

import (
	"strings"
	"testing"
)

// TestStepDurationBounds: timeoutMs and a wait's ms are bounded by MaxStepMillis (10 minutes)
// when a test is decoded, including numbers past what an int64 holds, which must be refused by
// the same rule rather than wrap into a negative duration or skip a wait.
func TestStepDurationBounds(t *testing.T) {
	cases := []struct {
		name, step, field string
		ok                bool
	}{
		{"timeout at the bound", `{"kind":"click","locator":"#a","timeoutMs":600000}`, "", true},
		{"timeout past the bound", `{"kind":"click","locator":"#a","timeoutMs":600001}`, "timeoutMs", false},
		{"timeout that hung a run", `{"kind":"click","locator":"#a","timeoutMs":9223372036854}`, "timeoutMs", false},
		{"timeout at the int64 maximum", `{"kind":"click","locator":"#a","timeoutMs":9223372036854775807}`, "timeoutMs", false},
		{"timeout past the int64 maximum", `{"kind":"click","locator":"#a","timeoutMs":99999999999999999999999}`, "timeoutMs", false},
		{"negative timeout", `{"kind":"click","locator":"#a","timeoutMs":-1}`, "timeoutMs", false},
		{"fractional timeout", `{"kind":"click","locator":"#a","timeoutMs":1.5}`, "timeoutMs", false},
		{"timeout in exponent form", `{"kind":"click","locator":"#a","timeoutMs":1e3}`, "timeoutMs", false},
		{"wait at the bound", `{"kind":"wait","for":"time","ms":600000}`, "", true},
		{"wait past the bound", `{"kind":"wait","for":"time","ms":600001}`, "ms", false},
		{"wait at the int64 maximum", `{"kind":"wait","for":"time","ms":9223372036854775807}`, "ms", false},
		{"wait as a string", `{"kind":"wait","for":"time","ms":"5"}`, "ms", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps, err := DecodeSteps([]byte(`[{"kind":"goto","url":"/"},` + c.step + `]`))
			if c.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if err := CheckDurations(steps[1]); err != nil {
					t.Errorf("CheckDurations refused what decoding accepted: %v", err)
				}
				return
			}
			se, isStep := err.(*StepError)
			if !isStep || se.Path != "2" || se.Field != c.field {
				t.Fatalf("error %v, want one naming step 2 and field %q", err, c.field)
			}
			if strings.Contains(c.name, "bound") || strings.Contains(c.name, "maximum") || strings.Contains(c.name, "hung") {
				if !strings.Contains(se.Reason, "at most 600000 (10 minutes)") {
					t.Errorf("reason %q does not give the bound", se.Reason)
				}
			}
		})
	}
	for _, st := range []Step{{Kind: Click, TimeoutMs: MaxStepMillis + 1}, {Kind: Wait, For: WaitTime, Ms: -5}} {
		if err := CheckDurations(st); err == nil {
			t.Errorf("CheckDurations accepted %+v", st)
		}
	}
}

// TestRedacted: the form of a step for logs and messages names the step and its locator and
// never the value a fill types; other steps read as String has them.
func TestRedacted(t *testing.T) {
	loc, err := ParseLocator(`role=textbox[name="Password"]`)
	if err != nil {
		t.Fatal(err)
	}
	fill := Step{Kind: Fill, Locator: loc, Value: "demo123", TimeoutMs: 2000}
	got := fill.Redacted()
	if strings.Contains(got, "demo123") || !strings.Contains(got, `role=textbox[name="Password"]`) || !strings.Contains(got, "7 chars") || !strings.Contains(got, "timeout=2000ms") {
		t.Errorf("Redacted() = %q", got)
	}
	for _, kind := range []StepKind{Select, Set} {
		got := Step{Kind: kind, Locator: loc, Value: "demo123"}.Redacted()
		if strings.Contains(got, "demo123") || !strings.Contains(got, "7 chars") {
			t.Errorf("%s: Redacted() = %q", kind, got)
		}
	}
	click := Step{Kind: Click, Locator: loc}
	if click.Redacted() != click.String() {
		t.Errorf("a click reads %q redacted, %q in full", click.Redacted(), click.String())
	}
}
