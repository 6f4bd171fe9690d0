package similo

import (
	"fmt"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// A row twin is the same control on another row: "Delete Alan Turing" beside the recorded
// "Delete Ada Lovelace". It agrees with the recorded element on everything but the words that
// name its row's entity (tag, classes, path, size, even position when the rows moved), so the
// weighted evidence cannot tell it from the element, and when the recorded row lost its control
// the twin is the most tempting false heal: a test that deleted one member would delete
// another. Real redesigns rename a control's words without leaving the old words standing on
// the page as another element's name, and without a family of controls that share the rest of
// the name. So a candidate is a twin, and never chosen, when its name keeps some of the
// recorded name's words and swaps others (nameSwap), the words it dropped still stand on the
// page (the entity is still there; or else two other candidates, see twin), and another candidate shares the kept words with yet
// other words (the control is one of a family, one per entity) and is the same control in a
// parallel place: the same tag, at the same path but for the positions of its ancestors
// (another row, another list item; see familyPath). A field whose label was reworded ("Team
// name" to "Workspace name") has no such family, even when the page shows the dropped word
// elsewhere and another field of the form is named "Display name".

// nameWords are the words a user reads as the element's name: its accessible name, or its
// visible text when it has none.
func nameWords(f *features) []string {
	if n := f.exact[exAccName]; n != "" {
		return strings.Fields(n)
	}
	return strings.Fields(f.exact[exText])
}

// nameSwap splits the recorded name t against the candidate's name c: the words both have,
// and whether each side has words the other lacks. ok is false unless all three are non-empty.
func nameSwap(t, c []string) (kept, dropped []string, ok bool) {
	if len(t) == 0 || len(c) == 0 {
		return nil, nil, false
	}
	added := false
	for _, w := range c {
		if !slices.Contains(t, w) {
			added = true
			break
		}
	}
	for _, w := range t {
		if slices.Contains(c, w) {
			if !slices.Contains(kept, w) {
				kept = append(kept, w)
			}
		} else if !slices.Contains(dropped, w) {
			dropped = append(dropped, w)
		}
	}
	return kept, dropped, added && len(kept) > 0 && len(dropped) > 0
}

// onPage reports whether a word stands anywhere on the page: in a candidate's visible text,
// neighbour text or accessible name.
func (p *Page) onPage(w string) bool {
	if _, ok := p.text.ids[w]; ok {
		return true
	}
	if _, ok := p.near.ids[w]; ok {
		return true
	}
	return p.accWords[w]
}

// twin reports whether candidate i is a row twin of the element recorded as t (see above), and
// if so the candidate whose name shows the family.
func (p *Page) twin(t *features, i int) (sibling int, ok bool) {
	tw := nameWords(t)
	cw := nameWords(&p.feats[i])
	kept, dropped, ok := nameSwap(tw, cw)
	if !ok {
		return -1, false
	}
	still := false
	for _, w := range dropped {
		if p.onPage(w) {
			still = true
			break
		}
	}
	cName := strings.Join(cw, " ")
	cPath := familyPath(p.cands[i].XPath)
	if cPath == "" {
		return -1, false
	}
	// With the dropped words gone from the page, the recorded row may be gone with its
	// control (a deleted member takes its name with it), and its twins are the most tempting
	// false heal of all; a redesign that renamed one control does not leave a family of rows
	// behind. So a family of at least two other rows' controls still makes the candidate a
	// twin; one other is not enough then (two buttons of a toolbar can share a word).
	need, first := 1, -1
	if !still {
		need = 2
	}
	for j := range p.feats {
		if j == i || p.feats[j].tag != p.feats[i].tag || familyPath(p.cands[j].XPath) != cPath {
			continue
		}
		ow := nameWords(&p.feats[j])
		if len(ow) <= len(kept) || strings.Join(ow, " ") == cName {
			continue
		}
		all := true
		for _, w := range kept {
			if !slices.Contains(ow, w) {
				all = false
				break
			}
		}
		if all {
			if first < 0 {
				first = j
			}
			if need--; need == 0 {
				return first, true
			}
		}
	}
	return -1, false
}

// familyPath is an xpath without the positions of the steps above the element:
// "/html/body/table/tbody/tr/td/button[2]" for every row's second button. The element's own
// step keeps its position, so the fields of one form (input[1], input[2]) are not a family:
// a family repeats one place under parallel ancestors (rows, list items, cards). It is "" for
// an element without a path.
func familyPath(x string) string {
	x = strings.ToLower(strings.TrimSpace(x))
	cut := strings.LastIndex(x, "/")
	if cut < 0 {
		return ""
	}
	var b strings.Builder
	depth := 0
	for _, r := range x[:cut] {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth = max(0, depth-1)
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String() + x[cut:]
}

// A row action renamed on its row: the recorded "Delete Ada Lovelace" now reads "Remove Ada
// Lovelace" while the other rows still read "Delete Alan Turing". The row twins outscore it
// (they keep the recorded text, "Delete") and the twin guard rightly refuses them, so the
// weighted evidence leaves the renamed control unchosen. Its name is itself the evidence: it
// keeps the words that name the recorded row's entity and swaps the words the other rows'
// controls of the recorded family still share (the action).
//
// RowRenamed names that candidate when exactly one fits, and says why. A candidate fits when
// it has the recorded element's tag and role and sits at its family path (the same place in
// its row; see familyPath), its name keeps some recorded words and swaps others (nameSwap),
// another candidate of that family path shows the swapped words with another entity (the
// swapped words are the family's action, the kept ones the entity), and no other candidate
// on the page shows the candidate's new words with another entity. The last condition keeps
// a regression out: when the row's Delete is gone and its Edit took Delete's place ("Edit Ada
// Lovelace" beside the other rows' "Edit Alan Turing"), the new word is another family's
// action, and the step would edit instead of delete. A rename applied to every row alike
// (no "Delete" family left) is not taken here: by structure it looks the same as a row
// action removed everywhere with another action in its place.
func (p *Page) RowRenamed(target gardener.Fingerprint) (int, string, bool) {
	t := p.target(&target)
	tw := nameWords(&t)
	tPath := familyPath(target.XPath)
	if tPath == "" || len(tw) < 2 {
		return -1, "", false
	}
	found, why := -1, ""
	for i := range p.feats {
		if p.feats[i].tag != t.tag || p.cands[i].Role != target.Role || familyPath(p.cands[i].XPath) != tPath {
			continue
		}
		cw := nameWords(&p.feats[i])
		kept, dropped, ok := nameSwap(tw, cw)
		if !ok {
			continue
		}
		var added []string
		for _, w := range cw {
			if !slices.Contains(tw, w) {
				added = append(added, w)
			}
		}
		family := -1
		for j := range p.feats {
			if j == i || p.feats[j].tag != t.tag || familyPath(p.cands[j].XPath) != tPath {
				continue
			}
			if ow := nameWords(&p.feats[j]); hasAll(ow, dropped) && !hasAll(ow, kept) {
				family = j
				break
			}
		}
		if family < 0 {
			continue
		}
		own := false
		for k := range p.feats {
			if k == i {
				continue
			}
			if ow := nameWords(&p.feats[k]); hasAll(ow, added) && !hasAll(ow, kept) {
				own = true
				break
			}
		}
		if own {
			continue
		}
		if found >= 0 {
			return -1, "", false // two controls of the row could be the renamed one
		}
		found = i
		why = fmt.Sprintf("%q stands at the place of the recorded %q, with its entity's words, where the other rows still read like %q",
			p.cands[i].Shown(), target.Shown(), p.cands[family].Shown())
	}
	return found, why, found >= 0
}

// hasAll reports whether have holds every word of want.
func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// ownRow is the candidate that is the recorded element itself when its best-scoring row twin
// was refused: the only candidate of the recorded tag at the recorded family path (see
// familyPath) whose name is the whole recorded name. A list sorted or rotated puts a twin at
// the element's old place, and the twin's position outweighs the name of the element itself;
// a row that is gone leaves no candidate with its name. -1 when there is none or more than one.
func (p *Page) ownRow(t *features, xpath string) int {
	tw := strings.Join(nameWords(t), " ")
	tPath := familyPath(xpath)
	if tw == "" || tPath == "" {
		return -1
	}
	found := -1
	for i := range p.feats {
		if p.feats[i].tag != t.tag || familyPath(p.cands[i].XPath) != tPath || strings.Join(nameWords(&p.feats[i]), " ") != tw {
			continue
		}
		if found >= 0 {
			return -1
		}
		found = i
	}
	return found
}
