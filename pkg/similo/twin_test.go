package similo

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// members is a table of members, each row with its name and a Delete button named after the
// member; skip leaves one row without its button.
func members(skip string) []gardener.Fingerprint {
	names := []string{"Ada Lovelace", "Alan Turing", "Grace Hopper"}
	var out []gardener.Fingerprint
	for i, n := range names {
		row := "/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr[" + string(rune('1'+i)) + "]"
		y := 100 + 40*float64(i)
		out = append(out, el("TD", "", n, row+"/td[1]", 10, y, near(n)))
		if n == skip {
			continue
		}
		out = append(out, el("BUTTON", "", "Delete", row+"/td[2]/button[1]", 400, y, near(n), classes("delete"),
			func(fp *gardener.Fingerprint) {
				fp.AccessibleName = "Delete " + n
				fp.Role = "button"
				fp.IsButton = true
			}))
	}
	return out
}

func TestRowTwinIsNeverChosen(t *testing.T) {
	full := members("")
	target := full[1] // Ada Lovelace's Delete
	if m := (Engine{}).Locate(target, full); m.Index != 1 {
		t.Fatalf("the recorded button itself: chose %d (%s), want 1", m.Index, m.Reason)
	}
	gone := members("Ada Lovelace")
	m := Engine{}.Locate(target, gone)
	if !m.Abstained() {
		t.Fatalf("Ada Lovelace's Delete gone: chose %d %q (%s), want an abstention", m.Index, gone[m.Index].AccessibleName, m.Reason)
	}
	if !strings.Contains(m.Reason, "row twin") {
		t.Errorf("reason %q does not say the best candidate is a row twin", m.Reason)
	}
	if m := (Engine{Threshold: NeverAbstain}).Locate(target, gone); m.Abstained() {
		t.Errorf("NeverAbstain abstained: %s", m.Reason)
	}
}

func TestRenameIsNotATwin(t *testing.T) {
	// A renamed control keeps some words and swaps others, but no family of controls shares
	// the kept words: it is found.
	target := el("BUTTON", "", "Sign in", "/html[1]/body[1]/form[1]/button[1]", 300, 300,
		func(fp *gardener.Fingerprint) { fp.IsButton = true })
	now := []gardener.Fingerprint{
		el("A", "", "Sign up", "/html[1]/body[1]/header[1]/a[1]", 900, 10, href("/signup")),
		el("BUTTON", "", "Log in", "/html[1]/body[1]/form[1]/button[1]", 300, 300,
			func(fp *gardener.Fingerprint) { fp.IsButton = true }),
	}
	p := NewPage(now)
	tf := p.target(&target)
	if _, twin := p.twin(&tf, 1); twin {
		t.Errorf("a renamed button with no family of controls is taken for a row twin")
	}
	// Words that only gained (a count, a status) are no swap.
	if _, _, ok := nameSwap([]string{"delete"}, []string{"delete", "inv", "002"}); ok {
		t.Errorf("a name that only gained words is taken for a swap")
	}
}

func TestRewordedFieldIsNotATwin(t *testing.T) {
	// "Team name" reworded to "Workspace name", beside a "Display name" field, with "Team"
	// still in the navigation: the fields of one form are no family of row controls.
	field := func(label, xpath string, y float64) gardener.Fingerprint {
		return el("INPUT", "", "", xpath, 300, y, func(fp *gardener.Fingerprint) { fp.AccessibleName = label; fp.Label = label })
	}
	target := field("Team name", "/html[1]/body[1]/main[1]/form[1]/input[1]", 200)
	now := []gardener.Fingerprint{
		el("A", "", "Team", "/html[1]/body[1]/nav[1]/a[1]", 10, 10, href("/team")),
		field("Workspace name", "/html[1]/body[1]/main[1]/form[1]/input[1]", 200),
		field("Display name", "/html[1]/body[1]/main[1]/form[1]/input[2]", 260),
	}
	p := NewPage(now)
	tf := p.target(&target)
	if _, twin := p.twin(&tf, 1); twin {
		t.Errorf("a reworded field beside another field is taken for a row twin")
	}
	if m := (Engine{}).Locate(target, now); strings.Contains(m.Reason, "row twin") {
		t.Errorf("Locate: %s", m.Reason)
	}
}

// actionRows is a table of members whose rows hold action buttons named after the member, in
// the order given; row changes what Ada Lovelace's row holds instead (nil: the same).
func actionRows(actions []string, row func(n string) []string) []gardener.Fingerprint {
	names := []string{"Ada Lovelace", "Alan Turing", "Grace Hopper"}
	var out []gardener.Fingerprint
	for i, n := range names {
		tr := "/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr[" + string(rune('1'+i)) + "]"
		y := 100 + 40*float64(i)
		out = append(out, el("TD", "", n, tr+"/td[1]", 10, y, near(n)))
		acts := actions
		if row != nil && n == "Ada Lovelace" {
			acts = row(n)
		}
		for k, a := range acts {
			out = append(out, el("BUTTON", "", a, tr+"/td[2]/button["+string(rune('1'+k))+"]", 400+60*float64(k), y, near(n),
				func(fp *gardener.Fingerprint) {
					fp.AccessibleName = a + " " + n
					fp.Role = "button"
					fp.IsButton = true
				}))
		}
	}
	return out
}

func TestRowActionRenamedOnItsRow(t *testing.T) {
	named := func(fps []gardener.Fingerprint, name string) gardener.Fingerprint {
		for _, f := range fps {
			if f.AccessibleName == name {
				return f
			}
		}
		t.Fatalf("no %q", name)
		return gardener.Fingerprint{}
	}
	recorded := actionRows([]string{"Edit", "Delete"}, nil)
	target := named(recorded, "Delete Ada Lovelace")

	// Drift: Ada's Delete now reads Remove; the other rows still read Delete.
	now := actionRows([]string{"Edit", "Delete"}, func(string) []string { return []string{"Edit", "Remove"} })
	m := Engine{}.Locate(target, now)
	if !m.Abstained() {
		t.Fatalf("the engine chose %q; the test assumes the twins outscore the renamed button", now[m.Index].AccessibleName)
	}
	i, why, ok := NewPage(now).RowRenamed(target)
	if !ok || now[i].AccessibleName != "Remove Ada Lovelace" {
		t.Fatalf("RowRenamed = %d, %v (%s); want Remove Ada Lovelace", i, ok, why)
	}
	if !strings.Contains(why, "ada lovelace") && !strings.Contains(why, "Ada Lovelace") {
		t.Errorf("why %q does not name the row", why)
	}

	// Regressions: nothing of Ada's row may stand in for her Delete.
	for name, page := range map[string][]gardener.Fingerprint{
		"Ada's row gone":    members("Ada Lovelace"),
		"Ada's Delete gone": actionRows([]string{"Edit", "Delete"}, func(string) []string { return []string{"Edit"} }),
		// Delete came first; with it gone, Ada's Edit sits where her Delete was.
		"Ada's Delete gone, Edit in its place": actionRows([]string{"Delete", "Edit"}, func(string) []string { return []string{"Edit"} }),
		// Every row's Delete gone and Edit in its place: by structure, a rename everywhere.
		"every Delete gone": actionRows([]string{"Edit"}, nil),
	} {
		tg := target
		if name == "Ada's Delete gone, Edit in its place" || name == "every Delete gone" {
			tg = named(actionRows([]string{"Delete", "Edit"}, nil), "Delete Ada Lovelace")
		}
		if name == "Ada's row gone" {
			tg = members("")[1]
		}
		if i, why, ok := NewPage(page).RowRenamed(tg); ok {
			t.Errorf("%s: RowRenamed chose %q (%s)", name, page[i].AccessibleName, why)
		}
	}
}

// TestRowsMovedTheElementIsFound uses a Crewdesk page captured by the drift generator's
// list-order case: the members table's rows were rotated, so "Edit Margaret Hamilton" sits in
// the second row where the recorded "Edit Dennis Ritchie" was, and outscores it on place (the
// neighbour text is the page's, not the row's). The twin is refused, and the recorded button
// itself, the one of the family with the whole recorded name, is chosen. With Dennis Ritchie's
// row gone, nothing is.
func TestRowsMovedTheElementIsFound(t *testing.T) {
	b, err := os.ReadFile("testdata/crewdesk-rows-moved.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Target gardener.Fingerprint   `json:"target"`
		Page   []gardener.Fingerprint `json:"page"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	m := Engine{}.Locate(c.Target, c.Page)
	if m.Abstained() || c.Page[m.Index].AccessibleName != "Edit Dennis Ritchie" {
		t.Fatalf("rows moved: chose %d (%s), want Edit Dennis Ritchie", m.Index, m.Reason)
	}
	var gone []gardener.Fingerprint
	for _, f := range c.Page {
		if !strings.Contains(f.AccessibleName, "Dennis Ritchie") && !slices.Contains(f.VisibleText, "Dennis Ritchie") {
			gone = append(gone, f)
		}
	}
	if m := (Engine{}).Locate(c.Target, gone); !m.Abstained() {
		t.Errorf("Dennis Ritchie's row gone: chose %q (%s)", gone[m.Index].AccessibleName, m.Reason)
	}
}

// TestRowGoneWithItsNameIsNoHeal uses a Crewdesk page captured by the drift generator's
// row-gone case: Ada Lovelace's whole row is gone, her name with it, and the other rows'
// Delete buttons remain. "Delete Alan Turing" now sits where hers was and scores a confident
// match, but it is a row twin, never the element: the step would delete another member.
func TestRowGoneWithItsNameIsNoHeal(t *testing.T) {
	target, page := capturedPage(t, "testdata/crewdesk-row-gone.json")
	if m := (Engine{}).Locate(target, page); !m.Abstained() {
		t.Errorf("Ada Lovelace's row gone: chose %q (%s)", page[m.Index].AccessibleName, m.Reason)
	}
}

// capturedPage reads a recorded element and the page a drift case left, as the builtin model
// saw them.
func capturedPage(t *testing.T, path string) (gardener.Fingerprint, []gardener.Fingerprint) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Target gardener.Fingerprint   `json:"target"`
		Page   []gardener.Fingerprint `json:"page"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c.Target, c.Page
}
