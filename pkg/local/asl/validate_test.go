package asl_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

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
		{"intrinsic arity", `{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"x.$":"States.ArrayPartition($.a)"},"End":true}}}`, []string{"States.ArrayPartition takes 2 arguments, got 1"}},
		{"intrinsic unclosed", `{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"x.$":"States.ArrayPartition($.a, 2"},"End":true}}}`, []string{"missing ) closing States.ArrayPartition"}},
		{"choice without Next", `{"StartAt":"A","States":{"A":{"Type":"Choice","Choices":[{"Variable":"$.x","BooleanEquals":true}],"Default":"B"},"B":{"Type":"Succeed"}}}`, []string{"a top-level choice rule needs Next"}},
		{"choice operand type", `{"StartAt":"A","States":{"A":{"Type":"Choice","Choices":[{"Variable":"$.x","NumericGreaterThan":"1","Next":"B"}]},"B":{"Type":"Succeed"}}}`, []string{"NumericGreaterThan: want a number"}},
		{"choice two operators", `{"StartAt":"A","States":{"A":{"Type":"Choice","Choices":[{"Variable":"$.x","BooleanEquals":true,"StringEquals":"a","Next":"B"}]},"B":{"Type":"Succeed"}}}`, []string{"more than one operator"}},
		{"nested choice with Next", `{"StartAt":"A","States":{"A":{"Type":"Choice","Choices":[{"Or":[{"Variable":"$.x","BooleanEquals":true,"Next":"B"}],"Next":"B"}]},"B":{"Type":"Succeed"}}}`, []string{"Or[0]: a nested choice rule may not have Next"}},
		{"retry States.ALL not last", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"r","Retry":[{"ErrorEquals":["States.ALL"]},{"ErrorEquals":["X"]}],"End":true}}}`, []string{"States.ALL must be the last one"}},
		{"retry fields", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"r","Retry":[{"ErrorEquals":[],"BackoffRate":0.5,"MaxAttempts":-1,"Jitter":"x"}],"End":true}}}`, []string{"ErrorEquals must be a non-empty", "BackoffRate must be", "MaxAttempts must be", `unknown field "Jitter"`}},
		{"catch to nowhere", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"r","Catch":[{"ErrorEquals":["States.ALL"],"Next":"Z"}],"End":true}}}`, []string{`transition to "Z"`}},
		{"map without processor", `{"StartAt":"A","States":{"A":{"Type":"Map","End":true}}}`, []string{"ItemProcessor is missing"}},
		{"map processor invalid", `{"StartAt":"A","States":{"A":{"Type":"Map","ItemProcessor":{"StartAt":"B","States":{"B":{"Type":"Pass","Next":"Outside"}}},"End":true},"Outside":{"Type":"Succeed"}}}`, []string{`state "A" ItemProcessor state "B": transition to "Outside"`, `state "Outside": is not reachable`}},
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
		{"index paths", `"Type":"Pass","Parameters":{"x.$":"$.odd[1].v","y.$":"$.l[0][1]"}`, `{"odd":[0,{"v":3}],"l":[[1,2]]}`, `{"x":3,"y":2}`},
		{"an index past the end matches nothing", `"Type":"Pass","Parameters":{"x.$":"$.l[2]"}`, `{"l":[1,2]}`, `!States.Runtime`},
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
	t.Run("a cancelled context aborts", func(t *testing.T) {
		block := asl.Invoker(func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
		m, err := asl.Parse([]byte(`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"Block","End":true}}}`), asl.Config{Resolve: handlers{"Block": block}.resolve})
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
}

// BenchmarkMapOfTasks measures the interpreter's own cost: a Map of 10 Lambda tasks (the
// staging pass shape) through aws-lambda-go's handler wrapper.
func BenchmarkMapOfTasks(b *testing.B) {
	def := `{"StartAt":"Each","States":{"Each":{"Type":"Map","ItemsPath":"$.tests","MaxConcurrency":10,
		"ItemSelector":{"testId.$":"$$.Map.Item.Value","project.$":"$.project"},
		"ItemProcessor":{"StartAt":"DryRun","States":{
			"DryRun":{"Type":"Task","Resource":"DryRun","ResultPath":"$.dry","Next":"Green"},
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
		{"States.ArrayPartition($.list, 0)", "chunk size 0 must be positive"},
		{"States.ArrayPartition($.list, -2)", "chunk size -2 must be positive"},
		{"States.ArrayPartition($.s, 2)", "expected an array, got a string"},
		{"States.ArrayPartition($.list, $.s)", "expected an integer, got a string"},
		{"States.ArrayPartition($.list, 1.5)", "expected an integer, got 1.5"},
		{"States.ArrayPartition($.missing, 2)", "path $.missing does not exist"},
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

// TestParseRefusesUnsupported proves each construct of the specification that our state
// machines do not use is refused when the definition is parsed, with an error naming the
// construct and the state it is in, so a definition that starts to use one fails loudly.
func TestParseRefusesUnsupported(t *testing.T) {
	// in wraps one state A (whose fields are given) and a state B to go to.
	in := func(fields string) string {
		return `{"StartAt":"A","States":{"A":{` + fields + `},"B":{"Type":"Succeed"}}}`
	}
	inItem := func(fields string) string {
		return in(`"Type":"Map","ItemProcessor":{"StartAt":"I","States":{"I":{` + fields + `}}},"End":true`)
	}
	const task = `"Type":"Task","Resource":"arn:aws:lambda:us-east-1:000000000000:function:F",`
	cases := []struct {
		construct, def string
		want           string
	}{
		{"Wait", in(`"Type":"Wait","Seconds":1,"Next":"B"`), `state "A": Type Wait is not supported by the local interpreter`},
		{"Parallel", in(`"Type":"Parallel","Branches":[{"StartAt":"X","States":{"X":{"Type":"Succeed"}}}],"Next":"B"`), `state "A": Type Parallel is not supported by the local interpreter`},
		{"Parallel inside a Map", inItem(`"Type":"Parallel","Branches":[],"End":true`), `state "A" ItemProcessor state "I": Type Parallel is not supported`},
		{"intrinsic States.Format", in(`"Type":"Pass","Parameters":{"x.$":"States.Format('{}', $.a)"},"Next":"B"`), `state "A": Parameters: field "x.$": intrinsic function States.Format is not supported by the local interpreter (it runs States.ArrayPartition)`},
		{"intrinsic States.UUID", in(task + `"Parameters":{"id.$":"States.UUID()"},"Next":"B"`), `state "A": Parameters: field "id.$": intrinsic function States.UUID is not supported`},
		{"intrinsic in a Map's ItemSelector", in(`"Type":"Map","ItemSelector":{"n.$":"States.ArrayLength($.a)"},"ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Succeed"}}},"Next":"B"`), `state "A": ItemSelector: field "n.$": intrinsic function States.ArrayLength is not supported`},
		{"a nested intrinsic", in(`"Type":"Pass","Parameters":{"x.$":"States.ArrayPartition(States.Array(1), 1)"},"Next":"B"`), `state "A": Parameters: field "x.$": intrinsic "States.ArrayPartition(States.Array(1), 1)": argument "States.Array(1)" is not supported`},
		{"choice operator NumericLessThan", in(`"Type":"Choice","Choices":[{"Variable":"$.n","NumericLessThan":1,"Next":"B"}]`), `state "A": Choices[0]: choice operator "NumericLessThan" is not supported by the local interpreter (it runs BooleanEquals, NumericGreaterThan, StringEquals, Or)`},
		{"choice operator StringMatches", in(`"Type":"Choice","Choices":[{"Variable":"$.s","StringMatches":"a*","Next":"B"}]`), `choice operator "StringMatches" is not supported`},
		{"choice operator IsPresent", in(`"Type":"Choice","Choices":[{"Variable":"$.s","IsPresent":true,"Next":"B"}]`), `choice operator "IsPresent" is not supported`},
		{"choice operator And", in(`"Type":"Choice","Choices":[{"And":[{"Variable":"$.a","BooleanEquals":true}],"Next":"B"}]`), `state "A": Choices[0]: choice operator "And" is not supported`},
		{"choice operator Not", in(`"Type":"Choice","Choices":[{"Not":{"Variable":"$.a","BooleanEquals":true},"Next":"B"}]`), `choice operator "Not" is not supported`},
		{"choice operator inside Or", in(`"Type":"Choice","Choices":[{"Or":[{"Variable":"$.a","StringEqualsPath":"$.b"}],"Next":"B"}]`), `state "A": Choices[0]: Or[0]: choice operator "StringEqualsPath" is not supported`},
		{"ResultSelector", in(task + `"ResultSelector":{"a.$":"$.a"},"Next":"B"`), `state "A": ResultSelector (result selectors) is not supported by the local interpreter`},
		{"TimeoutSecondsPath", in(task + `"TimeoutSecondsPath":"$.t","Next":"B"`), `state "A": TimeoutSecondsPath (a task timeout read from the input) is not supported`},
		{"HeartbeatSeconds", in(task + `"HeartbeatSeconds":5,"Next":"B"`), `state "A": HeartbeatSeconds (task heartbeats) is not supported`},
		{"ErrorPath", in(`"Type":"Fail","ErrorPath":"$.e"`), `state "A": ErrorPath (a Fail error read from the input) is not supported`},
		{"CausePath", in(`"Type":"Fail","CausePath":"$.c"`), `state "A": CausePath (a Fail cause read from the input) is not supported`},
		{"Map Iterator", in(`"Type":"Map","Iterator":{"StartAt":"I","States":{"I":{"Type":"Succeed"}}},"Next":"B"`), `state "A": Iterator (the legacy Map field; use ItemProcessor) is not supported`},
		{"Map Parameters", in(`"Type":"Map","Parameters":{},"ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Succeed"}}},"Next":"B"`), `state "A": field "Parameters" is not allowed in a Map state`},
		{"MaxConcurrencyPath", in(`"Type":"Map","MaxConcurrencyPath":"$.n","ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Succeed"}}},"Next":"B"`), `state "A": MaxConcurrencyPath (a Map concurrency read from the input) is not supported`},
		{"Distributed Map", in(`"Type":"Map","ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},"StartAt":"I","States":{"I":{"Type":"Succeed"}}},"Next":"B"`), `state "A" ItemProcessor: ProcessorConfig.Mode DISTRIBUTED is not supported by the local interpreter (it runs INLINE)`},
		{"ItemReader", in(`"Type":"Map","ItemReader":{},"ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Succeed"}}},"Next":"B"`), `state "A": ItemReader (a Distributed Map reading from S3) is not supported`},
		{"JitterStrategy", in(task + `"Retry":[{"ErrorEquals":["X"],"JitterStrategy":"FULL"}],"Next":"B"`), `state "A" Retry[0]: JitterStrategy (retry jitter) is not supported`},
		{"lambda:invoke", in(`"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"F"},"Next":"B"`), `state "A": Resource arn:aws:states:::lambda:invoke: service integrations are not supported by the local interpreter`},
		{"the item outside an ItemSelector", in(task + `"Parameters":{"i.$":"$$.Map.Item.Index"},"Next":"B"`), `state "A": Parameters: field "i.$": path "$$.Map.Item.Index": the local interpreter supports the context object ($$) only as $$.Execution.Id or $$.Execution.Name in a payload template, and $$.Map.Item.Index or $$.Map.Item.Value in a Map's ItemSelector`},
		{"the execution outside a payload", in(`"Type":"Pass","InputPath":"$$.Execution.Id","Next":"B"`), `state "A": InputPath: path "$$.Execution.Id": the local interpreter supports the context object`},
		{"the execution's input", in(task + `"Parameters":{"in.$":"$$.Execution.Input"},"Next":"B"`), `path "$$.Execution.Input": the local interpreter supports the context object`},
		{"context object other than the item", in(`"Type":"Map","ItemSelector":{"r.$":"$$.State.RetryCount"},"ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Succeed"}}},"Next":"B"`), `state "A": ItemSelector: field "r.$": path "$$.State.RetryCount": the local interpreter supports the context object`},
		{"a context path that only starts like the item", in(`"Type":"Map","ItemSelector":{"r.$":"$$.Map.Item.Indexes"},"ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Succeed"}}},"Next":"B"`), `state "A": ItemSelector: field "r.$": path "$$.Map.Item.Indexes": the local interpreter supports the context object`},
		{"a wildcard path", in(`"Type":"Pass","Parameters":{"all.$":"$.l[*].v"},"Next":"B"`), `state "A": Parameters: field "all.$": path "$.l[*].v": subscript [*] is not supported`},
		{"a dotted wildcard", in(`"Type":"Pass","InputPath":"$.l.*","Next":"B"`), `state "A": InputPath: path "$.l.*": wildcards are not supported`},
		{"a quoted field", in(`"Type":"Pass","InputPath":"$['a b']","Next":"B"`), `state "A": InputPath: path "$['a b']": subscript ['a b'] is not supported`},
		{"recursive descent", in(`"Type":"Choice","Choices":[{"Variable":"$..a","BooleanEquals":true,"Next":"B"}]`), `state "A": Choices[0]: field Variable: path "$..a": empty field name (recursive descent is not supported`},
		{"an execution timeout", `{"TimeoutSeconds":60,"StartAt":"A","States":{"A":{"Type":"Succeed"}}}`, `machine: TimeoutSeconds is not supported by the local interpreter`},
		{"JSONata", `{"QueryLanguage":"JSONata","StartAt":"A","States":{"A":{"Type":"Succeed"}}}`, `machine: QueryLanguage (JSONata) is not supported`},
		{"variables", in(`"Type":"Pass","Assign":{"x":1},"Next":"B"`), `state "A": Assign (variables) is not supported`},
	}
	for _, tc := range cases {
		t.Run(tc.construct, func(t *testing.T) {
			_, err := asl.Parse([]byte(tc.def), asl.Config{})
			var de *asl.DefinitionError
			if !errors.As(err, &de) {
				t.Fatalf("Parse = %v, want a *DefinitionError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error lacks %q:\n%v", tc.want, err)
			}
		})
	}
}
