package asl_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/local/asl"
)

func TestParseRejects(t *testing.T) {
	cases := []struct {
		name, def string
		want      []string
	}{
		{"not JSON", `{`, []string{"not JSON"}},
		{"not an object", `[]`, []string{"must be a JSON object, got a JSON array"}},
		{"StartAt missing state", `{"StartAt":"X","States":{"A":{"Type":"Succeed"}}}`, []string{`StartAt "X" names no state`}},
		{"no States", `{"StartAt":"X","States":{}}`, []string{"States must be a non-empty object"}},
		{"dangling Next", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"}}}`, []string{`state "A": transition to "B"`}},
		{"unreachable state", `{"StartAt":"A","States":{"A":{"Type":"Succeed"},"B":{"Type":"Succeed"}}}`, []string{`state "B": is not reachable`}},
		{"Next and End", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"A","End":true}}}`, []string{"exactly one of Next or End"}},
		{"neither Next nor End", `{"StartAt":"A","States":{"A":{"Type":"Pass"}}}`, []string{"exactly one of Next or End"}},
		{"unknown type", `{"StartAt":"A","States":{"A":{"Type":"Loop"}}}`, []string{"Type Loop is not a state type"}},
		{"field of another type", `{"StartAt":"A","States":{"A":{"Type":"Pass","Resource":"x","End":true}}}`, []string{`field "Resource" is not allowed in a Pass state`}},
		{"Task without Resource", `{"StartAt":"A","States":{"A":{"Type":"Task","End":true}}}`, []string{"Resource is missing"}},
		{"bad path", `{"StartAt":"A","States":{"A":{"Type":"Pass","InputPath":"a.b","End":true}}}`, []string{`InputPath: path "a.b": must start with $`}},
		{"ResultPath with $$", `{"StartAt":"A","States":{"A":{"Type":"Pass","ResultPath":"$$.x","End":true}}}`, []string{"ResultPath"}},
		{"bad intrinsic", `{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"x.$":"States.Nope(1)"},"End":true}}}`, []string{`unknown intrinsic function "States.Nope"`}},
		{"intrinsic arity", `{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"x.$":"States.MathAdd(1)"},"End":true}}}`, []string{"States.MathAdd takes 2 arguments, got 1"}},
		{"choice without Next", `{"StartAt":"A","States":{"A":{"Type":"Choice","Choices":[{"Variable":"$.x","IsNull":true}],"Default":"B"},"B":{"Type":"Succeed"}}}`, []string{"a top-level choice rule needs Next"}},
		{"choice operand type", `{"StartAt":"A","States":{"A":{"Type":"Choice","Choices":[{"Variable":"$.x","NumericEquals":"1","Next":"B"}]},"B":{"Type":"Succeed"}}}`, []string{"NumericEquals: want a number"}},
		{"choice two operators", `{"StartAt":"A","States":{"A":{"Type":"Choice","Choices":[{"Variable":"$.x","IsNull":true,"IsString":true,"Next":"B"}]},"B":{"Type":"Succeed"}}}`, []string{"more than one operator"}},
		{"unknown choice operator", `{"StartAt":"A","States":{"A":{"Type":"Choice","Choices":[{"Variable":"$.x","StringContains":"a","Next":"B"}]},"B":{"Type":"Succeed"}}}`, []string{`unknown field "StringContains"`}},
		{"wait needs one", `{"StartAt":"A","States":{"A":{"Type":"Wait","Seconds":1,"SecondsPath":"$.s","End":true}}}`, []string{"exactly one of Seconds"}},
		{"retry States.ALL not last", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"r","Retry":[{"ErrorEquals":["States.ALL"]},{"ErrorEquals":["X"]}],"End":true}}}`, []string{"States.ALL must be the last one"}},
		{"retry fields", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"r","Retry":[{"ErrorEquals":[],"BackoffRate":0.5,"MaxAttempts":-1,"Jitter":"x"}],"End":true}}}`, []string{"ErrorEquals must be a non-empty", "BackoffRate must be", "MaxAttempts must be", `unknown field "Jitter"`}},
		{"catch to nowhere", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"r","Catch":[{"ErrorEquals":["States.ALL"],"Next":"Z"}],"End":true}}}`, []string{`transition to "Z"`}},
		{"map without processor", `{"StartAt":"A","States":{"A":{"Type":"Map","End":true}}}`, []string{"ItemProcessor (or Iterator) is missing"}},
		{"map processor invalid", `{"StartAt":"A","States":{"A":{"Type":"Map","ItemProcessor":{"StartAt":"B","States":{"B":{"Type":"Pass","Next":"Outside"}}},"End":true},"Outside":{"Type":"Succeed"}}}`, []string{`state "A" ItemProcessor state "B": transition to "Outside"`, `state "Outside": is not reachable`}},
		{"map both selectors", `{"StartAt":"A","States":{"A":{"Type":"Map","ItemSelector":{},"Parameters":{},"Iterator":{"StartAt":"B","States":{"B":{"Type":"Succeed"}}},"End":true}}}`, []string{"ItemSelector and Parameters are exclusive"}},
		{"distributed map reader", `{"StartAt":"A","States":{"A":{"Type":"Map","ItemReader":{},"ItemProcessor":{"StartAt":"B","States":{"B":{"Type":"Succeed"}}},"End":true}}}`, []string{"ItemReader (a Distributed Map reading from S3) is not supported"}},
		{"JSONata", `{"QueryLanguage":"JSONata","StartAt":"A","States":{"A":{"Type":"Succeed"}}}`, []string{"QueryLanguage (JSONata) is not supported"}},
		{"parallel without branches", `{"StartAt":"A","States":{"A":{"Type":"Parallel","Branches":[],"End":true}}}`, []string{"Branches must be a non-empty array"}},
		{"typo at the top", `{"StartAt":"A","Sates":{},"States":{"A":{"Type":"Succeed"}}}`, []string{`unknown field "Sates"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := asl.Parse([]byte(tc.def), asl.Config{})
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func run(t *testing.T, def, input string, cfg asl.Config) *asl.Execution {
	t.Helper()
	m, err := asl.Parse([]byte(def), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := m.Run(context.Background(), "", json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func TestPathsAndFilters(t *testing.T) {
	cases := []struct {
		name, state, input string
		want               string // output, or an error name after "!"
	}{
		{"InputPath null gives {}", `"Type":"Pass","InputPath":null`, `{"a":1}`, `{}`},
		{"OutputPath null gives {}", `"Type":"Pass","OutputPath":null`, `{"a":1}`, `{}`},
		{"ResultPath null keeps the input", `"Type":"Pass","Result":{"x":1},"ResultPath":null`, `{"a":1}`, `{"a":1}`},
		{"ResultPath $ replaces", `"Type":"Pass","Result":{"x":1}`, `{"a":1}`, `{"x":1}`},
		{"ResultPath creates objects", `"Type":"Pass","Result":2,"ResultPath":"$.b.c.d"`, `{"a":1}`, `{"a":1,"b":{"c":{"d":2}}}`},
		{"ResultPath into an array element", `"Type":"Pass","Result":9,"ResultPath":"$.l[1]"`, `{"l":[1,2]}`, `{"l":[1,9]}`},
		{"ResultPath into a string fails", `"Type":"Pass","Result":2,"ResultPath":"$.a.b"`, `{"a":"s"}`, `!States.ResultPathMatchFailure`},
		{"InputPath that matches nothing", `"Type":"Pass","InputPath":"$.missing"`, `{"a":1}`, `!States.Runtime`},
		{"Parameters path that matches nothing", `"Type":"Pass","Parameters":{"x.$":"$.missing"}`, `{"a":1}`, `!States.Runtime`},
		{"bracket and index paths", `"Type":"Pass","Parameters":{"x.$":"$['odd key'][1].v","all.$":"$.l[*].v"}`, `{"odd key":[0,{"v":3}],"l":[{"v":1},{"v":2}]}`, `{"x":3,"all":[1,2]}`},
		{"nested templates in arrays", `"Type":"Pass","Parameters":{"list":[{"v.$":"$.a"},"lit"]}`, `{"a":1}`, `{"list":[{"v":1},"lit"]}`},
		{"big numbers pass through", `"Type":"Pass"`, `{"n":12345678901234567890}`, `{"n":12345678901234567890}`},
		{"a state output over 256 KiB", `"Type":"Pass","Parameters":{"a.$":"$.s","b.$":"$.s"}`, `{"s":"` + strings.Repeat("x", 140*1024) + `"}`, `!States.DataLimitExceeded`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ex := run(t, `{"StartAt":"S","States":{"S":{`+tc.state+`,"End":true}}}`, tc.input, asl.Config{})
			if strings.HasPrefix(tc.want, "!") {
				if ex.Status != asl.StatusFailed || ex.Failure.Name != tc.want[1:] {
					t.Fatalf("status %s failure %+v, want %s", ex.Status, ex.Failure, tc.want[1:])
				}
				return
			}
			if ex.Status != asl.StatusSucceeded {
				t.Fatalf("status %s: %+v", ex.Status, ex.Failure)
			}
			jsonEqual(t, ex.Output, tc.want)
		})
	}
}

func TestExecutionEnds(t *testing.T) {
	blockingSleep := func(ctx context.Context, d time.Duration) error {
		<-ctx.Done()
		return ctx.Err()
	}
	t.Run("TimeoutSeconds of the machine", func(t *testing.T) {
		ex := run(t, `{"TimeoutSeconds":1,"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":3600,"End":true}}}`, `{}`, asl.Config{Sleep: blockingSleep})
		if ex.Status != asl.StatusTimedOut || ex.Failure.Name != asl.ErrTimeout {
			t.Errorf("status %s failure %+v", ex.Status, ex.Failure)
		}
	})
	t.Run("a cancelled context aborts", func(t *testing.T) {
		m, err := asl.Parse([]byte(`{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":3600,"End":true}}}`), asl.Config{Sleep: blockingSleep})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ex, err := m.Run(ctx, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Status != asl.StatusAborted {
			t.Errorf("status %s failure %+v", ex.Status, ex.Failure)
		}
	})
	t.Run("input that is not JSON", func(t *testing.T) {
		m, _ := asl.Parse([]byte(`{"StartAt":"S","States":{"S":{"Type":"Succeed"}}}`), asl.Config{})
		if _, err := m.Run(context.Background(), "", json.RawMessage(`{"a":`)); err == nil {
			t.Error("bad input accepted")
		}
	})
	t.Run("an unknown resource is States.Runtime, which no catcher takes", func(t *testing.T) {
		ex := run(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:1:function:Nope","Catch":[{"ErrorEquals":["States.ALL"],"Next":"C"}],"End":true},"C":{"Type":"Succeed"}}}`, `{}`, asl.Config{Resolve: handlers{}.resolve})
		if ex.Status != asl.StatusFailed || ex.Failure.Name != asl.ErrRuntime || !strings.Contains(ex.Failure.Cause, "Nope") {
			t.Errorf("status %s failure %+v", ex.Status, ex.Failure)
		}
	})
	t.Run("lambda:invoke needs FunctionName", func(t *testing.T) {
		ex := run(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"Payload":{}},"End":true}}}`, `{}`, asl.Config{Resolve: handlers{}.resolve})
		if ex.Status != asl.StatusFailed || !strings.Contains(ex.Failure.Cause, "FunctionName") {
			t.Errorf("status %s failure %+v", ex.Status, ex.Failure)
		}
	})
	t.Run("a Parallel branch failure fails the state and is caught", func(t *testing.T) {
		ex := run(t, `{"StartAt":"P","States":{"P":{"Type":"Parallel","Branches":[
			{"StartAt":"A","States":{"A":{"Type":"Succeed"}}},
			{"StartAt":"B","States":{"B":{"Type":"Fail","Error":"BranchBroke","Cause":"b"}}}],
			"Catch":[{"ErrorEquals":["BranchBroke"],"ResultPath":"$.err","Next":"C"}],"End":true},"C":{"Type":"Succeed"}}}`, `{}`, asl.Config{})
		if ex.Status != asl.StatusSucceeded {
			t.Fatalf("status %s failure %+v", ex.Status, ex.Failure)
		}
		jsonEqual(t, ex.Output, `{"err":{"Error":"BranchBroke","Cause":"b"}}`)
	})
	t.Run("JitterStrategy FULL stays under the computed delay", func(t *testing.T) {
		sl := &recorder{}
		fails := asl.Invoker(func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return nil, &asl.Failure{Name: "Busy", Cause: "x"}
		})
		ex := run(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"Busy","Retry":[{"ErrorEquals":["Busy"],"IntervalSeconds":4,"MaxAttempts":5,"JitterStrategy":"FULL"}],"End":true}}}`, `{}`,
			asl.Config{Resolve: handlers{"Busy": fails}.resolve, Sleep: sl.sleep})
		if ex.Status != asl.StatusFailed || len(sl.delays) != 5 {
			t.Fatalf("status %s, %d delays", ex.Status, len(sl.delays))
		}
		for i, d := range sl.delays {
			if limit := time.Duration(4<<i) * time.Second; d < 0 || d > limit {
				t.Errorf("delay %d = %s, over %s", i, d, limit)
			}
		}
	})
	t.Run("RetryCount in the context object", func(t *testing.T) {
		n := 0
		var counts []float64
		inv := asl.Invoker(func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
			var v struct{ Retry float64 }
			_ = json.Unmarshal(in, &v)
			counts = append(counts, v.Retry)
			if n++; n < 3 {
				return nil, &asl.Failure{Name: "Again"}
			}
			return in, nil
		})
		ex := run(t, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"R","Parameters":{"Retry.$":"$$.State.RetryCount"},"Retry":[{"ErrorEquals":["Again"]}],"End":true}}}`, `{}`,
			asl.Config{Resolve: handlers{"R": inv}.resolve, Sleep: (&recorder{}).sleep})
		if ex.Status != asl.StatusSucceeded || len(counts) != 3 || counts[2] != 2 {
			t.Errorf("status %s counts %v", ex.Status, counts)
		}
	})
}

// BenchmarkMapOfTasks measures the interpreter's own cost: a Map of 10 Lambda tasks (the
// staging pass shape) through aws-lambda-go's handler wrapper.
func BenchmarkMapOfTasks(b *testing.B) {
	def := `{"StartAt":"Each","States":{"Each":{"Type":"Map","ItemsPath":"$.tests","MaxConcurrency":10,
		"ItemSelector":{"testId.$":"$$.Map.Item.Value","project.$":"$.project"},
		"ItemProcessor":{"StartAt":"DryRun","States":{
			"DryRun":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"DryRun","Payload.$":"$"},
				"ResultSelector":{"green.$":"$.Payload.green"},"ResultPath":"$.dry","Next":"Green"},
			"Green":{"Type":"Choice","Choices":[{"Variable":"$.dry.green","BooleanEquals":true,"Next":"Done"}],"Default":"Done"},
			"Done":{"Type":"Succeed"}}},"ResultPath":"$.results","End":true}}}`
	h := handlers{"DryRun": func(ctx context.Context, in map[string]any) (map[string]any, error) {
		return map[string]any{"green": true}, nil
	}}
	m, err := asl.Parse([]byte(def), asl.Config{Resolve: h.resolve})
	if err != nil {
		b.Fatal(err)
	}
	in := json.RawMessage(`{"project":"p1","tests":["t0","t1","t2","t3","t4","t5","t6","t7","t8","t9"]}`)
	b.ReportAllocs()
	for b.Loop() {
		ex, err := m.Run(context.Background(), "", in)
		if err != nil || ex.Status != asl.StatusSucceeded {
			b.Fatal(err, ex.Failure)
		}
	}
}

func TestErrorName(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&ThrottlingError{}, "ThrottlingError"},
		{ModelRefusedError{}, "ModelRefusedError"},
		{errors.New("x"), "errorString"},
		{fmt.Errorf("ctx: %w", &ThrottlingError{}), "wrapError"},
		{&asl.Failure{Name: "Custom.Name"}, "Custom.Name"},
		{context.DeadlineExceeded, "deadlineExceededError"},
	}
	for _, tc := range cases {
		if got := asl.ErrorName(tc.err); got != tc.want {
			t.Errorf("ErrorName(%T) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestIntrinsicFailures(t *testing.T) {
	cases := []struct{ expr, cause string }{
		{"States.Format('{} and {}', $.s)", "2 placeholders but 1 values"},
		{"States.Format('{}', $.obj)", "only strings, numbers, booleans and null format"},
		{"States.StringToJson($.s)", "not JSON"},
		{"States.ArrayGetItem($.list, 5)", "index 5 is outside an array of 2"},
		{"States.ArrayPartition($.list, 0)", "chunk size 0 must be positive"},
		{"States.ArrayLength($.s)", "expected an array, got a string"},
		{"States.MathAdd($.s, 1)", "expected an integer, got a string"},
		{"States.MathAdd(1.5, 1)", "expected an integer, got 1.5"},
		{"States.Hash($.s, 'SHA-3')", "unknown hash algorithm"},
		{"States.Base64Decode('***')", "not base64"},
		{"States.JsonMerge($.obj, $.obj, true)", "deep merge is not supported"},
		{"States.ArrayRange(1, 5000, 1)", "more than 1000 items"},
		{"States.ArrayLength($.missing)", "path $.missing does not exist"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			def, _ := json.Marshal(map[string]any{"StartAt": "P", "States": map[string]any{"P": map[string]any{
				"Type": "Pass", "Parameters": map[string]any{"x.$": tc.expr}, "End": true}}})
			ex := run(t, string(def), `{"s":"not json","list":[1,2],"obj":{"a":1}}`, asl.Config{})
			if ex.Status != asl.StatusFailed || ex.Failure.Name != asl.ErrIntrinsicFailure || !strings.Contains(ex.Failure.Cause, tc.cause) {
				t.Errorf("status %s failure %+v, want States.IntrinsicFailure with %q", ex.Status, ex.Failure, tc.cause)
			}
		})
	}
}
