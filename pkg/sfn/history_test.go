package sfn_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/driftgardener/gardener/pkg/dynamo"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/mototest"
	"github.com/driftgardener/gardener/pkg/sfn"
)

// threeStates enters three states: a Pass that envelopes its input as the repair machine's tasks
// are invoked, a Choice and the Succeed it chooses.
const threeStates = `{"StartAt":"Gate","States":{
 "Gate":{"Type":"Pass","Parameters":{"payload.$":"$.detail","execution.$":"$$.Execution.Id"},"ResultPath":"$.envelope","Next":"Route"},
 "Route":{"Type":"Choice","Choices":[{"Variable":"$.go","BooleanEquals":true,"Next":"Done"}],"Default":"Done"},
 "Done":{"Type":"Succeed"}}}`

// TestTaskAddsItsUsageToItsExecution: a task invocation of a repair execution on AWS, its
// payload enveloped beside the execution's id as the repair machine sends it, runs its handler
// on the payload with a meter, and adds what it used to the execution's cost record: one
// invocation at the function's memory and architecture, the DynamoDB units its store calls
// consumed, and the transitions counted from the execution's history as moto's engine wrote it.
// Two invocations both count (one after the other: moto_server does not isolate concurrent
// updates of one item; the store conformance suite adds at once on dynalite and the embedded
// store).
func TestTaskAddsItsUsageToItsExecution(t *testing.T) {
	cfg := mototest.Config(t)
	executing(t, cfg)
	regional := cfg.Copy()
	regional.Region = "ap-southeast-2" // a region of its own: see TestExecuted
	m := sfn.New(regional)
	name := mototest.Name("repair-r")
	input := `{"detail":{"runId":"r-cost","projectId":"p-cost","testId":"t-cost"},"go":true}`
	execution, err := m.Start(context.Background(), machine(t, regional, threeStates), name, json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	status, out := ended(t, m, execution)
	if status != "SUCCEEDED" {
		t.Fatalf("execution ended %s %s", status, out)
	}
	var env struct{ Envelope map[string]any }
	if err := json.Unmarshal([]byte(out), &env); err != nil || env.Envelope["execution"] != execution || env.Envelope["payload"] == nil {
		t.Errorf("the envelope moto's engine made: %s; want the payload beside execution %s", out, execution)
	}
	in, events, err := m.History(context.Background(), execution)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, string(in), input) {
		t.Errorf("history's input %s; want the execution's input %s", in, input)
	}
	if n := gardener.Transitions(events); n != 3 {
		t.Errorf("moto's history %+v counts %d transitions; want 3 (Pass, Choice, Succeed)", events, n)
	}

	store := dynamo.New(dynamodb.NewFromConfig(cfg), mototest.Name("cost"))
	if err := store.CreateTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	fn := lambda.NewHandler(func(ctx context.Context, in map[string]string) (map[string]bool, error) {
		got = append(got, in["runId"])
		// A store call the repair makes: its consumed capacity is the invocation's.
		_, err := store.RepairCosts(ctx, "r-other")
		return map[string]bool{"eligible": true}, err
	})
	task := handler.Task(fn, handler.Services{Store: store, History: m}, handler.Billing{Function: "EligibilityFunction", Architecture: "arm64", MemoryMB: 512})
	event := `{"payload":{"runId":"r-cost"},"execution":"` + execution + `"}`
	for range 2 {
		if out, err := task.Invoke(context.Background(), []byte(event)); err != nil || string(out) != `{"eligible":true}` {
			t.Errorf("invoke: %s, %v", out, err)
		}
	}
	if len(got) != 2 || got[0] != "r-cost" {
		t.Errorf("the handler got run ids %q; want the payload's, twice", got)
	}
	costs, err := store.RepairCosts(context.Background(), "r-cost")
	if err != nil || len(costs) != 1 {
		t.Fatalf("costs of r-cost: %+v, %v; want one record", costs, err)
	}
	c := costs[0]
	if c.Execution != name || c.TestID != "t-cost" || c.ProjectID != "p-cost" {
		t.Errorf("record %+v; want execution %s of test t-cost in p-cost", c, name)
	}
	u := c.Usage
	if len(u.Lambda) != 1 || u.Lambda[0].Function != "EligibilityFunction" || u.Lambda[0].Invocations != 2 || u.Lambda[0].MemoryMB != 512 ||
		u.Lambda[0].Architecture != "arm64" || u.Lambda[0].BilledMillis < 2 {
		t.Errorf("Lambda use %+v; want 2 invocations of EligibilityFunction at 512 MB arm64, each billed at least 1 ms", u.Lambda)
	}
	if u.Transitions != 3 || u.ReadUnits <= 0 {
		t.Errorf("usage %+v; want the history's 3 transitions and the read units of the handler's store calls", u)
	}

	// A task after Eligibility is told its run by the gate beside its payload: it adds its usage
	// without reading the execution's history. The task that ends the execution reads it, once.
	reads := &countedHistory{ExecutionHistory: m}
	gate := `"gate":{"eligible":true,"runId":"r-cost","projectId":"p-cost","testId":"t-cost","mode":"apply"}`
	for _, fn := range []string{"SelfHealFunction", "PersistFunction", "NotifyFunction"} {
		task := handler.Task(fn2(fn), handler.Services{Store: store, History: reads}, handler.Billing{Function: fn, Architecture: "arm64", MemoryMB: 2048})
		if out, err := task.Invoke(context.Background(), []byte(`{"payload":{"runId":"r-cost"},"execution":"`+execution+`",`+gate+`}`)); err != nil || string(out) != `{"notify":true}` {
			t.Errorf("%s: %s, %v", fn, out, err)
		}
	}
	if reads.n != 1 {
		t.Errorf("%d reads of the history for three tasks told their run; want 1, by Notify, which ends the execution", reads.n)
	}
	costs, err = store.RepairCosts(context.Background(), "r-cost")
	if err != nil || len(costs) != 1 {
		t.Fatalf("costs of r-cost: %+v, %v; want one record", costs, err)
	}
	if u := costs[0].Usage; u.Transitions != 3 || u.Invocations() != 5 {
		t.Errorf("usage %+v; want the 3 transitions and 5 invocations (2 of Eligibility, 3 told their run)", u)
	}

	// An event that is not enveloped is the function's own payload, handed on as it is.
	if out, err := task.Invoke(context.Background(), []byte(`{"runId":"r-plain"}`)); err != nil || !strings.Contains(string(out), "eligible") || got[2] != "r-plain" {
		t.Errorf("a plain event: %s, %v, handler got %q", out, err, got)
	}
}

// countedHistory counts the reads of an execution's history.
type countedHistory struct {
	handler.ExecutionHistory
	n int
}

func (c *countedHistory) History(ctx context.Context, execution string) (json.RawMessage, []gardener.HistoryEvent, error) {
	c.n++
	return c.ExecutionHistory.History(ctx, execution)
}

// fn2 is a task's handler that answers what Persist and Triage answer when there is news.
func fn2(string) lambda.Handler {
	return lambda.NewHandler(func(context.Context, map[string]string) (map[string]bool, error) {
		return map[string]bool{"notify": true}, nil
	})
}
