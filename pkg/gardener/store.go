package gardener

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// Store is the port the lifecycle, the ladder, the radar and the API keep their state behind.
// pkg/dynamo and pkg/embedded implement it, and pkg/storetest proves them equal. It is shaped
// around the domain's atomic steps rather than generic CRUD: each method that changes more than
// one record (stage, approve, dismiss, auto-apply, revert) is all-or-nothing, and each one that
// must not act on a moved record is conditional, because EventBridge and Step Functions deliver
// at least once and several sweeps may stage for one test at the same moment.
//
// Errors: an unknown id is a *NotFoundError; a write that lost a race or found a record in
// another state is a *ConflictError; a write against a test version that moved is a
// *StaleError. No error leaves a partial write behind. A stored record that does not decode is
// a *CorruptError naming it: reading it returns that error, and a listing returns the records
// that decode together with a *CorruptError naming the ones it skipped (see SplitCorrupt), so
// one bad record never hides the others.
//
// Consumers depend on the part they use, declared where they use it; the groups below are the
// ones they share.
type Store interface {
	// PutProject creates or replaces a project's settings.
	PutProject(ctx context.Context, p Project) error
	Project(ctx context.Context, id string) (Project, error)
	// Projects lists every project by id: what the schedules that serve all projects (the suite,
	// the radar of every project whose radar is on) read.
	Projects(ctx context.Context) ([]Project, error)
	// UpdateProject changes a project's settings without losing a concurrent write: update
	// changes a copy of the stored settings, and the result of Project.Updated is written only
	// if the project was not written meanwhile; else update runs again on what is stored now.
	// update runs outside the store's transactions and may run more than once. An error from update (or from
	// Updated) is returned as it is and writes nothing; so does an update that changes nothing
	// (Updated keeps the version), answering the project as stored. *NotFoundError for an unknown project;
	// *ConflictError when it changed under every attempt.
	UpdateProject(ctx context.Context, id string, update func(*Project) error) (Project, error)

	// CreateTest stores a new test as given; a test with the same id is a *ConflictError.
	CreateTest(ctx context.Context, t Test) error
	Test(ctx context.Context, id string) (Test, error)
	// Tests lists a project's tests by id.
	Tests(ctx context.Context, projectID string) ([]Test, error)
	// SaveTest writes a person's edit (steps, name, status). t.Version must be the stored
	// version, else *ConflictError; the stored test gets version t.Version+1, which is returned.
	SaveTest(ctx context.Context, t Test) (Test, error)

	RunStore
	ProposalStore
	RepairStore
	ExecutionStore
	EventStore
	CostStore

	PutTriageIssue(ctx context.Context, t TriageIssue) error
	// TriageIssues lists a project's triage issues, newest first.
	TriageIssues(ctx context.Context, projectID string) ([]TriageIssue, error)
	// TriageIssue reads one triage issue by its id (what a repair execution's output names);
	// *NotFoundError for an unknown one.
	TriageIssue(ctx context.Context, id string) (TriageIssue, error)
	// AddModelCall appends a call to the test's AI history.
	AddModelCall(ctx context.Context, c ModelCall) error
	// ModelCalls is a test's AI history, newest first.
	ModelCalls(ctx context.Context, testID string) ([]ModelCall, error)

	// PutHandoff keeps what one state of a machine hands the next; the same id is the same
	// body (a retried task writes it again), so a second put of it is no error.
	PutHandoff(ctx context.Context, h Handoff) error
	// Handoff reads a kept handoff; *NotFoundError when there is none.
	Handoff(ctx context.Context, id string) (Handoff, error)

	RadarStore
	RadarStatusStore
	SuiteStore
}

// RunStore keeps recorded runs.
type RunStore interface {
	PutRun(ctx context.Context, r Run) error
	Run(ctx context.Context, id string) (Run, error)
	// LastGreenRun is the newest run of the test that passed, control runs and probes excluded:
	// what the ladder compares a failure with. *NotFoundError when the test never went green.
	LastGreenRun(ctx context.Context, testID string) (Run, error)
	// Runs lists a test's runs of every kind (green, red, control, probe), newest first as
	// NewestFirst orders them: at most limit of them (a limit below 1 is 1), starting after the
	// run named after ("" starts at the newest; a page's last run id reads the next page).
	// An after that is no run of the test is a *NotFoundError.
	Runs(ctx context.Context, testID, after string, limit int) ([]Run, error)
	// RecordRunResult stores result on a run recorded without one (a repair the API started
	// with no run, whose failure the ladder reproduced), in one conditional write, so a result a
	// platform delivered meanwhile is never overwritten: a run that has a result keeps it and
	// the answer is the stored run beside a *ConflictError. *NotFoundError for an unknown run.
	RecordRunResult(ctx context.Context, runID string, result RunResult) (Run, error)
}

// ProposalStore keeps the staged queue.
type ProposalStore interface {
	// StageProposal writes p as the test's open proposal, or records it on the open one, as
	// PlanStage decides: with no open proposal p is staged; with an open one of the same base
	// version p's triggers are appended to it and its restated count rises by one; with an open
	// one of an older base version that one becomes superseded and p is staged; p of an older
	// base version than the open one is a *StaleError. Staging the same proposal id again
	// changes nothing (StagedDuplicate).
	StageProposal(ctx context.Context, p Proposal) (Staged, error)
	Proposal(ctx context.Context, id string) (Proposal, error)
	// OpenProposals is a project's queue: its proposed rows, oldest staged first.
	OpenProposals(ctx context.Context, projectID string) ([]Proposal, error)
	// TestProposals is every row of a test, in any status, newest staged first.
	TestProposals(ctx context.Context, testID string) ([]Proposal, error)
	// ApplyProposal approves an open proposal, all or nothing: the test's steps become a.Steps at
	// version a.BaseVersion+1 if the test is at a.BaseVersion (else *StaleError), a.Repair is
	// written, and the row becomes applied by a.Repair.ApprovedBy if it is still proposed (else
	// *ConflictError). The test's status is left as it is.
	ApplyProposal(ctx context.Context, a ApplyProposal) (Test, error)
	// CloseProposal moves an open row to dismissed, stale or superseded, if it is still proposed
	// (else *ConflictError). Dismissing also remembers c.Dismissal.
	CloseProposal(ctx context.Context, c CloseProposal) (Proposal, error)
	// Dismissed reports whether every change of key was dismissed at key's test version.
	Dismissed(ctx context.Context, key DismissalKey) (bool, error)
}

// RepairStore keeps every repair written to a test, as a history.
type RepairStore interface {
	// WriteRepair writes a fix that needs no approval (auto-apply, the manual path): the test's
	// steps become w.Steps at version w.Repair.FromVersion+1 if the test is at FromVersion (else
	// *StaleError), and w.Repair is stored. A repair id that already exists is a *ConflictError
	// and changes nothing, which is what makes a duplicate event harmless when the id is derived
	// from the triggering run.
	WriteRepair(ctx context.Context, w WriteRepair) (Test, error)
	Repair(ctx context.Context, id string) (Repair, error)
	// Repairs is a test's repair history, newest first.
	Repairs(ctx context.Context, testID string) ([]Repair, error)
	// RepairsSince lists a project's repairs at or after since, newest first.
	RepairsSince(ctx context.Context, projectID string, since time.Time) ([]Repair, error)
	// RevertRepair writes the repair's pre-repair steps back as a new version, if the test is
	// still at the version the repair wrote (else *StaleError) and the repair was not reverted
	// already (else *ConflictError); the repair is marked reverted and its badge cleared.
	RevertRepair(ctx context.Context, r RevertRepair) (Test, error)
	// MarkReviewed clears a repair's badge and records who reviewed it; the fix stays.
	MarkReviewed(ctx context.Context, repairID, by string) (Repair, error)
}

// RadarStore keeps what the radar compares the app with, and what it found.
type RadarStore interface {
	// PutBaseline replaces the project's baseline.
	PutBaseline(ctx context.Context, b Baseline) error
	// Baseline is the project's baseline; *NotFoundError when nothing was swept yet.
	Baseline(ctx context.Context, projectID string) (Baseline, error)
	PutAppChange(ctx context.Context, c AppChange) error
	// AppChanges lists a project's app changes at or after since, oldest first.
	AppChanges(ctx context.Context, projectID string, since time.Time) ([]AppChange, error)
	// MarkAtRisk records that a sweep found the tests at risk: a test already at risk keeps its
	// FirstSeen and gets LastSeen = at.
	MarkAtRisk(ctx context.Context, projectID string, testIDs []string, at time.Time) error
	// AtRisk lists a project's at-risk tests, longest at risk first, so a staging pass capped at
	// ten takes the oldest and the next sweep the rest.
	AtRisk(ctx context.Context, projectID string) ([]AtRisk, error)
	// ClearAtRisk takes a test off the ledger (dry-run green, or a proposal staged).
	ClearAtRisk(ctx context.Context, projectID, testID string) error
}

// StageOutcome says what StageProposal did.
type StageOutcome string

// Stage outcomes.
const (
	StagedNew        StageOutcome = "staged"     // p is the test's open proposal
	StagedRestated   StageOutcome = "restated"   // p was recorded on the open proposal
	StagedSuperseded StageOutcome = "superseded" // p replaced an open proposal of an older version
	StagedDuplicate  StageOutcome = "duplicate"  // p was staged or restated before: nothing changed
	// StagedDeclined is the lifecycle's answer for a fix a person dismissed before; a store
	// never returns it.
	StagedDeclined StageOutcome = "declined"
)

// Staged is the result of staging: the test's open proposal after the write.
type Staged struct {
	Outcome  StageOutcome `json:"outcome"`
	Proposal Proposal     `json:"proposal"`
	// Superseded is the id of the row p replaced, for StagedSuperseded.
	Superseded string `json:"superseded,omitempty"`
}

// ApplyProposal is the atomic write of an approval.
type ApplyProposal struct {
	ProposalID  string
	TestID      string
	BaseVersion int
	Steps       []Step // the test's steps with the proposal's ops applied
	Repair      Repair // the record of the write, ApprovedBy set
}

// WriteRepair is the atomic write of a fix that needs no approval.
type WriteRepair struct {
	Steps  []Step
	Repair Repair
}

// RevertRepair is the atomic write of a revert.
type RevertRepair struct {
	RepairID string
	By       string
	At       time.Time
}

// CloseProposal moves an open proposal to a final status other than applied.
type CloseProposal struct {
	ProposalID string
	Status     ProposalStatus // dismissed, stale or superseded
	By         string
	At         time.Time
	// Dismissal is remembered when Status is dismissed.
	Dismissal DismissalKey
}

// DismissalKey is what a dismissal remembers, so the same fix is not proposed again unless the
// test (its version) or the app (a change not seen before) changes. Changes holds one
// fingerprint per app change that implicated the test; a proposal is declined when every one of
// its changes was dismissed at its base version.
type DismissalKey struct {
	TestID      string   `json:"testId"`
	TestVersion int      `json:"testVersion"`
	Changes     []string `json:"changes"`
}

// DismissalOf is the key a proposal is remembered and looked up by. A trigger's fingerprint is
// the page fingerprint the radar saw after the change, else its URL, kind and detail; a
// proposal staged without triggers (from apply mode) is identified by its ops instead, the only
// thing that says it is the same fix.
func DismissalOf(p Proposal) DismissalKey {
	k := DismissalKey{TestID: p.TestID, TestVersion: p.BaseVersion}
	for _, c := range p.Triggers {
		if c.Fingerprint != "" {
			k.Changes = append(k.Changes, digest("page", c.URL, c.Fingerprint))
		} else {
			k.Changes = append(k.Changes, digest("change", c.URL, c.Kind, c.Detail))
		}
	}
	if len(k.Changes) == 0 {
		ops := []string{"ops"}
		for _, op := range p.Verdict.Ops {
			ops = append(ops, op.String())
		}
		k.Changes = append(k.Changes, digest(ops...))
	}
	slices.Sort(k.Changes)
	k.Changes = slices.Compact(k.Changes)
	return k
}

func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Baseline is what the radar compares a sweep with: per test the pages its last green run
// visited, and per page a fingerprint of the page and of each element a test uses there.
type Baseline struct {
	ProjectID string    `json:"projectId"`
	At        time.Time `json:"at"`
	// Tests maps a test id to the URLs of the pages it visits, in visiting order.
	Tests map[string][]string `json:"tests"`
	// Pages maps a URL to what was seen there.
	Pages map[string]PageBaseline `json:"pages"`
	// Covered maps each active test the baseline considered (baselined or skipped) to its
	// version and the version of its last green run then, so a sweep can tell a test added,
	// edited, repaired or gone green since from one the baseline is of.
	Covered map[string]Covered `json:"covered,omitempty"`
}

// Covered is what a baseline knew of one test.
type Covered struct {
	Version int `json:"version"`
	// Green is the test version of its last green run; 0 when it never went green.
	Green int `json:"green"`
}

// PageBaseline is one page of a baseline.
type PageBaseline struct {
	URL string `json:"url"`
	// Fingerprint summarises the page's structure; a different value means the page changed.
	Fingerprint string `json:"fingerprint"`
	// Elements maps a locator some test uses on the page to the element it found.
	Elements map[string]Fingerprint `json:"elements"`
	// Candidates are the page's candidate elements when it was baselined: what a sweep diffs
	// the page against to tell removed, changed, moved and added elements.
	Candidates []Fingerprint `json:"candidates,omitempty"`
	// NeedsSession is set when the page is only reached after the project's setup test (a
	// login): visited without it, it ended elsewhere.
	NeedsSession bool `json:"needsSession,omitempty"`
	// Via is the route to a page that cannot be visited directly (a checkout step that needs a
	// filled cart): the first steps of a test that reached it on its last green run.
	Via *PageRoute `json:"via,omitempty"`
	// Unseen are locators tests use on the page that find nothing when it is visited (an alert
	// shown after a failed submit): a sweep cannot judge them, and the dry-run of their test
	// remains the only check.
	Unseen []string `json:"unseen,omitempty"`
}

// PageRoute reaches a page by replaying the first Steps top-level steps of a test.
type PageRoute struct {
	TestID string `json:"testId"`
	Steps  int    `json:"steps"`
}

// AtRisk is a test a sweep found at risk, waiting for a staging pass.
type AtRisk struct {
	ProjectID string    `json:"projectId"`
	TestID    string    `json:"testId"`
	FirstSeen time.Time `json:"firstSeen"`
	LastSeen  time.Time `json:"lastSeen"`
}

// MergeTriggers adds the changes of a restating proposal to an open row's triggers: a change
// already there (same id) is not repeated, so a row restated by every sweep stays bounded by
// the distinct changes that implicated it. The result is ordered by time, then id.
func MergeTriggers(open, more []AppChange) []AppChange {
	out := slices.Clone(open)
	for _, c := range more {
		if !slices.ContainsFunc(out, func(o AppChange) bool { return o.ID == c.ID }) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b AppChange) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}
