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

// TestTypedQuote: page words are quoted unless they hold a typed value.
func TestTypedQuote(t *testing.T) {
	typed := TypedBy(Test{Steps: []Step{{Kind: Fill, Value: "Ada Lovelace"}}})
	if got := typed.Quote(`Remove "Alan"`); got != `"Remove \"Alan\""` {
		t.Errorf("Quote = %s", got)
	}
	if got := typed.Quote("Remove Ada Lovelace"); got != LeftOut {
		t.Errorf("Quote = %s, want it left out", got)
	}
}
