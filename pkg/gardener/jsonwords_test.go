package gardener

import (
	"strings"
	"testing"
)

// TestDecodeTestNamesWrongTypes: a test file with a value of the wrong type is refused naming
// the field, what it wants and what it was given, in words, never Go's struct and type names:
// the CLI reads files and PUT /tests/{id} reads bodies with this one decoder.
func TestDecodeTestNamesWrongTypes(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`[1]`, `test: want an object, not a list`},
		{`"login"`, `test: want an object, not a string`},
		{`{"id":"t","name":5,"steps":[{"kind":"goto","url":"/"}]}`, `test: field "name": want a string, not a number`},
		{`{"id":"t","version":"2","steps":[{"kind":"goto","url":"/"}]}`, `test: field "version": want a whole number, not a string`},
		{`{"id":"t","viewport":{"width":"1","height":2},"steps":[{"kind":"goto","url":"/"}]}`, `field "width": want a whole number, not a string`},
		{`{"id":"t","steps":{"kind":"goto","url":"/"}}`, `steps must be a JSON array: want a list, not an object`},
	} {
		_, err := DecodeTest([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Go ") {
			t.Errorf("DecodeTest(%s): %v; want an error with %q", c.doc, err, c.want)
		}
	}
}
