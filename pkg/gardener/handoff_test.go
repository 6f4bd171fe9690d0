package gardener

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestHandoffRefusesABodyNotItsID: a handoff is named by the digest of its body, so a body
// changed in the store does not pass for the decision the execution handed on.
func TestHandoffRefusesABodyNotItsID(t *testing.T) {
	h, err := NewHandoff("p", "t", map[string]string{"ops": "replace 3"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]string
	if err := h.Decode(&v); err != nil || v["ops"] != "replace 3" {
		t.Fatalf("decode: %v %v", v, err)
	}
	h.Body = []byte(`{"ops":"delete 3"}`)
	var corrupt *CorruptError
	if err := h.Decode(&v); !errors.As(err, &corrupt) {
		t.Fatalf("a changed body decoded: %v", err)
	}
}

// TestClipAndNamed: what a state passes on is bounded, and says so.
func TestClipAndNamed(t *testing.T) {
	s := strings.Repeat("é", 100) // two bytes each
	c := Clip(s, 81)
	if len(c) > 81 || !utf8.ValidString(c) || !strings.HasSuffix(c, "…") {
		t.Errorf("Clip gave %d bytes %q", len(c), c)
	}
	if Clip("short", 80) != "short" {
		t.Error("Clip changed a short message")
	}
	ids := make([]string, MaxNamed+5)
	named, more := Named(ids)
	if len(named) != MaxNamed || more != 5 {
		t.Errorf("Named: %d named, %d more", len(named), more)
	}
}
