// Package mototest gives tests of the AWS adapters a real AWS API over HTTP: one moto_server
// per test binary on a free loopback port, started on first use, and an aws.Config pointed at it
// with static fake credentials. It is an ordinary package, not a _test file, so every adapter
// package shares the one way to start and stop the server.
//
// A package's tests call Config (or Endpoint) from each test and stop the server in TestMain:
//
//	func TestMain(m *testing.M) { mototest.Main(m) }
//
// moto keeps its state in memory for the life of the server and shares it between the tests of
// a binary, so each test creates resources under names of its own.
package mototest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Region is the region of the Config; moto serves any, the tests need one.
const Region = "us-east-1"

// Install says how to get moto_server; it is part of the skip message.
const Install = "install it with: apt-get install -y pipx && pipx install 'moto[server]'"

// startTimeout bounds how long moto_server may take to answer; a cold Python start with moto's
// imports takes a few seconds on a loaded 2-core machine.
const startTimeout = 60 * time.Second

// Env is added to moto_server's environment. A test binary that needs a setting of the server
// (MOTO_PORT, the port moto's Step Functions engine calls for lambda:Invoke) sets it in TestMain,
// before the first Endpoint or Config call starts the server.
var Env []string

// server is the one moto_server of this test binary.
var server struct {
	once     sync.Once
	mu       sync.Mutex
	endpoint string
	skip     string // set when moto_server is not installed: tests skip with it
	err      error  // set when it is installed but did not come up: tests fail with it
	cmd      *exec.Cmd
	exited   chan struct{}
	log      *Tail
}

// Endpoint returns the base URL of the test binary's moto_server, starting it on first use. The
// test skips, saying how to install it, when moto_server is not installed, and fails when it is
// installed but does not answer.
func Endpoint(t testing.TB) string {
	t.Helper()
	server.once.Do(start)
	switch {
	case server.skip != "":
		t.Skipf("SKIP: %s", server.skip)
	case server.err != nil:
		t.Fatalf("moto_server: %v", server.err)
	}
	return server.endpoint
}

// Config returns an aws.Config for the test binary's moto_server: region us-east-1, static
// credentials test/test, BaseEndpoint at the server. Every service client built from it with
// NewFromConfig talks to moto. It skips or fails the test as Endpoint does.
func Config(t testing.TB) aws.Config {
	t.Helper()
	return aws.Config{
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(Endpoint(t)),
	}
}

// Main runs the tests of a package and then stops the server if a test started it. Use it as
// the whole of TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop ends moto_server if it runs: SIGTERM to its process group (the server and anything it
// spawned, nothing else), SIGKILL if it is still there after five seconds. Tests of the binary
// must not use the server afterwards.
func Stop() {
	server.mu.Lock()
	defer server.mu.Unlock()
	if server.cmd == nil {
		return
	}
	StopGroup(server.cmd, server.exited)
	server.cmd = nil
}

// StopGroup ends a server a test started in a process group of its own (Setpgid): SIGTERM to
// the group, SIGKILL if exited has not closed five seconds later, and waits for exited (closed
// by the goroutine that waits for cmd). Every test server here (moto_server, dynalite, the
// Lambda emulator) is stopped so.
func StopGroup(cmd *exec.Cmd, exited <-chan struct{}) {
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
}

// start runs moto_server on a free loopback port and waits until it answers HTTP.
func start() {
	server.mu.Lock()
	defer server.mu.Unlock()
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		server.skip = "moto_server not found: " + Install
		return
	}
	port, err := FreePort()
	if err != nil {
		server.err = fmt.Errorf("no free loopback port: %w", err)
		return
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	// Its own process group, so Stop ends the server and its children and nothing else; the
	// parent-death signal ends it even when the test binary is killed before TestMain returns.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if len(Env) > 0 {
		cmd.Env = append(os.Environ(), Env...)
	}
	server.log = &Tail{Max: 4096}
	cmd.Stdout, cmd.Stderr = server.log, server.log
	if err := cmd.Start(); err != nil {
		server.err = fmt.Errorf("start %s: %w", bin, err)
		return
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()

	endpoint := "http://" + addr
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(startTimeout); time.Now().Before(deadline); {
		select {
		case <-exited:
			// A pyenv shim exits 127 when the active Python has no moto: not installed.
			var exit *exec.ExitError
			if errors.As(waitErr, &exit) && exit.ExitCode() == 127 {
				server.skip = fmt.Sprintf("moto_server not found (%s: %s): %s", bin, strings.TrimSpace(server.log.String()), Install)
				return
			}
			server.err = fmt.Errorf("%s exited before answering on %s: %v; its output: %s", bin, addr, waitErr, server.log)
			return
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := client.Get(endpoint + "/moto-api/")
		if err != nil {
			continue
		}
		resp.Body.Close()
		server.cmd, server.exited, server.endpoint = cmd, exited, endpoint
		return
	}
	StopGroup(cmd, exited)
	server.err = fmt.Errorf("%s did not answer on %s within %s; its output: %s", bin, addr, startTimeout, server.log)
}

// FreePort is a loopback port free when asked, for a server a test starts as a process (which
// must listen on it itself): the caller retries if another process took it meanwhile.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Tail keeps the last Max bytes written to it: a server a test starts logs every request, and
// only the end explains why it died.
type Tail struct {
	mu  sync.Mutex
	Max int
	buf []byte
}

func (w *Tail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.Max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

func (w *Tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

var names atomic.Int64

// Name returns prefix with a number no other call in the test binary returns: a name for a
// topic, queue, bus or state machine that no other test of the binary uses on the shared server.
func Name(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, names.Add(1))
}
