package gardener

import (
	"slices"
	"strings"
)

// Picked reports whether the record is of a step that picked an option of a select: a select
// step, or any step whose element was a select (a set step picks there; a record stored
// without its kind still has its element). The runner records such a pick as the option's
// value (what the form sends) followed by its label when the label differs.
func (r StepRecord) Picked() bool {
	return r.Kind == Select || r.Element != nil && strings.EqualFold(r.Element.Tag, "SELECT")
}

// Entered is what the record's step entered, as the page's form sends it: the values typed, or
// the option picked by its value alone. An option's label is how the page shows the choice,
// not the choice: the requirement contract and the behaviour notes (spec 002) must not take a
// relabelled option for another one, nor another option for the same one because it now bears
// the recorded label.
func (r StepRecord) Entered() []string {
	if r.Picked() && len(r.Values) > 1 {
		return r.Values[:1]
	}
	return r.Values
}

// StillEnters is the one judgement of whether a step still enters what the recorded one did:
// it reports whether now, the record of the step that does the recorded step's job in a
// repaired test, enters v, one of was.Entered(). It does when the form sends v again (a pick of
// the same option under a new label included). A value the recorded step typed that the step
// now picks as an option labelled v is still entered too: the value moved to another control
// (a text field that became a dropdown), which spec 002 says raises no note. Between two picks
// only the option's value counts.
func StillEnters(v string, was, now StepRecord) bool {
	if slices.Contains(now.Entered(), v) {
		return true
	}
	return !was.Picked() && now.Picked() && len(now.Values) > 1 && now.Values[1] == v
}
