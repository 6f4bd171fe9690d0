package gardener

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// WithoutValues is the result with no step record holding a value a step typed: the values are
// the test's own, kept where the requirement contract reads them (a green run) and nowhere else.
func (r RunResult) WithoutValues() RunResult {
	r.Steps = slices.Clone(r.Steps)
	for i := range r.Steps {
		r.Steps[i].Values = nil
	}
	return r
}

// ForPeople is the run as a person or an agent may read it, on every door: no typed value, and
// what a check read shown as its step shows it (Step.ShowObserved: an input's value by its
// length only). t is the run's test as stored; a check whose step it no longer holds (the test
// moved to another version) is shown as an input's value would be, since it may have read one.
func (r Run) ForPeople(t Test) Run {
	if r.Result == nil {
		return r
	}
	res := r.Result.WithoutValues()
	for i, rec := range res.Steps {
		if rec.Observed == "" {
			continue
		}
		st, ok := stepAt(t.Steps, rec.Path)
		if !ok || t.ID != r.TestID || t.Version != r.TestVersion || st.Kind != rec.Kind {
			st = Step{Kind: rec.Kind}
			if rec.Kind == Assert {
				st.Subject = SubjectValue
			}
		}
		res.Steps[i].Observed = st.ShowObserved(rec.Observed)
	}
	r.Result = &res
	return r
}

// stepAt finds the step a record's path ("4", or "3.2" inside an intent block) names.
func stepAt(steps []Step, path string) (Step, bool) {
	head, rest, nested := strings.Cut(path, ".")
	i, err := strconv.Atoi(head)
	if err != nil || i < 1 || i > len(steps) {
		return Step{}, false
	}
	if nested {
		return stepAt(steps[i-1].Steps, rest)
	}
	return steps[i-1], true
}

// DataForPeople is a JSON document the gardener wrote for its own use — a state machine
// execution's output, which carries the test, the fix's operations and the repair record — as a
// person or an agent may read it: every step that enters a value shows it by RedactValue's mask,
// an intent block's values and a step record's entered values are left out, and what a check
// read is shown by its length only. The doors that hand such a document out (the API's execution
// answer) call it, so its shape may change without a value slipping through. A document that is
// not JSON is answered as nil: nothing of it is shown.
func DataForPeople(doc []byte) []byte {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil
	}
	out, err := json.Marshal(withoutValues(v))
	if err != nil {
		return nil
	}
	return out
}

func withoutValues(v any) any {
	switch v := v.(type) {
	case []any:
		for i := range v {
			v[i] = withoutValues(v[i])
		}
	case map[string]any:
		for k, e := range v {
			v[k] = withoutValues(e)
		}
		kind, _ := v["kind"].(string)
		if kind == "" {
			return v
		}
		if s, ok := v["value"].(string); ok && (Step{Kind: StepKind(kind)}).Enters() {
			v["value"] = RedactValue(s)
		}
		// A step record's entered values, and an intent block's (a map of them).
		delete(v, "values")
		if s, ok := v["observed"].(string); ok {
			v["observed"] = Step{Kind: Assert, Subject: SubjectValue}.ShowObserved(s)
		}
	}
	return v
}
