package gardener

import (
	"fmt"
	"strings"
)

// noteWords are each note kind's label, as a page shows it before the note, and the words a
// note's text may open with to name its kind when it is read alone (in an event line, an MCP
// answer, the reason a person must look).
var noteWords = map[NoteKind]struct {
	label   string
	opening []string
}{
	NotePageAtFailure:      {"Page at failure", []string{"page at failure"}},
	NoteFlowChange:         {"Flow change", []string{"flow change"}},
	NoteActionAdded:        {"Action added", []string{"action added"}},
	NoteInputAdded:         {"Input added", []string{"input added"}},
	NoteBehaviorChange:     {"Behaviour change", []string{"behavior change", "behaviour change"}},
	NoteInsensitiveCheck:   {"Insensitive check", []string{"insensitive check"}},
	NoteUnprovenCheck:      {"Unproven check", []string{"unproven check"}},
	NoteRequirementNotKept: {"NOT KEPT", []string{"requirement not kept", "not kept"}},
	NoteUnverified:         {"UNVERIFIED", []string{"unverified"}},
	NoteIntentUnconfirmed:  {"Intent not confirmed", []string{"intent not confirmed"}},
	NoteVolatileLocator:    {"Volatile locator", []string{"volatile locator"}},
}

// Label is the kind as people read it before a note ("Unproven check"); a kind this version
// does not know is shown as it is stored.
func (k NoteKind) Label() string {
	if w, ok := noteWords[k]; ok {
		return w.label
	}
	return string(k)
}

// Body is the note's text as read after its Label: without the words that open it to name its
// kind, so a page that shows the label does not say it twice ("UNVERIFIED: UNVERIFIED: …").
func (n Note) Body() string {
	for _, o := range noteWords[n.Kind].opening {
		if len(n.Text) > len(o) && strings.EqualFold(n.Text[:len(o)], o) {
			if rest, ok := strings.CutPrefix(n.Text[len(o):], ":"); ok {
				return strings.TrimSpace(rest)
			}
		}
	}
	return n.Text
}

// Said is the note as one phrase read alone, its kind named once in words: "unproven check:
// step 5, …" — never the stored kind ("unproven-check") beside the text that already names it.
func (n Note) Said() string {
	label := n.Kind.Label()
	if label != strings.ToUpper(label) {
		label = strings.ToLower(label)
	}
	return label + ": " + n.Body()
}

// Findings are what a reviewer of a proof must read, each once: its notes, UNVERIFIED when no
// note says it, and each requirement of the contract not kept that no note names. A verdict keeps
// UNVERIFIED both as its reason and as a note, and an unkept requirement both in the contract and
// as a note, so a page that listed them all would say each twice.
func (v Verdict) Findings() []Note {
	out := make([]Note, 0, len(v.Notes)+1)
	has := func(kind NoteKind, step string) bool {
		for _, n := range out {
			if n.Kind == kind && (kind == NoteUnverified || n.Step == step) {
				return true
			}
		}
		return false
	}
	out = append(out, v.Notes...)
	if v.Unverified != "" && !has(NoteUnverified, "") {
		out = append([]Note{{Kind: NoteUnverified, Text: v.Unverified}}, out...)
	}
	for _, r := range v.Contract.Redacted().Requirements {
		if !r.Kept && !has(NoteRequirementNotKept, r.Step) {
			out = append(out, Note{Kind: NoteRequirementNotKept, Step: r.Step,
				Text: fmt.Sprintf("step %s %s %s on its last green run; the repaired test does not", r.Step, r.What, r.Detail)})
		}
	}
	return out
}
