package asl

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Values are the decoder's: map[string]any, []any, string, json.Number, bool and nil. Numbers
// stay json.Number so integers wider than a float64 mantissa pass through unchanged.

func decodeValue(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func encodeValue(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// mustEncode is for values this package built itself from decoded JSON, which always encode.
func mustEncode(v any) json.RawMessage {
	b, err := encodeValue(v)
	if err != nil {
		panic(fmt.Sprintf("asl: encoding a decoded value: %v", err))
	}
	return b
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// number reads a JSON number as float64.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}
