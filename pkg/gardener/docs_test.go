package gardener

import (
	"os"
	"strings"
	"testing"
)

// TestFormatDocumentsEveryKind: docs/test-format.md shows every step kind with an example, every
// field a kind takes and every locator form, so the reference cannot fall behind the decoder.
func TestFormatDocumentsEveryKind(t *testing.T) {
	b, err := os.ReadFile("../../docs/test-format.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, k := range Kinds() {
		if !strings.Contains(doc, "| `"+string(k)+"` |") || !strings.Contains(doc, `{"kind": "`+string(k)+`"`) {
			t.Errorf("docs/test-format.md has no row or no example of %s", k)
		}
		fields, _, _ := StepFields(k)
		for _, f := range fields {
			if !strings.Contains(doc, "`"+f+"`") {
				t.Errorf("docs/test-format.md does not name field %s of %s", f, k)
			}
		}
	}
	for _, k := range locatorKinds {
		if !strings.Contains(doc, "`"+string(k)+"=`") {
			t.Errorf("docs/test-format.md does not show locator form %s=", k)
		}
	}
}
