package gardener

import "testing"

// TestTypedIn: a name holding a typed value, as text or word by word, is caught; another is not.
func TestTypedIn(t *testing.T) {
	typed := TypedBy(Test{Steps: []Step{{Kind: Fill, Value: "Ada Lovelace"}, {Kind: Click}}})
	for text, want := range map[string]bool{
		"Delete Ada Lovelace": true, "row-ada-lovelace": true, "ADA LOVELACE": true,
		"Delete Alan Turing": false, "Adamant": false, "": false,
	} {
		if got := typed.In(text); got != want {
			t.Errorf("In(%q) = %v, want %v", text, got, want)
		}
	}
}
