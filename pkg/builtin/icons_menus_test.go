package builtin

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

// icon is a button that shows a glyph and is named by its aria-label.
func icon(glyph, label, xpath string, x float64) gardener.Fingerprint {
	b := button("", glyph, xpath, 400)
	b.AccessibleName, b.Location.X = label, x
	b.ARIA = map[string]string{"aria-label": label}
	b.Type = ""
	return b
}

// TestFixLocatorFindsTheButtonThatBecameAnIcon: a pager's "Next" that became "›" named "Next
// page" is found by its name keeping the recorded words, however little else it shares with
// the recorded button; so is a "Close" that became "✕" titled "Close"; two icons keeping the
// words are ambiguous, and a control that still shows words is no icon.
func TestFixLocatorFindsTheButtonThatBecameAnIcon(t *testing.T) {
	next := button("", "Next", "/html[1]/body[1]/main[1]/member-table[1]/#shadow-root/div[2]/div[1]/button[2]", 400)
	next.ClassList, next.Type, next.Location.X = []string{"next"}, "", 420
	green := []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, clickRecord("2", next)}
	prev := icon("‹", "Previous page", "/html[1]/body[1]/main[1]/member-table[1]/#shadow-root/div[2]/div[1]/button[1]", 40)
	nextIcon := icon("›", "Next page", "/html[1]/body[1]/main[1]/member-table[1]/#shadow-root/div[2]/div[1]/button[2]", 300)
	steps := clickStep(t, "text=Next")
	for _, c := range []struct {
		name string
		page []gardener.Fingerprint
		want string // a part of the locator, "" for an abstention
	}{
		{"next became an icon", []gardener.Fingerprint{prev, nextIcon}, "Next page"},
		{"two icons keep the words", []gardener.Fingerprint{prev, nextIcon, icon("»", "Next page of results", "/html[1]/body[1]/footer[1]/button[1]", 900)}, ""},
		{"the control still shows words", []gardener.Fingerprint{prev, button("", "Go to the next page", "/html[1]/body[1]/footer[1]/button[1]", 900)}, ""},
	} {
		a := ask(t, 1, steps, green, c.page)
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

	closeBtn := button("", "Close", "/html[1]/body[1]/div[1]/button[1]", 100)
	x := icon("✕", "", "/html[1]/body[1]/div[1]/button[1]", 600)
	x.Title, x.AccessibleName = "Close", "Close"
	a := ask(t, 0, clickStep(t, `role=button[name="Close"]`), []gardener.StepRecord{clickRecord("1", closeBtn)}, []gardener.Fingerprint{x, button("", "Save", "/html[1]/body[1]/main[1]/button[1]", 300)})
	a.Step = clickStep(t, "text=Close")
	if ans, _ := (Engine{}).FixLocator(context.Background(), a); ans.Locator.IsZero() {
		t.Errorf("the ✕ titled Close was not found: %s", ans.Reason)
	}
}

// TestFixLocatorModalButtonIsNotTheRowAction: a later step's button inside the open modal
// dialog (a confirmation's "Delete") is not the row's "Delete" the step being healed clicks to
// open it; the guard against acting twice lets the heal through.
func TestFixLocatorModalButtonIsNotTheRowAction(t *testing.T) {
	rowDelete := button("", "Delete", "/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr[3]/td[4]/button[2]", 300)
	rowDelete.AccessibleName = "Delete Grace Hopper"
	confirm := button("", "Delete", "/html[1]/body[1]/main[1]/cd-confirm[1]/#shadow-root/div[1]/div[1]/div[1]/button[2]", 320)
	confirm.Modal = true
	green := []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, clickRecord("2", rowDelete), {Path: "3", Kind: gardener.AssertModal, Passed: true}, clickRecord("4", confirm)}
	item := rowDelete
	item.Role, item.XPath, item.IdxPath = "menuitem", "/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr[3]/td[4]/div[1]/button[2]", ""
	ans, err := Engine{}.FixLocator(context.Background(), ask(t, 1, clickStep(t, `role=button[name="Delete Grace Hopper"]`), green, []gardener.Fingerprint{item}))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Locator.IsZero() {
		t.Fatalf("the menu item was not healed onto: %s", ans.Reason)
	}
}

// rowTable is a members table whose rows each have a collapsed "More actions" menu toggle, and
// the failure of a click on row 3's "Delete Grace Hopper", now inside row 3's closed menu.
func rowTable(t *testing.T, rows map[int]string, named bool) gardener.OpsAsk {
	t.Helper()
	const table = "/html[1]/body[1]/main[1]/member-table[1]/#shadow-root/div[1]/table[1]/tbody[1]"
	var page []gardener.Fingerprint
	for i := 1; i <= 4; i++ {
		name, ok := rows[i]
		if !ok {
			continue
		}
		row := table + "/tr[" + string(rune('0'+i)) + "]"
		cell := gardener.Fingerprint{Tag: "TD", XPath: row + "/td[1]", VisibleText: strings.Fields(name), Location: gardener.Rect{X: 10, Y: float64(40 * i), Width: 200, Height: 30}}
		label := "More actions"
		if named {
			label += " for " + name
		}
		toggle := icon("⋯", label, row+"/td[4]/button[1]", 600)
		toggle.Location.Y = float64(40 * i)
		toggle.ARIA = map[string]string{"aria-label": label, "aria-haspopup": "menu", "aria-expanded": "false"}
		page = append(page, cell, toggle)
	}
	del := button("", "Delete", table+"/tr[3]/td[4]/button[2]", 120)
	del.AccessibleName, del.Location.X = "Delete Grace Hopper", 640
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/members"}, clickStep(t, `role=button[name="Delete Grace Hopper"]`), {Kind: gardener.AssertModal, Text: "Delete Grace Hopper?"}}
	return gardener.OpsAsk{Failure: gardener.Failure{
		Test:      gardener.Test{ID: "member-delete", Steps: steps},
		Result:    gardener.RunResult{FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrElementNotFound},
		LastGreen: &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, clickRecord("2", del)}},
		Snapshot:  page,
	}}
}

// TestOpenCollapsedOpensTheMenuOfTheSameRow: when a row action moved into per-row menus, the
// toggle opened is the one in the action's own row: found by the words the action's name adds
// to its text ("Grace Hopper"), wherever the row now is, or by the row's position when the name
// adds none. When no row shows those words (the record is gone, or lost its actions; or the
// name adds words that name no record, "Delete row") no row's menu is opened: another row's
// would act on another record.
func TestOpenCollapsedOpensTheMenuOfTheSameRow(t *testing.T) {
	all := map[int]string{1: "Ada Lovelace", 2: "Alan Turing", 3: "Grace Hopper", 4: "Dennis Ritchie"}
	moved := map[int]string{1: "Ada Lovelace", 2: "Grace Hopper", 3: "Alan Turing", 4: "Dennis Ritchie"}
	gone := map[int]string{1: "Ada Lovelace", 2: "Alan Turing", 4: "Dennis Ritchie"}
	for _, c := range []struct {
		name  string
		rows  map[int]string
		named bool
		want  string // the toggle's row, "" for none
	}{
		{"named toggles", all, true, "tr[3]"},
		{"the row moved up", moved, true, "tr[2]"},
		{"the row is gone", gone, true, ""},
		{"the row is gone, toggles named alike", gone, false, ""},
		{"the action's name adds nothing: its row's position", all, false, "tr[3]"},
		{"the action's name adds words no row shows", all, true, ""},
	} {
		a := rowTable(t, c.rows, c.named)
		if strings.HasPrefix(c.name, "the action's name adds nothing") {
			a.LastGreen.Steps[1].Element.AccessibleName = "Delete"
		}
		if strings.HasPrefix(c.name, "the action's name adds words no row shows") {
			a.LastGreen.Steps[1].Element.AccessibleName = "Delete row"
		}
		got, err := Engine{}.SuggestOps(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		var opened string
		for _, op := range got.Ops {
			if op.Kind == gardener.OpInsert && op.Step.Kind == gardener.Click {
				opened = op.Step.Locator.String()
			}
		}
		if c.want == "" {
			if opened != "" {
				t.Errorf("%s: opened %s; the row of Grace Hopper has no menu, so none may be opened", c.name, opened)
			}
			continue
		}
		if at := toggleAt(a.Snapshot, opened); !strings.Contains(at, c.want+"/") {
			t.Errorf("%s: opened %q (at %q), want the toggle of %s (%s)", c.name, opened, at, c.want, got.Reason)
		}
	}
}

// toggleAt is the path of the snapshot's menu toggle a locator names: by its path, or by its
// name when that is the whole name.
func toggleAt(snap []gardener.Fingerprint, loc string) string {
	for _, c := range snap {
		if !strings.HasPrefix(c.AccessibleName, "More actions") || loc == "" {
			continue
		}
		if strings.Contains(loc, c.XPath) || strings.Contains(loc, `"`+c.AccessibleName+`"`) {
			return c.XPath
		}
	}
	return ""
}

// TestOpenCollapsedTheToggleWhereTheElementWas: outside rows, the toggle opened is the one
// nearest the element's recorded place in the document, not the first on the page.
func TestOpenCollapsedTheToggleWhereTheElementWas(t *testing.T) {
	header := button("user-menu", "Account", "/html/body/header/button", 10)
	header.ARIA = map[string]string{"aria-haspopup": "menu", "aria-expanded": "false"}
	summary := gardener.Fingerprint{Tag: "SUMMARY", ID: "menu-toggle-7", XPath: "/html/body/main/div/details/summary", VisibleText: []string{"More"}, Location: gardener.Rect{X: 200, Y: 80, Width: 80, Height: 20}}
	got, err := Engine{}.SuggestOps(context.Background(), archiveFailure(t, []gardener.Fingerprint{header, summary}))
	if err != nil {
		t.Fatal(err)
	}
	// archiveFailure's Archive button was at /html/body/main/div/button[2].
	if len(got.Ops) != 1 || got.Ops[0].Kind != gardener.OpInsert || !strings.Contains(got.Ops[0].Step.Locator.String(), "menu-toggle-7") {
		t.Errorf("want the summary next to where Archive was opened, got %v (%s)", got.Ops, got.Reason)
	}
}

// TestDropGoneStepKeepsTheFlow: a click whose element is gone is dropped only while another
// action stays on its page: the Cancel of a dialog that no longer opens (its Delete already
// dropped) is not, since the test would only check the page as it loads.
func TestDropGoneStepKeepsTheFlow(t *testing.T) {
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/members"}, clickStep(t, `role=button[name="Cancel"]`), {Kind: gardener.AssertHidden, Locator: gardener.MustLocator("role=dialog")}}
	cancel := button("", "Cancel", "/html[1]/body[1]/main[1]/cd-confirm[1]/#shadow-root/div[1]/button[1]", 300)
	a := gardener.OpsAsk{Failure: gardener.Failure{
		Test:      gardener.Test{ID: "member-delete-cancel", Steps: steps},
		Result:    gardener.RunResult{FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrElementNotFound},
		LastGreen: &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, clickRecord("2", cancel)}},
		Snapshot:  []gardener.Fingerprint{button("", "Invite member", "/html[1]/body[1]/main[1]/button[1]", 60)},
	}}
	got, err := Engine{}.SuggestOps(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range got.Ops {
		if op.Kind == gardener.OpDelete {
			t.Fatalf("dropped the test's last action on the page: %v (%s)", got.Ops, got.Reason)
		}
	}
	// With the click that opens the dialog still in the test, the gone Cancel may be dropped.
	a.Test.Steps = []gardener.Step{steps[0], clickStep(t, `role=button[name="Delete Ada Lovelace"]`), steps[1], steps[2]}
	a.Result.FailedStep, a.Result.FailedIndex = "3", 2
	a.LastGreen.Steps = []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, clickRecord("2", button("", "Delete", "/html[1]/body[1]/main[1]/button[2]", 100)), clickRecord("3", cancel)}
	got, _ = Engine{}.SuggestOps(context.Background(), a)
	if len(got.Ops) != 1 || got.Ops[0].Kind != gardener.OpDelete || got.Ops[0].Index != 2 {
		t.Errorf("want the gone Cancel dropped, got %v (%s)", got.Ops, got.Reason)
	}
}

// TestDropGoneStepKeepsADialogsStep: a dialog's Cancel is not dropped when no dialog is open:
// the click before it did not open the dialog (a Delete that does nothing), and a test without
// its Cancel would pass over that regression.
func TestDropGoneStepKeepsADialogsStep(t *testing.T) {
	del := button("", "Delete", "/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr[1]/td[4]/button[2]", 100)
	del.AccessibleName = "Delete Ada Lovelace"
	cancel := button("", "Cancel", "/html[1]/body[1]/main[1]/cd-confirm[1]/#shadow-root/div[1]/div[1]/div[1]/button[1]", 300)
	cancel.Modal = true
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/members"}, clickStep(t, `role=button[name="Delete Ada Lovelace"]`), clickStep(t, `role=button[name="Cancel"]`), {Kind: gardener.AssertHidden, Locator: gardener.MustLocator("role=dialog")}}
	a := gardener.OpsAsk{Failure: gardener.Failure{
		Test:      gardener.Test{ID: "member-delete-cancel", Steps: steps},
		Result:    gardener.RunResult{FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound},
		LastGreen: &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, clickRecord("2", del), clickRecord("3", cancel)}},
		Snapshot:  []gardener.Fingerprint{del, button("", "Invite member", "/html[1]/body[1]/main[1]/button[1]", 60)},
	}}
	got, err := Engine{}.SuggestOps(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range got.Ops {
		if op.Kind == gardener.OpDelete {
			t.Fatalf("dropped the Cancel of a dialog that did not open: %v (%s)", got.Ops, got.Reason)
		}
	}
}

// TestFixLocatorKeepsWhatACheckReads: a check whose element is gone is not moved onto another
// element that shows other words (the e-mail cell beside a removed name cell, the next row's
// name); one that shows the same words, renamed or moved, is.
func TestFixLocatorKeepsWhatACheckReads(t *testing.T) {
	cell := func(text, xpath string, y float64) gardener.Fingerprint {
		return gardener.Fingerprint{Tag: "TD", Role: "cell", AccessibleName: text, VisibleText: strings.Fields(text), XPath: xpath, IdxPath: xpath,
			Location: gardener.Rect{X: 10, Y: y, Width: 200, Height: 30}, Area: 6000, Shape: 200.0 / 30}
	}
	name := cell("Ada Lovelace", "/html[1]/body[1]/table[1]/tbody[1]/tr[1]/td[1]", 40)
	green := []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, {Path: "2", Kind: gardener.AssertVisible, Element: &name, Passed: true}}
	check := gardener.Step{Kind: gardener.AssertVisible, Locator: gardener.MustLocator("css=td.name")}
	for _, c := range []struct {
		label string
		page  []gardener.Fingerprint
		heal  bool
	}{
		{"the name cell is gone, the e-mail cell stays", []gardener.Fingerprint{cell("ada@crewdesk.test", "/html[1]/body[1]/table[1]/tbody[1]/tr[1]/td[2]", 40)}, false},
		{"the row is gone, the next row's name moved up", []gardener.Fingerprint{cell("Alan Turing", "/html[1]/body[1]/table[1]/tbody[1]/tr[1]/td[1]", 40)}, false},
		{"the name cell was wrapped", []gardener.Fingerprint{cell("Ada Lovelace", "/html[1]/body[1]/table[1]/tbody[1]/tr[1]/td[1]/div[1]", 40)}, true},
	} {
		a := ask(t, 1, check, green, c.page)
		ans, err := Engine{Locate: similo.Engine{Threshold: similo.NeverAbstain}}.FixLocator(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		if got := !ans.Locator.IsZero(); got != c.heal {
			t.Errorf("%s: moved the check to %q (%s); want a move: %v", c.label, ans.Locator, ans.Reason, c.heal)
		}
	}
}

// TestFixLocatorRowActionsTurnedIcons: the row actions of a table became icon buttons named by
// their action and their row ("View INV-002", "Delete INV-002") and the recorded "Delete" of
// the INV-002 row is the one whose name starts with "Delete" and whose other words its row
// showed; every other row's "Delete", the row's "View" and an "Undo delete" lose. When the
// recorded neighbours name no row, the rows' deletes stay ambiguous and the heal abstains.
func TestFixLocatorRowActionsTurnedIcons(t *testing.T) {
	row := func(n int) string {
		return "/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr[" + string(rune('0'+n)) + "]/td[4]/"
	}
	del := button("", "Delete", row(2)+"button[1]", 400)
	del.NeighborText = []string{"INV-002", "Acme Ltd", "$120.00"}
	green := []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, clickRecord("2", del)}
	var page []gardener.Fingerprint
	for n, inv := range []string{"INV-001", "INV-002", "INV-003"} {
		page = append(page, icon("👁", "View "+inv, row(n+1)+"button[1]", 380), icon("🗑", "Delete "+inv, row(n+1)+"button[2]", 410))
	}
	page = append(page, icon("↶", "Undo delete", "/html[1]/body[1]/header[1]/button[1]", 900))
	for _, c := range []struct {
		name       string
		neighbours []string
		want       string
	}{
		{"the row's neighbours name it", del.NeighborText, `Delete INV-002`},
		{"no neighbour names a row", nil, ""},
	} {
		rec := del
		rec.NeighborText = c.neighbours
		g := []gardener.StepRecord{green[0], clickRecord("2", rec)}
		ans, err := Engine{}.FixLocator(context.Background(), ask(t, 1, clickStep(t, "css=table tbody tr:nth-child(2) td.actions button"), g, page))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.want == "" && !ans.Locator.IsZero():
			t.Errorf("%s: healed onto %s (%s); want an abstention", c.name, ans.Locator, ans.Reason)
		case c.want != "" && !strings.Contains(ans.Locator.String()+" "+strings.Join(locStrings(ans.Alternatives), " "), c.want):
			t.Errorf("%s: got %q %v (%s); want a locator naming %q", c.name, ans.Locator, ans.Alternatives, ans.Reason, c.want)
		}
	}
}

func locStrings(ls []gardener.Locator) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

// TestFixLocatorNameWithLiveData: a control whose name gained a count ("Delete Grace Hopper"
// became "Delete Grace Hopper (5)") is found by the stable part of its name among row
// neighbours the similarity weighs alike; a name with other words added ("Save draft") is
// another control.
func TestFixLocatorNameWithLiveData(t *testing.T) {
	row := func(n int, name string) gardener.Fingerprint {
		b := button("", "Delete", "/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr["+string(rune('0'+n))+"]/td[4]/button[1]", float64(100+40*n))
		b.AccessibleName, b.ARIA = name, map[string]string{"aria-label": name}
		return b
	}
	for _, c := range []struct {
		name     string
		recorded gardener.Fingerprint
		loc      string
		page     []gardener.Fingerprint
		want     string // the accessible name of the element healed onto, "" for an abstention
	}{
		{"a count added to a row's name", row(2, "Delete Grace Hopper"), `role=button[name="Delete Grace Hopper"]`,
			[]gardener.Fingerprint{row(1, "Delete Ada Lovelace"), row(2, "Delete Grace Hopper (5)"), row(3, "Delete Alan Turing")}, "Delete Grace Hopper (5)"},
		{"a price added to a row's name", row(2, "Delete Grace Hopper"), `role=button[name="Delete Grace Hopper"]`,
			[]gardener.Fingerprint{row(1, "Delete Ada Lovelace · $3.10"), row(2, "Delete Grace Hopper · $12.40"), row(3, "Delete Alan Turing · $7.00")}, "Delete Grace Hopper · $12.40"},
		{"other words added", button("", "Save", "/html[1]/body[1]/form[1]/button[2]", 300), `css=.save`,
			[]gardener.Fingerprint{button("", "Save draft", "/html[1]/body[1]/aside[1]/button[1]", 900)}, ""},
	} {
		green := []gardener.StepRecord{{Path: "1", Kind: gardener.Goto, Passed: true}, clickRecord("2", c.recorded)}
		ans, err := Engine{}.FixLocator(context.Background(), ask(t, 1, clickStep(t, c.loc), green, c.page))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.want == "" && !ans.Locator.IsZero():
			t.Errorf("%s: healed onto %s (%s); want an abstention", c.name, ans.Locator, ans.Reason)
		case c.want != "" && (ans.Locator.IsZero() || !strings.Contains(ans.Reason, strconv.Quote(c.want))):
			t.Errorf("%s: got %q (%s); want the element named %q", c.name, ans.Locator, ans.Reason, c.want)
		case c.want != "" && gardener.Volatility(ans.Locator) != "":
			// The row's name without its live data is still the row's alone: the heal names it so.
			t.Errorf("%s: wrote %s, which %s; want the part of the name that stays", c.name, ans.Locator, gardener.Volatility(ans.Locator))
		}
	}
}

// TestOpenCollapsedInsideAnIntentBlock: a step of an intent block whose element moved into a
// closed menu gets the toggle clicked inside the block, just before it (before the block, the
// click would come before the block's own navigation); a toggle the block already clicks before
// the step is not clicked again.
func TestOpenCollapsedInsideAnIntentBlock(t *testing.T) {
	login := gardener.Step{Kind: gardener.Intent, Goal: "log in", Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"}, step(t, gardener.Fill, "#email"), step(t, gardener.Fill, "#password"), clickStep(t, "#login"),
	}}
	steps := []gardener.Step{login, clickStep(t, "#new"), {Kind: gardener.AssertToast, Text: "Created"}}
	pw := field("password", "password", "Password", "password", "/html/body/main/form/input[2]")
	more := button("menu-toggle-3", "More actions", "/html/body/main/form/button[1]", 120)
	more.ARIA = map[string]string{"aria-haspopup": "menu", "aria-expanded": "false"}
	ask := func(block gardener.Step) gardener.OpsAsk {
		return gardener.OpsAsk{Failure: gardener.Failure{
			Test:   gardener.Test{ID: "t", Steps: append([]gardener.Step{block}, steps[1:]...)},
			Result: gardener.RunResult{FailedStep: "1.3", FailedIndex: 0, ErrorKind: gardener.ErrElementNotFound, Cause: gardener.CauseHidden},
			LastGreen: &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{
				{Path: "1.1", Passed: true}, {Path: "1.2", Passed: true}, {Path: "1.3", Kind: gardener.Fill, Passed: true, Element: &pw}, {Path: "1.4", Passed: true}, {Path: "1", Passed: true}}},
			Snapshot: []gardener.Fingerprint{field("email", "email", "Email", "email", "/html/body/main/form/input[1]"), more},
		}}
	}
	got, err := Engine{}.SuggestOps(context.Background(), ask(login))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ops) != 1 || got.Ops[0].Kind != gardener.OpReplace || got.Ops[0].Index != 0 {
		t.Fatalf("want the block replaced with the toggle inside it, got %v (%s)", got.Ops, got.Reason)
	}
	inner := got.Ops[0].Step.Steps
	if len(inner) != 5 || inner[2].Kind != gardener.Click || !strings.Contains(inner[2].Locator.String(), "More actions") || inner[3].Locator.String() != "css=#password" {
		t.Errorf("want the toggle clicked just before the password fill, got %v", inner)
	}
	if len(login.Steps) != 4 {
		t.Errorf("the test's own block was changed: %v", login.Steps)
	}

	opened := login.Clone()
	toggle := clickStep(t, `role=button[name="More actions"]`)
	opened.Steps = append(opened.Steps[:2:2], append([]gardener.Step{toggle}, opened.Steps[2:]...)...)
	a := ask(opened)
	a.Result.FailedStep = "1.4"
	a.LastGreen.Steps[2].Path = "1.4"
	if got, _ := (Engine{}).SuggestOps(context.Background(), a); len(got.Ops) > 0 && got.Ops[0].Kind == gardener.OpReplace && len(got.Ops[0].Step.Steps) > len(opened.Steps) {
		t.Errorf("the block already opens the menu before the step; got another click: %v", got.Ops)
	}
}
