package bedrock

import (
	"fmt"
	"maps"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// The schemas below tell the model the exact shape of each answer. They are built from the
// domain's own table of step fields (gardener.StepFields), so the model is shown the format the
// strict decoder enforces; the decoder still judges every answer, because a model may ignore a
// schema and not every model on Bedrock enforces one.

// locatorHelp is the locator grammar of DESIGN.md §5, for field descriptions.
const locatorHelp = `A locator string: css=SELECTOR (the default for a bare string), xpath=EXPR, text=TEXT, role=ROLE[name="NAME"] (role=*[name="NAME"]: any role; role=ROLE[name*="PART"]: the name contains PART, for a name that also carries live data such as a count or a price), label=TEXT, placeholder=TEXT or testid=ID; quote TEXT ("…") for an exact match.`

func enumOf[T ~string](values ...T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

func stringField(description string) map[string]any {
	return map[string]any{"type": "string", "description": description}
}

func enumField(description string, values []string) map[string]any {
	return map[string]any{"type": "string", "enum": values, "description": description}
}

func countField(description string) map[string]any {
	return map[string]any{"type": "integer", "minimum": 0, "description": description}
}

// fieldSchemas describes every step field the decoder knows, by its JSON name. "steps" (an
// intent block's inner steps) is added by stepSchemas, since it refers to the inner step schema.
var fieldSchemas = map[string]map[string]any{
	"locator":    {"$ref": "#/$defs/locator"},
	"scope":      {"$ref": "#/$defs/locator"},
	"url":        stringField("goto: the address to open; wait for url: the URL pattern awaited."),
	"value":      stringField("The value entered (fill), the option picked (select), or either or a checkbox's state, whatever the control is (set)."),
	"key":        stringField(`The key pressed, e.g. "Enter".`),
	"clicks":     map[string]any{"type": "integer", "minimum": 1, "maximum": gardener.MaxClicks, "description": "click: clicks in a row, 2 for a double click; absent is one."},
	"assert":     enumField("What an assert step compares.", enumOf(gardener.SubjectURL, gardener.SubjectText, gardener.SubjectTitle, gardener.SubjectValue, gardener.SubjectVariable)),
	"condition":  enumField("How the observed value is compared with the expected one.", enumOf(gardener.Equals, gardener.Contains, gardener.Matches)),
	"expected":   stringField("The value an assert expects."),
	"actual":     stringField("assert of variable: the expression compared."),
	"text":       stringField("The text the check expects."),
	"level":      enumField("The console level checked.", []string{"error", "warning", "info", "log"}),
	"pattern":    stringField("A regular expression (RE2) over console message text."),
	"expect":     enumField("Whether the console pattern must appear or must not.", enumOf(gardener.ExpectMatch, gardener.ExpectNoMatch)),
	"method":     enumField("The HTTP method of the request checked.", []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}),
	"status":     map[string]any{"type": "integer", "minimum": 100, "maximum": 599, "description": "The HTTP status the request must get."},
	"urlPattern": stringField("A regular expression (RE2) over the request URL."),
	"rules": map[string]any{
		"type": "array", "items": map[string]any{"type": "string"},
		"description": "axe rule ids the audit runs; absent means all.",
	},
	"threshold":  enumField("The lowest impact that fails the audit.", []string{"minor", "moderate", "serious", "critical"}),
	"reportOnly": map[string]any{"type": "boolean", "description": "Report violations without failing."},
	"for":        enumField("What a wait step waits for.", enumOf(gardener.WaitURL, gardener.WaitElement, gardener.WaitTime)),
	"state":      enumField("wait for element: the state awaited.", []string{"visible", "hidden", "attached"}),
	"ms":         countField("wait for time: milliseconds."),
	"name":       stringField("screenshot: the file name."),
	"variable":   stringField("extract: the variable the value is stored in."),
	"attribute":  stringField("extract: the attribute read instead of the text."),
	"goal":       stringField("intent: what the block achieves, in words."),
	"values": map[string]any{
		"type": "object", "additionalProperties": map[string]any{"type": "string"},
		"description": "intent: the values the block uses.",
	},
	"timeoutMs": countField("A time limit for this step in milliseconds; absent takes the default."),
}

// stepSchemas returns the schema of a step and of an inner step (inside an intent block: any
// kind but intent), each one branch per kind with exactly the fields the kind accepts, its
// required ones marked. A step refers to the inner step for every kind but intent, and locators
// refer to one definition, so the schema a model reads has each thing once.
func stepSchemas() (step, innerStep map[string]any, err error) {
	var inner []any
	var intent map[string]any
	for _, kind := range gardener.Kinds() {
		fields, required, ok := gardener.StepFields(kind)
		if !ok {
			return nil, nil, fmt.Errorf("step kind %q has no field table", kind)
		}
		props := map[string]any{"kind": map[string]any{"type": "string", "enum": []string{string(kind)}}}
		for _, f := range fields {
			if f == "steps" {
				props[f] = map[string]any{
					"type": "array", "minItems": 1, "items": map[string]any{"$ref": "#/$defs/innerStep"},
					"description": "The block's steps, in order; blocks do not nest.",
				}
				continue
			}
			s, ok := fieldSchemas[f]
			if !ok {
				return nil, nil, fmt.Errorf("step field %q of kind %s has no schema", f, kind)
			}
			props[f] = s
		}
		branch := map[string]any{
			"type":                 "object",
			"properties":           props,
			"required":             append([]string{"kind"}, required...),
			"additionalProperties": false,
		}
		if kind == gardener.Intent {
			intent = branch
			continue
		}
		inner = append(inner, branch)
	}
	if intent == nil {
		return nil, nil, fmt.Errorf("no intent step kind")
	}
	step = map[string]any{"anyOf": []any{map[string]any{"$ref": "#/$defs/innerStep"}, intent}}
	return step, map[string]any{"anyOf": inner}, nil
}

// opSchema is gardener.Op on the wire.
var opSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"op": enumField("insert puts step before the step at index (index = number of steps appends); replace and delete act on the step at index.", enumOf(gardener.OpInsert, gardener.OpReplace, gardener.OpDelete)),
		"index": map[string]any{"type": "integer", "minimum": 0,
			"description": "0-based position in the test's step list as given, never shifted by the other operations."},
		"step": map[string]any{"$ref": "#/$defs/step", "description": "The new step, for insert and replace; absent for delete."},
	},
	"required":             []string{"op", "index"},
	"additionalProperties": false,
}

// tool is one ask's tool: the name the model must call and the schema of its input.
type tool struct {
	ask         string // the ask as ModelCall.Ask names it
	name        string
	description string
	schema      map[string]any
}

// Tool names: the ask is forced onto exactly one of them per call.
const (
	locatorTool    = "propose_locator"
	operationsTool = "propose_operations"
	diagnosisTool  = "diagnose_failure"
	intentTool     = "rederive_intent"
)

// Asks, in the vocabulary of gardener.ModelCall.Ask.
const (
	askLocator    = "locator"
	askOperations = "operations"
	askDiagnosis  = "diagnosis"
	askIntent     = "intent"
)

func object(props map[string]any, required ...string) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// buildTools returns the four tools, keyed by ask.
func buildTools() (map[string]tool, error) {
	step, innerStep, err := stepSchemas()
	if err != nil {
		return nil, err
	}
	locator := stringField("How the step finds its element, or the part of the page an audit covers. " + locatorHelp)
	// Every schema that holds steps carries their definitions; an intent block's inner steps
	// need only the inner form.
	withSteps := func(s map[string]any) map[string]any {
		s["$defs"] = map[string]any{"step": step, "innerStep": innerStep, "locator": locator}
		return s
	}
	withInnerSteps := func(s map[string]any) map[string]any {
		s["$defs"] = map[string]any{"innerStep": innerStep, "locator": locator}
		return s
	}
	reason := stringField("Why, in one or two sentences a reviewer can check against the data.")
	ops := map[string]any{"type": "array", "items": opSchema}
	return map[string]tool{
		askLocator: {askLocator, locatorTool,
			"Give the corrected locator for the failing step, or an empty locator when no element on the page is the one the step meant.",
			object(map[string]any{
				"locator":    stringField(locatorHelp + " Empty when no candidate is the element the step meant."),
				"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1, "description": "How sure you are that this is the element the step meant."},
				"reason":     reason,
			}, "locator", "confidence", "reason")},
		askOperations: {askOperations, operationsTool,
			"Give the step operations that make the test replay on the current page; an empty list when you have none.",
			withSteps(object(map[string]any{
				"operations": withDescription(ops, "The operations; empty when you have no fix."),
				"reason":     reason,
			}, "operations", "reason"))},
		askDiagnosis: {askDiagnosis, diagnosisTool,
			"Classify the failure with the evidence it rests on; for test drift, give the operations that repair it.",
			withSteps(object(map[string]any{
				"classification": enumField("test-drift: the app still does what the test checks and the test lost its way; app-bug: the app no longer does it; environment: network, server or timing trouble; unknown: the data does not tell.",
					enumOf(gardener.TestDrift, gardener.AppBug, gardener.Environment, gardener.Unknown)),
				"evidence": map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "string"},
					"description": "Each a concrete observation from the data."},
				"operations": withDescription(ops, "Only for test-drift: the operations that repair it."),
			}, "classification", "evidence"))},
		askIntent: {askIntent, intentTool,
			"Give the intent block's steps, re-derived from its goal and values on the current page.",
			withInnerSteps(object(map[string]any{
				"steps":  map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"$ref": "#/$defs/innerStep"}, "description": "The block's new steps, in order; no intent steps."},
				"reason": reason,
			}, "steps", "reason"))},
	}, nil
}

func withDescription(s map[string]any, d string) map[string]any {
	c := maps.Clone(s)
	c["description"] = d
	return c
}
