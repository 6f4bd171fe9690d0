// Package embedded is the gardener.Store in one bbolt file: the store of the stack on one
// machine (development, demos, CI), with no server. Every method runs in one bbolt
// transaction, so a multi-record step (stage, approve, dismiss, auto-apply, revert) is atomic
// and a failed one writes nothing; bbolt serialises writers, which is what makes the
// conditional steps race-free. A Store is safe for concurrent use.
//
// Records are JSON, one bucket per kind, keyed by id. Listings that a person pages through
// (a test's model calls, a project's app changes, the at-risk ledger) have keys that sort in
// the order they are read; the others scan their bucket, which is fine at the scale one machine
// serves.
package embedded

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/driftgardener/gardener/pkg/gardener"
)

var (
	bProjects   = []byte("projects")
	bTests      = []byte("tests")
	bRuns       = []byte("runs")
	bGreen      = []byte("green")      // test id → id of its newest green run
	bProposals  = []byte("proposals")  // id → proposal
	bOpen       = []byte("open")       // test id → id of its open proposal
	bRestated   = []byte("restated")   // id of a proposal recorded on an open one → that one's id
	bDismissals = []byte("dismissals") // test id \x00 version → dismissed change fingerprints
	bRepairs    = []byte("repairs")
	bTriage     = []byte("triage")
	bModelCalls = []byte("modelcalls") // test id \x00 time \x00 sequence
	bBaselines  = []byte("baselines")
	bChanges    = []byte("changes") // project id \x00 time \x00 id
	bAtRisk     = []byte("atrisk")  // project id \x00 test id
	bHandoffs   = []byte("handoffs")
)

var buckets = [][]byte{bProjects, bTests, bRuns, bGreen, bProposals, bOpen, bRestated, bDismissals, bRepairs, bTriage, bModelCalls, bBaselines, bChanges, bAtRisk, bExecutions, bClaims, bEvents, bRadarStatus, bMachineExecutions, bHandoffs}

// Store is a gardener.Store in a bbolt file.
type Store struct {
	db *bolt.DB
}

var _ gardener.Store = (*Store)(nil)

// Open opens or creates the store at path. It waits at most a second for another process
// holding the file, rather than hanging.
func Open(path string) (*Store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, bolterrors.ErrTimeout) {
		// bbolt's own word is "timeout", which names neither the cause nor the way out: the file
		// admits one process at a time, and a long-lived one (gardener mcp, which an MCP client
		// keeps running, or gardener serve) holds it for as long as it runs.
		return nil, fmt.Errorf("open embedded store %s: another process has it open (a gardener mcp or gardener serve on the same state, or a command still running), and it admits one process at a time", path)
	}
	if err != nil {
		return nil, fmt.Errorf("open embedded store %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range buckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return fmt.Errorf("bucket %s: %w", b, err)
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open embedded store %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// timeKey sorts as the time does: fixed width, UTC.
func timeKey(t time.Time) string { return t.UTC().Format("20060102T150405.000000000") }

// key joins the parts of a composite key with \x00, each part escaped so that it cannot hold
// the separator (\x00 is written \x01\x01, \x01 is written \x01\x02): two different lists of
// parts never make one key, and key(id, "") is a prefix of the keys of id's records only, so a
// prefix scan for one test never finds another's, whatever the ids. A part with neither byte
// (every id the id rule takes) is written as it is, so the keys of an older store still read.
func key(parts ...string) []byte {
	n := len(parts)
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, 0)
		}
		for j := 0; j < len(p); j++ {
			switch p[j] {
			case 0:
				b = append(b, 1, 1)
			case 1:
				b = append(b, 1, 2)
			default:
				b = append(b, p[j])
			}
		}
	}
	return b
}

func get[T any](tx *bolt.Tx, bucket, k []byte, entity, id string) (T, error) {
	var v T
	raw := getRaw(tx, bucket, k)
	if raw == nil {
		return v, &gardener.NotFoundError{Entity: entity, ID: id}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		corrupt := &gardener.CorruptError{}
		corrupt.Add(entity, id, err)
		return v, corrupt
	}
	return v, nil
}

func put(tx *bolt.Tx, bucket, k []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("embedded store: encode %s: %w", k, err)
	}
	return putRaw(tx, bucket, k, raw)
}

// owner is what a listing selects records by, read from a record that does not decode as a
// whole so that it is reported only to the listings it belongs to.
type owner struct {
	ID        string `json:"id"`
	Project   string `json:"project"` // a test's
	ProjectID string `json:"projectId"`
	TestID    string `json:"testId"`
	RunID     string `json:"runId"` // an execution's
}

// scan decodes every record of bucket whose key starts with prefix, in key order, and keeps the
// ones keep accepts. With mine, a record whose owner mine refuses is not decoded in full: keep
// must then accept no record whose owner mine refuses (each caller's mine reads the same fields
// as its keep). A record that does not decode is skipped and named in the
// *gardener.CorruptError returned beside the rest, if mine says it belongs to the listing (nil:
// the prefix decides) or its owner cannot be read either.
func scan[T any](tx *bolt.Tx, bucket, prefix []byte, entity string, keep func(T) bool, mine func(owner) bool) ([]T, error) {
	var out []T
	var corrupt gardener.CorruptError
	c := tx.Bucket(bucket).Cursor()
	size := 0
	defer func() { tallyOf(tx).readBytes(size) }()
	for k, raw := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, raw = c.Next() {
		size += len(raw)
		// Another's record is passed over on its owner alone: decoding each record in full
		// made a listing by project cost as much as decoding every project's, and so made the
		// suite plan, which lists every project, grow with the square of the projects.
		if mine != nil {
			var o owner
			if json.Unmarshal(raw, &o) == nil && !mine(o) {
				continue
			}
		}
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			var o owner
			if mine == nil || json.Unmarshal(raw, &o) != nil || mine(o) {
				corrupt.Add(entity, recordID(k, o), err)
			}
			continue
		}
		if keep == nil || keep(v) {
			out = append(out, v)
		}
	}
	return out, corrupt.Err()
}

// recordID names a record by its id, else by its key, made readable.
func recordID(k []byte, o owner) string {
	if o.ID != "" {
		return o.ID
	}
	return strings.ReplaceAll(string(k), "\x00", "/")
}

func (s *Store) view(ctx context.Context, fn func(*bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return metered(ctx, s.db.View, fn)
}

func (s *Store) update(ctx context.Context, fn func(*bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return metered(ctx, s.db.Update, fn)
}

func need(what, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("embedded store: %s is required", what)
	}
	return nil
}

// PutProject creates or replaces a project.
func (s *Store) PutProject(ctx context.Context, p gardener.Project) error {
	if err := need("project id", p.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error { return put(tx, bProjects, []byte(p.ID), p) })
}

// Project reads a project.
func (s *Store) Project(ctx context.Context, id string) (p gardener.Project, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		p, err = get[gardener.Project](tx, bProjects, []byte(id), "project", id)
		return err
	})
	return p, err
}

// Projects lists every project by id.
func (s *Store) Projects(ctx context.Context) (ps []gardener.Project, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		ps, err = scan[gardener.Project](tx, bProjects, nil, "project", nil, nil)
		return err
	})
	return ps, err
}

// maxAttempts bounds how often UpdateProject runs its update again after the project changed
// under it.
const maxAttempts = 24

// UpdateProject changes a project's settings by update, writing only over what it read. The
// update runs outside any transaction, so an update that is slow (or calls out) holds no lock;
// the write compares the stored record with the one read, byte for byte.
func (s *Store) UpdateProject(ctx context.Context, id string, update func(*gardener.Project) error) (gardener.Project, error) {
	for attempt := 1; ; attempt++ {
		var read []byte
		var cur gardener.Project
		err := s.view(ctx, func(tx *bolt.Tx) (err error) {
			cur, err = get[gardener.Project](tx, bProjects, []byte(id), "project", id)
			read = bytes.Clone(getRaw(tx, bProjects, []byte(id)))
			return err
		})
		if err != nil {
			return gardener.Project{}, err
		}
		next, err := cur.Updated(update)
		if err != nil {
			return gardener.Project{}, err
		}
		if next.Version == cur.Version {
			return cur, nil // nothing changed: nothing to write
		}
		written := false
		err = s.update(ctx, func(tx *bolt.Tx) error {
			if !bytes.Equal(getRaw(tx, bProjects, []byte(id)), read) {
				return nil
			}
			written = true
			return put(tx, bProjects, []byte(id), next)
		})
		switch {
		case err != nil:
			return gardener.Project{}, err
		case written:
			return next, nil
		case attempt == maxAttempts:
			return gardener.Project{}, &gardener.ConflictError{Entity: "project", ID: id, Reason: fmt.Sprintf("changed under each of %d updates", maxAttempts)}
		}
	}
}

// CreateTest stores a new test.
func (s *Store) CreateTest(ctx context.Context, t gardener.Test) error {
	if err := need("test id", t.ID); err != nil {
		return err
	}
	if err := gardener.StepsRoundTrip(t.Steps); err != nil {
		return fmt.Errorf("create test %s: %w", t.ID, err)
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		if getRaw(tx, bTests, []byte(t.ID)) != nil {
			return &gardener.ConflictError{Entity: "test", ID: t.ID, Reason: "exists already"}
		}
		return put(tx, bTests, []byte(t.ID), t)
	})
}

// Test reads a test.
func (s *Store) Test(ctx context.Context, id string) (t gardener.Test, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		t, err = get[gardener.Test](tx, bTests, []byte(id), "test", id)
		return err
	})
	return t, err
}

// Tests lists a project's tests by id.
func (s *Store) Tests(ctx context.Context, projectID string) (ts []gardener.Test, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		ts, err = scan(tx, bTests, nil, "test", func(t gardener.Test) bool { return t.ProjectID == projectID },
			func(o owner) bool { return o.Project == projectID })
		return err
	})
	return ts, err
}

// SaveTest writes a person's edit made against t.Version.
func (s *Store) SaveTest(ctx context.Context, t gardener.Test) (out gardener.Test, err error) {
	err = s.update(ctx, func(tx *bolt.Tx) error {
		cur, err := get[gardener.Test](tx, bTests, []byte(t.ID), "test", t.ID)
		if err != nil {
			return err
		}
		if out, err = cur.Edited(t); err != nil {
			return err
		}
		return put(tx, bTests, []byte(t.ID), out)
	})
	return out, err
}

// writeSteps raises a test's version with new steps, if it is at base.
func writeSteps(tx *bolt.Tx, testID string, base int, steps []gardener.Step) (gardener.Test, error) {
	t, err := get[gardener.Test](tx, bTests, []byte(testID), "test", testID)
	if err != nil {
		return t, err
	}
	if t, err = t.WithSteps(base, steps); err != nil {
		return t, err
	}
	return t, put(tx, bTests, []byte(testID), t)
}

// PutRun records a run.
func (s *Store) PutRun(ctx context.Context, r gardener.Run) error {
	if err := need("run id", r.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error { return putRun(tx, r) })
}

// putRun writes a run and, when it is green, makes it its test's last green run if none newer is.
func putRun(tx *bolt.Tx, r gardener.Run) error {
	if err := put(tx, bRuns, []byte(r.ID), r); err != nil {
		return err
	}
	if !r.Green() {
		return nil
	}
	if id := getRaw(tx, bGreen, []byte(r.TestID)); id != nil && string(id) != r.ID {
		prev, err := get[gardener.Run](tx, bRuns, id, "run", string(id))
		// The newest green run is the first in newest-first order, as in every listing.
		if err == nil && gardener.NewestFirst(prev.At, prev.ID, r.At, r.ID) < 0 {
			return nil
		}
	}
	return putRaw(tx, bGreen, []byte(r.TestID), []byte(r.ID))
}

// RecordRunResult stores a result on a run that has none, in one transaction.
func (s *Store) RecordRunResult(ctx context.Context, runID string, result gardener.RunResult) (r gardener.Run, err error) {
	err = s.update(ctx, func(tx *bolt.Tx) error {
		if r, err = get[gardener.Run](tx, bRuns, []byte(runID), "run", runID); err != nil {
			return err
		}
		if r.Result != nil {
			return &gardener.ConflictError{Entity: "run", ID: runID, Reason: "it has a result already"}
		}
		r.Result = &result
		return putRun(tx, r)
	})
	return r, err
}

// Run reads a run.
func (s *Store) Run(ctx context.Context, id string) (r gardener.Run, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		r, err = get[gardener.Run](tx, bRuns, []byte(id), "run", id)
		return err
	})
	return r, err
}

// LastGreenRun reads the test's newest green run.
func (s *Store) LastGreenRun(ctx context.Context, testID string) (r gardener.Run, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		id := getRaw(tx, bGreen, []byte(testID))
		if id == nil {
			return &gardener.NotFoundError{Entity: "green run of test", ID: testID}
		}
		r, err = get[gardener.Run](tx, bRuns, id, "run", string(id))
		return err
	})
	return r, err
}

// Runs lists a page of a test's runs, newest first. The runs bucket is keyed by run id, so the
// page is cut from the test's runs scanned whole: the embedded store keeps one machine's runs.
func (s *Store) Runs(ctx context.Context, testID, after string, limit int) (out []gardener.Run, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		out, err = scan(tx, bRuns, nil, "run", func(r gardener.Run) bool { return r.TestID == testID },
			func(o owner) bool { return o.TestID == testID })
		return err
	})
	corrupt, failure := gardener.SplitCorrupt(err)
	if failure != nil {
		return nil, failure
	}
	slices.SortStableFunc(out, func(a, b gardener.Run) int { return gardener.NewestFirst(a.At, a.ID, b.At, b.ID) })
	if after != "" {
		i := slices.IndexFunc(out, func(r gardener.Run) bool { return r.ID == after })
		if i < 0 {
			return nil, &gardener.NotFoundError{Entity: "run of test " + testID, ID: after}
		}
		out = out[i+1:]
	}
	out = out[:min(max(limit, 1), len(out))]
	if corrupt != nil {
		return out, corrupt
	}
	return out, nil
}

// PutTriageIssue records a triage issue.
func (s *Store) PutTriageIssue(ctx context.Context, t gardener.TriageIssue) error {
	if err := need("triage issue id", t.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error { return put(tx, bTriage, []byte(t.ID), t) })
}

// TriageIssue reads one triage issue by its id.
func (s *Store) TriageIssue(ctx context.Context, id string) (t gardener.TriageIssue, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		t, err = get[gardener.TriageIssue](tx, bTriage, []byte(id), "triage issue", id)
		return err
	})
	return t, err
}

// PutHandoff keeps what one task of a state machine hands the next.
func (s *Store) PutHandoff(ctx context.Context, h gardener.Handoff) error {
	if err := need("handoff id", h.ID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error { return put(tx, bHandoffs, []byte(h.ID), h) })
}

// Handoff reads a kept handoff.
func (s *Store) Handoff(ctx context.Context, id string) (h gardener.Handoff, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		h, err = get[gardener.Handoff](tx, bHandoffs, []byte(id), "handoff", id)
		return err
	})
	return h, err
}

// TriageIssues lists a project's triage issues, newest first.
func (s *Store) TriageIssues(ctx context.Context, projectID string) (out []gardener.TriageIssue, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		out, err = scan(tx, bTriage, nil, "triage issue", func(t gardener.TriageIssue) bool { return t.ProjectID == projectID },
			func(o owner) bool { return o.ProjectID == projectID })
		return err
	})
	slices.SortStableFunc(out, func(a, b gardener.TriageIssue) int { return gardener.NewestFirst(a.At, a.ID, b.At, b.ID) })
	return out, err
}

// AddModelCall appends a call to the test's AI history.
func (s *Store) AddModelCall(ctx context.Context, c gardener.ModelCall) error {
	if err := need("model call: test id", c.TestID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		seq, err := tx.Bucket(bModelCalls).NextSequence()
		if err != nil {
			return err
		}
		return put(tx, bModelCalls, key(c.TestID, timeKey(c.At), fmt.Sprintf("%016x", seq)), c)
	})
}

// ModelCalls is a test's AI history, newest first.
func (s *Store) ModelCalls(ctx context.Context, testID string) (out []gardener.ModelCall, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		out, err = scan[gardener.ModelCall](tx, bModelCalls, key(testID, ""), "model call", nil, nil)
		return err
	})
	slices.Reverse(out)
	return out, err
}

// PutBaseline replaces the project's baseline.
func (s *Store) PutBaseline(ctx context.Context, b gardener.Baseline) error {
	if err := need("baseline: project id", b.ProjectID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error { return put(tx, bBaselines, []byte(b.ProjectID), b) })
}

// Baseline reads the project's baseline.
func (s *Store) Baseline(ctx context.Context, projectID string) (b gardener.Baseline, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		b, err = get[gardener.Baseline](tx, bBaselines, []byte(projectID), "baseline of project", projectID)
		return err
	})
	return b, err
}

// PutAppChange records an app change.
func (s *Store) PutAppChange(ctx context.Context, c gardener.AppChange) error {
	if err := need("app change id", c.ID); err != nil {
		return err
	}
	if err := need("app change "+c.ID+": project id", c.ProjectID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		return put(tx, bChanges, key(c.ProjectID, timeKey(c.At), c.ID), c)
	})
}

// AppChanges lists a project's app changes at or after since, oldest first.
func (s *Store) AppChanges(ctx context.Context, projectID string, since time.Time) (out []gardener.AppChange, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		out, err = scan(tx, bChanges, key(projectID, ""), "app change", func(c gardener.AppChange) bool { return !c.At.Before(since) }, nil)
		return err
	})
	return out, err
}

// MarkAtRisk puts tests on the at-risk ledger, keeping the time each was first seen.
func (s *Store) MarkAtRisk(ctx context.Context, projectID string, testIDs []string, at time.Time) error {
	if err := need("at risk: project id", projectID); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		for _, id := range testIDs {
			if err := need("at risk: test id", id); err != nil {
				return err
			}
			k := key(projectID, id)
			r, err := get[gardener.AtRisk](tx, bAtRisk, k, "at-risk test", id)
			if errors.Is(err, gardener.ErrNotFound) {
				r = gardener.AtRisk{ProjectID: projectID, TestID: id}
			} else if err != nil {
				return err
			}
			if err := put(tx, bAtRisk, k, r.Seen(at)); err != nil {
				return err
			}
		}
		return nil
	})
}

// AtRisk lists the project's at-risk tests, longest at risk first.
func (s *Store) AtRisk(ctx context.Context, projectID string) (out []gardener.AtRisk, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		out, err = scan[gardener.AtRisk](tx, bAtRisk, key(projectID, ""), "at-risk test", nil, nil)
		return err
	})
	gardener.SortAtRisk(out)
	return out, err
}

// ClearAtRisk takes a test off the ledger.
func (s *Store) ClearAtRisk(ctx context.Context, projectID, testID string) error {
	return s.update(ctx, func(tx *bolt.Tx) error { return del(tx, bAtRisk, key(projectID, testID)) })
}

func versionKey(testID string, version int) []byte {
	return key(testID, strconv.Itoa(version))
}
