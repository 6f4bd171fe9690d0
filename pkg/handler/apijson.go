package handler

import (
	"bytes"
	"encoding/json"
	"fmt"
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
func decodeBody(body string, v any) error {
	if err := duplicateKey(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &BodyError{Reason: err.Error()}
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
