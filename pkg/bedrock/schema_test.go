package bedrock

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// validSteps has a step of every kind, and of every form of the kinds whose fields depend on
// one another; each is accepted by the strict domain decoder.
var validSteps = []string{
	`{"kind":"goto","url":"http://app.test/"}`,
	`{"kind":"click","locator":"role=button[name=\"Go\"]","timeoutMs":500}`,
	`{"kind":"fill","locator":"label=Email","value":"a@b.c"}`,
	`{"kind":"select","locator":"css=#country","value":"FR"}`,
	`{"kind":"set","locator":"role=*[name=\"Delivery\"]","value":"express"}`,
	`{"kind":"click","locator":"text=Tile","clicks":2}`,
	`{"kind":"check","locator":"label=Terms"}`,
	`{"kind":"uncheck","locator":"label=News"}`,
	`{"kind":"press","locator":"css=input","key":"Enter"}`,
	`{"kind":"press","key":"Escape"}`,
	`{"kind":"hover","locator":"text=Menu"}`,
	`{"kind":"assert","assert":"url","condition":"contains","expected":"/done"}`,
	`{"kind":"assert","assert":"title","condition":"equals","expected":"Home"}`,
	`{"kind":"assert","assert":"text","locator":"css=h1","condition":"matches","expected":"^Hi"}`,
	`{"kind":"assert","assert":"value","locator":"label=Name","condition":"equals","expected":"Ada"}`,
	`{"kind":"assert","assert":"variable","actual":"total","condition":"equals","expected":"3"}`,
	`{"kind":"assertVisible","locator":"css=.ok","text":"Saved"}`,
	`{"kind":"assertHidden","locator":"css=.spinner"}`,
	`{"kind":"assertToast","text":"Saved"}`,
	`{"kind":"assertModal","text":"Are you sure?"}`,
	`{"kind":"assertValidationError","locator":"label=Email","text":"Required"}`,
	`{"kind":"assertConsole","level":"error","pattern":"TypeError","expect":"noMatch"}`,
	`{"kind":"assertRequest","method":"POST","urlPattern":"/api/save$","status":201}`,
	`{"kind":"a11yAudit","threshold":"serious","rules":["color-contrast"]}`,
	`{"kind":"a11yAudit","scope":"css=main","reportOnly":true}`,
	`{"kind":"wait","for":"url","url":"/dashboard"}`,
	`{"kind":"wait","for":"element","locator":"css=.row","state":"attached"}`,
	`{"kind":"wait","for":"time","ms":250}`,
	`{"kind":"screenshot","name":"after.png","locator":"css=main"}`,
	`{"kind":"extract","locator":"css=#total","variable":"total","attribute":"data-sum"}`,
	`{"kind":"intent","goal":"log in","values":{"user":"ada"},"steps":[{"kind":"click","locator":"text=Log in"}]}`,
}

// enumVariants sets every value the schema allows for the enum fields whose other fields do not
// depend on them, on a step of a kind that has the field; the decoder must accept each.
var enumVariants = map[string]string{
	"condition": `{"kind":"assert","assert":"title","condition":%q,"expected":"x"}`,
	"level":     `{"kind":"assertConsole","level":%q,"pattern":"x","expect":"match"}`,
	"expect":    `{"kind":"assertConsole","level":"error","pattern":"x","expect":%q}`,
	"method":    `{"kind":"assertRequest","method":%q,"urlPattern":"x"}`,
	"threshold": `{"kind":"a11yAudit","threshold":%q}`,
	"state":     `{"kind":"wait","for":"element","locator":"css=x","state":%q}`,
}

func TestSchemaAdmitsEveryValidStep(t *testing.T) {
	tools, err := buildTools()
	if err != nil {
		t.Fatal(err)
	}
	defs := tools[askOperations].schema["$defs"].(map[string]any)
	kinds := map[gardener.StepKind]bool{}
	for _, raw := range validSteps {
		var s gardener.Step
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatalf("fixture %s: %v", raw, err)
		}
		kinds[s.Kind] = true
		if err := validate(defs, defs["step"], decode(t, raw), "step"); err != nil {
			t.Errorf("the schema refuses the valid step %s: %v", raw, err)
		}
		if inner := validate(defs, defs["innerStep"], decode(t, raw), "step"); (inner == nil) == (s.Kind == gardener.Intent) {
			t.Errorf("inner step schema on %s: %v", raw, inner)
		}
	}
	for _, k := range gardener.Kinds() {
		if !kinds[k] {
			t.Errorf("no fixture of kind %s", k)
		}
	}
	for field, tmpl := range enumVariants {
		values := fieldSchemas[field]["enum"].([]string)
		for _, v := range values {
			raw := fmt.Sprintf(tmpl, v)
			var s gardener.Step
			if err := json.Unmarshal([]byte(raw), &s); err != nil {
				t.Errorf("the schema offers %s %q but the decoder refuses it: %v", field, v, err)
			}
		}
	}
}

func TestSchemaRefusesWhatTheDecoderRefuses(t *testing.T) {
	tools, err := buildTools()
	if err != nil {
		t.Fatal(err)
	}
	defs := tools[askOperations].schema["$defs"].(map[string]any)
	for _, raw := range []string{
		`{"kind":"click"}`,
		`{"kind":"click","locator":"css=a","value":"x"}`,
		`{"kind":"teleport","locator":"css=a"}`,
		`{"kind":"assertConsole","level":"fatal","pattern":"x","expect":"match"}`,
		`{"kind":"wait","for":"time","ms":-1}`,
		`{"kind":"intent","goal":"g","steps":[{"kind":"intent","goal":"h","steps":[]}]}`,
	} {
		if err := validate(defs, defs["step"], decode(t, raw), "step"); err == nil {
			t.Errorf("the schema admits %s", raw)
		}
	}
}

// The recorded good answers match their tool's schema, and the malformed one does not.
func TestRecordedAnswersAgainstSchemas(t *testing.T) {
	tools, err := buildTools()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		file, ask string
		valid     bool
	}{
		{"locator_good", askLocator, true},
		{"locator_abstain", askLocator, true},
		{"operations_good", askOperations, true},
		{"operations_none", askOperations, true},
		{"operations_rewrite_assertion", askOperations, true},
		{"diagnosis_good", askDiagnosis, true},
		{"intent_good", askIntent, true},
		{"operations_unknown_field", askOperations, false},
		{"operations_wrong_type", askOperations, false},
		{"locator_confidence_out_of_range", askLocator, false},
		{"diagnosis_unknown_class", askDiagnosis, false},
		{"intent_nested", askIntent, false},
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", c.file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Body struct {
				Output struct {
					Message struct {
						Content []struct {
							ToolUse *struct {
								Input any `json:"input"`
							} `json:"toolUse"`
						} `json:"content"`
					} `json:"message"`
				} `json:"output"`
			} `json:"body"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		schema := tools[c.ask].schema
		defs, _ := schema["$defs"].(map[string]any)
		err = validate(defs, schema, r.Body.Output.Message.Content[0].ToolUse.Input, "input")
		if (err == nil) != c.valid {
			t.Errorf("%s: schema validation error %v, want valid=%v", c.file, err, c.valid)
		}
	}
}

func decode(t *testing.T, raw string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// validate checks v against the subset of JSON Schema the tool schemas use, so the tests can
// tell whether a schema admits what the domain accepts.
func validate(defs map[string]any, schema any, v any, at string) error {
	s := schema.(map[string]any)
	if ref, ok := s["$ref"].(string); ok {
		return validate(defs, defs[strings.TrimPrefix(ref, "#/$defs/")], v, at)
	}
	if branches, ok := s["anyOf"].([]any); ok {
		var errs []string
		for _, b := range branches {
			err := validate(defs, b, v, at)
			if err == nil {
				return nil
			}
			errs = append(errs, err.Error())
		}
		return fmt.Errorf("%s matches no branch (%d tried)", at, len(errs))
	}
	if enum, ok := s["enum"].([]string); ok {
		str, _ := v.(string)
		if !slices.Contains(enum, str) {
			return fmt.Errorf("%s: %v is not one of %v", at, v, enum)
		}
	}
	switch s["type"] {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not an object", at)
		}
		props, _ := s["properties"].(map[string]any)
		for _, r := range required(s) {
			if _, ok := obj[r]; !ok {
				return fmt.Errorf("%s lacks %q", at, r)
			}
		}
		for k, fv := range obj {
			ps, ok := props[k]
			if !ok {
				if extra, ok := s["additionalProperties"].(map[string]any); ok {
					if err := validate(defs, extra, fv, at+"."+k); err != nil {
						return err
					}
					continue
				}
				return fmt.Errorf("%s has the unknown field %q", at, k)
			}
			if err := validate(defs, ps, fv, at+"."+k); err != nil {
				return err
			}
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s is not an array", at)
		}
		if least, ok := s["minItems"].(int); ok && len(arr) < least {
			return fmt.Errorf("%s has %d items, fewer than %d", at, len(arr), least)
		}
		for i, item := range arr {
			if err := validate(defs, s["items"], item, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s is not a string", at)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s is not a boolean", at)
		}
	case "integer", "number":
		n, ok := v.(float64)
		if !ok || (s["type"] == "integer" && n != float64(int64(n))) {
			return fmt.Errorf("%s is not an %s", at, s["type"])
		}
		if lo, ok := s["minimum"].(int); ok && n < float64(lo) {
			return fmt.Errorf("%s: %v is below %d", at, n, lo)
		}
		if hi, ok := s["maximum"].(int); ok && n > float64(hi) {
			return fmt.Errorf("%s: %v is above %d", at, n, hi)
		}
	}
	return nil
}

func required(s map[string]any) []string {
	r, _ := s["required"].([]string)
	return r
}
