package bedrock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// AskError is an ask the adapter cannot send: it names the ask and what is wrong with its input.
// No model call is made.
type AskError struct {
	Ask    string
	Reason string
}

func (e *AskError) Error() string { return fmt.Sprintf("bedrock %s ask: %s", e.Ask, e.Reason) }

// FixLocator asks for a corrected locator for the step at ask.Index (ask.Inner inside an intent
// block). An empty locator in the answer means the model abstained.
func (m *Model) FixLocator(ctx context.Context, ask gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	path, err := locatorPath(ask)
	if err != nil {
		return gardener.LocatorAnswer{}, err
	}
	fail := failureOf(ask.Result, path, ask.Index)
	fail.Definition = &ask.Step
	green := lastGreenOf(ask.LastGreen, func(p string) bool { return p == path })
	if ask.Recorded != nil {
		if green == nil {
			green = &lastGreenData{Steps: []gardener.StepRecord{}}
		}
		green.Element = ask.Recorded
	}
	task := fmt.Sprintf("Step %s (%s) of the test failed. Call %s with the locator of the element it meant.", path, ask.Step.Kind, locatorTool)
	input, usage, err := m.ask(ctx, askLocator, task, ask.Failure, fail, green)
	if err != nil {
		return gardener.LocatorAnswer{}, err
	}
	var wire struct {
		Locator    *string  `json:"locator"`
		Confidence *float64 `json:"confidence"`
		Reason     *string  `json:"reason"`
	}
	if err := decodeStrict(input, &wire); err != nil {
		return gardener.LocatorAnswer{}, m.invalid(askLocator, usage, string(input), "the answer does not match the tool schema", err)
	}
	if f := missing(map[string]bool{"locator": wire.Locator == nil, "confidence": wire.Confidence == nil, "reason": wire.Reason == nil}); f != "" {
		return gardener.LocatorAnswer{}, m.invalid(askLocator, usage, string(input), fmt.Sprintf("field %q is required", f), nil)
	}
	if c := *wire.Confidence; c < 0 || c > 1 {
		return gardener.LocatorAnswer{}, m.invalid(askLocator, usage, string(input), fmt.Sprintf("confidence %g is outside [0, 1]", c), nil)
	}
	ans := gardener.LocatorAnswer{Confidence: *wire.Confidence, Reason: *wire.Reason, Usage: usage}
	if strings.TrimSpace(*wire.Locator) == "" {
		return ans, nil
	}
	loc, err := gardener.ParseLocator(*wire.Locator)
	if err != nil {
		return gardener.LocatorAnswer{}, m.invalid(askLocator, usage, string(input), "the locator does not parse", err)
	}
	moved := ask.Step.Clone()
	if moved.Kind == gardener.A11yAudit {
		moved.Scope = loc
	} else {
		moved.Locator = loc
	}
	if err := gardener.ValidateStep(moved); err != nil {
		return gardener.LocatorAnswer{}, m.invalid(askLocator, usage, string(input), "the step with the new locator is not a valid step", err)
	}
	ans.Locator = loc
	return ans, nil
}

// locatorPath checks a locator ask and returns the step's path as a person counts it.
func locatorPath(ask gardener.LocatorAsk) (string, error) {
	steps := ask.Test.Steps
	if ask.Index < 0 || ask.Index >= len(steps) {
		return "", &AskError{askLocator, fmt.Sprintf("test %s: step index %d is outside its %d steps", ask.Test.ID, ask.Index, len(steps))}
	}
	path := strconv.Itoa(ask.Index + 1)
	if block := steps[ask.Index]; block.Kind == gardener.Intent {
		if ask.Inner < 0 || ask.Inner >= len(block.Steps) {
			return "", &AskError{askLocator, fmt.Sprintf("test %s: step %s is an intent block of %d steps and inner index %d is not one of them", ask.Test.ID, path, len(block.Steps), ask.Inner)}
		}
		path += "." + strconv.Itoa(ask.Inner+1)
	}
	fields, _, ok := gardener.StepFields(ask.Step.Kind)
	if !ok || !slices.ContainsFunc(fields, func(f string) bool { return f == "locator" || f == "scope" }) {
		return "", &AskError{askLocator, fmt.Sprintf("test %s: step %s (%s) has no locator to fix", ask.Test.ID, path, ask.Step.Kind)}
	}
	// The answer is checked by putting its locator into this step; the step must be sound first.
	if err := gardener.ValidateStep(ask.Step); err != nil {
		return "", &AskError{askLocator, fmt.Sprintf("test %s: step %s: %v", ask.Test.ID, path, err)}
	}
	return path, nil
}

// SuggestOps asks for step operations against the whole test.
func (m *Model) SuggestOps(ctx context.Context, ask gardener.OpsAsk) (gardener.OpsAnswer, error) {
	if len(ask.Test.Steps) == 0 {
		return gardener.OpsAnswer{}, &AskError{askOperations, fmt.Sprintf("test %s has no steps", ask.Test.ID)}
	}
	path, fail := failingStep(ask.Failure)
	task := fmt.Sprintf("The test failed at step %s. Call %s with the operations that repair it.", path, operationsTool)
	input, usage, err := m.ask(ctx, askOperations, task, ask.Failure, fail, lastGreenOf(ask.LastGreen, everyStep))
	if err != nil {
		return gardener.OpsAnswer{}, err
	}
	var wire struct {
		Operations json.RawMessage `json:"operations"`
		Reason     *string         `json:"reason"`
	}
	if err := decodeStrict(input, &wire); err != nil {
		return gardener.OpsAnswer{}, m.invalid(askOperations, usage, string(input), "the answer does not match the tool schema", err)
	}
	if f := missing(map[string]bool{"operations": wire.Operations == nil, "reason": wire.Reason == nil}); f != "" {
		return gardener.OpsAnswer{}, m.invalid(askOperations, usage, string(input), fmt.Sprintf("field %q is required", f), nil)
	}
	ops, err := decodeOps(wire.Operations, len(ask.Test.Steps))
	if err != nil {
		return gardener.OpsAnswer{}, m.invalid(askOperations, usage, string(input), "the operations are not valid", err)
	}
	return gardener.OpsAnswer{Ops: ops, Reason: *wire.Reason, Usage: usage}, nil
}

// Diagnose asks what the failure is; for drift the answer may carry the ops that repair it.
func (m *Model) Diagnose(ctx context.Context, ask gardener.DiagnoseAsk) (gardener.Diagnosis, error) {
	if len(ask.Test.Steps) == 0 {
		return gardener.Diagnosis{}, &AskError{askDiagnosis, fmt.Sprintf("test %s has no steps", ask.Test.ID)}
	}
	path, fail := failingStep(ask.Failure)
	task := fmt.Sprintf("The test failed at step %s. Call %s with what the failure is and the evidence.", path, diagnosisTool)
	input, usage, err := m.ask(ctx, askDiagnosis, task, ask.Failure, fail, lastGreenOf(ask.LastGreen, everyStep))
	if err != nil {
		return gardener.Diagnosis{}, err
	}
	var wire struct {
		Classification *gardener.Classification `json:"classification"`
		Evidence       []string                 `json:"evidence"`
		Operations     json.RawMessage          `json:"operations"`
	}
	if err := decodeStrict(input, &wire); err != nil {
		return gardener.Diagnosis{}, m.invalid(askDiagnosis, usage, string(input), "the answer does not match the tool schema", err)
	}
	if f := missing(map[string]bool{"classification": wire.Classification == nil, "evidence": wire.Evidence == nil}); f != "" {
		return gardener.Diagnosis{}, m.invalid(askDiagnosis, usage, string(input), fmt.Sprintf("field %q is required", f), nil)
	}
	class := *wire.Classification
	if !slices.Contains([]gardener.Classification{gardener.TestDrift, gardener.AppBug, gardener.Environment, gardener.Unknown}, class) {
		return gardener.Diagnosis{}, m.invalid(askDiagnosis, usage, string(input), fmt.Sprintf("classification %q is not one of test-drift, app-bug, environment, unknown", class), nil)
	}
	if len(wire.Evidence) == 0 || slices.ContainsFunc(wire.Evidence, func(e string) bool { return strings.TrimSpace(e) == "" }) {
		return gardener.Diagnosis{}, m.invalid(askDiagnosis, usage, string(input), "the evidence is empty or has an empty item", nil)
	}
	d := gardener.Diagnosis{Classification: class, Evidence: wire.Evidence, Usage: usage}
	if wire.Operations == nil || string(wire.Operations) == "null" {
		return d, nil
	}
	ops, err := decodeOps(wire.Operations, len(ask.Test.Steps))
	if err != nil {
		return gardener.Diagnosis{}, m.invalid(askDiagnosis, usage, string(input), "the operations are not valid", err)
	}
	if len(ops) > 0 && class != gardener.TestDrift {
		// Only drift is repaired; ops with another classification contradict the answer itself.
		return gardener.Diagnosis{}, m.invalid(askDiagnosis, usage, string(input), fmt.Sprintf("%d operations given with classification %s; only test-drift is repaired", len(ops), class), nil)
	}
	d.Ops = ops
	return d, nil
}

// DeriveIntent asks for an intent block's steps, re-derived from its goal and values.
func (m *Model) DeriveIntent(ctx context.Context, ask gardener.IntentAsk) (gardener.IntentAnswer, error) {
	steps := ask.Test.Steps
	if ask.Index < 0 || ask.Index >= len(steps) {
		return gardener.IntentAnswer{}, &AskError{askIntent, fmt.Sprintf("test %s: step index %d is outside its %d steps", ask.Test.ID, ask.Index, len(steps))}
	}
	if ask.Block.Kind != gardener.Intent || steps[ask.Index].Kind != gardener.Intent {
		return gardener.IntentAnswer{}, &AskError{askIntent, fmt.Sprintf("test %s: step %d is not an intent block", ask.Test.ID, ask.Index+1)}
	}
	path := strconv.Itoa(ask.Index + 1)
	failedPath := ask.Result.FailedStep
	if !stepPath.MatchString(failedPath) {
		failedPath = path
	}
	fail := failureOf(ask.Result, failedPath, ask.Index)
	fail.Definition = &ask.Block
	green := lastGreenOf(ask.LastGreen, func(p string) bool { return p == path || strings.HasPrefix(p, path+".") })
	task := fmt.Sprintf("The intent block at step %s no longer replays (it failed at step %s). Call %s with its re-derived steps.", path, failedPath, intentTool)
	input, usage, err := m.ask(ctx, askIntent, task, ask.Failure, fail, green)
	if err != nil {
		return gardener.IntentAnswer{}, err
	}
	var wire struct {
		Steps  json.RawMessage `json:"steps"`
		Reason *string         `json:"reason"`
	}
	if err := decodeStrict(input, &wire); err != nil {
		return gardener.IntentAnswer{}, m.invalid(askIntent, usage, string(input), "the answer does not match the tool schema", err)
	}
	if f := missing(map[string]bool{"steps": wire.Steps == nil, "reason": wire.Reason == nil}); f != "" {
		return gardener.IntentAnswer{}, m.invalid(askIntent, usage, string(input), fmt.Sprintf("field %q is required", f), nil)
	}
	derived, err := gardener.DecodeSteps(wire.Steps)
	if err != nil {
		return gardener.IntentAnswer{}, m.invalid(askIntent, usage, string(input), "a re-derived step is malformed", err)
	}
	if len(derived) == 0 {
		return gardener.IntentAnswer{}, m.invalid(askIntent, usage, string(input), "no steps were derived", nil)
	}
	for i, s := range derived {
		if s.Kind == gardener.Intent {
			return gardener.IntentAnswer{}, m.invalid(askIntent, usage, string(input), fmt.Sprintf("re-derived step %d is an intent block; intent blocks do not nest", i+1), nil)
		}
	}
	block := ask.Block.Clone()
	block.Steps = derived
	if err := gardener.ValidateStep(block); err != nil {
		return gardener.IntentAnswer{}, m.invalid(askIntent, usage, string(input), "the block with the re-derived steps is not a valid step", err)
	}
	return gardener.IntentAnswer{Steps: derived, Reason: *wire.Reason, Usage: usage}, nil
}

// ask writes the user message from the failure's evidence and makes the call.
func (m *Model) ask(ctx context.Context, ask, task string, f gardener.Failure, fail failureData, green *lastGreenData) ([]byte, gardener.Usage, error) {
	sections := []section{{tagTest, f.Test}, {tagFailure, fail}}
	if green != nil {
		sections = append(sections, section{tagLastGreen, green})
	}
	sections = append(sections, section{tagPage, m.pageOf(f)})
	user, err := userMessage(task, sections...)
	if err != nil {
		return nil, gardener.Usage{}, &AskError{ask, fmt.Sprintf("test %s: %v", f.Test.ID, err)}
	}
	return m.call(ctx, ask, user)
}

// stepPath is a step's number as a person counts it, "4" or "3.2". The task line, which is
// outside the data sections, takes a path from a run record only in this form.
var stepPath = regexp.MustCompile(`^[1-9][0-9]*(\.[1-9][0-9]*)?$`)

// failingStep reads where a run failed, falling back to the index when the path is missing or
// not a step number.
func failingStep(f gardener.Failure) (string, failureData) {
	path := f.Result.FailedStep
	if !stepPath.MatchString(path) {
		path = strconv.Itoa(f.Result.FailedIndex + 1)
	}
	fail := failureOf(f.Result, path, f.Result.FailedIndex)
	if i := f.Result.FailedIndex; i >= 0 && i < len(f.Test.Steps) {
		fail.Definition = &f.Test.Steps[i]
	}
	return path, fail
}

func everyStep(string) bool { return true }

// decodeStrict decodes one JSON object into v, refusing unknown fields and trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the answer object")
	}
	return nil
}

// missing names a required field that is absent, in a stable order; "" when none is.
func missing(absent map[string]bool) string {
	names := make([]string, 0, len(absent))
	for name, gone := range absent {
		if gone {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// decodeOps decodes a list of ops with the strict domain decoder and checks them against a
// test of n steps. The error wraps the domain error, naming the op by its position.
func decodeOps(raw json.RawMessage, n int) ([]gardener.Op, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return nil, errors.New("operations must be a JSON array")
	}
	ops := make([]gardener.Op, 0, len(items))
	for i, item := range items {
		var op gardener.Op
		if err := json.Unmarshal(item, &op); err != nil {
			return nil, fmt.Errorf("operation %d is malformed: %w", i+1, err)
		}
		ops = append(ops, op)
	}
	if err := gardener.ValidateOps(n, ops); err != nil {
		return nil, fmt.Errorf("the operations do not fit the test's %d steps: %w", n, err)
	}
	return ops, nil
}
