package builtin

import (
	"context"
	"slices"
	"strconv"
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

// TestFixLocatorFindsTheRelabelledChoice: a radio button relabelled ("10:30 am" became "10:30")
// and given another id is found by what its form sends, its group's name and its value, on the
// page the last green run was on; a group without that value any more (even with a sibling
// choice in its place, however alike), two boxes with it, a recorded box without a value and
// another page leave the step alone.
func TestFixLocatorFindsTheRelabelledChoice(t *testing.T) {
	radio := func(id, label, value string, y float64) gardener.Fingerprint {
		return gardener.Fingerprint{
			Tag: "INPUT", ID: id, Name: "slot", Type: "radio", Value: value, Role: "radio", Label: label, AccessibleName: label,
			XPath: "/html[1]/body[1]/main[1]/form[1]/fieldset[1]/div[" + strconv.Itoa(int(y/20)) + "]/input[1]", Location: gardener.Rect{X: 10, Y: y, Width: 13, Height: 13},
			NeighborText: []string{"Time", label},
		}
	}
	recorded := radio("slot-1030", "10:30 am", "10:30", 40)
	green := []gardener.StepRecord{
		{Path: "1", Kind: gardener.Goto, Passed: true},
		{Path: "2", Kind: gardener.Check, Element: &recorded, Passed: true, URLBefore: "http://app.test/book/2?dept=x"},
	}
	// The redesign moved the group into a column of its own under another heading.
	now := []gardener.Fingerprint{radio("time-0900", "09:00", "09:00", 20), radio("time-1030", "10:30", "10:30", 40), radio("time-1400", "14:00", "14:00", 60)}
	for i := range now {
		now[i].Location.X, now[i].Location.Y = 420, now[i].Location.Y+300
		now[i].NeighborText = []string{"Choose", "a", "slot", now[i].Label}
		now[i].XPath = strings.Replace(now[i].XPath, "/fieldset[1]/", "/div[2]/fieldset[1]/", 1)
	}
	gone := []gardener.Fingerprint{now[0], now[2]}
	video := radio("alt-1030", "10:30 by video", "10:30", 80)
	video.Location.X, video.Location.Y, video.NeighborText = 420, 380, now[2].NeighborText
	twice := append(slices.Clone(now), video)
	// The 10:30 slot is no longer offered; the 14:00 one moved up into its place, as a list does.
	stayed := []gardener.Fingerprint{radio("slot-0900", "09:00 am", "09:00", 20), radio("slot-1400", "02:00 pm", "14:00", 40)}
	stayed[1].NeighborText = recorded.NeighborText
	noValue := recorded
	noValue.Value = ""
	for _, c := range []struct {
		name     string
		recorded *gardener.Fingerprint
		page     []gardener.Fingerprint
		url      string
		want     string
	}{
		{"relabelled", &recorded, now, "http://app.test/book/2?dept=y", `value="10:30"`},
		{"the value is gone", &recorded, gone, "http://app.test/book/2", ""},
		{"the value is gone, a sibling in its place", &recorded, stayed, "http://app.test/book/2", ""},
		{"two boxes with the value", &recorded, twice, "http://app.test/book/2", ""},
		{"no recorded value", &noValue, now, "http://app.test/book/2", ""},
		{"another page", &recorded, now, "http://app.test/book/3", ""},
	} {
		g := slices.Clone(green)
		g[1].Element = c.recorded
		step := clickStep(t, "label=10:30 am")
		step.Kind = gardener.Check
		a := ask(t, 1, step, g, c.page)
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
