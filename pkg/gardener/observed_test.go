package gardener

import (
	"strings"
	"testing"
)

func TestShowObserved(t *testing.T) {
	value := Step{Kind: Assert, Subject: SubjectValue, Locator: MustLocator("#pw"), Condition: Equals, Expected: "x"}
	text := Step{Kind: Assert, Subject: SubjectText, Locator: MustLocator("#p"), Condition: Equals, Expected: "x"}
	long := strings.Repeat("é", MaxQuotedRunes) + "TAIL"
	cases := []struct {
		name string
		step Step
		in   string
		want string
	}{
		{"an input's value is redacted", value, "hunter2é", "[value redacted, 8 chars]"},
		{"short text is quoted", text, "Total: $18.50", `"Total: $18.50"`},
		{"long text is cut at a character", text, long, `"` + strings.Repeat("é", MaxQuotedRunes) + `"… (84 chars)`},
		{"a variable is page text", Step{Kind: Assert, Subject: SubjectVariable}, "SS-1", `"SS-1"`},
	}
	for _, c := range cases {
		if got := c.step.ShowObserved(c.in); got != c.want {
			t.Errorf("%s: ShowObserved(%q) = %s, want %s", c.name, c.in, got, c.want)
		}
	}
}
