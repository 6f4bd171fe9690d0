// Package workspace keeps the store in step with what a caller holds (a directory of test files,
// an API request, a suite): it creates or updates a project's settings, syncs saved tests by
// version, and records the runs a repair compares with. The CLI, the API and the suite runner
// share it, so these rules are written once.
package workspace

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Store is what the workspace reads and writes: projects, tests and runs.
type Store interface {
	Project(ctx context.Context, id string) (gardener.Project, error)
	PutProject(ctx context.Context, p gardener.Project) error
	Test(ctx context.Context, id string) (gardener.Test, error)
	CreateTest(ctx context.Context, t gardener.Test) error
	SaveTest(ctx context.Context, t gardener.Test) (gardener.Test, error)
	PutRun(ctx context.Context, r gardener.Run) error
	LastGreenRun(ctx context.Context, testID string) (gardener.Run, error)
}

// Service is the workspace's application service. The zero value is not usable: Store is
// required.
type Service struct {
	Store Store
	// OnReplay, when set, is called before RecordGreen replays a test, so a caller can say what
	// it is waiting for.
	OnReplay func(gardener.Test)
}

// Settings are what EnsureProject writes on a project. A nil field keeps what the stored project
// has; Origins are added to the allowed origins when missing, never removed.
type Settings struct {
	AutoRepair  *bool
	Model       *string
	SetupTestID *string
	Origins     []string
	// New is the project to create when the store has none, before the settings apply: its ID is
	// the one EnsureProject is given, its name defaults to the id and its plan to pro.
	New gardener.Project
}

// EnsureProject makes the store hold project id with the given settings: created from s.New
// when missing, else updated with the rest of its settings kept. It returns the project written.
func (s *Service) EnsureProject(ctx context.Context, id string, set Settings) (gardener.Project, error) {
	if id == "" {
		return gardener.Project{}, errors.New("ensure project: the project id is empty")
	}
	p, err := s.Store.Project(ctx, id)
	if errors.Is(err, gardener.ErrNotFound) {
		p = NewProject(id, set.New)
	} else if err != nil {
		return gardener.Project{}, fmt.Errorf("ensure project %s: %w", id, err)
	}
	if set.AutoRepair != nil {
		p.AutoRepair = *set.AutoRepair
	}
	if set.Model != nil {
		p.Model = *set.Model
	}
	if set.SetupTestID != nil {
		p.SetupTestID = *set.SetupTestID
	}
	for _, o := range set.Origins {
		if !slices.Contains(p.AllowedOrigins, o) {
			p.AllowedOrigins = append(p.AllowedOrigins, o)
		}
	}
	if err := s.Store.PutProject(ctx, p); err != nil {
		return gardener.Project{}, fmt.Errorf("ensure project %s: %w", id, err)
	}
	return p, nil
}

// NewProject is project id as it is created from p, by every door alike: named after its id and
// on the pro plan unless p says otherwise, with no allowed origin but p's.
func NewProject(id string, p gardener.Project) gardener.Project {
	p.ID, p.Name, p.Plan = id, cmp.Or(p.Name, id), cmp.Or(p.Plan, gardener.PlanPro)
	p.AllowedOrigins = append([]string{}, p.AllowedOrigins...)
	return p
}

// SyncOutcome says what SyncTest did.
type SyncOutcome string

// Sync outcomes.
const (
	SyncCreated   SyncOutcome = "created"   // the store had no such test
	SyncUnchanged SyncOutcome = "unchanged" // the store's steps and status were the caller's
	SyncSaved     SyncOutcome = "saved"     // the caller's steps were saved as a new version
	// SyncBehind: the caller's copy is where an unfinished write to it started, and the store
	// is ahead of it. Nothing was written to the store; the caller completes the write by
	// bringing its copy up to Synced.Test.
	SyncBehind SyncOutcome = "behind"
)

// Synced is the result of SyncTest.
type Synced struct {
	// Test is the test as the store holds it after the sync.
	Test    gardener.Test
	Outcome SyncOutcome
	// Moved says the stored test was not at the caller's version when SyncTest read it: something
	// wrote it since the caller last synced (a repair, an edit elsewhere). With SyncSaved the
	// caller's steps were saved over that write, as the version after it.
	Moved bool
}

// Mark identifies what a caller's copy of a test holds: its version and a digest of the steps
// and status SyncTest compares. A caller that writes the store's test back to its copy records
// the copy's mark before the store is written and clears it once the copy is written, so a sync
// after a crash between the two can tell the copy left behind from a person's edit of it.
type Mark struct {
	Version int    `json:"version"`
	Digest  string `json:"digest"`
}

// MarkOf returns the mark of a test.
func MarkOf(t gardener.Test) (Mark, error) {
	// The viewport is left out when the test has none, so a test without one keeps the digest
	// it had before tests could have one.
	b, err := json.Marshal(struct {
		Status   gardener.TestStatus `json:"status"`
		Viewport gardener.Viewport   `json:"viewport,omitzero"`
		Steps    []gardener.Step     `json:"steps"`
	}{t.Status, t.Viewport, t.Steps})
	if err != nil {
		return Mark{}, fmt.Errorf("mark of test %s: %w", t.ID, err)
	}
	sum := sha256.Sum256(b)
	return Mark{Version: t.Version, Digest: "sha256:" + hex.EncodeToString(sum[:])}, nil
}

// SyncTest makes the store hold the caller's test. A new test is created at the caller's
// version, or at version 1 when it gives none. A stored test with the same steps, status and
// viewport is left as it is. A caller's copy of an older version than the stored one (see
// gardener.Test.CopyOf) with other steps is refused with *MovedError and nothing is written:
// the store moved on (a repair, an edit) and the copy would undo it. Otherwise the caller's
// steps, status, name and viewport are saved as a new version on top of the stored one,
// through SaveTest with the stored version, so a write that lands between the read and the
// save is a conflict, not overwritten.
//
// unfinished, when not nil, is the mark of the caller's copy when a write that was to bring the
// copy up to the store began and was not seen to finish. If the copy still has that mark and the
// store is past its version, the store wrote and the copy was never written: the sync answers
// SyncBehind and writes nothing, where the copy's older steps would otherwise be saved over
// the store's as a person's edit. A copy changed since the mark is a person's edit and is saved.
func (s *Service) SyncTest(ctx context.Context, t gardener.Test, unfinished *Mark) (Synced, error) {
	stored, err := s.Store.Test(ctx, t.ID)
	if errors.Is(err, gardener.ErrNotFound) {
		created := t.Clone()
		created.Version = max(created.Version, 1)
		if err := s.Store.CreateTest(ctx, created); err != nil {
			return Synced{}, fmt.Errorf("sync test %s: %w", t.ID, err)
		}
		return Synced{Test: created, Outcome: SyncCreated}, nil
	}
	if err != nil {
		return Synced{}, fmt.Errorf("sync test %s: %w", t.ID, err)
	}
	if slices.EqualFunc(stored.Steps, t.Steps, gardener.Step.Equal) && stored.Status == t.Status && stored.Viewport == t.Viewport {
		return Synced{Test: stored, Outcome: SyncUnchanged, Moved: stored.Version != t.Version}, nil
	}
	if unfinished != nil && stored.Version > unfinished.Version {
		held, err := MarkOf(t)
		if err != nil {
			return Synced{}, fmt.Errorf("sync test %s: %w", t.ID, err)
		}
		if held == *unfinished {
			return Synced{Test: stored, Outcome: SyncBehind, Moved: true}, nil
		}
	}
	// A copy of an older version (a file that names none is a copy of version 1) whose steps
	// are not the store's: the store moved on since (a repair, another edit), and saving the
	// copy would write the older steps over it. Nothing is written, as a push of the same file
	// is refused (gardening.Service.SaveTest).
	if base := t.CopyOf(); stored.Version > base {
		return Synced{}, &MovedError{TestID: t.ID, Base: base, Version: stored.Version, Unnamed: t.Version == 0}
	}
	edit := stored
	edit.Steps, edit.Status, edit.Name, edit.Viewport = gardener.CloneSteps(t.Steps), t.Status, t.Name, t.Viewport
	saved, err := s.Store.SaveTest(ctx, edit)
	if err != nil {
		return Synced{}, fmt.Errorf("sync test %s at version %d: %w", t.ID, stored.Version, err)
	}
	return Synced{Test: saved, Outcome: SyncSaved, Moved: stored.Version != t.CopyOf()}, nil
}

// GreenKnown reports whether the store holds a green run of the test's current version.
func (s *Service) GreenKnown(ctx context.Context, t gardener.Test) (bool, error) {
	green, err := s.Store.LastGreenRun(ctx, t.ID)
	if errors.Is(err, gardener.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("last green run of %s: %w", t.ID, err)
	}
	return green.TestVersion == t.Version, nil
}

// Recorded is what RecordGreen did for one test.
type Recorded struct {
	// Replayed is false when a green run of the test's version was known: nothing was replayed
	// or stored, and Run and Replay are empty.
	Replayed bool
	// Run is the stored run, its result the replay's, green or red.
	Run    gardener.Run
	Replay gardener.Replay
}

// RecordGreen replays t when the store knows no green run of its current version, and stores
// the run under a new id. Green, it is what later repairs compare a failure with; red, it is
// the failure a repair starts from.
func (s *Service) RecordGreen(ctx context.Context, runner gardener.Runner, t gardener.Test, opts gardener.ReplayOptions) (Recorded, error) {
	known, err := s.GreenKnown(ctx, t)
	if err != nil || known {
		return Recorded{}, err
	}
	if s.OnReplay != nil {
		s.OnReplay(t)
	}
	rep, err := runner.Replay(ctx, t, opts)
	if err != nil {
		return Recorded{}, fmt.Errorf("replaying %s version %d: %w", t.ID, t.Version, err)
	}
	result := rep.Result
	run, err := s.RecordRun(ctx, t, gardener.TriggerManual, &result)
	if err != nil {
		return Recorded{}, err
	}
	return Recorded{Replayed: true, Run: run, Replay: rep}, nil
}

// RecordRun stores a run of t's current version under a new id; result is nil for a run that
// only names what a repair was asked for.
func (s *Service) RecordRun(ctx context.Context, t gardener.Test, trigger gardener.TriggerKind, result *gardener.RunResult) (gardener.Run, error) {
	at := time.Now()
	run := gardener.Run{ID: gardener.NewRunID(trigger, t.ID, at), ProjectID: t.ProjectID, TestID: t.ID, TestVersion: t.Version, Trigger: trigger, Result: result, At: at}
	if err := s.Store.PutRun(ctx, run); err != nil {
		return gardener.Run{}, fmt.Errorf("recording run %s of %s: %w", run.ID, t.ID, err)
	}
	return run, nil
}

// MovedError is a replace made against a version the test is no longer at: someone (a repair,
// another edit) wrote it since the caller read it. Nothing was written.
type MovedError struct {
	TestID  string
	Base    int // the version the caller's edit was made on
	Version int // the version the store holds
	// Unnamed says the edit named no version and Base is the 1 it was taken as
	// (gardener.Test.CopyOf), which the caller may not know.
	Unnamed bool
}

func (e *MovedError) Error() string {
	if e.Unnamed {
		return fmt.Sprintf("test %s is at version %d; the edit names no version, so it was made on version %d (what creating the test made): the test changed since (a repair or another edit) and nothing was written over it; read it again and redo the edit on it", e.TestID, e.Version, e.Base)
	}
	return fmt.Sprintf("test %s is at version %d, not version %d the edit was made on: it changed since it was read (a repair or another edit); read it again and redo the edit on it", e.TestID, e.Version, e.Base)
}

// ReplaceTest writes t's steps, name and status over the stored test as a person's edit, at the
// next version, so proposals computed against the version it replaces go stale. base is the
// version the edit was made on: when it is not 0 and the test moved from it, nothing is written
// (*MovedError), and the store's write is conditional on it, so a write landing between the
// read and the save is a conflict rather than lost. With base 0 the edit applies on top of
// whatever is stored. A test whose steps, status, name and viewport are the stored ones is left
// unchanged whatever base names: writing nothing loses nothing, so a copy that is already what
// the store holds is not refused. A test in another project than the stored one's is refused.
func (s *Service) ReplaceTest(ctx context.Context, t gardener.Test, base int) (Synced, error) {
	stored, err := s.Store.Test(ctx, t.ID)
	if err != nil {
		return Synced{}, fmt.Errorf("replace test %s: %w", t.ID, err)
	}
	if t.ProjectID != stored.ProjectID {
		return Synced{}, fmt.Errorf("replace test %s: it is of project %s, not %s", t.ID, stored.ProjectID, t.ProjectID)
	}
	if slices.EqualFunc(stored.Steps, t.Steps, gardener.Step.Equal) && stored.Status == t.Status && stored.Name == t.Name && stored.Viewport == t.Viewport {
		return Synced{Test: stored, Outcome: SyncUnchanged}, nil
	}
	if base != 0 && base != stored.Version {
		return Synced{}, &MovedError{TestID: t.ID, Base: base, Version: stored.Version}
	}
	edit := stored
	edit.Steps, edit.Status, edit.Name, edit.Viewport = gardener.CloneSteps(t.Steps), t.Status, t.Name, t.Viewport
	saved, err := s.Store.SaveTest(ctx, edit)
	if err != nil {
		return Synced{}, fmt.Errorf("replace test %s at version %d: %w", t.ID, stored.Version, err)
	}
	return Synced{Test: saved, Outcome: SyncSaved}, nil
}
