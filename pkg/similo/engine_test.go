package similo

import (
	"fmt"
	"slices"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// el builds a fingerprint as a DOM snapshot would record it.
func el(tag, id, text, xpath string, x, y float64, mods ...func(*gardener.Fingerprint)) gardener.Fingerprint {
	fp := gardener.Fingerprint{
		Tag: tag, ID: id, XPath: xpath, IdxPath: xpath,
		Location: gardener.Rect{X: x, Y: y, Width: 80, Height: 30},
		Area:     2400, Shape: 266,
	}
	if text != "" {
		fp.VisibleText = []string{text}
	}
	for _, m := range mods {
		m(&fp)
	}
	return fp
}

func near(words ...string) func(*gardener.Fingerprint) {
	return func(fp *gardener.Fingerprint) { fp.NeighborText = words }
}

func href(h string) func(*gardener.Fingerprint) {
	return func(fp *gardener.Fingerprint) { fp.Href = h }
}

func testID(v string) func(*gardener.Fingerprint) {
	return func(fp *gardener.Fingerprint) { fp.TestID = v }
}

func classes(cs ...string) func(*gardener.Fingerprint) {
	return func(fp *gardener.Fingerprint) { fp.ClassList = cs }
}

// page is a small app page: a header with links, a login form, and a table of two rows each
// with a "Delete" button.
func page() []gardener.Fingerprint {
	return []gardener.Fingerprint{
		el("A", "", "Home", "/html[1]/body[1]/header[1]/nav[1]/a[1]", 10, 10, href("/")),
		el("A", "", "Orders", "/html[1]/body[1]/header[1]/nav[1]/a[2]", 100, 10, href("/orders")),
		el("INPUT", "login-email", "", "/html[1]/body[1]/main[1]/form[1]/input[1]", 300, 200,
			func(fp *gardener.Fingerprint) { fp.Name = "email"; fp.Type = "email"; fp.Label = "Email" }),
		el("INPUT", "login-password", "", "/html[1]/body[1]/main[1]/form[1]/input[2]", 300, 250,
			func(fp *gardener.Fingerprint) { fp.Name = "password"; fp.Type = "password"; fp.Label = "Password" }),
		el("BUTTON", "login-submit", "Sign in", "/html[1]/body[1]/main[1]/form[1]/button[1]", 300, 300,
			func(fp *gardener.Fingerprint) { fp.IsButton = true }, testID("sign-in")),
		el("BUTTON", "", "Delete", "/html[1]/body[1]/main[1]/table[1]/tr[1]/td[3]/button[1]", 600, 500,
			near("Invoice", "1001", "Paid"), classes("btn", "danger")),
		el("BUTTON", "", "Delete", "/html[1]/body[1]/main[1]/table[1]/tr[2]/td[3]/button[1]", 600, 540,
			near("Invoice", "1002", "Overdue"), classes("btn", "danger")),
	}
}

func TestLocateDrift(t *testing.T) {
	old := page()
	cases := []struct {
		name   string
		target gardener.Fingerprint
		drift  func([]gardener.Fingerprint) []gardener.Fingerprint
		want   int // index in the drifted page, -1 to abstain
	}{
		{
			name:   "unchanged page",
			target: old[4],
			drift:  func(p []gardener.Fingerprint) []gardener.Fingerprint { return p },
			want:   4,
		},
		{
			name:   "renamed id",
			target: old[2],
			drift: func(p []gardener.Fingerprint) []gardener.Fingerprint {
				p[2].ID = "email-input"
				return p
			},
			want: 2,
		},
		{
			name:   "wrapper added changes every xpath",
			target: old[4],
			drift: func(p []gardener.Fingerprint) []gardener.Fingerprint {
				for i := range p {
					p[i].XPath = "/html[1]/body[1]/div[1]" + p[i].XPath[len("/html[1]/body[1]"):]
					p[i].IdxPath = p[i].XPath
					p[i].Location.Y += 40
				}
				return p
			},
			want: 4,
		},
		{
			name:   "changed text, same test id",
			target: old[4],
			drift: func(p []gardener.Fingerprint) []gardener.Fingerprint {
				p[4].VisibleText = []string{"Log in"}
				return p
			},
			want: 4,
		},
		{
			name:   "changed text and moved, id and position of the others unchanged",
			target: old[1],
			drift: func(p []gardener.Fingerprint) []gardener.Fingerprint {
				p[1].VisibleText = []string{"My orders"}
				p[1].Location.X = 140
				return p
			},
			want: 1,
		},
		{
			name:   "near twin: the second row's Delete, told apart by its row",
			target: old[6],
			drift: func(p []gardener.Fingerprint) []gardener.Fingerprint {
				// the rows swap places: position and xpath now point at the other button
				p[5], p[6] = p[6], p[5]
				p[5].XPath, p[6].XPath = p[6].XPath, p[5].XPath
				p[5].IdxPath, p[6].IdxPath = p[5].XPath, p[6].XPath
				p[5].Location, p[6].Location = p[6].Location, p[5].Location
				return p
			},
			want: 5,
		},
		{
			name: "near twin with nothing to tell them apart: abstain",
			target: el("BUTTON", "", "Delete", "/html[1]/body[1]/main[1]/table[1]/tr[1]/td[3]/button[1]", 600, 500,
				classes("btn", "danger")),
			drift: func(p []gardener.Fingerprint) []gardener.Fingerprint {
				// a redesign moved the table; both rows are now equally far from the record
				for _, i := range []int{5, 6} {
					p[i].NeighborText = nil
					p[i].XPath = "/html[1]/body[1]/main[1]/div[1]/ul[1]/li[" + string(rune('0'+i-4)) + "]/button[1]"
					p[i].IdxPath = p[i].XPath
				}
				p[5].Location.Y, p[6].Location.Y = 900, 900
				p[5].Location.X, p[6].Location.X = 400, 800
				return p
			},
			want: -1,
		},
		{
			name:   "element removed: abstain",
			target: old[4],
			drift: func(p []gardener.Fingerprint) []gardener.Fingerprint {
				return slices.Delete(p, 4, 5)
			},
			want: -1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cands := tc.drift(page())
			m := Engine{}.Locate(tc.target, cands)
			if m.Index != tc.want {
				t.Errorf("Locate chose %d, want %d (%s)", m.Index, tc.want, m.Reason)
			}
			if m.Reason == "" {
				t.Error("Locate gave no reason")
			}
		})
	}
}

func TestLocateEmptyPage(t *testing.T) {
	m := Engine{Threshold: NeverAbstain}.Locate(page()[0], nil)
	if m.Index != -1 || m.Best != -1 || m.RunnerUp != -1 {
		t.Errorf("Locate on no candidates = %+v, want an abstention", m)
	}
}

func TestNeverAbstainChoosesBest(t *testing.T) {
	cands := slices.Delete(page(), 4, 5)
	m := Engine{Threshold: NeverAbstain}.Locate(page()[4], cands)
	if m.Index < 0 || m.Index != m.Best {
		t.Errorf("NeverAbstain: Index %d Best %d, want the best chosen", m.Index, m.Best)
	}
}

func TestRankOrderAndConfidence(t *testing.T) {
	r := Engine{}.Rank(page()[4], page())
	if len(r) != len(page()) || r[0].Index != 4 {
		t.Fatalf("Rank = %+v, want candidate 4 first", r)
	}
	var sum float64
	for i, s := range r {
		if i > 0 && s.Score > r[i-1].Score {
			t.Errorf("Rank not sorted at %d", i)
		}
		sum += s.Confidence
	}
	// the rest of the probability belongs to "the element is gone"
	if sum <= 0 || sum > 1 {
		t.Errorf("confidences sum to %v, want in (0, 1]", sum)
	}
}

func TestLocators(t *testing.T) {
	cands := page()
	cases := []struct {
		i     int
		first string
	}{
		{4, "testid=sign-in"},
		{1, `role=link[name="Orders"]`},
		{2, "label=Email"},
		{3, "label=Password"},
	}
	p := NewPage(cands)
	for _, tc := range cases {
		locs := p.Locators(tc.i)
		if len(locs) == 0 || locs[0] != tc.first {
			t.Errorf("Locators(%d) = %q, want %q first", tc.i, locs, tc.first)
		}
	}
	// the twin Delete buttons share text, role and classes: nothing stable is unique, so only
	// a positional path is left, and it must be the button's own.
	locs := p.Locators(6)
	want := []string{"xpath=" + cands[6].XPath}
	if !slices.Equal(locs, want) {
		t.Errorf("Locators(6) = %q, want %q", locs, want)
	}
	if got := p.Locators(len(cands)); got != nil {
		t.Errorf("Locators out of range = %q, want nil", got)
	}
}

// TestLocatorsUnique checks that every stable locator names exactly one candidate, and that
// a generated id is never used.
func TestLocatorsUnique(t *testing.T) {
	cands := page()
	cands = append(cands,
		el("DIV", "ember1234", "Total", "/html[1]/body[1]/main[1]/div[1]", 10, 700),
		el("SPAN", "", "Orders", "/html[1]/body[1]/main[1]/h2[1]/span[1]", 10, 80),
	)
	p := NewPage(cands)
	for i := range cands {
		for _, l := range p.Locators(i) {
			if l == "css=#ember1234" {
				t.Errorf("Locators(%d) used a generated id: %q", i, l)
			}
			if l == "text=Orders" {
				t.Errorf("Locators(%d) used text shared by two candidates: %q", i, l)
			}
		}
	}
	if got := p.Locators(7); len(got) == 0 || got[0] != "text=Total" {
		t.Errorf("Locators(7) = %q, want text=Total first", got)
	}
}

func BenchmarkLocate(b *testing.B) {
	cands := make([]gardener.Fingerprint, 0, 1000)
	for len(cands) < 1000 {
		for _, fp := range page() {
			fp.Location.Y += float64(len(cands) * 3)
			fp.NeighborText = append(fp.NeighborText, "row", string(rune('a'+len(cands)%26)))
			cands = append(cands, fp)
		}
	}
	cands = cands[:1000]
	target := page()[4]
	b.Run("page prepared per case", func(b *testing.B) {
		for b.Loop() {
			Engine{}.Locate(target, cands)
		}
	})
	b.Run("page prepared once", func(b *testing.B) {
		p := NewPage(cands)
		for b.Loop() {
			Engine{}.LocateOn(p, target)
		}
	})
}

// TestLocatorsNameAChoiceByItsValue: radio buttons whose labels carry a time and whose ids a
// digit run are named by their group and value, a stable form, before the volatile ones.
func TestLocatorsNameAChoiceByItsValue(t *testing.T) {
	radio := func(id, label, value string, y float64) gardener.Fingerprint {
		return gardener.Fingerprint{
			Tag: "INPUT", ID: id, Name: "slot", Type: "radio", Value: value, Role: "radio", Label: label, AccessibleName: label,
			XPath: fmt.Sprintf("/html[1]/body[1]/form[1]/div[%.0f]/input[1]", y/20), Location: gardener.Rect{X: 10, Y: y, Width: 13, Height: 13},
		}
	}
	p := NewPage([]gardener.Fingerprint{radio("time-0900", "09:00", "09:00", 20), radio("time-1030", "10:30", "10:30", 40), radio("time-1400", "14:00", "14:00", 60)})
	locs := p.Locators(1)
	if len(locs) == 0 || locs[0] != `css=input[name="slot"][value="10:30"]` {
		t.Errorf("Locators(1) = %q, want css=input[name=\"slot\"][value=\"10:30\"] first", locs)
	}
}
