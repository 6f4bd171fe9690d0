package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// seedRuns is seedReview with runs of signin: green, then a scheduled red one (the run a person
// looks for to repair), a manual one, and a control run.
func seedRuns(t *testing.T, store gardener.Store) {
	t.Helper()
	seedReview(t, store)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i, r := range []gardener.Run{
		{ID: "run-green", Trigger: gardener.TriggerManual, Result: &gardener.RunResult{Passed: true, FailedIndex: -1}},
		{ID: "run-red", Trigger: gardener.TriggerSchedule, Result: &gardener.RunResult{FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound,
			Message: "no element types " + reviewTyped}},
		{ID: "run-ci", Trigger: gardener.TriggerCI, Result: &gardener.RunResult{Passed: true, FailedIndex: -1}},
		{ID: "run-control", Trigger: gardener.TriggerSchedule, Control: true, Result: &gardener.RunResult{FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrAssertionFailed}},
	} {
		r.ProjectID, r.TestID, r.TestVersion, r.At = "shop", "signin", 1, at.Add(time.Duration(i)*time.Hour)
		r.Result.TestID, r.Result.TestVersion = "signin", 1
		noErr(t, store.PutRun(context.Background(), r))
	}
}

// TestRunsOnEveryDoor: "gardener runs" lists a test's runs alike on the local state and through
// the API (GET /tests/{testId}/runs), in the same words, and refuses alike.
func TestRunsOnEveryDoor(t *testing.T) {
	t.Parallel()
	answers := map[string]map[string]string{}
	for _, d := range []reviewDoor{localDoor(t, seedRuns), apiDoor(t, seedRuns)} {
		got := map[string]string{}
		answers[d.name] = got
		code, out, errb := d.run(t, "", "runs", "signin")
		if code != exitOK {
			t.Fatalf("%s: runs: exit %d\n%s%s", d.name, code, out, errb)
		}
		for _, want := range []string{"Runs of test signin, newest first:",
			"2026-03-01 10:00 UTC  run-red  red at step 3 (element-not-found), version 1 run started by the schedule",
			"run-control  red at step 3 (assertion-failed), version 1 control run started by the schedule",
			"run-green  green, version 1 run started by a person"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: runs does not say %q:\n%s", d.name, want, out)
			}
		}
		if strings.Index(out, "run-control") > strings.Index(out, "run-green") {
			t.Errorf("%s: runs are not newest first:\n%s", d.name, out)
		}
		got["text"] = out
		code, out, errb = d.run(t, "", "runs", "signin", "--limit", "2")
		if code != exitOK || !strings.Contains(out, "More runs: gardener runs signin --after run-ci --limit 2") || strings.Contains(out, "run-red") {
			t.Errorf("%s: first page of 2: exit %d\n%s%s", d.name, code, out, errb)
		}
		code, out, errb = d.run(t, "", "runs", "signin", "--limit", "2", "--after", "run-ci", "--json")
		var p gardening.RunsPage
		if err := json.Unmarshal([]byte(out), &p); code != exitOK || err != nil || len(p.Runs) != 2 || p.Next != "" ||
			p.Runs[0].ID != "run-red" || p.Runs[0].Outcome != gardening.OutcomeRed || p.Runs[0].FailedStep != "3" ||
			p.Runs[0].ErrorKind != gardener.ErrElementNotFound || p.Runs[0].Trigger != gardener.TriggerSchedule {
			t.Errorf("%s: second page --json: exit %d %v\n%s%s", d.name, code, err, out, errb)
		}
		if strings.Contains(out, reviewTyped) {
			t.Errorf("%s: the listing quotes the run's message:\n%s", d.name, out)
		}
		got["json"] = out
		for _, c := range []struct {
			what string
			args []string
		}{
			{"no such test", []string{"runs", "nobody"}},
			{"limit too high", []string{"runs", "signin", "--limit", "101"}},
			{"after another test's run", []string{"runs", "search", "--after", "run-red"}},
		} {
			code, _, errb := d.run(t, "", c.args...)
			if code != exitBadInput {
				t.Errorf("%s: %s: exit %d, want 2\n%s", d.name, c.what, code, errb)
			}
			got[c.what] = errb
		}
	}
	for what, local := range answers["state"] {
		if api := answers["api"][what]; local != api {
			t.Errorf("%s: the local state says\n%s\nthe API says\n%s", what, local, api)
		}
	}
	if want := fmt.Sprintf("limit 101 is not between 1 and %d", gardening.MaxRunPage); !strings.Contains(answers["api"]["limit too high"], want) {
		t.Errorf("a limit too high: %q, want it to say %q", answers["api"]["limit too high"], want)
	}
}
