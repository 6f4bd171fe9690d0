package sfn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/mototest"
	"github.com/driftgardener/gardener/pkg/sfn"
)

func TestMain(m *testing.M) { mototest.Main(m) }

// The port the API function uses.
var _ handler.Starter = (*sfn.Machines)(nil)

const (
	// pass hands its input on as its output.
	pass = `{"StartAt":"Echo","States":{"Echo":{"Type":"Pass","End":true}}}`
	// fail ends as the repair machine's clean failure does.
	fail = `{"StartAt":"Give up","States":{"Give up":{"Type":"Fail","Error":"PersistFailed","Cause":"the store refused the write"}}}`
)

// machine creates a state machine with definition on the server.
func machine(t testing.TB, cfg aws.Config, definition string) string {
	t.Helper()
	out, err := awssfn.NewFromConfig(cfg).CreateStateMachine(context.Background(), &awssfn.CreateStateMachineInput{
		Name:       aws.String(mototest.Name("repair")),
		Definition: aws.String(definition),
		RoleArn:    aws.String("arn:aws:iam::123456789012:role/repair-machine"),
	})
	if err != nil {
		t.Fatalf("create state machine: %v", err)
	}
	return aws.ToString(out.StateMachineArn)
}

// executing switches on moto's execution of state machines for the rest of the test. By
// default moto records executions and leaves them RUNNING; executing, it runs them on a thread.
// The setting holds for the whole server, so this package's tests do not run in parallel.
func executing(t *testing.T, cfg aws.Config) {
	t.Helper()
	set := func(on bool) error {
		body := fmt.Sprintf(`{"stepfunctions":{"execute_state_machine":%v}}`, on)
		resp, err := http.Post(aws.ToString(cfg.BaseEndpoint)+"/moto-api/config", "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("POST /moto-api/config %s: %s", body, resp.Status)
		}
		return nil
	}
	if err := set(true); err != nil {
		t.Fatalf("switch on moto's state machine execution: %v", err)
	}
	t.Cleanup(func() {
		if err := set(false); err != nil {
			t.Errorf("switch off moto's state machine execution: %v", err)
		}
	})
}

// ended polls the execution until it leaves RUNNING.
func ended(t *testing.T, m *sfn.Machines, execution string) (status, output string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		status, output, err := m.Describe(ctx, execution)
		if err != nil {
			t.Fatalf("Describe %s: %v", execution, err)
		}
		if status != "RUNNING" {
			return status, output
		}
		select {
		case <-ctx.Done():
			t.Fatalf("execution %s still RUNNING: %v", execution, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// sameJSON reports whether two JSON texts hold the same value: moto writes an output with
// spaces after its separators, Step Functions writes it compact.
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatalf("%q: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// TestExecuted runs a machine to its end and reads the outcome. moto 5.2's executing backend
// deep-copies a region's whole backend on every start, which fails (HTTP 500, "cannot pickle
// '_thread.RLock'") once that region holds an execution; so each case runs in a region of its
// own.
func TestExecuted(t *testing.T) {
	cfg := mototest.Config(t)
	executing(t, cfg)
	cases := []struct {
		name       string
		region     string
		definition string
		input      any
		wantStatus string
		wantOutput string
	}{
		{"succeeded", "eu-west-1", pass, map[string]any{"detail": map[string]string{"runId": "r-1"}}, "SUCCEEDED", `{"detail":{"runId":"r-1"}}`},
		{"failed", "eu-west-2", fail, map[string]string{"runId": "r-2"}, "FAILED", `{"error":"PersistFailed","cause":"the store refused the write"}`},
		{"raw JSON input", "eu-west-3", pass, json.RawMessage(`{ "runId" : "r-3" }`), "SUCCEEDED", `{"runId":"r-3"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			regional := cfg.Copy()
			regional.Region = c.region
			m := sfn.New(regional)
			arn := machine(t, regional, c.definition)
			name := mototest.Name("manual-r")
			id, err := m.Start(context.Background(), arn, name, c.input)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			if want := strings.Replace(arn, ":stateMachine:", ":execution:", 1) + ":" + name; id != want {
				t.Errorf("Start returned %q, want execution ARN %q", id, want)
			}
			status, output := ended(t, m, id)
			if status != c.wantStatus || !sameJSON(t, output, c.wantOutput) {
				t.Errorf("Describe = %s %s, want %s %s", status, output, c.wantStatus, c.wantOutput)
			}
		})
	}
}

// TestStartIsIdempotentByName uses moto's recording backend, in which an execution stays
// RUNNING until it is stopped: the test decides when it ends.
func TestStartIsIdempotentByName(t *testing.T) {
	cfg := mototest.Config(t)
	m := sfn.New(cfg)
	arn := machine(t, cfg, pass)
	ctx := context.Background()
	name := mototest.Name("manual-r-7-alice")
	input := handler.RepairInput{Detail: handler.RunFailed{RunID: "r-7", ProjectID: "p-1", TestID: "t-1", TestVersion: 2}, Manual: &handler.Manual{By: "alice"}}
	other := input
	other.Manual = &handler.Manual{By: "bob"}
	id, err := m.Start(ctx, arn, name, input)
	if err != nil {
		t.Fatalf("first Start: %v", err)
	}
	wantConflict := func(when string) {
		t.Helper()
		_, err := m.Start(ctx, arn, name, other)
		var conflict *sfn.ExecutionConflictError
		if !errors.As(err, &conflict) || conflict.Execution != id || conflict.Name != name || conflict.Machine != arn {
			t.Fatalf("%s, Start with the same name and another input: %v (%T), want an *ExecutionConflictError naming the execution", when, err, err)
		}
		if !errors.Is(err, gardener.ErrConflict) {
			t.Errorf("%v does not match gardener.ErrConflict (the API answers 409 on it)", err)
		}
	}

	// While it runs, Step Functions answers a second start itself.
	if again, err := m.Start(ctx, arn, name, input); err != nil || again != id {
		t.Fatalf("second Start while running = %q, %v; want %q", again, err, id)
	}
	if status, output, err := m.Describe(ctx, id); err != nil || status != "RUNNING" || output != "" {
		t.Fatalf("Describe while running = %q %q %v, want RUNNING and no output", status, output, err)
	}
	wantConflict("while running")

	// Once it ended, Step Functions refuses the name; Start finds the execution that holds it.
	if _, err := awssfn.NewFromConfig(cfg).StopExecution(ctx, &awssfn.StopExecutionInput{ExecutionArn: aws.String(id)}); err != nil {
		t.Fatalf("stop %s: %v", id, err)
	}
	if status, _, err := m.Describe(ctx, id); err != nil || status != "ABORTED" {
		t.Fatalf("Describe after stop = %q %v, want ABORTED", status, err)
	}
	if again, err := m.Start(ctx, arn, name, input); err != nil || again != id {
		t.Fatalf("Start after the execution ended = %q, %v; want %q", again, err, id)
	}
	wantConflict("after it ended")
}

func TestStartFails(t *testing.T) {
	cfg := mototest.Config(t)
	m := sfn.New(cfg)
	arn := machine(t, cfg, pass)
	cases := []struct {
		name    string
		machine string
		input   any
		want    string
	}{
		{"no machine", "", map[string]string{}, "no state machine ARN"},
		{"unencodable input", arn, map[string]any{"f": func() {}}, "encode input"},
		{"no such machine", arn + "-gone", map[string]string{}, "StateMachineDoesNotExist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := mototest.Name("start")
			_, err := m.Start(context.Background(), c.machine, name, c.input)
			var se *sfn.StartError
			if !errors.As(err, &se) || se.Machine != c.machine || se.Name != name {
				t.Fatalf("Start error %v (%T), want a *StartError naming machine %q and %q", err, err, c.machine, name)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not say %q and name the execution", err, c.want)
			}
		})
	}
}

func TestDescribeMissing(t *testing.T) {
	cfg := mototest.Config(t)
	m := sfn.New(cfg)
	arn := machine(t, cfg, pass)
	missing := strings.Replace(arn, ":stateMachine:", ":execution:", 1) + ":never-started"
	for _, id := range []string{missing, "not-an-arn", ""} {
		_, _, err := m.Describe(context.Background(), id)
		var nf *gardener.NotFoundError
		if !errors.As(err, &nf) || nf.ID != id || !errors.Is(err, gardener.ErrNotFound) {
			t.Errorf("Describe(%q) error %v (%T), want a *gardener.NotFoundError for it", id, err, err)
		}
	}
}

// BenchmarkStart is one Start round trip to moto_server (recording backend), each under a new
// name.
func BenchmarkStart(b *testing.B) {
	cfg := mototest.Config(b)
	arn := machine(b, cfg, pass)
	m := sfn.New(cfg)
	input := handler.RepairInput{Detail: handler.RunFailed{RunID: "r-1", ProjectID: "p-1", TestID: "t-1"}}
	for b.Loop() {
		if _, err := m.Start(context.Background(), arn, mototest.Name("bench"), input); err != nil {
			b.Fatal(err)
		}
	}
}
