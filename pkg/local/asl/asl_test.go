package asl_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/local/asl"
	"github.com/driftgardener/gardener/pkg/local/asltest"
)

// ThrottlingError and ModelRefusedError stand for the typed errors a Go Lambda returns; Step
// Functions sees their type names.
type ThrottlingError struct{ Model string }

func (e *ThrottlingError) Error() string { return "throttled by " + e.Model }

type ModelRefusedError struct{}

func (ModelRefusedError) Error() string { return "the model refused" }

// handlers maps a function name (the last part of its ARN) to a Go Lambda handler; each is
// invoked through aws-lambda-go's handler wrapper, the same JSON round trip as in Lambda.
type handlers map[string]any

func (h handlers) resolve(resource string) (asl.Invoker, error) {
	name := resource[strings.LastIndex(resource, ":")+1:]
	fn, ok := h[name]
	if !ok {
		return nil, fmt.Errorf("no handler for %s", resource)
	}
	if inv, ok := fn.(asl.Invoker); ok {
		return inv, nil
	}
	handler := lambda.NewHandler(fn)
	return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		return handler.Invoke(ctx, in)
	}, nil
}

// recorder is a Sleep hook that returns at once and remembers what it was asked to wait.
type recorder struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.delays = append(r.delays, d)
	return ctx.Err()
}

var fixedNow = time.Date(2029, 12, 31, 23, 59, 0, 0, time.UTC)

func load(t *testing.T, file string, h handlers, sl *recorder) *asl.Machine {
	t.Helper()
	def, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	m, err := asl.Parse(def, asl.Config{Name: "repair", Resolve: h.resolve, Sleep: sl.sleep, Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	return m
}

func jsonEqual(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("output %s is not JSON: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s is not JSON: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("output\n got %s\nwant %s", got, want)
	}
}

// TestTestdataValidates proves every definition in testdata valid to our loader and to the
// reference validators, so the interpreter is tested on ASL that AWS accepts.
func TestTestdataValidates(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.asl.json")
	if len(files) == 0 {
		t.Fatal("no testdata definitions")
	}
	for _, f := range files {
		def, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := asl.Parse(def, asl.Config{}); err != nil {
			t.Errorf("%s: our loader rejects it: %v", f, err)
		}
	}
	asltest.Validate(t, files...)
}

func TestTaskPipeline(t *testing.T) {
	var got map[string]any
	h := handlers{
		"SelfHealFunction": func(ctx context.Context, in map[string]any) (map[string]any, error) {
			got = in
			return map[string]any{"green": true, "ops": []string{"replace-locator"}}, nil
		},
		"PersistFunction": func(ctx context.Context, in map[string]any) (map[string]any, error) { return in, nil },
	}
	m := load(t, "task_pipeline.asl.json", h, &recorder{})
	ex, err := m.Run(context.Background(), "exec-1", json.RawMessage(`{"run":{"id":"r1","testId":"t1","steps":["goto","click"]},"other":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != asl.StatusSucceeded {
		t.Fatalf("status %s: %+v", ex.Status, ex.Failure)
	}
	jsonEqual(t, ex.Output, `{"selfHeal":{"green":true,"ops":["replace-locator"]},"persisted":{"green":true,"ops":["replace-locator"]}}`)
	want := map[string]any{
		"runId": "r1", "testId": "t1", "firstStep": "goto", "mode": "apply",
		"batches":   []any{[]any{"goto"}, []any{"click"}},
		"execution": "arn:aws:states:local:000000000000:execution:repair:exec-1", "executionName": "exec-1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("payload the Lambda received\n got %v\nwant %v", got, want)
	}
	if p := ex.Path(); !reflect.DeepEqual(p, []string{"SelfHeal", "Persist"}) {
		t.Errorf("path %v", p)
	}
	if ex.ID != "arn:aws:states:local:000000000000:execution:repair:exec-1" {
		t.Errorf("execution ARN %s", ex.ID)
	}
	tasks := ex.Events(asl.EventTaskScheduled)
	if len(tasks) != 2 || tasks[0].Resource != "arn:aws:lambda:us-east-1:000000000000:function:SelfHealFunction" {
		t.Errorf("task events %+v", tasks)
	}
}

func TestRetryAndCatch(t *testing.T) {
	throttle := func(times int) func(context.Context, map[string]any) (map[string]any, error) {
		n := 0
		return func(context.Context, map[string]any) (map[string]any, error) {
			n++
			if n <= times {
				return nil, &ThrottlingError{Model: "claude"}
			}
			return map[string]any{"ops": n}, nil
		}
	}
	cases := []struct {
		name       string
		fn         any
		wantStatus asl.Status
		wantPath   []string
		wantDelays []time.Duration
		wantOutput string
		wantError  string // the execution's error, or the caught one
	}{
		{
			name: "throttled twice then green", fn: throttle(2),
			wantStatus: asl.StatusSucceeded, wantPath: []string{"SuggestFix", "Done"},
			wantDelays: []time.Duration{2 * time.Second, 6 * time.Second},
			wantOutput: `{"test":"t1","fix":{"ops":3}}`,
		},
		{
			name: "throttled past MaxAttempts is caught as a task failure", fn: throttle(100),
			wantStatus: asl.StatusSucceeded, wantPath: []string{"SuggestFix", "Triage"},
			// 2, 2×3, then MaxDelaySeconds caps 18 and 54 at 10.
			wantDelays: []time.Duration{2 * time.Second, 6 * time.Second, 10 * time.Second, 10 * time.Second},
			wantOutput: `{"test":"t1","failure":{"Error":"ThrottlingError","Cause":"{\"errorMessage\":\"throttled by claude\",\"errorType\":\"ThrottlingError\"}"},"outcome":"triaged"}`,
			wantError:  "ThrottlingError",
		},
		{
			name: "MaxAttempts 0 never retries", fn: func(context.Context, map[string]any) (any, error) { return nil, ModelRefusedError{} },
			wantStatus: asl.StatusSucceeded, wantPath: []string{"SuggestFix", "Triage"},
			wantOutput: `{"test":"t1","refusal":{"Error":"ModelRefusedError","Cause":"{\"errorMessage\":\"the model refused\",\"errorType\":\"ModelRefusedError\"}"},"outcome":"triaged"}`,
			wantError:  "ModelRefusedError",
		},
		{
			name: "errors.New is errorString", fn: func(context.Context, map[string]any) (any, error) { return nil, errors.New("plain") },
			wantStatus: asl.StatusSucceeded, wantPath: []string{"SuggestFix", "Triage"}, wantError: "errorString",
		},
		{
			name: "a wrapped typed error is wrapError, as in Lambda, so it is not retried",
			fn: func(context.Context, map[string]any) (any, error) {
				return nil, fmt.Errorf("suggest: %w", &ThrottlingError{Model: "m"})
			},
			wantStatus: asl.StatusSucceeded, wantPath: []string{"SuggestFix", "Triage"}, wantError: "wrapError",
		},
		{
			name:       "a panic is reported with the panic value's type",
			fn:         func(context.Context, map[string]any) (any, error) { panic("boom") },
			wantStatus: asl.StatusSucceeded, wantPath: []string{"SuggestFix", "Triage"}, wantError: "string",
		},
		{
			name: "States.Timeout is retried once, then States.ALL goes to a Fail state",
			fn: asl.Invoker(func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return nil, &asl.Failure{Name: asl.ErrTimeout, Cause: "slow"}
			}),
			wantStatus: asl.StatusFailed, wantPath: []string{"SuggestFix", "CleanFailure"},
			wantDelays: []time.Duration{time.Second}, wantError: "LadderFailed",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sl := &recorder{}
			m := load(t, "retry_catch.asl.json", handlers{"SuggestFixFunction": tc.fn}, sl)
			ex, err := m.Run(context.Background(), "", json.RawMessage(`{"test":"t1"}`))
			if err != nil {
				t.Fatal(err)
			}
			if ex.Status != tc.wantStatus {
				t.Fatalf("status %s, want %s (%+v)", ex.Status, tc.wantStatus, ex.Failure)
			}
			if p := ex.Path(); !reflect.DeepEqual(p, tc.wantPath) {
				t.Errorf("path %v, want %v", p, tc.wantPath)
			}
			if !reflect.DeepEqual(sl.delays, tc.wantDelays) {
				t.Errorf("retry delays %v, want %v", sl.delays, tc.wantDelays)
			}
			if retries := ex.Events(asl.EventRetryScheduled); len(retries) != len(tc.wantDelays) {
				t.Errorf("%d RetryScheduled events, want %d", len(retries), len(tc.wantDelays))
			}
			if tc.wantOutput != "" {
				jsonEqual(t, ex.Output, tc.wantOutput)
			}
			if tc.wantError != "" {
				got := ""
				if ex.Failure != nil {
					got = ex.Failure.Name
				} else if c := ex.Events(asl.EventErrorCaught); len(c) == 1 {
					got = c[0].Error
				}
				if got != tc.wantError {
					t.Errorf("error %q, want %q", got, tc.wantError)
				}
			}
		})
	}
}

func TestChoiceOperators(t *testing.T) {
	base := map[string]any{"kind": "none", "n": 0, "flag": false}
	cases := []struct {
		name  string
		set   map[string]any
		drop  []string
		want  string // the end state, or an error name
		error bool
	}{
		{"StringEquals", map[string]any{"kind": "exact"}, nil, "StringEquals", false},
		{"Or: first alternative", map[string]any{"kind": "app-bug"}, nil, "Or", false},
		{"Or: second alternative", map[string]any{"kind": "environment"}, nil, "Or", false},
		{"NumericGreaterThan", map[string]any{"n": 3}, nil, "NumericGreaterThan", false},
		{"NumericGreaterThan is strict", map[string]any{"n": 0}, nil, "Fallback", false},
		{"a string is not numeric", map[string]any{"n": "42"}, nil, "Fallback", false},
		{"BooleanEquals", map[string]any{"flag": true}, nil, "BooleanEquals", false},
		{"a string is not a boolean", map[string]any{"flag": "true"}, nil, "Fallback", false},
		{"Default", nil, nil, "Fallback", false},
		{"a missing Variable is States.Runtime", nil, []string{"kind"}, asl.ErrRuntime, true},
	}
	m := load(t, "choice.asl.json", nil, &recorder{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string]any{}
			for k, v := range base {
				in[k] = v
			}
			for k, v := range tc.set {
				in[k] = v
			}
			for _, k := range tc.drop {
				delete(in, k)
			}
			raw, _ := json.Marshal(in)
			ex, err := m.Run(context.Background(), "", raw)
			if err != nil {
				t.Fatal(err)
			}
			if tc.error {
				if ex.Status != asl.StatusFailed || ex.Failure.Name != tc.want {
					t.Fatalf("status %s failure %+v, want %s", ex.Status, ex.Failure, tc.want)
				}
				return
			}
			if ex.Status != asl.StatusSucceeded {
				t.Fatalf("status %s: %+v", ex.Status, ex.Failure)
			}
			p := ex.Path()
			if p[len(p)-1] != tc.want {
				t.Errorf("went to %s, want %s", p[len(p)-1], tc.want)
			}
			jsonEqual(t, ex.Output, string(raw))
		})
	}
	t.Run("no match without Default", func(t *testing.T) {
		m := load(t, "choice_nodefault.asl.json", nil, &recorder{})
		ex, _ := m.Run(context.Background(), "", json.RawMessage(`{"green":false}`))
		if ex.Status != asl.StatusFailed || ex.Failure.Name != asl.ErrNoChoiceMatched {
			t.Errorf("status %s failure %+v", ex.Status, ex.Failure)
		}
	})
}

func TestMap(t *testing.T) {
	h := handlers{"DryRunFunction": func(ctx context.Context, in struct {
		Index   int    `json:"index"`
		TestID  string `json:"testId"`
		Project string `json:"project"`
	}) (map[string]any, error) {
		if in.Project != "p1" {
			return nil, fmt.Errorf("project %q", in.Project)
		}
		return map[string]any{"green": in.Index%2 == 0}, nil
	}}
	m := load(t, "map.asl.json", h, &recorder{})
	ex, err := m.Run(context.Background(), "", json.RawMessage(`{"project":"p1","tests":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != asl.StatusSucceeded {
		t.Fatalf("status %s: %+v", ex.Status, ex.Failure)
	}
	jsonEqual(t, ex.Output, `{"project":"p1","results":[
		{"testId":"a","outcome":"green"},{"testId":"b","outcome":"staged","index":1},
		{"testId":"c","outcome":"green"},{"testId":"d","outcome":"staged","index":3},
		{"testId":"e","outcome":"green"}]}`)
	if n := len(ex.Events(asl.EventIterationSucceeded)); n != 5 {
		t.Errorf("%d iterations succeeded, want 5", n)
	}

	t.Run("ItemsPath that is not an array", func(t *testing.T) {
		ex, _ := m.Run(context.Background(), "", json.RawMessage(`{"project":"p1","tests":{"id":"a"}}`))
		if ex.Status != asl.StatusFailed || ex.Failure.Name != asl.ErrRuntime {
			t.Errorf("status %s failure %+v", ex.Status, ex.Failure)
		}
	})
	t.Run("an iteration failure fails the Map", func(t *testing.T) {
		ex, _ := m.Run(context.Background(), "", json.RawMessage(`{"project":"other","tests":[{"id":"a"}]}`))
		if ex.Status != asl.StatusFailed || ex.Failure.Name != "errorString" {
			t.Errorf("status %s failure %+v", ex.Status, ex.Failure)
		}
	})
}

// TestMapMaxConcurrency proves, for inputs of every size, that a Map never runs more
// iterations at once than MaxConcurrency and does reach it: the first wave of iterations
// waits until all of it is in flight, which only a limit of at least that size allows.
func TestMapMaxConcurrency(t *testing.T) {
	def, err := os.ReadFile("testdata/map_concurrency.asl.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ items, limit int }{
		{0, 3}, {1, 3}, {2, 3}, {3, 3}, {5, 1}, {10, 3}, {40, 7}, {100, 10}, {25, 0},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d items, MaxConcurrency %d", tc.items, tc.limit), func(t *testing.T) {
			var d map[string]any
			if err := json.Unmarshal(def, &d); err != nil {
				t.Fatal(err)
			}
			d["States"].(map[string]any)["Each"].(map[string]any)["MaxConcurrency"] = tc.limit
			def2, _ := json.Marshal(d)

			wave := tc.limit
			if wave == 0 || wave > tc.items {
				wave = tc.items
			}
			var mu sync.Mutex
			cond := sync.NewCond(&mu)
			inFlight, peak, arrived := 0, 0, 0
			work := func(ctx context.Context, n int) (int, error) {
				mu.Lock()
				defer mu.Unlock()
				inFlight++
				peak = max(peak, inFlight)
				arrived++
				if arrived <= wave {
					deadline := time.AfterFunc(10*time.Second, cond.Broadcast)
					for arrived < wave {
						cond.Wait()
						if arrived < wave && ctx.Err() == nil {
							continue
						}
						break
					}
					deadline.Stop()
					cond.Broadcast()
				}
				inFlight--
				return n * 10, nil
			}
			m, err := asl.Parse(def2, asl.Config{Resolve: handlers{"WorkFunction": work}.resolve})
			if err != nil {
				t.Fatal(err)
			}
			items := make([]int, tc.items)
			want := make([]int, tc.items)
			for i := range items {
				items[i], want[i] = i, i*10
			}
			in, _ := json.Marshal(map[string]any{"items": items})
			ex, err := m.Run(context.Background(), "", in)
			if err != nil {
				t.Fatal(err)
			}
			if ex.Status != asl.StatusSucceeded {
				t.Fatalf("status %s: %+v", ex.Status, ex.Failure)
			}
			wantOut, _ := json.Marshal(want)
			jsonEqual(t, ex.Output, string(wantOut))
			if tc.limit > 0 && peak > tc.limit {
				t.Errorf("%d iterations ran at once, over MaxConcurrency %d", peak, tc.limit)
			}
			if peak != wave {
				t.Errorf("peak concurrency %d, want %d", peak, wave)
			}
		})
	}
}

func TestTaskTimeout(t *testing.T) {
	block := func(ctx context.Context, in any) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	m := load(t, "timeout.asl.json", handlers{"DiagnoseFunction": block}, &recorder{})
	ex, err := m.Run(context.Background(), "", json.RawMessage(`{"run":"r1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != asl.StatusSucceeded || !reflect.DeepEqual(ex.Path(), []string{"DiagnoseDrift", "TimedOut"}) {
		t.Fatalf("status %s path %v failure %+v", ex.Status, ex.Path(), ex.Failure)
	}
	if len(ex.Events(asl.EventTaskTimedOut)) != 1 {
		t.Error("no TaskTimedOut event")
	}
	if !strings.Contains(string(ex.Output), `"Error":"States.Timeout"`) {
		t.Errorf("output %s", ex.Output)
	}
}

func TestArrayPartition(t *testing.T) {
	cases := []struct{ expr, input, want string }{
		{"States.ArrayPartition($.list, 2)", `{"list":[1,2,3,4,5]}`, `[[1,2],[3,4],[5]]`},
		{"States.ArrayPartition($.list, 10)", `{"list":[1,2,3]}`, `[[1,2,3]]`},
		{"States.ArrayPartition($.list, 1)", `{"list":[{"a":1},"b"]}`, `[[{"a":1}],["b"]]`},
		{"States.ArrayPartition($.list, 3)", `{"list":[]}`, `[]`},
		{"States.ArrayPartition($.list, $.size)", `{"list":[1,2,3],"size":2.0}`, `[[1,2],[3]]`},
	}
	for _, tc := range cases {
		t.Run(tc.expr+" of "+tc.input, func(t *testing.T) {
			def, _ := json.Marshal(map[string]any{"StartAt": "P", "States": map[string]any{"P": map[string]any{
				"Type": "Pass", "Parameters": map[string]any{"x.$": tc.expr}, "End": true}}})
			ex := run(t, string(def), tc.input, asl.Config{})
			if ex.Status != asl.StatusSucceeded {
				t.Fatalf("status %s: %+v", ex.Status, ex.Failure)
			}
			jsonEqual(t, ex.Output, `{"x":`+tc.want+`}`)
		})
	}
}

// TestConcurrentExecutions runs one Machine from many goroutines, as the local stack does
// when several runs fail at once; run with -race.
func TestConcurrentExecutions(t *testing.T) {
	h := handlers{"DryRunFunction": func(ctx context.Context, in map[string]any) (map[string]any, error) {
		return map[string]any{"green": true}, nil
	}}
	m := load(t, "map.asl.json", h, &recorder{})
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex, err := m.Run(context.Background(), fmt.Sprintf("exec-%d", i), json.RawMessage(`{"project":"p1","tests":[{"id":"a"},{"id":"b"},{"id":"c"}]}`))
			if err != nil || ex.Status != asl.StatusSucceeded {
				errs <- fmt.Sprintf("execution %d: %v %+v", i, err, ex)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
