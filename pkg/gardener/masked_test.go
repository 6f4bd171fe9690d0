package gardener

import "testing"

// TestMaskedLength: every mask RedactValue writes reads back to its length, and nothing else is
// taken for a mask (a value that merely starts like one, another spelling, a negative length).
func TestMaskedLength(t *testing.T) {
	for _, v := range []string{"", "x", "canaryPW-7731zq", "ümlaut", "[value redacted, 3 chars]"} {
		n, ok := MaskedLength(RedactValue(v))
		if want := len([]rune(v)); !ok || n != want {
			t.Errorf("MaskedLength(RedactValue(%q)) = %d, %v; want %d, true", v, n, ok, want)
		}
	}
	for _, v := range []string{"hunter2", "[value redacted, 1 chars]", "[value redacted, 2 char]", "[value redacted, -1 chars]", "[value redacted, 07 chars]", "[value redacted, 7 chars] ", "[value redacted, 7 chars]x"} {
		if n, ok := MaskedLength(v); ok {
			t.Errorf("MaskedLength(%q) = %d, true; want no mask", v, n)
		}
	}
}
