package gardening

import (
	"context"
	"fmt"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// A page of a test's runs holds DefaultRunPage runs unless the caller asks for up to
// MaxRunPage: a test run every few minutes keeps thousands, and no door reads them all at once.
const (
	DefaultRunPage = 20
	MaxRunPage     = 100
)

// RunsPage is a page of a test's runs, newest first. Next is the id to ask the following page
// after; empty when this page is the last.
type RunsPage struct {
	TestID string    `json:"testId"`
	Runs   []RunLine `json:"runs"`
	Next   string    `json:"next,omitempty"`
}

// RunLine is one run as a listing shows it: what the run record keeps of when, what started it
// and how it ended, without its evidence (GET /runs/{runId} has that). A run's message is left
// out: it may quote what the page showed, and the listing is for people and agents.
type RunLine struct {
	ID          string               `json:"id"`
	At          time.Time            `json:"at"`
	TestVersion int                  `json:"testVersion"`
	Trigger     gardener.TriggerKind `json:"trigger"`
	Control     bool                 `json:"control,omitempty"`
	Probe       bool                 `json:"probe,omitempty"`
	// Outcome is "green", "red", or "no result" for a run recorded before its result (a repair
	// started without a run, whose failure the ladder had not reproduced yet).
	Outcome    string             `json:"outcome"`
	FailedStep string             `json:"failedStep,omitempty"`
	ErrorKind  gardener.ErrorKind `json:"errorKind,omitempty"`
	// Summary is the line every door prints for the run, in the same words.
	Summary string `json:"summary"`
}

// Run outcomes.
const (
	OutcomeGreen    = "green"
	OutcomeRed      = "red"
	OutcomeNoResult = "no result"
)

// triggerWords says what started a run, as people read it.
var triggerWords = map[gardener.TriggerKind]string{
	gardener.TriggerSchedule: "the schedule",
	gardener.TriggerWorker:   "a worker",
	gardener.TriggerManual:   "a person",
	gardener.TriggerCI:       "CI",
	gardener.TriggerRadar:    "the radar",
	gardener.TriggerProof:    "a repair's proof",
}

// LineOf is a run as a listing shows it.
func LineOf(r gardener.Run) RunLine {
	l := RunLine{ID: r.ID, At: r.At, TestVersion: r.TestVersion, Trigger: r.Trigger, Control: r.Control, Probe: r.Probe, Outcome: OutcomeNoResult}
	switch {
	case r.Result == nil:
	case r.Result.Passed:
		l.Outcome = OutcomeGreen
	default:
		l.Outcome, l.FailedStep, l.ErrorKind = OutcomeRed, r.Result.FailedStep, r.Result.ErrorKind
	}
	l.Summary = l.summary()
	return l
}

func (l RunLine) summary() string {
	s := l.Outcome
	if l.Outcome == OutcomeRed {
		switch {
		case l.FailedStep != "" && l.ErrorKind != "":
			s = fmt.Sprintf("red at step %s (%s)", l.FailedStep, l.ErrorKind)
		case l.FailedStep != "":
			s = "red at step " + l.FailedStep
		case l.ErrorKind != "":
			s = fmt.Sprintf("red (%s)", l.ErrorKind)
		}
	}
	kind := ""
	switch {
	case l.Control:
		kind = " control"
	case l.Probe:
		kind = " probe"
	}
	by := triggerWords[l.Trigger]
	if by == "" {
		by = string(l.Trigger)
	}
	if by == "" {
		return fmt.Sprintf("%s, version %d%s run", s, l.TestVersion, kind)
	}
	return fmt.Sprintf("%s, version %d%s run started by %s", s, l.TestVersion, kind, by)
}

// CheckRunLimit refuses a page size outside 1..MaxRunPage; 0 means DefaultRunPage.
func CheckRunLimit(limit int) (int, error) {
	if limit == 0 {
		return DefaultRunPage, nil
	}
	if limit < 1 || limit > MaxRunPage {
		return 0, &BadRequestError{Reason: fmt.Sprintf("limit %d is not between 1 and %d", limit, MaxRunPage)}
	}
	return limit, nil
}

// Runs is a page of a test's runs, newest first: at most limit (0: DefaultRunPage), after the
// run named after ("" starts at the newest). An unknown test, or an after that is no run of
// it, is not found.
func (s *Service) Runs(ctx context.Context, testID, after string, limit int) (RunsPage, error) {
	limit, err := CheckRunLimit(limit)
	if err != nil {
		return RunsPage{}, err
	}
	if err := CheckIDs("testId", testID, "after", after); err != nil {
		return RunsPage{}, err
	}
	if _, err := s.d.Store.Test(ctx, testID); err != nil {
		return RunsPage{}, err
	}
	// One more than the page says whether a next page exists without a second read.
	rs, err := s.d.Store.Runs(ctx, testID, after, limit+1)
	corrupt, failure := gardener.SplitCorrupt(err)
	if failure != nil {
		return RunsPage{}, failure
	}
	p := RunsPage{TestID: testID, Runs: make([]RunLine, 0, min(len(rs), limit))}
	if len(rs) > limit {
		rs = rs[:limit]
		p.Next = rs[limit-1].ID
	}
	for _, r := range rs {
		p.Runs = append(p.Runs, LineOf(r))
	}
	if corrupt != nil {
		return p, corrupt
	}
	return p, nil
}
