package lambdarie

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/driftgardener/gardener/pkg/mototest"
)

// emulated is one function running under the emulator.
type emulated struct {
	addr   string
	cmd    *exec.Cmd
	exited chan struct{}
	log    *mototest.Tail
}

// startEmulator runs `aws-lambda-rie <binary>` in the function's directory, its HTTP API and its
// runtime API on free loopback ports, with env as its whole environment (the emulator hands its
// environment to the function), and waits until the HTTP API answers.
func startEmulator(rie string, f *function, env map[string]string) (*emulated, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		api, err1 := mototest.FreePort()
		runtimeAPI, err2 := mototest.FreePort()
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		e := &emulated{addr: fmt.Sprintf("127.0.0.1:%d", api), log: &mototest.Tail{Max: 16 << 10}, exited: make(chan struct{})}
		cmd := exec.Command(rie,
			"--runtime-interface-emulator-address", e.addr,
			"--runtime-api-address", fmt.Sprintf("127.0.0.1:%d", runtimeAPI),
			f.bin)
		cmd.Dir = f.dir
		for _, k := range slices.Sorted(maps.Keys(env)) {
			cmd.Env = append(cmd.Env, k+"="+env[k])
		}
		cmd.Stdout, cmd.Stderr = e.log, e.log
		// Its own process group, so stop ends the emulator, the function and its Chromium and
		// nothing else; the parent-death signal ends it if the test binary is killed.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start the emulator: %w", err)
		}
		e.cmd = cmd
		go func() { _ = cmd.Wait(); close(e.exited) }()
		if err := e.ready(60 * time.Second); err != nil {
			e.stop()
			lastErr = fmt.Errorf("%w\nits output:\n%s", err, e.log)
			continue
		}
		return e, nil
	}
	return nil, lastErr
}

func (e *emulated) ready(limit time.Duration) error {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); {
		select {
		case <-e.exited:
			return fmt.Errorf("the emulator exited before listening on %s", e.addr)
		case <-time.After(20 * time.Millisecond):
		}
		if c, err := net.DialTimeout("tcp", e.addr, time.Second); err == nil {
			c.Close()
			return nil
		}
	}
	return fmt.Errorf("the emulator did not listen on %s within %s", e.addr, limit)
}

// invoke posts a payload to the emulator's invoke API and reads the answer: a function error
// comes back as {"errorMessage", "errorType"} with the X-Amz-Function-Error header.
func (e *emulated) invoke(limit time.Duration) func([]byte) (answer, error) {
	client := &http.Client{Timeout: limit}
	return func(payload []byte) (answer, error) {
		resp, err := client.Post("http://"+e.addr+invokePath, "application/json", bytes.NewReader(payload))
		if err != nil {
			return answer{}, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return answer{}, err
		}
		if resp.StatusCode != http.StatusOK {
			return answer{}, fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
		}
		var a answer
		if resp.Header.Get("X-Amz-Function-Error") != "" || isErrorBody(body) {
			if err := json.Unmarshal(body, &a); err != nil {
				return answer{}, fmt.Errorf("an error answer that is not JSON: %s", body)
			}
			return a, nil
		}
		return answer{Payload: body}, nil
	}
}

// isErrorBody reports a body that is exactly a runtime API error report.
func isErrorBody(b []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	_, typ := m["errorType"]
	_, msg := m["errorMessage"]
	return typ && msg
}

func (e *emulated) stop() { mototest.StopGroup(e.cmd, e.exited) }

// withEnv runs fn with env as the process's whole environment and puts the old one back; only
// while no other goroutine reads the environment.
func withEnv(env map[string]string, fn func()) {
	old := os.Environ()
	os.Clearenv()
	for k, v := range env {
		os.Setenv(k, v)
	}
	defer func() {
		os.Clearenv()
		for _, kv := range old {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
	}()
	fn()
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
