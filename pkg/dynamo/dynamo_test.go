package dynamo_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/driftgardener/gardener/pkg/dynamo"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/storetest"
)

// backend is a local DynamoDB implementation the tests started, shared by the whole package
// because starting one costs seconds.
type backend struct {
	name     string
	endpoint string
	skip     string // why it is not available, with how to install it
	cmd      *exec.Cmd
	// serial, when set, sends one request at a time. moto_server serves requests on threads, and its
	// TransactWriteItems is not safe for that: a cancelled transaction restores a copy of the
	// whole table taken when it started, erasing writes other threads made meanwhile. DynamoDB
	// applies each request atomically; serial restores that, while the goroutines of the race
	// cases still interleave their reads, transactions and retries request by request.
	serial *sync.Mutex
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

var moto, dynalite backend

func TestMain(m *testing.M) {
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	moto = start("moto_server", "moto_server", "install it with: pip install 'moto[server]'",
		func(port int) []string { return []string{"-H", "127.0.0.1", "-p", fmt.Sprint(port)} })
	dynalite = start("dynalite", filepath.Join(root, "node_modules", ".bin", "dynalite"), "install it with: npm ci (in the repository root; package.json pins it)",
		func(port int) []string {
			return []string{"--host", "127.0.0.1", "--port", fmt.Sprint(port), "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0"}
		})
	moto.serial = new(sync.Mutex)
	code := m.Run()
	moto.stop()
	dynalite.stop()
	os.Exit(code)
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

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs a backend on a free loopback port and waits until it accepts connections. A
// missing tool or one that does not come up is recorded as the reason its tests skip.
func start(name, path, install string, args func(port int) []string) backend {
	b := backend{name: name}
	bin, err := exec.LookPath(path)
	if err != nil {
		b.skip = fmt.Sprintf("%s is not installed (%v); %s", name, err, install)
		return b
	}
	port, err := freePort()
	if err != nil {
		b.skip = fmt.Sprintf("%s: no free port: %v", name, err)
		return b
	}
	b.cmd = exec.Command(bin, args(port)...)
	// Pdeathsig ends the backend even when the test binary dies without reaching stop (a
	// panic, a timeout), so no server outlives the tests that started it.
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := b.cmd.Start(); err != nil {
		b.skip = fmt.Sprintf("%s did not start: %v; %s", name, err, install)
		b.cmd = nil
		return b
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			b.endpoint = "http://" + addr
			return b
		}
	}
	b.stop()
	b.skip = fmt.Sprintf("%s did not listen on %s within 30s", name, addr)
	return b
}

// stop ends the backend's process group (the tool and anything it spawned), and nothing else.
func (b *backend) stop() {
	if b.cmd == nil || b.cmd.Process == nil {
		return
	}
	pgid := b.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
	b.cmd = nil
}

var tables atomic.Int64

// newStore returns a store on a fresh table of the backend, deleted after the test.
func (b *backend) newStore(t testing.TB) *dynamo.Store {
	t.Helper()
	if b.skip != "" {
		t.Skipf("SKIP: %s", b.skip)
	}
	opts := dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(b.endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
	}
	if b.serial != nil {
		opts.HTTPClient = &http.Client{Transport: serialTransport{mu: b.serial, next: http.DefaultTransport}}
	}
	client := dynamodb.New(opts)
	name := fmt.Sprintf("gardener-%d", tables.Add(1))
	s := dynamo.New(client, name)
	if err := s.CreateTable(context.Background()); err != nil {
		t.Fatalf("%s: %v", b.name, err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return s
}

func TestConformanceMoto(t *testing.T) {
	storetest.Run(t, func(t testing.TB) gardener.Store { return moto.newStore(t) }, storetest.Options{})
}

func TestConformanceDynalite(t *testing.T) {
	storetest.Run(t, func(t testing.TB) gardener.Store { return dynalite.newStore(t) }, storetest.Options{
		NoAtomic: "dynalite does not implement TransactWriteItems, which every lifecycle step uses; moto runs these cases",
	})
}

func BenchmarkStageMoto(b *testing.B) {
	storetest.BenchmarkStage(b, func(t testing.TB) gardener.Store { return moto.newStore(t) })
}
