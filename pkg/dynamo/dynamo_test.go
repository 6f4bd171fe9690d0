package dynamo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/driftgardener/gardener/pkg/dynamo"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/mototest"
	"github.com/driftgardener/gardener/pkg/storetest"
)

// backend is a local DynamoDB implementation: moto_server through pkg/mototest, or dynalite,
// which this package starts itself because only it uses dynalite.
type backend struct {
	name string
	// config returns the client configuration of the backend for one test, skipping the test
	// (naming how to install the tool) when the backend is not installed.
	config func(t testing.TB) aws.Config
	// serial, when set, sends one request at a time. moto_server serves requests on threads, and its
	// TransactWriteItems is not safe for that: a cancelled transaction restores a copy of the
	// whole table taken when it started, erasing writes other threads made meanwhile. DynamoDB
	// applies each request atomically; serial restores that, while the goroutines of a case
	// that forces an interleaving still interleave their reads and writes request by request.
	serial *sync.Mutex

	probe     sync.Once
	noAtomic  string // why the backend cannot run transactions; empty when it can
	probeFail error  // the probe itself failed
}

// serialTransport runs one round trip at a time, the response body read inside the lock.
type serialTransport struct {
	mu   *sync.Mutex
	next http.RoundTripper
}

func (s serialTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	resp, err := s.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

var (
	moto = &backend{name: "moto_server", config: mototest.Config, serial: new(sync.Mutex)}
	// dynalite is started in TestMain; its config skips or fails as the start went.
	dynalite = &backend{name: "dynalite"}
	// dynaliteServer is the dynalite process TestMain started, stopped when the tests end.
	dynaliteServer *server
)

func TestMain(m *testing.M) {
	dynaliteServer = startDynalite()
	dynalite.config = dynaliteServer.config
	code := m.Run()
	mototest.Stop()
	dynaliteServer.stop()
	os.Exit(code)
}

// server is a dynalite process on a free loopback port.
type server struct {
	endpoint string
	skip     string // not installed: tests skip with this, which says how to install it
	err      error  // installed but did not come up: tests fail with this
	cmd      *exec.Cmd
	exited   chan struct{}
}

const installDynalite = "install it with: npm ci (in the repository root; package.json pins dynalite)"

func startDynalite() *server {
	srv := &server{}
	root, err := repoRoot()
	if err != nil {
		srv.err = err
		return srv
	}
	bin, err := exec.LookPath(filepath.Join(root, "node_modules", ".bin", "dynalite"))
	if err != nil {
		srv.skip = fmt.Sprintf("dynalite is not installed (%v); %s", err, installDynalite)
		return srv
	}
	port, err := mototest.FreePort()
	if err != nil {
		srv.err = fmt.Errorf("dynalite: no free loopback port: %w", err)
		return srv
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
	// Its own process group, so stop ends dynalite and its children and nothing else; the
	// parent-death signal ends it even when the test binary dies before TestMain returns.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		srv.err = fmt.Errorf("start %s: %w", bin, err)
		return srv
	}
	srv.cmd, srv.exited = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); close(srv.exited) }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		select {
		case <-srv.exited:
			srv.err = fmt.Errorf("%s exited before listening on %s: %s", bin, addr, out.String())
			srv.cmd = nil
			return srv
		case <-time.After(50 * time.Millisecond):
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			srv.endpoint = "http://" + addr
			return srv
		}
	}
	srv.stop()
	srv.err = fmt.Errorf("%s did not listen on %s within 30s", bin, addr)
	return srv
}

func (srv *server) config(t testing.TB) aws.Config {
	t.Helper()
	switch {
	case srv.skip != "":
		t.Skipf("SKIP: %s", srv.skip)
	case srv.err != nil:
		t.Fatalf("dynalite: %v", srv.err)
	}
	return aws.Config{
		Region:       mototest.Region,
		BaseEndpoint: aws.String(srv.endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
	}
}

// stop ends dynalite's process group: SIGTERM, then SIGKILL after five seconds.
func (srv *server) stop() {
	if srv.cmd == nil {
		return
	}
	mototest.StopGroup(srv.cmd, srv.exited)
	srv.cmd = nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test's directory")
		}
		dir = parent
	}
}

var tables atomic.Int64

// client returns a DynamoDB client on the backend.
func (b *backend) client(t testing.TB) *dynamodb.Client {
	t.Helper()
	cfg := b.config(t)
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if b.serial != nil {
			o.HTTPClient = &http.Client{Transport: serialTransport{mu: b.serial, next: http.DefaultTransport}}
		}
	})
}

// newStore returns a store on a fresh table of the backend, deleted after the test.
func (b *backend) newStore(t testing.TB) *dynamo.Store {
	t.Helper()
	s, _ := b.newTable(t)
	return s
}

func (b *backend) newTable(t testing.TB) (*dynamo.Store, *raw) {
	t.Helper()
	client := b.client(t)
	name := fmt.Sprintf("gardener-%d", tables.Add(1))
	s := dynamo.New(client, name)
	if err := s.CreateTable(context.Background()); err != nil {
		t.Fatalf("%s: %v", b.name, err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return s, &raw{client: client, table: name}
}

// atomic says why the backend cannot run the cases that need TransactWriteItems, or "" when it
// can. It asks the backend once, with a one-item transaction on a fresh table, rather than
// trusting what a version of the tool was once known to lack.
func (b *backend) atomic(t testing.TB) string {
	t.Helper()
	b.probe.Do(func() {
		_, r := b.newTable(t)
		_, err := r.client.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(r.table), Item: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "probe"}, "SK": &types.AttributeValueMemberS{Value: "probe"}}}},
		}})
		var api smithy.APIError
		switch {
		case err == nil:
		case errors.As(err, &api) && api.ErrorCode() == "UnknownOperationException":
			b.noAtomic = fmt.Sprintf("%s does not implement TransactWriteItems (%s), which every lifecycle step uses; moto_server runs these cases", b.name, api.ErrorCode())
		default:
			b.probeFail = fmt.Errorf("%s: probing TransactWriteItems: %w", b.name, err)
		}
	})
	if b.probeFail != nil {
		t.Fatal(b.probeFail)
	}
	return b.noAtomic
}

// raw reads the table underneath a store, to check what the package doc promises about items.
type raw struct {
	client *dynamodb.Client
	table  string
}

// partition lists every item of a partition, in key order.
func (r *raw) partition(t testing.TB, pk string) []map[string]types.AttributeValue {
	t.Helper()
	out, err := r.client.Query(context.Background(), &dynamodb.QueryInput{
		TableName:                 aws.String(r.table),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("query partition %s: %v", pk, err)
	}
	return out.Items
}

func (r *raw) item(t testing.TB, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	for _, it := range r.partition(t, pk) {
		if attrS(it, "SK") == sk {
			return it
		}
	}
	t.Fatalf("no item %s %s", pk, sk)
	return nil
}

func attrS(it map[string]types.AttributeValue, name string) string {
	v, _ := it[name].(*types.AttributeValueMemberS)
	if v == nil {
		return ""
	}
	return v.Value
}

func attrN(it map[string]types.AttributeValue, name string) string {
	v, _ := it[name].(*types.AttributeValueMemberN)
	if v == nil {
		return ""
	}
	return v.Value
}

// putRawTest plants a test record that the encoder did not write, for the suite's corrupt case.
func putRawTest(t testing.TB, s gardener.Store, id, project string, body []byte) {
	if err := dynamo.PutRawTest(context.Background(), s.(*dynamo.Store), id, project, body); err != nil {
		t.Fatalf("plant test %s: %v", id, err)
	}
}

// onAWS is where the race suite's guarantees rest for this driver: it cannot be run locally.
const onAWS = "on AWS the one-winner guarantees rest on DynamoDB's documented semantics alone: a TransactWriteItems succeeds or fails as a whole, in isolation from other writes, and a ConditionExpression is evaluated and the item written as one operation"

// motoNotIsolated: raw boto3 transactions on moto_server had two winners in 1 of 10 rounds.
const motoNotIsolated = "moto_server does not isolate multi-item transactions (two winners in raw concurrent transactions), so concurrent writers on it prove nothing about atomicity; " + onAWS

func TestConformanceMoto(t *testing.T) {
	storetest.Run(t, func(t testing.TB) gardener.Store { return moto.newStore(t) }, storetest.Options{
		NoAtomic: moto.atomic(t), PutRawTest: putRawTest, NotIsolated: motoNotIsolated,
	})
}

func TestConformanceDynalite(t *testing.T) {
	storetest.Run(t, func(t testing.TB) gardener.Store { return dynalite.newStore(t) }, storetest.Options{
		NoAtomic: dynalite.atomic(t), PutRawTest: putRawTest,
		NotIsolated: "dynalite has no TransactWriteItems, which the driver's multi-item steps use; " + onAWS,
	})
}

var backends = []*backend{moto, dynalite}

// TestTableDesign checks the table CreateTable makes against the package doc (and so against
// template.yaml, which declares the same): keys, indexes, projections and TTL.
func TestTableDesign(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			_, r := b.newTable(t)
			ctx := context.Background()
			d, err := r.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r.table)})
			if err != nil {
				t.Fatal(err)
			}
			keys := func(ks []types.KeySchemaElement) string {
				var parts []string
				for _, k := range ks {
					parts = append(parts, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
				}
				return strings.Join(parts, ", ")
			}
			if got := keys(d.Table.KeySchema); got != "PK HASH, SK RANGE" {
				t.Errorf("table keys %q, want PK HASH, SK RANGE", got)
			}
			indexes := map[string]string{}
			for _, g := range d.Table.GlobalSecondaryIndexes {
				indexes[aws.ToString(g.IndexName)] = keys(g.KeySchema) + " / " + string(g.Projection.ProjectionType)
			}
			want := map[string]string{"GSI1": "GSI1PK HASH, GSI1SK RANGE / ALL", "GSI2": "GSI2PK HASH, GSI2SK RANGE / ALL"}
			if fmt.Sprint(indexes) != fmt.Sprint(want) {
				t.Errorf("indexes %v, want %v", indexes, want)
			}
			ttl, err := r.client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(r.table)})
			if err != nil {
				t.Fatal(err)
			}
			desc := ttl.TimeToLiveDescription
			if b == dynalite {
				// dynalite answers DescribeTimeToLive but has no UpdateTimeToLive to turn it on.
				t.Logf("%s: TTL %s (dynalite cannot enable TTL; moto_server checks it)", b.name, desc.TimeToLiveStatus)
				return
			}
			if desc.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(desc.AttributeName) != "expires" {
				t.Errorf("TTL %s on %q, want ENABLED on \"expires\"", desc.TimeToLiveStatus, aws.ToString(desc.AttributeName))
			}
		})
	}
}

// TestExpires checks that runs and app changes carry "expires" (their time plus Retention),
// that nothing else does, and that a zero Retention keeps them.
func TestExpires(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			st, r := b.newTable(t)
			test := gardener.Test{ID: "t-1", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}}}
			if err := st.CreateTest(ctx, test); err != nil {
				t.Fatal(err)
			}
			put := func(id string) {
				if err := st.PutRun(ctx, gardener.Run{ID: id, ProjectID: "p", TestID: "t-1", At: at}); err != nil {
					t.Fatal(err)
				}
				if err := st.PutAppChange(ctx, gardener.AppChange{ID: id, ProjectID: "p", URL: "http://app.test/", At: at}); err != nil {
					t.Fatal(err)
				}
			}
			put("kept-90d")
			want := fmt.Sprint(at.Add(dynamo.DefaultRetention).Unix())
			if got := attrN(r.item(t, "R#kept-90d", "RUN"), "expires"); got != want {
				t.Errorf("run expires %q, want %s (its time plus %s)", got, want, dynamo.DefaultRetention)
			}
			if got := attrN(r.item(t, "P#p", "CHANGE#2026-03-02T09:00:00.000000000Z#kept-90d"), "expires"); got != want {
				t.Errorf("app change expires %q, want %s", got, want)
			}
			if got := attrN(r.item(t, "T#t-1", "TEST"), "expires"); got != "" {
				t.Errorf("a test expires at %s; tests are kept", got)
			}
			st.Retention = 0
			put("kept-forever")
			if got := attrN(r.item(t, "R#kept-forever", "RUN"), "expires"); got != "" {
				t.Errorf("with zero retention the run expires at %s", got)
			}
		})
	}
}

// bigTest is a test whose steps compress to more than one item can hold.
func bigTest(id string, seed uint64) gardener.Test {
	return gardener.Test{ID: id, ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: storetest.BigSteps(seed, 600)}
}

// chunks lists the chunk items of a partition and the generation its record names.
func chunks(t *testing.T, r *raw, pk, sk string) (gen string, count int, found []string) {
	t.Helper()
	for _, it := range r.partition(t, pk) {
		switch key := attrS(it, "SK"); {
		case key == sk:
			gen = attrS(it, "gen")
			fmt.Sscan(attrN(it, "chunks"), &count)
		case strings.HasPrefix(key, sk+"#CHUNK#"):
			found = append(found, key)
		}
	}
	return gen, count, found
}

// wantOnlyCurrentChunks fails unless the partition holds exactly the chunks its record names:
// none left behind by a replaced body or a refused write.
func wantOnlyCurrentChunks(t *testing.T, r *raw, pk, sk, what string) {
	t.Helper()
	gen, count, found := chunks(t, r, pk, sk)
	if gen == "" || count < 2 {
		t.Fatalf("%s: record %s %s is not split (gen %q, %d chunks): the fixture is meant to exceed an item", what, pk, sk, gen, count)
	}
	if len(found) != count {
		t.Fatalf("%s: %d chunk items under %s %s, want the %d of generation %s: %v", what, len(found), pk, sk, count, gen, found)
	}
	for _, k := range found {
		if !strings.HasPrefix(k, sk+"#CHUNK#"+gen+"#") {
			t.Fatalf("%s: chunk %s is not of the current generation %s", what, k, gen)
		}
	}
}

// TestChunksFollowTheRecord checks the 400 KB split on the items themselves: a big body is
// split, replacing it removes the old chunks, a refused write leaves none behind, and the
// lifecycle's transactions do the same for the test and the repair's pre-repair snapshot.
func TestChunksFollowTheRecord(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			st, r := b.newTable(t)
			big := bigTest("t-big", 1)
			if err := st.CreateTest(ctx, big); err != nil {
				t.Fatal(err)
			}
			wantOnlyCurrentChunks(t, r, "T#t-big", "TEST", "created")
			if err := st.CreateTest(ctx, big); !errors.Is(err, gardener.ErrConflict) {
				t.Fatalf("creating it again: %v, want a conflict", err)
			}
			wantOnlyCurrentChunks(t, r, "T#t-big", "TEST", "after a refused create")
			next := bigTest("t-big", 2)
			if _, err := st.SaveTest(ctx, next); err != nil {
				t.Fatal(err)
			}
			wantOnlyCurrentChunks(t, r, "T#t-big", "TEST", "after a save")
			if _, err := st.SaveTest(ctx, next); !errors.Is(err, gardener.ErrConflict) {
				t.Fatalf("saving against version 1 again: %v, want a conflict", err)
			}
			wantOnlyCurrentChunks(t, r, "T#t-big", "TEST", "after a refused save")
			if got, err := st.Test(ctx, "t-big"); err != nil || got.Version != 2 || got.Steps[1].Value != next.Steps[1].Value {
				t.Fatalf("read back: version %d, %v", got.Version, err)
			}
			if why := b.atomic(t); why != "" {
				t.Skipf("SKIP the lifecycle half: %s", why)
			}
			fixed := gardener.CloneSteps(next.Steps)
			fixed[len(fixed)-1].Locator = gardener.MustLocator("#signin")
			repair := gardener.Repair{ID: "run-1", ProjectID: "p", TestID: "t-big", RunID: "1", PreSteps: next.Steps, FromVersion: 2, At: time.Now()}
			if _, err := st.WriteRepair(ctx, gardener.WriteRepair{Steps: fixed, Repair: repair}); err != nil {
				t.Fatal(err)
			}
			wantOnlyCurrentChunks(t, r, "T#t-big", "TEST", "after a repair")
			wantOnlyCurrentChunks(t, r, "RP#run-1", "REPAIR", "the repair with its pre-repair snapshot")
			stale := repair
			stale.ID = "run-2"
			if _, err := st.WriteRepair(ctx, gardener.WriteRepair{Steps: fixed, Repair: stale}); !errors.Is(err, gardener.ErrStale) {
				t.Fatalf("a repair against version 2 again: %v, want stale", err)
			}
			if items := r.partition(t, "RP#run-2"); len(items) != 0 {
				t.Fatalf("a refused repair left %d items", len(items))
			}
			wantOnlyCurrentChunks(t, r, "T#t-big", "TEST", "after a refused repair")
			if _, err := st.RevertRepair(ctx, gardener.RevertRepair{RepairID: "run-1", By: "grace", At: time.Now()}); err != nil {
				t.Fatal(err)
			}
			wantOnlyCurrentChunks(t, r, "T#t-big", "TEST", "after a revert")
			got, err := st.Test(ctx, "t-big")
			if err != nil || got.Version != 4 || len(got.Steps) != len(next.Steps) || got.Steps[len(got.Steps)-1].Locator.String() != "css=#login" {
				t.Fatalf("after revert: version %d, %d steps, %v", got.Version, len(got.Steps), err)
			}
		})
	}
}

// TestReadFollowsReplacedRecord reads a big test through a record that was replaced after it
// was read, as a reader racing a save does (or a listing whose index entry lags the table): its
// chunks are gone, and the read must return the test as it is now rather than fail.
func TestReadFollowsReplacedRecord(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			st, r := b.newTable(t)
			if err := st.CreateTest(ctx, bigTest("t-big", 1)); err != nil {
				t.Fatal(err)
			}
			old := r.item(t, "T#t-big", "TEST")
			next := bigTest("t-big", 2)
			if _, err := st.SaveTest(ctx, next); err != nil {
				t.Fatal(err)
			}
			got, err := dynamo.DecodeTest(ctx, st, old)
			if err != nil {
				t.Fatalf("decoding the replaced record: %v", err)
			}
			if got.Version != 2 || got.Steps[1].Value != next.Steps[1].Value {
				t.Fatalf("decoded version %d, want the saved version 2 with its steps", got.Version)
			}
		})
	}
}

func BenchmarkStageMoto(b *testing.B) {
	storetest.BenchmarkStage(b, func(t testing.TB) gardener.Store { return moto.newStore(t) })
}

// BenchmarkStageDynalite stages on dynalite when it can run transactions; dynalite 4.0.0 cannot,
// and the benchmark says so rather than measuring something else under this name.
func BenchmarkStageDynalite(b *testing.B) {
	if why := dynalite.atomic(b); why != "" {
		b.Skipf("SKIP: %s; BenchmarkSaveTestDynalite measures the conditional write it does support", why)
	}
	storetest.BenchmarkStage(b, func(t testing.TB) gardener.Store { return dynalite.newStore(t) })
}

func BenchmarkSaveTestMoto(b *testing.B) {
	storetest.BenchmarkSaveTest(b, func(t testing.TB) gardener.Store { return moto.newStore(t) })
}

func BenchmarkSaveTestDynalite(b *testing.B) {
	storetest.BenchmarkSaveTest(b, func(t testing.TB) gardener.Store { return dynalite.newStore(t) })
}
