package gardener

import (
	"context"
	"time"
)

// RadarStatusStore keeps what the radar's last sweep and last staging pass of each project did,
// which is what the App radar page and the queue's empty reason are told from. Each Put keeps
// the newer of the stored record and the one given (by At): a state-machine step delivered
// again, or a slow pass that ends after a later one, never replaces a newer summary.
type RadarStatusStore interface {
	PutSweepSummary(ctx context.Context, s SweepSummary) error
	// SweepSummary is the project's last sweep; *NotFoundError when it was never swept.
	SweepSummary(ctx context.Context, projectID string) (SweepSummary, error)
	PutPassSummary(ctx context.Context, s PassSummary) error
	// PassSummary is the project's last staging pass; *NotFoundError when none ran.
	PassSummary(ctx context.Context, projectID string) (PassSummary, error)
}

// SweepSummary is what one sweep of a project could and could not see.
type SweepSummary struct {
	ProjectID string    `json:"projectId"`
	At        time.Time `json:"at"`
	// Pages is how many baseline pages the sweep tried to visit.
	Pages   int `json:"pages"`
	Changes int `json:"changes"`
	AtRisk  int `json:"atRisk"`
	// Unreached are the pages the sweep could not visit, and why: what changed there is unknown,
	// and the tests that use them were not judged.
	Unreached []UnreachedPage `json:"unreached"`
}

// UnreachedPage is a page a sweep could not visit.
type UnreachedPage struct {
	URL string `json:"url"`
	Why string `json:"why"`
}

// PassSummary is what one staging pass did: the tests it dry-ran and what became of each, and
// those it left at risk for the next pass (beyond the cap of ten dry-runs).
type PassSummary struct {
	ProjectID string    `json:"projectId"`
	At        time.Time `json:"at"`
	// Skipped says why the whole pass did nothing (auto-repair on, no AI key, not Pro).
	Skipped string `json:"skipped,omitempty"`
	// DryRun are the tests replayed with no model; every one of them is in exactly one of
	// Passing, Staged, NotStaged and Failed.
	DryRun  []string `json:"dryRun"`
	Passing []string `json:"passing"`
	Staged  []string `json:"staged"`
	// NotStaged failed their dry-run and have no fix waiting: the ladder found none (a triage
	// issue says why) or a person dismissed the same fix before.
	NotStaged []string `json:"notStaged"`
	// Failed are the tests the pass could not finish; they stay at risk.
	Failed   []PassFailure `json:"failed"`
	Deferred []string      `json:"deferred"`
	// DeferredMore counts the tests left for the next pass past the MaxNamed that Deferred names.
	DeferredMore int `json:"deferredMore,omitempty"`
}

// PassFailure is a test a staging pass could not finish, and the error.
type PassFailure struct {
	TestID string `json:"testId"`
	Error  string `json:"error"`
}

// PassOutcome is what a staging pass did with one test it selected.
type PassOutcome int

// Pass outcomes.
const (
	// PassSkippedTest: the test was left before its dry-run (it left service, or the project
	// turned auto-repair on mid-pass).
	PassSkippedTest PassOutcome = iota
	PassPassing
	PassStaged
	PassNotStaged
	PassFailed
)

// NewPassSummary is an empty summary of a pass at at, its lists empty rather than nil.
func NewPassSummary(projectID string, at time.Time, deferred []string) PassSummary {
	if deferred == nil {
		deferred = []string{}
	}
	return PassSummary{ProjectID: projectID, At: at, DryRun: []string{}, Passing: []string{}, Staged: []string{},
		NotStaged: []string{}, Failed: []PassFailure{}, Deferred: deferred}
}

// Add files one selected test under what became of it; failure is the error of PassFailed.
func (s *PassSummary) Add(testID string, o PassOutcome, failure string) {
	if o == PassSkippedTest {
		return
	}
	s.DryRun = append(s.DryRun, testID)
	switch o {
	case PassPassing:
		s.Passing = append(s.Passing, testID)
	case PassStaged:
		s.Staged = append(s.Staged, testID)
	case PassNotStaged:
		s.NotStaged = append(s.NotStaged, testID)
	case PassFailed:
		s.Failed = append(s.Failed, PassFailure{TestID: testID, Error: failure})
	}
}
