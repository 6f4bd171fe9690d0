package gardening

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// MaxSuiteItems bounds the tests one suite execution replays, so the Map's input and results
// stay well inside Step Functions' 256 KB payload: about 100 bytes an item and 150 a result.
// The rest are named in the plan (Deferred) and logged; they come first in a later execution,
// since the plan puts the tests whose last green run is oldest first.
const MaxSuiteItems = 500

// SuiteStateBudget bounds the bytes the plan's items, the replays' results and the report's run
// ids may take in the suite machine's state, each counted at its largest (SuiteItemCost): Step
// Functions passes at most 256 KiB between states, and the rest of the state (the names of at
// most gardener.MaxNamed skipped projects and deferred tests) fits in what is left. With short
// ids MaxSuiteItems binds first; with ids near gardener.MaxIDBytes this does. PlanSuite applies
// it, so every door that plans a suite gets the same bound.
const SuiteStateBudget = 208 * 1024

// MaxSuiteError bounds the failure message a replay passes on; the stored run keeps all of it.
const MaxSuiteError = 80

// SuiteItem is one test a suite execution replays.
type SuiteItem struct {
	ProjectID   string `json:"projectId"`
	TestID      string `json:"testId"`
	TestVersion int    `json:"testVersion"`
	// Trigger is what the recorded run says started it: schedule, or for a "Run Passed" the
	// platform's trigger (worker when it names none).
	Trigger gardener.TriggerKind `json:"trigger"`
	// ReportedRun is the platform's run id of a "Run Passed"; empty for the schedule.
	ReportedRun string `json:"reportedRun,omitempty"`
}

// SuiteRunResult is what one replay of the suite did.
type SuiteRunResult struct {
	ProjectID string `json:"projectId"`
	TestID    string `json:"testId"`
	// RunID is the stored run; empty when the test was skipped.
	RunID       string               `json:"runId,omitempty"`
	TestVersion int                  `json:"testVersion"`
	Trigger     gardener.TriggerKind `json:"trigger"`
	Passed      bool                 `json:"passed"`
	// Skipped says why the test was not replayed (it left service or changed since the plan).
	Skipped    string `json:"skipped,omitempty"`
	FailedStep string `json:"failedStep,omitempty"`
	Error      string `json:"error,omitempty"`
	// Report is set on a failed scheduled run: the suite's last state puts it on the bus as "Run
	// Failed". A failed replay of a "Run Passed" is stored and not reported: the platform saw
	// the test pass.
	Report bool `json:"report"`
}

// SuiteItemCost is the most an item can add to the suite machine's state: the item, the
// largest result its replay can return (its run id, a failed step and a clipped message) and
// the run id again in the report.
func SuiteItemCost(it SuiteItem) int {
	item, _ := json.Marshal(it)
	runID := len(gardener.NewRunID(it.Trigger, it.TestID, time.Now()))
	worst, _ := json.Marshal(SuiteRunResult{ProjectID: it.ProjectID, TestID: it.TestID, RunID: strings.Repeat("x", runID), TestVersion: it.TestVersion,
		Trigger: it.Trigger, FailedStep: "9999.9999", Error: strings.Repeat("x", MaxSuiteError), Report: true})
	return len(item) + len(worst) + runID + 3
}
