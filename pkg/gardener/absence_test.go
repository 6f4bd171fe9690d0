package gardener

import "testing"

func TestNamedByStart(t *testing.T) {
	shown := []Fingerprint{
		{Role: "textbox", AccessibleName: "Firstnames"},
		{Role: "button", AccessibleName: "Firstname Required"},
		{Role: "textbox", AccessibleName: "Firstname Required", Inert: true},
		{Role: "textbox", AccessibleName: "Firstname Required"},
	}
	cases := []struct {
		check, want string
	}{
		{`role=textbox[name="Firstname"]`, `role=textbox[name="Firstname Required"]`},
		{`role=textbox[name="firstname"]`, `role=textbox[name="Firstname Required"]`},
		{`role=*[name="Firstname"]`, `role=button[name="Firstname Required"]`},
		{`role=textbox[name="Firstname Required"]`, ""}, // named in full: the check sees it
		{`role=textbox[name="First"]`, ""},              // "Firstname" goes on inside the word
		{`role=textbox`, ""},
		{`label=Firstname`, ""},
		{`frame=#pay >> role=textbox[name="Firstname"]`, ""},
	}
	for _, c := range cases {
		got, ok := NamedByStart(MustLocator(c.check), shown)
		if c.want == "" {
			if ok {
				t.Errorf("%s: got %s, want none", c.check, got)
			}
			continue
		}
		if !ok || got.String() != c.want {
			t.Errorf("%s: got %s (%v), want %s", c.check, got, ok, c.want)
		}
	}
}
