package template_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
			env: map[string]string{
				"TABLE_NAME": "gardener-dev", "STAGE": "development", "LOG_RETENTION": "7",
				"MODEL_ID": "anthropic.claude-3-5-sonnet", "TOPIC_ARN": "arn:aws:sns:local:000000000000:gardener-repairs-dev",
			},
		},
		{
			id: "PersistFunction", pkg: "Zip", handler: "bootstrap", runtime: "provided.al2023", arch: []string{"arm64"},
			env: map[string]string{"TABLE_NAME": "gardener-dev", "STAGE": "dev", "LOG_RETENTION": "7"},
		},
		{
			id: "RadarFunction", pkg: "Image", command: []string{"radar"}, arch: []string{"arm64"},
			env: map[string]string{"TABLE_NAME": "gardener-dev", "STAGE": "dev", "LOG_RETENTION": "7"},
			events: []template.Event{
				{Name: "Nightly", Type: "ScheduleV2", Schedule: "cron(0 2 * * ? *)"},
				{Name: "Sweep", Type: "Schedule", Schedule: "rate(6 hours)"},
			},
		},
		{
			id: "ApiFunction", pkg: "Zip", handler: "bootstrap", runtime: "provided.al2023", arch: []string{"arm64"},
			env: map[string]string{"TABLE_NAME": "gardener-dev", "STAGE": "dev", "LOG_RETENTION": "7"},
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
	if got := len(tpl.Functions); got != 5 {
		t.Errorf("%d functions, want 5", got)
	}
}

func TestOverridesAndConditions(t *testing.T) {
	tpl := load(t, map[string]string{"Stage": "prod"})
	env := tpl.Functions["SelfHealFunction"].Environment
	for k, want := range map[string]string{"STAGE": "production", "TABLE_NAME": "gardener-prod", "LOG_RETENTION": "90"} {
		if got, err := tpl.ResolveString(env[k]); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", k, got, err, want)
		}
	}
	if got := string(tpl.Rules["RunFailedRule"].EventPattern); !strings.Contains(got, `"projectStage":["prod"]`) {
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
	if repair.DefinitionURI != "statemachines/repair.asl.json" || !reflect.DeepEqual(repair.Substitutions, wantSubs) || len(repair.Unresolved) != 0 {
		t.Errorf("repair: %+v", repair)
	}
	if repair.ARN() != "arn:aws:states:local:000000000000:stateMachine:RepairStateMachine" {
		t.Errorf("ARN %s", repair.ARN())
	}
	staging := tpl.StateMachines["StagingStateMachine"]
	if _, ok := staging.Unresolved["ImportedArn"]; !ok {
		t.Errorf("ImportedArn should be unresolved locally: %+v", staging)
	}
	wantEvents := []template.Event{
		{Name: "SweepCompleted", Type: "EventBridgeRule", Pattern: json.RawMessage(`{"detail":{"atRisk":[{"numeric":[">",0]}]},"detail-type":["Radar Sweep Completed"],"source":["driftgardener.radar"]}`)},
		{Name: "Weekly", Type: "Schedule", Schedule: "cron(0 6 ? * MON *)"},
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
		"placeholder ${ImportedArn}: its substitution cannot be resolved locally: Fn::ImportValue",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := tpl.Definition("Nope"); err == nil {
		t.Error("an unknown state machine was accepted")
	}
}

func TestRulesTopicsTables(t *testing.T) {
	tpl := load(t, nil)
	rf := tpl.Rules["RunFailedRule"]
	if !reflect.DeepEqual(rf.Targets, []string{"RepairStateMachine"}) {
		t.Errorf("RunFailedRule targets %v", rf.Targets)
	}
	var pat map[string]any
	if err := json.Unmarshal(rf.EventPattern, &pat); err != nil {
		t.Fatal(err)
	}
	if want := `[{"exists":false}]`; describe(pat["detail"].(map[string]any)["probe"]) != want {
		t.Errorf("probe pattern %v", pat["detail"])
	}
	radar := tpl.Rules["RadarRule"]
	if radar.ScheduleExpression != "rate(30 minutes)" || !reflect.DeepEqual(radar.Targets, []string{"RadarFunction"}) || radar.State != "ENABLED" {
		t.Errorf("RadarRule %+v", radar)
	}
	if tp := tpl.Topics["RepairEventsTopic"]; tp == nil || tp.TopicName != "gardener-repairs-dev" {
		t.Errorf("topic %+v", tp)
	}
	want := &template.Table{LogicalID: "GardenTable", TableName: "gardener-dev", HashKey: "pk", RangeKey: "sk",
		Indexes: []template.Index{{Name: "gsi1", HashKey: "gsi1pk", RangeKey: "sk"}}}
	if got := tpl.Tables["GardenTable"]; !reflect.DeepEqual(got, want) {
		t.Errorf("table %+v", got)
	}
}

func TestRoutes(t *testing.T) {
	tpl := load(t, nil)
	want := []template.Route{
		{Method: "GET", Path: "/projects/{projectId}/proposals", Function: "ApiFunction", API: "GardenApi"},
		{Method: "GET", Path: "/projects/{projectId}/settings", Function: "SettingsFunction", API: "GardenApi"},
		{Method: "PUT", Path: "/projects/{projectId}/settings", Function: "SettingsFunction", API: "GardenApi"},
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
		{"rule target outside", "Resources:\n  R:\n    Type: AWS::Events::Rule\n    Properties:\n      ScheduleExpression: rate(1 hour)\n      Targets: [{Id: x, Arn: arn:aws:lambda:us-east-1:1:function:f}]", "does not name a resource"},
		{"bad pattern string", "Resources:\n  R:\n    Type: AWS::Events::Rule\n    Properties: {EventPattern: '{nope'}", "not JSON"},
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

// TestInlineDefinition covers a Definition written in the template instead of DefinitionUri.
func TestInlineDefinition(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "template.yaml")
	if err := os.WriteFile(path, []byte(`Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties: {Handler: bootstrap, Runtime: provided.al2023}
  M:
    Type: AWS::Serverless::StateMachine
    Properties:
      DefinitionSubstitutions: {FnArn: !GetAtt Fn.Arn}
      Definition:
        StartAt: Call
        States:
          Call: {Type: Task, Resource: "${FnArn}", End: true}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	tpl, err := template.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	def, err := tpl.Definition("M")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(def), `"Resource":"arn:aws:lambda:local:000000000000:function:Fn"`) {
		t.Errorf("definition %s", def)
	}
}

func describe(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
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

// TestResolveString covers each intrinsic the local stack resolves, in short form.
func TestResolveString(t *testing.T) {
	tpl, err := template.Parse([]byte(`
Parameters:
  Stage: {Type: String, Default: dev}
  Names: {Type: CommaDelimitedList, Default: "a,b,c"}
Conditions:
  IsDev: !Equals [!Ref Stage, dev]
  Both: !And [!Condition IsDev, !Not [!Equals [!Ref Stage, prod]]]
Mappings:
  Sizes: {dev: {Memory: 512}}
Resources:
  Fn: {Type: AWS::Serverless::Function, Properties: {Handler: bootstrap, Runtime: provided.al2023}}
  Topic: {Type: AWS::SNS::Topic}
  Queue: {Type: AWS::SQS::Queue}
  Values:
    Type: AWS::SSM::Parameter
    Properties:
      Sub: !Sub "${Stage}-${Fn.Arn}-${AWS::Region}-${AWS::AccountId}-${!Literal}"
      SubVars: !Sub ["${X}/${Stage}", {X: !Ref Topic}]
      Join: !Join [":", [a, !Ref Stage, !GetAtt Topic.TopicName]]
      Select: !Select [1, !Split [",", "x,y,z"]]
      If: !If [Both, yes, no]
      Map: !FindInMap [Sizes, !Ref Stage, Memory]
      B64: !Base64 hi
      Other: !GetAtt Queue.Arn
      StackRef: !Ref AWS::StackName
      Import: !ImportValue shared
      AZ: !Select [0, !GetAZs ""]
      Missing: !Ref Nowhere
      BadAttr: !GetAtt Topic.Nope
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ key, want, err string }{
		{"Sub", "dev-arn:aws:lambda:local:000000000000:function:Fn-local-000000000000-${Literal}", ""},
		{"SubVars", "arn:aws:sns:local:000000000000:Topic/dev", ""},
		{"Join", "a:dev:Topic", ""},
		{"Select", "y", ""},
		{"If", "yes", ""},
		{"Map", "512", ""},
		{"B64", "aGk=", ""},
		{"Other", "arn:aws:local:local:000000000000:AWS-SQS-Queue/Queue", ""},
		{"StackRef", "local", ""},
		{"Import", "", "Fn::ImportValue cannot be resolved on the local stack"},
		{"AZ", "", "Fn::GetAZs cannot be resolved"},
		{"Missing", "", "Ref Nowhere: no parameter or resource"},
		{"BadAttr", "", "attribute Nope of a AWS::SNS::Topic has no local value"},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			got, err := tpl.ResolveString(tpl.Property("Values", tc.key))
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

// BenchmarkLoad measures reading the fixture template, what the local stack does at start.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := template.Load("testdata/template.yaml", nil); err != nil {
			b.Fatal(err)
		}
	}
}
