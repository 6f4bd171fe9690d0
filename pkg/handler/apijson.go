package handler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// BodyError is a request body the API refuses: not one JSON value of the expected shape, data
// after it, or a key given twice. The API answers 400 with it.
type BodyError struct {
	Reason string
}

func (e *BodyError) Error() string { return "request body: " + e.Reason }

// decodeBody decodes a request body into v, strictly: exactly one JSON value, no key the
// request type does not have, and no key given twice in one object. The standard decoder
// keeps the last of two equal keys and stops after the first value, so a body such as
// {"radar":true}{"autoRepair":false} would have half of it silently dropped.
//
// It is stricter than encoding/json in two more ways. Keys are matched exactly: the standard
// decoder folds case, so {"radar":true,"Radar":false} passed the duplicate check and kept
// false; exactKeys refuses any key that is not a field's JSON name as written. And a body that
// is empty or null is refused: each route that decodes a body asks for an object.
func decodeBody(body string, v any) error {
	switch strings.TrimSpace(body) {
	case "":
		return &BodyError{Reason: "the body is empty; a JSON object is required"}
	case "null":
		return &BodyError{Reason: "the body is null; a JSON object is required"}
	}
	if err := duplicateKey(body); err != nil {
		return err
	}
	if err := exactKeys([]byte(body), reflect.TypeOf(v)); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		// A value of the wrong type is said in the words every door uses (what the field wants
		// and what it was given), not in Go's (its struct and type names).
		return &BodyError{Reason: gardener.WordJSONError(err).Error()}
	}
	if rest := bytes.TrimSpace([]byte(body)[dec.InputOffset():]); len(rest) > 0 {
		return &BodyError{Reason: fmt.Sprintf("trailing data after the JSON value at offset %d: %q", dec.InputOffset(), clip(rest, 40))}
	}
	return nil
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// duplicateKey finds the first key given twice in one object of body. A body that is not JSON
// passes: the decoder reports that with its own message.
func duplicateKey(body string) error {
	type object struct {
		keys    map[string]bool
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	dec.UseNumber()
	var open []*object // nil entries are arrays
	valueDone := func() {
		if n := len(open); n > 0 && open[n-1] != nil {
			open[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			// The end of the body, or a syntax error the decoder reports with its own message.
			return nil
		}
		var top *object
		if n := len(open); n > 0 {
			top = open[n-1]
		}
		if key, ok := tok.(string); ok && top != nil && top.wantKey {
			if top.keys[key] {
				return &BodyError{Reason: fmt.Sprintf("duplicate key %q", key)}
			}
			top.keys[key], top.wantKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			open = append(open, &object{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			open = append(open, nil)
		case json.Delim('}'), json.Delim(']'):
			open = open[:len(open)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// exactKeys refuses, in data decoded as a value of type t, a key of an object that is not the
// JSON name of a field as written (encoding/json would take "Radar" or "RADAR" for "radar").
// It follows the fields into nested objects, lists and maps; a type that decodes itself
// (json.Unmarshaler, such as a test) checks its own keys. A body that does not decode passes:
// the decoder reports that with its own message.
func exactKeys(data []byte, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		if t.Implements(unmarshalerType) {
			return nil
		}
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil || obj == nil {
			return nil
		}
		fields := jsonFields(t)
		for k, raw := range obj {
			f, ok := fields[k]
			if !ok {
				for name := range fields {
					if strings.EqualFold(name, k) {
						return &BodyError{Reason: fmt.Sprintf("unknown field %q (keys are matched exactly: the field is %q)", k, name)}
					}
				}
				return &BodyError{Reason: fmt.Sprintf("unknown field %q", k)}
			}
			if err := exactKeys(raw, f); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		var list []json.RawMessage
		if json.Unmarshal(data, &list) != nil {
			return nil
		}
		for _, raw := range list {
			if err := exactKeys(raw, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.Map:
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			return nil
		}
		for _, raw := range obj {
			if err := exactKeys(raw, t.Elem()); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields are the JSON names of t's fields, as encoding/json names them: the tag's name,
// else the field's; the fields of an embedded struct without a tag are t's own.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				for n, ft := range jsonFields(et) {
					if _, ok := out[n]; !ok {
						out[n] = ft
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
