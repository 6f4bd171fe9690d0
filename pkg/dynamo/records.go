package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// PutProject creates or replaces a project.
func (s *Store) PutProject(ctx context.Context, p gardener.Project) error {
	if err := need("project id", p.ID); err != nil {
		return err
	}
	return s.putDoc(ctx, projectItem(p.ID), p, "", nil)
}

// projectItem is a project record with a fresh revision: every write of a project changes its
// "rev", which is what UpdateProject's write is conditional on. GSI1 lists the projects.
func projectItem(id string) item {
	it := key("P#"+id, "PROJECT")
	it["rev"] = avS(nonce())
	it["GSI1PK"] = avS("PROJECTS")
	it["GSI1SK"] = avS(id)
	return it
}

// UpdateProject changes a project's settings by update, writing only if the project's revision
// is still the one read.
func (s *Store) UpdateProject(ctx context.Context, id string, update func(*gardener.Project) error) (gardener.Project, error) {
	for attempt := 1; ; attempt++ {
		var cur gardener.Project
		it, err := s.getDoc(ctx, "P#"+id, "PROJECT", "project", id, &cur)
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
		cond, values := "attribute_exists(PK) AND attribute_not_exists(rev)", item(nil)
		if rev := getS(it, "rev"); rev != "" {
			cond, values = "rev = :rev", item{":rev": avS(rev)}
		}
		err = s.putDoc(ctx, projectItem(next.ID), next, cond, values)
		switch {
		case err == nil:
			return next, nil
		case !conditionFailed(err):
			return gardener.Project{}, err
		case attempt == maxAttempts:
			return gardener.Project{}, &gardener.ConflictError{Entity: "project", ID: id, Reason: fmt.Sprintf("changed under each of %d updates", maxAttempts)}
		}
		select {
		case <-ctx.Done():
			return gardener.Project{}, ctx.Err()
		case <-time.After(backoff(attempt)):
		}
	}
}

// Project reads a project.
func (s *Store) Project(ctx context.Context, id string) (p gardener.Project, err error) {
	_, err = s.getDoc(ctx, "P#"+id, "PROJECT", "project", id, &p)
	return p, err
}

// Projects lists every project by id.
func (s *Store) Projects(ctx context.Context) ([]gardener.Project, error) {
	items, err := s.queryIndex(ctx, "GSI1", "PROJECTS", "", false)
	if err != nil {
		return nil, err
	}
	return listed(items, func(it item) (p gardener.Project, err error) {
		_, err = s.decodeDoc(ctx, it, &p)
		return p, err
	})
}

func testItem(t gardener.Test) item {
	it := key("T#"+t.ID, "TEST")
	it["GSI1PK"] = avS("P#" + t.ProjectID + "#TESTS")
	it["GSI1SK"] = avS(t.ID)
	it["testVersion"] = avN(t.Version)
	return it
}

// CreateTest stores a new test.
func (s *Store) CreateTest(ctx context.Context, t gardener.Test) error {
	if err := need("test id", t.ID); err != nil {
		return err
	}
	if err := gardener.StepsRoundTrip(t.Steps); err != nil {
		return fmt.Errorf("create test %s: %w", t.ID, err)
	}
	err := s.putDoc(ctx, testItem(t), t, "attribute_not_exists(PK)", nil)
	if conditionFailed(err) {
		return &gardener.ConflictError{Entity: "test", ID: t.ID, Reason: "exists already"}
	}
	return err
}

// Test reads a test.
func (s *Store) Test(ctx context.Context, id string) (t gardener.Test, err error) {
	_, err = s.getDoc(ctx, "T#"+id, "TEST", "test", id, &t)
	return t, err
}

// Tests lists a project's tests by id.
func (s *Store) Tests(ctx context.Context, projectID string) ([]gardener.Test, error) {
	items, err := s.queryIndex(ctx, "GSI1", "P#"+projectID+"#TESTS", "", false)
	if err != nil {
		return nil, err
	}
	return listed(items, func(it item) (t gardener.Test, err error) {
		_, err = s.decodeDoc(ctx, it, &t)
		return t, err
	})
}

// SaveTest writes a person's edit made against t.Version.
func (s *Store) SaveTest(ctx context.Context, t gardener.Test) (gardener.Test, error) {
	// A refused condition means the version moved after the read: the next read sees it, and
	// Edited refuses the edit naming the version it moved to.
	for attempt := 1; ; attempt++ {
		var cur gardener.Test
		if _, err := s.getDoc(ctx, "T#"+t.ID, "TEST", "test", t.ID, &cur); err != nil {
			return gardener.Test{}, err
		}
		out, err := cur.Edited(t)
		if err != nil {
			return gardener.Test{}, err
		}
		err = s.putDoc(ctx, testItem(out), out, "testVersion = :v", item{":v": avN(t.Version)})
		switch {
		case err == nil:
			return out, nil
		case !conditionFailed(err):
			return gardener.Test{}, err
		case attempt == maxAttempts:
			return gardener.Test{}, &gardener.ConflictError{Entity: "test", ID: t.ID, Reason: fmt.Sprintf("save refused %d times at version %d: %v", maxAttempts, t.Version, err)}
		}
	}
}

// writeSteps reads the test and returns it with new steps at version base+1, and the writes
// that put it conditional on the version still being base, deleting the chunks of the body
// it replaces. A test not at base is a *gardener.StaleError.
func (s *Store) writeSteps(ctx context.Context, testID string, base int, steps []gardener.Step) (gardener.Test, []types.TransactWriteItem, error) {
	var t gardener.Test
	cur, err := s.getDoc(ctx, "T#"+testID, "TEST", "test", testID, &t)
	if err != nil {
		return t, nil, err
	}
	if t, err = t.WithSteps(base, steps); err != nil {
		return t, nil, err
	}
	writes, err := s.txDoc(testItem(t), t, "testVersion = :v", item{":v": avN(base)})
	if err != nil {
		return t, nil, err
	}
	for _, k := range chunkKeys(cur) {
		writes = append(writes, s.txDelete(k, "", nil))
	}
	return t, writes, nil
}

func (s *Store) expires(at time.Time) (types.AttributeValue, bool) {
	if s.Retention <= 0 {
		return nil, false
	}
	return avN(int(at.Add(s.Retention).Unix())), true
}

// PutRun records a run.
func (s *Store) PutRun(ctx context.Context, r gardener.Run) error {
	if err := need("run id", r.ID); err != nil {
		return err
	}
	return s.putDoc(ctx, s.runItem(r), r, "", nil)
}

// runItem is a run's key and index attributes: every run is on its test's runs index (GSI2), a
// green one on its test's green index too.
func (s *Store) runItem(r gardener.Run) item {
	it := key("R#"+r.ID, "RUN")
	it["GSI2PK"] = avS("T#" + r.TestID + "#RUNS")
	it["GSI2SK"] = avS(timeKey(r.At) + "#" + r.ID)
	if r.Green() {
		it["GSI1PK"] = avS("T#" + r.TestID + "#GREEN")
		it["GSI1SK"] = avS(timeKey(r.At) + "#" + r.ID)
	}
	if exp, ok := s.expires(r.At); ok {
		it["expires"] = exp
	}
	return it
}

// RecordRunResult stores a result on a run that has none. The write is conditional on the run's
// stored body being the one read, so a result a platform delivered between the read and the
// write wins and this one is refused.
func (s *Store) RecordRunResult(ctx context.Context, runID string, result gardener.RunResult) (gardener.Run, error) {
	for attempt := 0; ; attempt++ {
		var r gardener.Run
		read, err := s.getDoc(ctx, "R#"+runID, "RUN", "run", runID, &r)
		if err != nil {
			return r, err
		}
		if r.Result != nil {
			return r, &gardener.ConflictError{Entity: "run", ID: runID, Reason: "it has a result already"}
		}
		cond, values := "attribute_exists(PK) AND gen = :gen", item{":gen": avS(getS(read, "gen"))}
		if body, ok := read["doc"]; ok {
			cond, values = "attribute_exists(PK) AND doc = :doc", item{":doc": body}
		}
		r.Result = &result
		err = s.putDoc(ctx, s.runItem(r), r, cond, values)
		if err == nil || !conditionFailed(err) || attempt == rereads {
			return r, err
		}
		// The run changed since it was read: read it again, and refuse if it has a result now.
	}
}

// Run reads a run.
func (s *Store) Run(ctx context.Context, id string) (r gardener.Run, err error) {
	_, err = s.getDoc(ctx, "R#"+id, "RUN", "run", id, &r)
	return r, err
}

// LastGreenRun reads the test's newest green run.
func (s *Store) LastGreenRun(ctx context.Context, testID string) (r gardener.Run, err error) {
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String("GSI1"),
		KeyConditionExpression:    aws.String("GSI1PK = :pk"),
		ExpressionAttributeValues: item{":pk": avS("T#" + testID + "#GREEN")},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(1),
	})
	if err != nil {
		return r, fmt.Errorf("last green run of test %s: %w", testID, err)
	}
	if len(out.Items) == 0 {
		return r, &gardener.NotFoundError{Entity: "green run of test", ID: testID}
	}
	_, err = s.decodeDoc(ctx, out.Items[0], &r)
	return r, err
}

// Runs lists a page of a test's runs, newest first, from its runs index: a run written before
// runs were indexed by test is not on it (runs expire with the retention, so those age out).
func (s *Store) Runs(ctx context.Context, testID, after string, limit int) ([]gardener.Run, error) {
	limit = max(limit, 1)
	cond, values := "GSI2PK = :pk", item{":pk": avS("T#" + testID + "#RUNS")}
	if after != "" {
		prev, err := s.Run(ctx, after)
		var missing *gardener.NotFoundError
		if errors.As(err, &missing) || err == nil && prev.TestID != testID {
			return nil, &gardener.NotFoundError{Entity: "run of test " + testID, ID: after}
		}
		if err != nil {
			return nil, err
		}
		cond += " AND GSI2SK < :after"
		values[":after"] = avS(timeKey(prev.At) + "#" + prev.ID)
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String("GSI2"),
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
	}
	// One query page may hold fewer than limit items (its size is bounded too), so read on
	// until the page is full or the index ends, never the whole partition.
	var items []item
	for len(items) < limit {
		in.Limit = aws.Int32(int32(limit - len(items)))
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("runs of test %s: %w", testID, err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return listed(items, func(it item) (gardener.Run, error) {
		var r gardener.Run
		_, err := s.decodeDoc(ctx, it, &r)
		return r, err
	})
}

// PutTriageIssue records a triage issue.
func (s *Store) PutTriageIssue(ctx context.Context, t gardener.TriageIssue) error {
	if err := need("triage issue id", t.ID); err != nil {
		return err
	}
	it := key("TR#"+t.ID, "TRIAGE")
	it["GSI1PK"] = avS("P#" + t.ProjectID + "#TRIAGE")
	it["GSI1SK"] = avS(timeKey(t.At) + "#" + t.ID)
	return s.putDoc(ctx, it, t, "", nil)
}

// TriageIssue reads one triage issue by its id.
func (s *Store) TriageIssue(ctx context.Context, id string) (gardener.TriageIssue, error) {
	var t gardener.TriageIssue
	it, err := s.get(ctx, "TR#"+id, "TRIAGE")
	if err != nil {
		return t, err
	}
	if it == nil {
		return t, &gardener.NotFoundError{Entity: "triage issue", ID: id}
	}
	_, err = s.decodeDoc(ctx, it, &t)
	return t, err
}

// PutHandoff keeps what one task of a state machine hands the next; it expires with the runs,
// long after the execution that read it ended.
func (s *Store) PutHandoff(ctx context.Context, h gardener.Handoff) error {
	if err := need("handoff id", h.ID); err != nil {
		return err
	}
	it := key("H#"+h.ID, "HANDOFF")
	if exp, ok := s.expires(h.At); ok {
		it["expires"] = exp
	}
	return s.putDoc(ctx, it, h, "", nil)
}

// Handoff reads a kept handoff.
func (s *Store) Handoff(ctx context.Context, id string) (h gardener.Handoff, err error) {
	_, err = s.getDoc(ctx, "H#"+id, "HANDOFF", "handoff", id, &h)
	return h, err
}

// TriageIssues lists a project's triage issues, newest first.
func (s *Store) TriageIssues(ctx context.Context, projectID string) ([]gardener.TriageIssue, error) {
	return decodeAll[gardener.TriageIssue](ctx, s, func() ([]item, error) {
		return s.queryIndex(ctx, "GSI1", "P#"+projectID+"#TRIAGE", "", true)
	})
}

// decodeAll decodes the records a listing returned. Chunks of a large record share its
// partition and sort after it, so a range over a partition returns them too; they are read
// through their record, never on their own.
func decodeAll[T any](ctx context.Context, s *Store, list func() ([]item, error)) ([]T, error) {
	items, err := list()
	if err != nil {
		return nil, err
	}
	items = slices.DeleteFunc(items, func(it item) bool { return strings.Contains(getS(it, "SK"), "#CHUNK#") })
	return listed(items, func(it item) (v T, err error) {
		_, err = s.decodeDoc(ctx, it, &v)
		return v, err
	})
}

// AddModelCall appends a call to the test's AI history.
func (s *Store) AddModelCall(ctx context.Context, c gardener.ModelCall) error {
	if err := need("model call: test id", c.TestID); err != nil {
		return err
	}
	return s.putDoc(ctx, key("T#"+c.TestID, "CALL#"+timeKey(c.At)+"#"+nonce()), c, "", nil)
}

// ModelCalls is a test's AI history, newest first.
func (s *Store) ModelCalls(ctx context.Context, testID string) ([]gardener.ModelCall, error) {
	return decodeAll[gardener.ModelCall](ctx, s, func() ([]item, error) {
		return s.query(ctx, &dynamodb.QueryInput{
			KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
			ExpressionAttributeValues: item{":pk": avS("T#" + testID), ":p": avS("CALL#")},
			ScanIndexForward:          aws.Bool(false),
			ConsistentRead:            aws.Bool(true),
		})
	})
}

// PutBaseline replaces the project's baseline.
func (s *Store) PutBaseline(ctx context.Context, b gardener.Baseline) error {
	if err := need("baseline: project id", b.ProjectID); err != nil {
		return err
	}
	return s.putDoc(ctx, key("P#"+b.ProjectID, "BASELINE"), b, "", nil)
}

// Baseline reads the project's baseline.
func (s *Store) Baseline(ctx context.Context, projectID string) (b gardener.Baseline, err error) {
	_, err = s.getDoc(ctx, "P#"+projectID, "BASELINE", "baseline of project", projectID, &b)
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
	it := key("P#"+c.ProjectID, "CHANGE#"+timeKey(c.At)+"#"+keyPart(c.ID))
	if exp, ok := s.expires(c.At); ok {
		it["expires"] = exp
	}
	return s.putDoc(ctx, it, c, "", nil)
}

// AppChanges lists a project's app changes at or after since, oldest first.
func (s *Store) AppChanges(ctx context.Context, projectID string, since time.Time) ([]gardener.AppChange, error) {
	return decodeAll[gardener.AppChange](ctx, s, func() ([]item, error) {
		return s.query(ctx, &dynamodb.QueryInput{
			KeyConditionExpression:    aws.String("PK = :pk AND SK BETWEEN :from AND :to"),
			ExpressionAttributeValues: item{":pk": avS("P#" + projectID), ":from": avS("CHANGE#" + timeKey(since)), ":to": avS("CHANGE#~")},
			ConsistentRead:            aws.Bool(true),
		})
	})
}

// MarkAtRisk puts tests on the at-risk ledger, keeping the time each was first seen.
func (s *Store) MarkAtRisk(ctx context.Context, projectID string, testIDs []string, at time.Time) error {
	if err := need("at risk: project id", projectID); err != nil {
		return err
	}
	for _, id := range testIDs {
		if err := need("at risk: test id", id); err != nil {
			return err
		}
	}
	for _, id := range testIDs {
		_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(s.table),
			Key:                       key("P#"+projectID, "RISK#"+keyPart(id)),
			UpdateExpression:          aws.String("SET firstSeen = if_not_exists(firstSeen, :at), lastSeen = :at"),
			ExpressionAttributeValues: item{":at": avS(timeKey(at))},
		})
		if err != nil {
			return fmt.Errorf("mark test %s at risk: %w", id, err)
		}
	}
	return nil
}

// AtRisk lists the project's at-risk tests, longest at risk first.
func (s *Store) AtRisk(ctx context.Context, projectID string) ([]gardener.AtRisk, error) {
	items, err := s.query(ctx, &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: item{":pk": avS("P#" + projectID), ":p": avS("RISK#")},
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	out := make([]gardener.AtRisk, len(items))
	for i, it := range items {
		out[i] = gardener.AtRisk{ProjectID: projectID, TestID: partOfKey(strings.TrimPrefix(getS(it, "SK"), "RISK#")),
			FirstSeen: parseTime(getS(it, "firstSeen")), LastSeen: parseTime(getS(it, "lastSeen"))}
	}
	gardener.SortAtRisk(out)
	return out, nil
}

// ClearAtRisk takes a test off the ledger.
func (s *Store) ClearAtRisk(ctx context.Context, projectID, testID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: key("P#"+projectID, "RISK#"+keyPart(testID))})
	if err != nil {
		return fmt.Errorf("clear test %s from the at-risk ledger: %w", testID, err)
	}
	return nil
}
