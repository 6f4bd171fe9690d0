package builtin

import (
	"context"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// memberRows is a members table whose rows hold the given action buttons, each named after
// its action and the row's member; ada, when not nil, is what Ada Lovelace's row holds
// instead.
func memberRows(actions []string, ada []string) []gardener.Fingerprint {
	var page []gardener.Fingerprint
	for r, n := range []string{"Ada Lovelace", "Alan Turing", "Grace Hopper", "Linus Torvalds"} {
		tr := "/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr[" + string(rune('1'+r)) + "]"
		y := 100 + 40*float64(r)
		cell := gardener.Fingerprint{Tag: "td", XPath: tr + "/td[1]", IdxPath: tr + "/td[1]", VisibleText: []string{n},
			Location: gardener.Rect{X: 10, Y: y, Width: 200, Height: 36}, Area: 200 * 36, Shape: 200.0 / 36}
		page = append(page, cell)
		acts := actions
		if ada != nil && r == 0 {
			acts = ada
		}
		for k, a := range acts {
			b := button("", a, tr+"/td[2]/button["+string(rune('1'+k))+"]", y)
			b.AccessibleName, b.Type = a+" "+n, "button"
			b.Location.X = 400 + 80*float64(k)
			b.NeighborText = []string{n}
			page = append(page, b)
		}
	}
	return page
}

func recordedDelete(t *testing.T, actions []string) gardener.Fingerprint {
	t.Helper()
	for _, f := range memberRows(actions, nil) {
		if f.AccessibleName == "Delete Ada Lovelace" {
			return f
		}
	}
	t.Fatal("no Delete Ada Lovelace")
	return gardener.Fingerprint{}
}

// A row action renamed on its row ("Delete Ada Lovelace" now "Remove Ada Lovelace", the other
// rows still "Delete …") is the same control; the twins on the other rows outscore it and are
// refused, so without the rename rule self-heal abstained and diagnose called it an app bug.
// Ada's Delete gone (alone, or with her Edit in its place) and Ada's row gone stay unhealed.
func TestFixLocatorRowActionRenamedOnItsRow(t *testing.T) {
	step := clickStep(t, `role=button[name="Delete Ada Lovelace"]`)
	for _, c := range []struct {
		name     string
		recorded []string // the actions of every row on the green run
		page     []gardener.Fingerprint
		want     string // "" for an abstention
	}{
		{"renamed on its row", []string{"Edit", "Delete"}, memberRows([]string{"Edit", "Delete"}, []string{"Edit", "Remove"}), `Remove Ada Lovelace`},
		{"Ada's Delete gone", []string{"Edit", "Delete"}, memberRows([]string{"Edit", "Delete"}, []string{"Edit"}), ""},
		{"Ada's Delete gone, her Edit in its place", []string{"Delete", "Edit"}, memberRows([]string{"Delete", "Edit"}, []string{"Edit"}), ""},
		{"Ada's row gone", []string{"Edit", "Delete"}, memberRows([]string{"Edit", "Delete"}, nil)[3:], ""},
	} {
		rec := recordedDelete(t, c.recorded)
		green := []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, clickRecord("2", rec)}
		ans, err := Engine{}.FixLocator(context.Background(), ask(t, 1, step, green, c.page))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.want == "" && !ans.Locator.IsZero():
			t.Errorf("%s: healed onto %s (%s); want an abstention", c.name, ans.Locator, ans.Reason)
		case c.want != "" && !strings.Contains(ans.Locator.String(), c.want):
			t.Errorf("%s: got %q (%s); want a locator naming %q", c.name, ans.Locator, ans.Reason, c.want)
		}

		a := ask(t, 1, step, green, c.page)
		d, err := Engine{}.Diagnose(context.Background(), gardener.DiagnoseAsk{Failure: gardener.Failure{
			Test:      gardener.Test{ID: "t", Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/members"}, step}},
			Result:    a.Result,
			LastGreen: a.LastGreen,
			Snapshot:  a.Snapshot,
		}})
		if err != nil {
			t.Fatal(err)
		}
		if app := d.Classification == gardener.AppBug; app != (c.want == "") {
			t.Errorf("%s: diagnosed %s (%s)", c.name, d.Classification, strings.Join(d.Evidence, "; "))
		}
	}
}

// A heal's reason quotes the page's words, and a row's words may be what the test typed (the
// member it added before deleting it): the reason says the row action was renamed without
// naming the row.
func TestFixLocatorReasonLeavesOutTypedRowNames(t *testing.T) {
	step := clickStep(t, `role=button[name="Delete Ada Lovelace"]`)
	rec := recordedDelete(t, []string{"Edit", "Delete"})
	green := []gardener.StepRecord{{Path: "1", Kind: gardener.Fill, Passed: true, Values: []string{"Ada Lovelace"}}, clickRecord("2", rec)}
	a := ask(t, 1, step, green, memberRows([]string{"Edit", "Delete"}, []string{"Edit", "Remove"}))
	fill := clickStep(t, "#name")
	fill.Kind, fill.Value = gardener.Fill, "Ada Lovelace"
	a.Test = gardener.Test{ID: "t", Steps: []gardener.Step{fill, step}}
	ans, err := Engine{}.FixLocator(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ans.Locator.String(), "Remove Ada Lovelace") {
		t.Fatalf("got %q (%s); want the renamed row action", ans.Locator, ans.Reason)
	}
	if r := strings.ToLower(ans.Reason); strings.Contains(r, "ada") || strings.Contains(r, "lovelace") {
		t.Errorf("the reason names what the test typed: %s", ans.Reason)
	}
	d, err := Engine{}.Diagnose(context.Background(), gardener.DiagnoseAsk{Failure: a.Failure})
	if err != nil {
		t.Fatal(err)
	}
	// The step's own locator is the test's text, shown as the test has it; the page's words
	// about the row are what must not show the typed name.
	ev := strings.ReplaceAll(strings.Join(d.Evidence, "; "), step.Target().String(), "LOCATOR")
	if !strings.Contains(ev, "stands") {
		t.Errorf("the diagnosis does not say the row action was renamed: %s", ev)
	}
	if e := strings.ToLower(ev); strings.Contains(e, "ada") || strings.Contains(e, "lovelace") {
		t.Errorf("the diagnosis names what the test typed: %s", ev)
	}
}
