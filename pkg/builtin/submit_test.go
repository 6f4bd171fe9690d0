package builtin

import (
	"context"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestFixLocatorFindsTheRenamedSubmitButton: a form's submit button whose words changed with the
// copy ("Send" became "Confirm my request") is the form's one submit control on the page the
// last green run was on: it is found, while a form with two submit controls, a button that no
// longer submits, another form's button and another page leave the step alone.
func TestFixLocatorFindsTheRenamedSubmitButton(t *testing.T) {
	const form = "/html[1]/body[1]/main[1]/form[1]"
	send := button("", "Send", form+"/button[1]", 400)
	send.Type, send.ClassList = "", []string{"primary"}
	send.NeighborText = []string{"Message", "I", "agree"}
	green := []gardener.StepRecord{
		{Path: "1", Kind: gardener.Goto, Passed: true, URLBefore: "about:blank"},
		func() gardener.StepRecord {
			r := clickRecord("2", send)
			r.URLBefore = "http://app.test/contact?step=3"
			return r
		}(),
	}
	renamed := func() gardener.Fingerprint {
		b := button("", "Confirm my request", form+"/button[1]", 400)
		b.Type, b.ClassList, b.Location.Width, b.Location.Y = "", []string{"btn", "btn-confirm"}, 210, 470
		b.NeighborText = []string{"Message", "I", "agree"}
		return b
	}
	field := gardener.Fingerprint{Tag: "TEXTAREA", XPath: form + "/div[1]/textarea[1]", Role: "textbox", AccessibleName: "Message", Placeholder: "Message", Location: gardener.Rect{X: 40, Y: 200, Width: 300, Height: 80}}
	home := gardener.Fingerprint{Tag: "A", XPath: "/html[1]/body[1]/header[1]/nav[1]/a[1]", Role: "link", AccessibleName: "Home", VisibleText: []string{"Home"}, Href: "http://app.test/", Location: gardener.Rect{X: 10, Y: 10, Width: 50, Height: 20}}
	notSubmit := renamed()
	notSubmit.Type = "button"
	draft := button("", "Keep as draft", form+"/button[2]", 400)
	draft.Location.X = 300
	search := renamed()
	search.XPath = "/html[1]/body[1]/header[1]/form[1]/button[1]"
	for _, c := range []struct {
		name string
		page []gardener.Fingerprint
		url  string
		want string // a part of the locator, "" for an abstention
	}{
		{"renamed", []gardener.Fingerprint{home, field, renamed()}, "http://app.test/contact?step=3", "Confirm my request"},
		{"two submit controls", []gardener.Fingerprint{home, field, renamed(), draft}, "http://app.test/contact?step=3", ""},
		{"no longer submits", []gardener.Fingerprint{home, field, notSubmit}, "http://app.test/contact?step=3", ""},
		{"another form", []gardener.Fingerprint{home, field, search}, "http://app.test/contact?step=3", ""},
		{"another page", []gardener.Fingerprint{home, field, renamed()}, "http://app.test/checkout", ""},
	} {
		a := ask(t, 1, clickStep(t, `role=button[name="Send"]`), green, c.page)
		a.PageURL = c.url
		ans, err := Engine{}.FixLocator(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.want == "" && !ans.Locator.IsZero():
			t.Errorf("%s: healed onto %s (%s); want an abstention", c.name, ans.Locator, ans.Reason)
		case c.want != "" && !strings.Contains(ans.Locator.String(), c.want):
			t.Errorf("%s: got %q (%s); want a locator naming %q", c.name, ans.Locator, ans.Reason, c.want)
		}
	}
}
