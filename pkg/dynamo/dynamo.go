// Package dynamo is the gardener.Store on Amazon DynamoDB (aws-sdk-go-v2), one table for
// everything.
//
// # Table
//
// Keys are strings: PK (partition) and SK (sort). Two global secondary indexes, GSI1
// (GSI1PK, GSI1SK) and GSI2 (GSI2PK, GSI2SK), project all attributes. TTL is on the numeric
// attribute "expires" (epoch seconds). Times in keys are UTC, fixed width
// (2006-01-02T15:04:05.000000000Z), so they sort as they happen. CreateTable makes exactly this,
// and template.yaml declares the same for deployments.
//
//	record             PK                SK                      GSI1PK / GSI1SK                GSI2PK / GSI2SK
//	project            P#<project>       PROJECT
//	test               T#<test>          TEST                    P#<project>#TESTS / <test>
//	open guard         T#<test>          OPEN
//	dismissals         T#<test>          DISMISS#<version>
//	model call         T#<test>          CALL#<time>#<nonce>
//	run                R#<run>           RUN                     T#<test>#GREEN / <time>#<run>   T#<test>#RUNS / <time>#<run>
//	                                                             (green, not control/probe only) (every run)
//	proposal           PR#<proposal>     PROPOSAL                T#<test>#PROPOSALS / <staged>#<id>  P#<project>#OPEN / <staged>#<id> (while proposed)
//	restatement        PR#<proposal>     PROPOSAL
//	repair             RP#<repair>       REPAIR                  T#<test>#REPAIRS / <time>#<id>  P#<project>#REPAIRS / <time>#<id>
//	triage issue       TR#<issue>        TRIAGE                  P#<project>#TRIAGE / <time>#<id>
//	execution          X#<execution>     EXECUTION               R#<run>#EXECUTIONS / <time>#<id>
//	execution claim    R#<run>           CLAIM#<asker>
//	baseline           P#<project>       BASELINE
//	app change         P#<project>       CHANGE#<time>#<id>
//	at-risk entry      P#<project>       RISK#<test>
//	last sweep         P#<project>       SWEEP
//	last staging pass  P#<project>       PASS
//	document chunk     <owner PK>        <owner SK>#CHUNK#<gen>#<n>
//
// Attributes beside the keys, the ones conditions and updates name:
//
//	project            rev (S)                          new on every write; what an update is conditional on
//	test               testVersion (N)                  the version a save or a repair is conditional on
//	open guard         openId (S)                       the test's one open proposal
//	dismissals         changes (SS)                     change fingerprints dismissed at that test version
//	proposal           kind = "proposal", rowStatus, baseVersion, restated (N), triggers (M: "c:<change id>" → JSON),
//	                   updatedAt, decidedBy, decidedAt
//	restatement        kind = "restated", restatedInto  the open proposal a restating proposal was recorded on
//	repair             badged (BOOL), reviewedBy, revertedAt, revertedBy
//	at-risk entry      firstSeen, lastSeen
//	last sweep, pass   atNanos (N)                      the summary's time; a write is conditional on no later one
//	chunk              data (B)
//
// Runs and app changes carry "expires" (their time plus Store.Retention) unless Retention is
// zero; nothing else expires.
//
// # Documents and the 400 KB item limit
//
// Each record's body is its domain value as gzip-compressed JSON in the binary attribute "doc".
// When the compressed body is over 350,000 bytes it is split: the record keeps "gen" (a random
// generation) and "chunks" (a count) and the bytes live in chunk items under the record's own
// partition, read back in key order. A body is only reachable through the record that names
// its generation, so a reader never sees a half-written one: a single-record write puts its
// chunks first and then the record, conditionally; a lifecycle step puts chunks and record in
// one transaction, and deletes the chunks of the version it replaces in the same transaction.
// A reader holding a record that was replaced meanwhile (or an index entry that lags the table)
// finds its chunks gone and reads the record again. Attributes that change after a write (a
// proposal's status, restated count and triggers; a repair's badge, reviewer and revert) are
// kept beside the document and laid over it on read.
//
// A transaction carries at most 4 MB, so an approve or an auto-apply, which writes the test's
// new steps and the repair's copy of the old ones together, needs a test whose compressed JSON
// is under about 2 MB, half of that; the conformance suite's big test, 630 KB of barely
// compressible values, compresses to 470 KB.
//
// # Atomic steps
//
// What each step writes is decided in pkg/gardener (the staging plan of gardener.PlanStage, the
// transitions of a row, a repair and a test); this package reads what a decision needs and
// writes the result. The lifecycle steps are TransactWriteItems with condition expressions that
// hold the decision to what it was made from: stage puts the
// test's open guard (attribute_not_exists) with the proposal row; a restatement puts a
// restatement marker under the new id (attribute_not_exists, which makes a redelivery a no-op)
// and updates the open row conditional on status = proposed and its base version; approve
// updates the test conditional on its version, puts the repair (attribute_not_exists), moves the
// row to applied conditional on status = proposed and deletes the guard; dismiss, stale and
// superseded move the row conditional on status = proposed, delete the guard and, for a dismiss,
// add the change fingerprints to the test version's dismissal set. When a transaction is
// cancelled the step re-reads what it acts on: a moved version is a *gardener.StaleError, a row
// no longer proposed or an id already written a *gardener.ConflictError, and a plain write
// conflict is retried after a jittered wait. Queries on the GSIs are eventually consistent on
// DynamoDB itself; no condition reads them.
//
// Two rules are written as DynamoDB expressions rather than read, decided and written back,
// because the expression is atomic without a read: a dismissal adds to the version's string set
// (ADD, the union of gardener.DismissalKey.AddTo), and a mark on the at-risk ledger keeps the
// first sighting (if_not_exists, gardener.AtRisk.Seen). The conformance suite holds them to the
// domain's functions.
//
// MarkAtRisk is one UpdateItem per test rather than a transaction: a sweep may mark more tests
// than a transaction holds, each mark is idempotent, and a failed sweep that is delivered again
// completes the marks it left.
//
// UpdateProject is a conditional PutItem on the project's "rev", which every project write
// renews: a write between an update's read and its write refuses the write, and the update runs
// again on what is stored.
package dynamo

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Store is a gardener.Store on one DynamoDB table. It is safe for concurrent use.
type Store struct {
	db    *dynamodb.Client
	table string
	// Retention is how long runs and app changes are kept before DynamoDB's TTL removes them;
	// zero keeps them.
	Retention time.Duration
}

var _ gardener.Store = (*Store)(nil)

// DefaultRetention is the Retention New sets: a quarter of runs and app changes is history
// enough to compare with, and the table does not grow without end.
const DefaultRetention = 90 * 24 * time.Hour

// New returns a store on table through db, each of its calls metered (see metered).
func New(db *dynamodb.Client, table string) *Store {
	return &Store{db: dynamodb.New(db.Options(), metered), table: table, Retention: DefaultRetention}
}

// CreateTable creates the table with its indexes and waits until it is active, then turns on
// TTL on "expires" where the backend supports it. Deployments create it from template.yaml;
// this is for tests and the local stack.
func (s *Store) CreateTable(ctx context.Context) error {
	str := types.ScalarAttributeTypeS
	var attrs []types.AttributeDefinition
	for _, a := range []string{"PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"} {
		attrs = append(attrs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: str})
	}
	keys := func(pk, sk string) []types.KeySchemaElement {
		return []types.KeySchemaElement{
			{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
		}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	_, err := s.db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(s.table),
		AttributeDefinitions: attrs,
		KeySchema:            keys("PK", "SK"),
		BillingMode:          types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("GSI1"), KeySchema: keys("GSI1PK", "GSI1SK"), Projection: all},
			{IndexName: aws.String("GSI2"), KeySchema: keys("GSI2PK", "GSI2SK"), Projection: all},
		},
	})
	if err != nil {
		return fmt.Errorf("create table %s: %w", s.table, err)
	}
	w := dynamodb.NewTableExistsWaiter(s.db, func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay = 50 * time.Millisecond })
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.table)}, time.Minute); err != nil {
		return fmt.Errorf("create table %s: %w", s.table, err)
	}
	_, err = s.db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(s.table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)},
	})
	if err != nil && !unsupported(err) {
		return fmt.Errorf("enable TTL on table %s: %w", s.table, err)
	}
	return nil
}

// unsupported reports an operation the backend does not implement (dynalite has no TTL API).
func unsupported(err error) bool {
	var api interface{ ErrorCode() string }
	return errors.As(err, &api) && (api.ErrorCode() == "UnknownOperationException" || api.ErrorCode() == "UnrecognizedClientException")
}

type item = map[string]types.AttributeValue

func avS(v string) types.AttributeValue  { return &types.AttributeValueMemberS{Value: v} }
func avN(v int) types.AttributeValue     { return &types.AttributeValueMemberN{Value: strconv.Itoa(v)} }
func avB(v []byte) types.AttributeValue  { return &types.AttributeValueMemberB{Value: v} }
func avBool(v bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: v} }

func key(pk, sk string) item { return item{"PK": avS(pk), "SK": avS(sk)} }

// keyPart is an id as one part of a sort key that holds more than the id ("RISK#" and a test's
// id): '#', which separates the parts (and marks a record's chunks, "#CHUNK#"), and '%', the
// escape, are written %23 and %25, so that no id can pose as another part or as a chunk. An id
// with neither (every id the id rule takes) is written as it is, so an older table still reads.
// A key that is the id's kind and the id alone ("T#" and a test's id) needs no escape: the
// prefix frames it, and a query names it whole.
func keyPart(id string) string {
	if !strings.ContainsAny(id, "#%") {
		return id
	}
	return strings.NewReplacer("%", "%25", "#", "%23").Replace(id)
}

// partOfKey reads back an id keyPart wrote.
func partOfKey(part string) string {
	if !strings.Contains(part, "%") {
		return part
	}
	return strings.NewReplacer("%23", "#", "%25", "%").Replace(part)
}

func getS(it item, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func getN(it item, name string) int {
	if v, ok := it[name].(*types.AttributeValueMemberN); ok {
		n, _ := strconv.Atoi(v.Value)
		return n
	}
	return 0
}

func getBool(it item, name string) bool {
	v, ok := it[name].(*types.AttributeValueMemberBOOL)
	return ok && v.Value
}

const timeLayout = "2006-01-02T15:04:05.000000000Z"

func timeKey(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) time.Time {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func nonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// chunkSize bounds a document inline and each chunk, leaving room under the 400 KB item limit
// for keys and attributes.
const chunkSize = 350_000

// doc is an encoded body: attributes for the owning record and the chunk items it needs.
type doc struct {
	attrs  item
	chunks []item
}

func encodeDoc(pk, sk string, v any) (doc, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return doc{}, fmt.Errorf("encode %s %s: %w", pk, sk, err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(raw); err != nil {
		return doc{}, fmt.Errorf("compress %s %s: %w", pk, sk, err)
	}
	if err := zw.Close(); err != nil {
		return doc{}, fmt.Errorf("compress %s %s: %w", pk, sk, err)
	}
	data := buf.Bytes()
	if len(data) <= chunkSize {
		return doc{attrs: item{"doc": avB(data)}}, nil
	}
	gen := nonce()
	d := doc{attrs: item{"gen": avS(gen)}}
	for i := 0; len(data) > 0; i++ {
		n := min(chunkSize, len(data))
		c := key(pk, chunkPrefix(sk, gen)+fmt.Sprintf("%04d", i))
		c["data"] = avB(data[:n])
		d.chunks = append(d.chunks, c)
		data = data[n:]
	}
	d.attrs["chunks"] = avN(len(d.chunks))
	return d, nil
}

func chunkPrefix(sk, gen string) string { return sk + "#CHUNK#" + gen + "#" }

// chunkKeys are the keys of the chunks a stored record points to, for deleting them.
func chunkKeys(it item) []item {
	gen, n := getS(it, "gen"), getN(it, "chunks")
	if gen == "" {
		return nil
	}
	keys := make([]item, n)
	for i := range keys {
		keys[i] = key(getS(it, "PK"), chunkPrefix(getS(it, "SK"), gen)+fmt.Sprintf("%04d", i))
	}
	return keys
}

// chunksMissingError is a record whose chunks are not all there: it was replaced (and its old
// chunks deleted) after it was read.
type chunksMissingError struct {
	pk, sk      string
	found, want int
}

func (e *chunksMissingError) Error() string {
	return fmt.Sprintf("read %s %s: %d of its %d chunks found", e.pk, e.sk, e.found, e.want)
}

// rereads bounds how often decodeDoc follows a record that keeps being replaced under it.
const rereads = 3

// decodeDoc reads the body of a stored record into v and returns the record it decoded. A
// record whose chunks are gone was replaced after it was read (a save between the read and the
// chunk query, or an index entry that lags the table), so it is read again from the table and
// decoded as it is now; the returned record is that one.
func (s *Store) decodeDoc(ctx context.Context, it item, v any) (item, error) {
	for attempt := 0; ; attempt++ {
		err := s.decodeBody(ctx, it, v)
		var missing *chunksMissingError
		if !errors.As(err, &missing) || attempt == rereads {
			return it, err
		}
		now, gerr := s.get(ctx, missing.pk, missing.sk)
		if gerr != nil {
			return it, gerr
		}
		if now == nil || getS(now, "gen") == getS(it, "gen") {
			return it, err // not replaced: the chunks are lost, which no retry mends
		}
		it = now
	}
}

// decodeBody reads the body of one record into v, fetching its chunks when it has them.
func (s *Store) decodeBody(ctx context.Context, it item, v any) error {
	pk, sk := getS(it, "PK"), getS(it, "SK")
	var data []byte
	if b, ok := it["doc"].(*types.AttributeValueMemberB); ok {
		data = b.Value
	} else if gen := getS(it, "gen"); gen != "" {
		chunks, err := s.query(ctx, &dynamodb.QueryInput{
			KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
			ExpressionAttributeValues: item{":pk": avS(pk), ":prefix": avS(chunkPrefix(sk, gen))},
			ConsistentRead:            aws.Bool(true),
		})
		if err != nil {
			return err
		}
		if len(chunks) != getN(it, "chunks") {
			return &chunksMissingError{pk: pk, sk: sk, found: len(chunks), want: getN(it, "chunks")}
		}
		for _, c := range chunks {
			b, _ := c["data"].(*types.AttributeValueMemberB)
			if b == nil {
				return corrupt(pk, sk, fmt.Errorf("chunk %s has no data", getS(c, "SK")))
			}
			data = append(data, b.Value...)
		}
	} else {
		return corrupt(pk, sk, errors.New("the record has no document"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return corrupt(pk, sk, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return corrupt(pk, sk, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return corrupt(pk, sk, err)
	}
	return nil
}

// corrupt is the *gardener.CorruptError of the record at pk, sk: the entity its sort key
// names ("TEST" a test) and the id its partition key carries, with the rest of the sort key
// for records that share a partition.
func corrupt(pk, sk string, err error) error {
	kind, rest, _ := strings.Cut(sk, "#")
	_, id, _ := strings.Cut(pk, "#")
	if rest != "" {
		id += "/" + rest
	}
	e := &gardener.CorruptError{}
	e.Add(strings.ToLower(kind), id, fmt.Errorf("read %s %s: %w", pk, sk, err))
	return e
}

// listed decodes each record of a listing with decode. A record that does not decode is
// skipped and named in the *gardener.CorruptError returned beside the others; any other error
// ends the listing.
func listed[T any](items []item, decode func(item) (T, error)) ([]T, error) {
	out := make([]T, 0, len(items))
	var skipped gardener.CorruptError
	for _, it := range items {
		v, err := decode(it)
		var c *gardener.CorruptError
		if errors.As(err, &c) {
			skipped.Records = append(skipped.Records, c.Records...)
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, skipped.Err()
}

// get reads one record consistently; nil when there is none.
func (s *Store) get(ctx context.Context, pk, sk string) (item, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: key(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fmt.Errorf("get %s %s: %w", pk, sk, err)
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}

// getDoc reads a record and decodes its body, with a typed not-found error.
func (s *Store) getDoc(ctx context.Context, pk, sk, entity, id string, v any) (item, error) {
	it, err := s.get(ctx, pk, sk)
	if err != nil {
		return nil, err
	}
	if it == nil {
		return nil, &gardener.NotFoundError{Entity: entity, ID: id}
	}
	return s.decodeDoc(ctx, it, v)
}

// query runs a query to its last page.
func (s *Store) query(ctx context.Context, in *dynamodb.QueryInput) ([]item, error) {
	in.TableName = aws.String(s.table)
	var out []item
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", aws.ToString(in.KeyConditionExpression), err)
		}
		out = append(out, page.Items...)
	}
	return out, nil
}

// queryIndex lists the records of one index partition, oldest or newest first, optionally
// from a sort key on.
func (s *Store) queryIndex(ctx context.Context, index, pk, from string, newestFirst bool) ([]item, error) {
	cond := index + "PK = :pk"
	values := item{":pk": avS(pk)}
	if from != "" {
		cond += " AND " + index + "SK >= :from"
		values[":from"] = avS(from)
	}
	return s.query(ctx, &dynamodb.QueryInput{
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(!newestFirst),
	})
}

// putDoc writes a single record with its body: chunks first, then the record under cond, then
// the chunks of the body it replaced. A refused condition deletes the new chunks again and
// returns the *types.ConditionalCheckFailedException.
func (s *Store) putDoc(ctx context.Context, it item, v any, cond string, values item) error {
	pk, sk := getS(it, "PK"), getS(it, "SK")
	d, err := encodeDoc(pk, sk, v)
	if err != nil {
		return err
	}
	for k, a := range d.attrs {
		it[k] = a
	}
	for _, c := range d.chunks {
		if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: c}); err != nil {
			return fmt.Errorf("put chunk of %s %s: %w", pk, sk, err)
		}
	}
	in := &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it, ReturnValues: types.ReturnValueAllOld}
	if cond != "" {
		in.ConditionExpression = aws.String(cond)
		if len(values) > 0 {
			in.ExpressionAttributeValues = values
		}
	}
	out, err := s.db.PutItem(ctx, in)
	if err != nil {
		s.deleteKeys(ctx, chunkKeys(it))
		return fmt.Errorf("put %s %s: %w", pk, sk, err)
	}
	s.deleteKeys(ctx, chunkKeys(out.Attributes))
	return nil
}

// deleteKeys removes chunks no record points to any more. It is best effort: a chunk left
// behind is unreachable, never read, so a failure here loses nothing.
func (s *Store) deleteKeys(ctx context.Context, keys []item) {
	for _, k := range keys {
		_, _ = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: k})
	}
}

func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// maxAttempts bounds how often a lifecycle step re-reads and retries after its transaction was
// cancelled without a condition explaining why (a concurrent transaction on the same records).
// Twenty sweeps restating one row at once on DynamoDB cancel each other in turn, so the last of
// them may need about as many rounds as there are sweeps.
const maxAttempts = 24

// backoff is the wait before attempt+1: a random point in a window that doubles from 5ms up to
// 200ms. The randomness is the point: transactions that collided and waited alike would collide
// again.
func backoff(attempt int) time.Duration {
	window := min(200*time.Millisecond, 5*time.Millisecond<<min(attempt, 6))
	return time.Millisecond + time.Duration(mrand.Int64N(int64(window)))
}

// step runs a lifecycle step: build re-reads what the step acts on, returns the typed error
// that a refusal deserves or the writes (none: nothing to do); a cancelled transaction goes
// round again, so a lost race ends in build's typed error on the next read.
func (s *Store) step(ctx context.Context, what string, build func() ([]types.TransactWriteItem, error)) error {
	for attempt := 0; ; attempt++ {
		writes, err := build()
		if err != nil || len(writes) == 0 {
			return err
		}
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: writes})
		if err == nil {
			return nil
		}
		var cancelled *types.TransactionCanceledException
		var conflict *types.TransactionConflictException
		if !errors.As(err, &cancelled) && !errors.As(err, &conflict) {
			return fmt.Errorf("%s: %w", what, err)
		}
		if attempt+1 == maxAttempts {
			return &gardener.ConflictError{Entity: "store", ID: what, Reason: fmt.Sprintf("still contended after %d attempts: %v", maxAttempts, err)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff(attempt)):
		}
	}
}

func (s *Store) txPut(it item, cond string, values item) types.TransactWriteItem {
	p := &types.Put{TableName: aws.String(s.table), Item: it}
	if cond != "" {
		p.ConditionExpression = aws.String(cond)
	}
	if len(values) > 0 {
		p.ExpressionAttributeValues = values
	}
	return types.TransactWriteItem{Put: p}
}

func (s *Store) txDelete(k item, cond string, values item) types.TransactWriteItem {
	d := &types.Delete{TableName: aws.String(s.table), Key: k}
	if cond != "" {
		d.ConditionExpression = aws.String(cond)
	}
	if len(values) > 0 {
		d.ExpressionAttributeValues = values
	}
	return types.TransactWriteItem{Delete: d}
}

func (s *Store) txUpdate(k item, update, cond string, names map[string]string, values item) types.TransactWriteItem {
	u := &types.Update{TableName: aws.String(s.table), Key: k, UpdateExpression: aws.String(update)}
	if cond != "" {
		u.ConditionExpression = aws.String(cond)
	}
	if len(names) > 0 {
		u.ExpressionAttributeNames = names
	}
	if len(values) > 0 {
		u.ExpressionAttributeValues = values
	}
	return types.TransactWriteItem{Update: u}
}

// txDoc is the transactional write of a record with its body: the record under cond and its
// chunks, which are new keys (a fresh generation) and need no condition.
func (s *Store) txDoc(it item, v any, cond string, values item) ([]types.TransactWriteItem, error) {
	d, err := encodeDoc(getS(it, "PK"), getS(it, "SK"), v)
	if err != nil {
		return nil, err
	}
	for k, a := range d.attrs {
		it[k] = a
	}
	writes := []types.TransactWriteItem{s.txPut(it, cond, values)}
	for _, c := range d.chunks {
		writes = append(writes, s.txPut(c, "", nil))
	}
	return writes, nil
}

func need(what, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("dynamo store: %s is required", what)
	}
	return nil
}
