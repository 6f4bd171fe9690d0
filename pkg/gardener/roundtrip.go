package gardener

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// StepsRoundTrip checks that steps are stored as they are: each encodes to JSON that decodes to
// an equal step. A step built in Go can hold what its encoding drops (a wait of 0 ms, a field its
// kind does not have); stored, it would fail every later read of its test, so a write refuses
// it first with a *StepError naming the step and the field.
func StepsRoundTrip(steps []Step) error {
	return stepsRoundTrip(steps, "")
}

func stepsRoundTrip(steps []Step, prefix string) error {
	for i, s := range steps {
		path := prefix + strconv.Itoa(i+1)
		enc, err := json.Marshal(s)
		if err != nil {
			return &StepError{Path: path, Kind: s.Kind, Reason: "does not encode: " + err.Error()}
		}
		back, err := decodeStep(enc, path)
		if err != nil {
			e := &StepError{Path: path, Kind: s.Kind, Reason: "would be stored as " + string(enc) + ", which does not read back: " + err.Error()}
			if se, ok := err.(*StepError); ok {
				e.Path, e.Field = se.Path, se.Field
			}
			return e
		}
		if back.Equal(s) {
			continue
		}
		if s.Kind == Intent {
			if err := stepsRoundTrip(s.Steps, path+"."); err != nil {
				return err
			}
		}
		return &StepError{Path: path, Kind: s.Kind, Field: changedField(s, back), Reason: "is not kept by its encoding " + string(enc) + " (a field its kind does not have, or a value that reads back otherwise)"}
	}
	return nil
}

// changedField names the first JSON field, in name order, of a step that reads back changed,
// or "".
func changedField(s, back Step) string {
	names := []string{"timeoutMs"}
	for _, fields := range kindFields {
		for _, f := range fields {
			names = append(names, strings.TrimSuffix(f, "!"))
		}
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		a, _ := s.field(n)
		b, _ := back.field(n)
		if !reflect.DeepEqual(a, b) {
			return n
		}
	}
	return ""
}
