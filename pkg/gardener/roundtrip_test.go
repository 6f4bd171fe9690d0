package gardener

import (
	"errors"
	"strings"
	"testing"
)

// TestStepsThatDoNotReadBackAreRefused: a step built in Go that its encoding does not keep (a
// wait of 0 ms, whose ms the encoding drops; a field the kind does not have) is refused by every
// transition that writes steps, naming the step and the field, and the test is left as it was.
func TestStepsThatDoNotReadBackAreRefused(t *testing.T) {
	good := []Step{{Kind: Goto, URL: "/login"}, {Kind: Click, Locator: MustLocator("#go")}}
	cases := []struct {
		name  string
		steps []Step
		path  string
		field string
	}{
		{"wait of 0 ms", append(append([]Step(nil), good...), Step{Kind: Wait, For: WaitTime, Ms: 0}), "3", "ms"},
		{"a field the kind does not have", []Step{{Kind: Click, Locator: MustLocator("#go"), URL: "/elsewhere"}}, "1", "url"},
		{"inside an intent block", []Step{{Kind: Intent, Goal: "sign in", Steps: []Step{good[0], {Kind: Wait, For: WaitTime}}}}, "1.2", "ms"},
	}
	stored := Test{ID: "t-1", ProjectID: "p", Name: "sign in", Status: StatusActive, Version: 3, Steps: good}
	for _, c := range cases {
		check := func(what string, err error) {
			t.Helper()
			var se *StepError
			if !errors.As(err, &se) || se.Path != c.path || se.Field != c.field || !strings.Contains(err.Error(), "t-1") {
				t.Errorf("%s, %s: %v; want a StepError at step %s, field %q, naming test t-1", c.name, what, err, c.path, c.field)
			}
		}
		check("round trip", fmtTest(StepsRoundTrip(c.steps)))
		got, err := stored.WithSteps(3, c.steps)
		check("WithSteps", err)
		if got.Version != 3 || len(got.Steps) != len(good) {
			t.Errorf("%s: a refused WithSteps returned version %d with %d steps", c.name, got.Version, len(got.Steps))
		}
		edit := stored.Clone()
		edit.Steps = c.steps
		_, err = stored.Edited(edit)
		check("Edited", err)
	}
	if err := StepsRoundTrip(append(good, Step{Kind: Wait, For: WaitTime, Ms: 1})); err != nil {
		t.Errorf("steps that read back: %v", err)
	}
	if _, err := stored.WithSteps(3, good); err != nil {
		t.Errorf("WithSteps of steps that read back: %v", err)
	}
}

// fmtTest names the test as the transitions do, so one check reads all three errors.
func fmtTest(err error) error {
	if err == nil {
		return nil
	}
	return &testErr{err}
}

type testErr struct{ err error }

func (e *testErr) Error() string { return "test t-1: " + e.err.Error() }
func (e *testErr) Unwrap() error { return e.err }
