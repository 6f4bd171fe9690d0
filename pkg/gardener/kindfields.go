package gardener

import "strings"

// StepFields lists the JSON fields a step of the given kind accepts besides "kind" (timeoutMs
// included), and which of them it requires, so that an adapter can describe the step format to
// a model — as a JSON schema, say — from the same table the strict decoder enforces. Rules that
// tie one field to another (an assert of text needs a locator) are the decoder's alone. ok is
// false for an unknown kind.
func StepFields(kind StepKind) (fields, required []string, ok bool) {
	spec, ok := kindFields[kind]
	if !ok {
		return nil, nil, false
	}
	for _, f := range spec {
		name, req := strings.CutSuffix(f, "!")
		fields = append(fields, name)
		if req {
			required = append(required, name)
		}
	}
	return append(fields, "timeoutMs"), required, true
}
