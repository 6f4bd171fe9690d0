package template_test

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/local/template"
)

func load(t *testing.T, overrides map[string]string) *template.Template {
	t.Helper()
	tpl, err := template.Load("testdata/template.yaml", overrides)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func TestParameters(t *testing.T) {
	tpl := load(t, nil)
	want := map[string]template.Parameter{
		"Stage":      {Type: "String", Default: "dev", HasDefault: true},
		"ModelId":    {Type: "String", Default: "anthropic.claude-3-5-sonnet", HasDefault: true},
		"AlarmEmail": {Type: "String"},
		"StagingCap": {Type: "Number", Default: "10", HasDefault: true},
	}
	if !reflect.DeepEqual(tpl.Parameters, want) {
		t.Errorf("parameters\n got %+v\nwant %+v", tpl.Parameters, want)
	}
	if _, err := template.Load("testdata/template.yaml", map[string]string{"Nope": "x"}); err == nil {
		t.Error("an override of an unknown parameter was accepted")
	}
}

func TestFunctions(t *testing.T) {
	tpl := load(t, nil)
	global := map[string]string{"TABLE_NAME": "gardener-dev", "STAGE": "dev", "REGION": "local"}
	with := func(extra map[string]string) map[string]string {
		env := maps.Clone(global)
		maps.Copy(env, extra)
		return env
	}
	cases := []struct {
		id      string
		pkg     string
		handler string
		command []string
		runtime string
		arch    []string
		env     map[string]string
		events  []template.Event
	}{
		{
			id: "SelfHealFunction", pkg: "Image", command: []string{"self-heal"}, arch: []string{"arm64"},
			env: with(map[string]string{
				"STAGE": "dev-self-heal", "MODEL_ID": "anthropic.claude-3-5-sonnet",
				"TOPIC_ARN": "arn:aws:sns:local:000000000000:gardener-repairs-dev",
			}),
		},
		{
			id: "PersistFunction", pkg: "Zip", handler: "bootstrap", runtime: "provided.al2023", arch: []string{"arm64"},
			env: global,
		},
		{
			id: "RadarFunction", pkg: "Image", command: []string{"radar"}, arch: []string{"arm64"},
			env: with(map[string]string{"EVENT_BUS_NAME": "Bus"}),
			events: []template.Event{
				{Name: "Sweep", Type: "Schedule", Schedule: "rate(6 hours)"},
			},
		},
		{
			id: "ApiFunction", pkg: "Zip", handler: "bootstrap", runtime: "provided.al2023", arch: []string{"arm64"},
			env: with(map[string]string{"REPAIR_STATE_MACHINE_ARN": "arn:aws:states:local:000000000000:stateMachine:RepairStateMachine"}),
			events: []template.Event{
				{Name: "Approve", Type: "HttpApi", Path: "/proposals/{id}/approve", Method: "POST", API: "GardenApi"},
				{Name: "Queue", Type: "HttpApi", Path: "/projects/{projectId}/proposals", Method: "GET", API: "GardenApi"},
				{Name: "RunFailed", Type: "EventBridgeRule", Pattern: json.RawMessage(`{"detail-type":["Run Failed"],"source":["driftgardener.platform"]}`)},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			f := tpl.Functions[tc.id]
			if f == nil {
				t.Fatalf("function %s missing", tc.id)
			}
			if f.PackageType != tc.pkg || f.Handler != tc.handler || f.Runtime != tc.runtime ||
				!reflect.DeepEqual(f.Command, tc.command) || !reflect.DeepEqual(f.Architectures, tc.arch) {
				t.Errorf("got %+v", f)
			}
			env := map[string]string{}
			for k, v := range f.Environment {
				s, err := tpl.ResolveString(v)
				if err != nil {
					t.Fatalf("env %s: %v", k, err)
				}
				env[k] = s
			}
			if !reflect.DeepEqual(env, tc.env) {
				t.Errorf("environment\n got %v\nwant %v", env, tc.env)
			}
			if !reflect.DeepEqual(f.Events, tc.events) {
				t.Errorf("events\n got %+v\nwant %+v", f.Events, tc.events)
			}
			if f.ARN() != "arn:aws:lambda:local:000000000000:function:"+tc.id {
				t.Errorf("ARN %s", f.ARN())
			}
		})
	}
	if got := len(tpl.Functions); got != 4 {
		t.Errorf("%d functions, want 4", got)
	}
}

func TestOverrides(t *testing.T) {
	tpl := load(t, map[string]string{"Stage": "prod"})
	env := tpl.Functions["SelfHealFunction"].Environment
	for k, want := range map[string]string{"STAGE": "prod-self-heal", "TABLE_NAME": "gardener-prod"} {
		if got, err := tpl.ResolveString(env[k]); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", k, got, err, want)
		}
	}
	if got := string(tpl.StateMachines["RepairStateMachine"].Events[0].Pattern); !strings.Contains(got, `"projectStage":["prod"]`) {
		t.Errorf("a !Ref inside an event pattern was not resolved: %s", got)
	}
}

func TestStateMachines(t *testing.T) {
	tpl := load(t, nil)
	repair := tpl.StateMachines["RepairStateMachine"]
	wantSubs := map[string]string{
		"SelfHealFunctionArn": "arn:aws:lambda:local:000000000000:function:SelfHealFunction",
		"PersistFunctionArn":  "arn:aws:lambda:local:000000000000:function:PersistFunction",
		"TopicArn":            "arn:aws:sns:local:000000000000:gardener-repairs-dev",
		"TableName":           "gardener-dev",
		"Cap":                 "10",
	}
	if repair.DefinitionURI != "statemachines/repair.asl.json" || !reflect.DeepEqual(repair.Substitutions, wantSubs) {
		t.Errorf("repair: %+v", repair)
	}
	if repair.ARN() != "arn:aws:states:local:000000000000:stateMachine:RepairStateMachine" {
		t.Errorf("ARN %s", repair.ARN())
	}
	wantRepair := []template.Event{
		{Name: "RunFailed", Type: "EventBridgeRule", Pattern: json.RawMessage(`{"detail":{"control":[false,{"exists":false}],"probe":[{"exists":false}],"projectStage":["dev"],"trigger":["scheduled-suite","worker"]},"detail-type":["Run Failed"],"source":["driftgardener.platform"]}`)},
	}
	if !reflect.DeepEqual(repair.Events, wantRepair) {
		t.Errorf("repair events\n got %s\nwant %s", repair.Events[0].Pattern, wantRepair[0].Pattern)
	}
	staging := tpl.StateMachines["StagingStateMachine"]
	wantEvents := []template.Event{
		{Name: "SweepCompleted", Type: "EventBridgeRule", Pattern: json.RawMessage(`{"detail-type":["Radar Sweep Completed"],"source":["driftgardener.radar"]}`)},
	}
	if !reflect.DeepEqual(staging.Events, wantEvents) {
		t.Errorf("staging events\n got %+v\nwant %+v", staging.Events, wantEvents)
	}
}

func TestDefinition(t *testing.T) {
	tpl := load(t, nil)
	def, err := tpl.Definition("RepairStateMachine")
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(def, &d); err != nil {
		t.Fatalf("substituted definition is not JSON: %v\n%s", err, def)
	}
	states := d["States"].(map[string]any)
	if got := states["Persist"].(map[string]any)["Resource"]; got != "arn:aws:lambda:local:000000000000:function:PersistFunction" {
		t.Errorf("Persist resource %v", got)
	}
	if strings.Contains(string(def), "${") {
		t.Errorf("placeholders left: %s", def)
	}

	_, err = tpl.Definition("StagingStateMachine")
	if err == nil {
		t.Fatal("mismatched placeholders were accepted")
	}
	for _, want := range []string{
		"placeholder ${MissingArn} has no DefinitionSubstitutions entry",
		"DefinitionSubstitutions UnusedArn is used by no placeholder",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := tpl.Definition("Nope"); err == nil {
		t.Error("an unknown state machine was accepted")
	}
}

func TestRoutes(t *testing.T) {
	tpl := load(t, nil)
	want := []template.Route{
		{Method: "GET", Path: "/projects/{projectId}/proposals", Function: "ApiFunction", API: "GardenApi"},
		{Method: "POST", Path: "/proposals/{id}/approve", Function: "ApiFunction", API: "GardenApi"},
	}
	if !reflect.DeepEqual(tpl.Routes, want) {
		t.Errorf("routes\n got %+v\nwant %+v", tpl.Routes, want)
	}
}

func TestFunctionARN(t *testing.T) {
	for arn, want := range map[string]string{
		template.FunctionARN("PersistFunction"):                 "PersistFunction",
		template.FunctionARN("PersistFunction") + ":$LATEST":    "PersistFunction",
		"arn:aws:lambda:us-east-1:123:function:PersistFunction": "",
	} {
		got, ok := template.FunctionFromARN(arn)
		if got != want || ok != (want != "") {
			t.Errorf("FunctionFromARN(%s) = %q, %v", arn, got, ok)
		}
	}
}

func TestBadTemplates(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"not yaml", "Resources: [", "not YAML"},
		{"no resources", "Parameters: {}", "no Resources"},
		{"unknown tag", "Resources:\n  A:\n    Type: AWS::SNS::Topic\n    Properties: {TopicName: !Bogus x}", "unknown tag !Bogus"},
		{"bad GetAtt", "Resources:\n  A:\n    Type: AWS::SNS::Topic\n    Properties: {TopicName: !GetAtt nodot}", "needs Resource.Attribute"},
		{"S3 definition", "Resources:\n  M:\n    Type: AWS::Serverless::StateMachine\n    Properties: {DefinitionUri: {Bucket: b, Key: k}}", "S3 location"},
		{"pattern string", "Resources:\n  M:\n    Type: AWS::Serverless::StateMachine\n    Properties:\n      DefinitionUri: m.json\n      Events: {E: {Type: EventBridgeRule, Properties: {Pattern: '{\"source\":[\"x\"]}'}}}", "event E: Pattern must be a mapping"},
		{"unresolvable substitution", "Resources:\n  M:\n    Type: AWS::Serverless::StateMachine\n    Properties:\n      DefinitionUri: m.json\n      DefinitionSubstitutions: {X: !GetAtt Nowhere.Arn}", "resource M (AWS::Serverless::StateMachine): DefinitionSubstitutions X: Fn::GetAtt Nowhere.Arn: no resource Nowhere"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := template.Parse([]byte(tc.yaml), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestFixtureLints keeps the fixture a template CloudFormation accepts, so the reader is
// tested on the real shape of things.
func TestFixtureLints(t *testing.T) {
	bin, err := exec.LookPath("cfn-lint")
	if err != nil {
		t.Skip("SKIP: cfn-lint is not installed; install it with `apt-get install -y pipx && pipx install cfn-lint` to lint the fixture template")
	}
	out, err := exec.Command(bin, "testdata/template.yaml").CombinedOutput()
	if err != nil {
		t.Errorf("cfn-lint rejects testdata/template.yaml (%v):\n%s", err, out)
	}
}

// TestResolveString covers each intrinsic the local stack resolves, in short and long form.
func TestResolveString(t *testing.T) {
	tpl, err := template.Parse([]byte(`
Parameters:
  Stage: {Type: String, Default: dev}
  NoDefault: {Type: String}
Resources:
  Topic: {Type: AWS::SNS::Topic}
  Logs: {Type: AWS::Logs::LogGroup}
  Machine: {Type: AWS::Serverless::StateMachine, Properties: {DefinitionUri: m.json}}
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: bootstrap
      Runtime: provided.al2023
      Environment:
        Variables:
          Sub: !Sub "${Stage}-${Fn.Arn}-${AWS::Region}-${AWS::AccountId}-${AWS::Partition}-${!Literal}"
          SubVars: !Sub ["${X}/${Stage}", {X: !Ref Topic}]
          LongSub: {"Fn::Sub": "${Machine.Name}"}
          LongRef: {"Ref": "Stage"}
          MachineRef: !Ref Machine
          TopicName: !GetAtt Topic.TopicName
          Other: !GetAtt Logs.Arn
          StackRef: !Ref AWS::StackName
          Literal: 7
          Missing: !Ref Nowhere
          NoDefault: !Ref NoDefault
          BadAttr: !GetAtt Topic.Nope
          NotString: [a, b]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ key, want, err string }{
		{"Sub", "dev-arn:aws:lambda:local:000000000000:function:Fn-local-000000000000-aws-${Literal}", ""},
		{"SubVars", "arn:aws:sns:local:000000000000:Topic/dev", ""},
		{"LongSub", "Machine", ""},
		{"LongRef", "dev", ""},
		{"MachineRef", "arn:aws:states:local:000000000000:stateMachine:Machine", ""},
		{"TopicName", "Topic", ""},
		{"Other", "arn:aws:local:local:000000000000:AWS-Logs-LogGroup/Logs", ""},
		{"StackRef", "local", ""},
		{"Literal", "7", ""},
		{"Missing", "", "Ref Nowhere: no parameter or resource"},
		{"NoDefault", "", "parameter NoDefault has no default and no override"},
		{"BadAttr", "", "attribute Nope of a AWS::SNS::Topic has no local value"},
		{"NotString", "", `["a","b"] is not a string`},
	}
	env := tpl.Functions["Fn"].Environment
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			got, err := tpl.ResolveString(env[tc.key])
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("got %q, %v; want an error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestParseRefusesUnsupported proves each template construct the local stack does not
// resolve or wire is refused when the template is parsed, with an error naming the construct
// and where it is, so a template that starts to use one fails loudly on the local stack.
func TestParseRefusesUnsupported(t *testing.T) {
	// fn is a template whose one function has the environment variable X set to value.
	fn := func(value string) string {
		return "Parameters:\n  Stage: {Type: String, Default: dev}\nResources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Properties:\n      Environment:\n        Variables:\n          X: " + value + "\n"
	}
	const at = "Resources.Fn.Properties.Environment.Variables.X"
	cases := []struct{ construct, yaml, want string }{
		{"!If", fn("!If [IsProd, a, b]"), at + ": Fn::If is not supported by the local stack (it resolves Ref, Fn::GetAtt, Fn::Sub)"},
		{"!Equals", fn("!Equals [!Ref Stage, prod]"), at + ": Fn::Equals is not supported"},
		{"!And", fn("!And [a, b]"), at + ": Fn::And is not supported"},
		{"!Or", fn("!Or [a, b]"), at + ": Fn::Or is not supported"},
		{"!Not", fn("!Not [a]"), at + ": Fn::Not is not supported"},
		{"!Condition", fn("!Condition IsProd"), at + ": Condition is not supported"},
		{"!FindInMap", fn("!FindInMap [Sizes, !Ref Stage, Memory]"), at + ": Fn::FindInMap is not supported"},
		{"!Select", fn(`!Select [0, [a, b]]`), at + ": Fn::Select is not supported"},
		{"!Split", fn(`!Split [",", "a,b"]`), at + ": Fn::Split is not supported"},
		{"!Join", fn(`!Join ["-", [a, !Ref Stage]]`), at + ": Fn::Join is not supported"},
		{"!Base64", fn("!Base64 hi"), at + ": Fn::Base64 is not supported"},
		{"!ImportValue", fn("!ImportValue shared"), at + ": Fn::ImportValue is not supported"},
		{"!GetAZs inside !Sub", fn(`!Sub ["${Z}", {Z: !GetAZs ""}]`), at + ".Fn::Sub[1].Z: Fn::GetAZs is not supported"},
		{"long-form Fn::If", fn(`{"Fn::If": [IsProd, a, b]}`), at + ": Fn::If is not supported"},
		{"in a list", "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Properties:\n      Architectures: [!If [C, arm64, x86_64]]\n", "Resources.Fn.Properties.Architectures[0]: Fn::If is not supported"},
		{"in Outputs", fn("a") + "Outputs:\n  O: {Value: !Join [\"\", [a]]}\n", "Outputs.O.Value: Fn::Join is not supported"},
		{"Conditions", "Conditions:\n  IsProd: !Equals [a, b]\n" + fn("a"), "Conditions are not supported by the local stack"},
		{"Mappings", "Mappings:\n  Sizes: {dev: {Memory: 512}}\n" + fn("a"), "Mappings are not supported by the local stack"},
		{"a resource Condition", "Resources:\n  T:\n    Type: AWS::SNS::Topic\n    Condition: IsProd\n", "resource T (AWS::SNS::Topic): its Condition is not supported by the local stack"},
		{"AWS::Events::Rule", "Resources:\n  R:\n    Type: AWS::Events::Rule\n    Properties: {ScheduleExpression: rate(1 hour)}\n", "resource R (AWS::Events::Rule): the resource type is not supported by the local stack"},
		{"AWS::SQS::Queue", "Resources:\n  Q: {Type: AWS::SQS::Queue}\n", "resource Q (AWS::SQS::Queue): the resource type is not supported by the local stack"},
		{"AWS::Serverless::SimpleTable", "Resources:\n  T: {Type: AWS::Serverless::SimpleTable}\n", "resource T (AWS::Serverless::SimpleTable): the resource type is not supported"},
		{"ScheduleV2", "Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties:\n      Events: {Nightly: {Type: ScheduleV2, Properties: {ScheduleExpression: rate(1 day)}}}\n", "resource F (AWS::Serverless::Function): event Nightly: type ScheduleV2 is not supported by the local stack (it wires HttpApi, EventBridgeRule, Schedule)"},
		{"an SQS event", "Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties:\n      Events: {Q: {Type: SQS, Properties: {Queue: arn}}}\n", "event Q: type SQS is not supported"},
		{"a REST Api event", "Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties:\n      Events: {A: {Type: Api, Properties: {Path: /, Method: get}}}\n", "event A: type Api is not supported"},
		{"an inline Definition", "Resources:\n  M:\n    Type: AWS::Serverless::StateMachine\n    Properties:\n      Definition: {StartAt: A, States: {A: {Type: Succeed}}}\n", "resource M (AWS::Serverless::StateMachine): an inline Definition is not supported by the local stack: use DefinitionUri"},
		{"an HttpApi DefinitionBody", "Resources:\n  A:\n    Type: AWS::Serverless::HttpApi\n    Properties:\n      DefinitionBody: {openapi: 3.0.1}\n", "resource A (AWS::Serverless::HttpApi): DefinitionBody is not supported by the local stack"},
	}
	for _, tc := range cases {
		t.Run(tc.construct, func(t *testing.T) {
			_, err := template.Parse([]byte(tc.yaml), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// BenchmarkLoad measures reading the fixture template, what the local stack does at start.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := template.Load("testdata/template.yaml", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMemorySize: a function's memory is its own MemorySize, else Globals', else SAM's 128 MB;
// a size Lambda does not offer is refused where it is written.
// TestTimeout: a function's own Timeout, else the Globals', else SAM's 3 s; one past Lambda's
// 900 s is refused.
func TestTimeout(t *testing.T) {
	tpl, err := template.Load("../../../template.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]int{"SelfHealFunction": 600, "RadarFunction": 900, "ApiFunction": 60} {
		if got := tpl.Functions[id].Timeout; got != want {
			t.Errorf("%s: Timeout %d, want %d", id, got, want)
		}
	}
	dir := t.TempDir()
	for body, want := range map[string]string{
		"Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties: {Handler: bootstrap, Runtime: provided.al2023}\n": "",
		"Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties: {Timeout: 901}\n":                                 "Timeout",
	} {
		path := dir + "/t.yaml"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		tpl, err := template.Load(path, nil)
		switch {
		case want == "" && (err != nil || tpl.Functions["F"].Timeout != 3):
			t.Errorf("no Timeout anywhere: %v; want SAM's 3 s", err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("Timeout 901: %v; want it refused", err)
		}
	}
}

func TestMemorySize(t *testing.T) {
	tpl, err := template.Load("../../../template.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]int{"SelfHealFunction": 2048, "ApiFunction": 512} {
		if got := tpl.Functions[id].MemorySize; got != want {
			t.Errorf("%s: MemorySize %d, want %d", id, got, want)
		}
	}
	dir := t.TempDir()
	for body, want := range map[string]string{
		"Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties: {Handler: bootstrap, Runtime: provided.al2023}\n": "",
		"Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties: {MemorySize: 64}\n":                               "MemorySize",
	} {
		path := dir + "/t.yaml"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		tpl, err := template.Load(path, nil)
		switch {
		case want == "" && (err != nil || tpl.Functions["F"].MemorySize != 128):
			t.Errorf("no MemorySize anywhere: %v; want SAM's 128 MB", err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("MemorySize 64: %v; want it refused", err)
		}
	}
}
