package similo

import (
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
