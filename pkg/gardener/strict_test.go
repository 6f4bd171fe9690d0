package gardener

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestWaitOfZeroMsIsRefused is the store-poisoning step: a wait for 0 ms used to decode, encode
// without its "ms" (a zero field means "not given") and then never decode again.
func TestWaitOfZeroMsIsRefused(t *testing.T) {
	_, err := DecodeSteps([]byte(`[{"kind":"wait","for":"time","ms":0}]`))
	if err == nil || !strings.Contains(err.Error(), `step 1 (wait), field "ms": must be at least 1`) {
		t.Fatalf("got %v, want the 0 ms wait refused naming step 1 and its ms", err)
	}
}

// TestZeroFieldsRoundTrip audits every field of every kind for the same class of bug: a field
// given with its zero value (which the encoder leaves out) is either refused by the decoder or
// reads back as an equal step once encoded.
func TestZeroFieldsRoundTrip(t *testing.T) {
	zero := map[string]string{"status": `0`, "ms": `0`, "timeoutMs": `0`, "reportOnly": `false`, "rules": `[]`, "values": `{}`, "steps": `[]`}
	bases := append(everyKind(), Step{Kind: Wait, For: WaitElement, Locator: MustLocator("#a")}, Step{Kind: A11yAudit, Threshold: "minor"})
	for _, base := range bases {
		enc, err := json.Marshal(base)
		if err != nil {
			t.Fatal(err)
		}
		fields, _, _ := StepFields(base.Kind)
		for _, f := range fields {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(enc, &obj); err != nil {
				t.Fatal(err)
			}
			obj[f] = json.RawMessage(`""`)
			if z, ok := zero[f]; ok {
				obj[f] = json.RawMessage(z)
			}
			in, _ := json.Marshal([]map[string]json.RawMessage{obj})
			steps, err := DecodeSteps(in)
			if err != nil {
				continue
			}
			out, err := json.Marshal(steps)
			if err != nil {
				t.Errorf("%s: decoded but does not encode: %v", in, err)
				continue
			}
			back, err := DecodeSteps(out)
			if err != nil {
				t.Errorf("%s decodes, encodes to %s, which does not decode: %v", in, out, err)
				continue
			}
			if !back[0].Equal(steps[0]) {
				t.Errorf("%s: round trip changed %s into %s", in, steps[0], back[0])
			}
		}
	}
}

func TestStrictInputIsRefusedNamingWhatAndWhere(t *testing.T) {
	steps := []struct{ name, in, want string }{
		{"duplicate key in a block's values", `[{"kind":"goto","url":"/"},{"kind":"intent","goal":"g","values":{"a":"1","a":"2"},"steps":[{"kind":"goto","url":"/"}]}]`, `step 2: field "values": key "a" appears twice`},
		{"duplicate field inside a block", `[{"kind":"intent","goal":"g","steps":[{"kind":"goto","url":"/"},{"kind":"goto","url":"/","url":"/b"}]}]`, `step 1.2: field "url" appears twice`},
		{"trailing array", `[{"kind":"goto","url":"/"}] [{"kind":"goto","url":"/x"}]`, `steps: trailing data after the top-level value at byte 27 (line 1, column 28): "[{\"kind\":\"goto\",\"url\":\"/…"`},
		{"trailing garbage", `[{"kind":"goto","url":"/"}]x`, `steps: trailing data after the top-level value at byte 27 (line 1, column 28): "x"`},
	}
	for _, c := range steps {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeSteps([]byte(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant it to contain %s", err, c.want)
			}
		})
	}
	tests := []struct{ name, in, want string }{
		{"duplicate id", `{"id":"t1","id":"t2","steps":[{"kind":"goto","url":"/"}]}`, `field "id" appears twice`},
		{"duplicate status", `{"id":"t1","status":"draft","status":"active","steps":[{"kind":"goto","url":"/"}]}`, `test t1: field "status" appears twice`},
		{"the same field in another case", `{"id":"t1","ID":"t2","steps":[{"kind":"goto","url":"/"}]}`, `unknown field "ID"`},
		{"duplicate key in a step", `{"id":"t1","steps":[{"kind":"goto","url":"/"},{"kind":"click","locator":"#a","locator":"#b"}]}`, `test t1: step 2: field "locator" appears twice`},
		{"trailing object", `{"id":"t1","steps":[{"kind":"goto","url":"/"}]}{"id":"t2"}`, `test: trailing data after the top-level value at byte 47 (line 1, column 48): "{\"id\":\"t2\"}"`},
		{"a missing comma", "{\n  \"id\": \"t1\",\n  \"name\": \"é\" \"steps\": []\n}", `test: at line 3, column 15: invalid character '"' after object key:value pair`},
		{"a file cut short", "{\n  \"id\": \"t1\",\n  \"steps\": [", `test: the JSON ends at line 3, column 13 before its value does: a brace, bracket or quote is not closed`},
		{"an empty file", "\n", `test: no JSON value: the input is empty`},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeTest([]byte(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant it to contain %s", err, c.want)
			}
		})
	}
	// Space after the value is not data.
	if _, err := DecodeTest([]byte("{\"id\":\"t1\",\"steps\":[{\"kind\":\"goto\",\"url\":\"/\"}]}\n\n")); err != nil {
		t.Fatalf("a test file ending in newlines: %v", err)
	}
}

func TestSplitCorrupt(t *testing.T) {
	var c CorruptError
	if c.Err() != nil {
		t.Fatal("a CorruptError naming no record is an error")
	}
	c.Add("test", "t-bad", errors.New("step 2 (wait), field \"ms\": is required"))
	listing := fmt.Errorf("tests of p: %w", c.Err())
	corrupt, failure := SplitCorrupt(listing)
	if failure != nil || corrupt == nil || corrupt.Records[0].ID != "t-bad" || !errors.Is(listing, ErrCorrupt) {
		t.Fatalf("split %v into %v and %v", listing, corrupt, failure)
	}
	if want := `test "t-bad" does not decode: step 2 (wait)`; !strings.Contains(listing.Error(), want) {
		t.Fatalf("message %q does not contain %q", listing, want)
	}
	down := errors.New("connection refused")
	if corrupt, failure := SplitCorrupt(down); corrupt != nil || failure != down {
		t.Fatalf("split a failure into %v and %v", corrupt, failure)
	}
	if corrupt, failure := SplitCorrupt(nil); corrupt != nil || failure != nil {
		t.Fatalf("split nil into %v and %v", corrupt, failure)
	}
}
