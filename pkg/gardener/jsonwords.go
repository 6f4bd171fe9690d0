package gardener

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// WordJSONError says a value of the wrong type, which encoding/json reports in Go's words ("json:
// cannot unmarshal string into Go struct field Settings.autoRepair of type bool"), in the words
// every door uses for it — the field, by its JSON path, what it wants and what it was given:
// `field "autoRepair": want true or false, not a string`, as the MCP tools answer an argument of
// the wrong type. A value of the wrong type at the top (a list where an object belongs) names no
// field. Any other error is returned as it is.
func WordJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	if te.Field == "" {
		return fmt.Errorf("want %s, not %s", jsonWanted(te.Type), jsonGiven(te.Value))
	}
	return fmt.Errorf("field %q: want %s, not %s", te.Field, jsonWanted(te.Type), jsonGiven(te.Value))
}

// jsonWanted is the JSON a Go type decodes from, in words.
func jsonWanted(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[json.RawMessage]():
		return "a JSON value"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return "a string" // base64, as encoding/json reads bytes
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		switch item := jsonWanted(t.Elem()); item {
		case "a string", "a number", "a whole number", "an object":
			_, noun, _ := strings.Cut(item, " ")
			return "a list of " + noun + "s"
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another value"
}

// jsonGiven is the JSON value encoding/json describes ("string", "number 1.5", "array"), in words.
func jsonGiven(value string) string {
	kind, _, _ := strings.Cut(value, " ")
	switch kind {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return value
}
