package gardener

import "strings"

// Fingerprint is what a green run records about an element a step touched, and what a DOM
// snapshot lists for every candidate element of a page. The first block of fields carries the
// names of the published Similo benchmark so its data files decode as they are; the second block
// is what we add because modern apps name their elements by role, label and test id.
type Fingerprint struct {
	Tag          string   `json:"tag"`
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	ClassList    []string `json:"classList"`
	Href         string   `json:"href"`
	Alt          string   `json:"alt"`
	XPath        string   `json:"xpath"`
	IdxPath      string   `json:"idxpath"`
	IsButton     bool     `json:"isButton"`
	Location     Rect     `json:"location"`
	Area         float64  `json:"area"`
	Shape        float64  `json:"shape"`
	VisibleText  []string `json:"visibleText"`
	NeighborText []string `json:"neighborText"`

	Role           string            `json:"role,omitempty"`
	AccessibleName string            `json:"accessibleName,omitempty"`
	TestID         string            `json:"testId,omitempty"`
	Label          string            `json:"label,omitempty"`
	Placeholder    string            `json:"placeholder,omitempty"`
	Type           string            `json:"type,omitempty"`
	Title          string            `json:"title,omitempty"`
	ARIA           map[string]string `json:"ariaAttributes,omitempty"`
	FormID         string            `json:"formId,omitempty"`
	Frame          string            `json:"frame,omitempty"`

	// Inert: the element is on screen but a person cannot use it now (fully transparent,
	// inert, hidden from assistive technology, not taking pointer events), such as the buttons
	// of a dialog that is still closed by its styles.
	Inert bool `json:"inert,omitempty"`

	// Modal: the element is inside the modal dialog open on the page (a consent or
	// announcement dialog, a confirmation), whatever its markup is called.
	Modal bool `json:"modal,omitempty"`

	// Covered: a control a pointer cannot reach on the page of a snapshot, for a layer over
	// it that blocks the page (a consent overlay over half the window, an open modal it is not
	// in). Only a snapshot's candidates say so.
	Covered bool `json:"covered,omitempty"`

	// The state of a form control that filling it needs: whether it is required, whether its
	// value fails the form's constraints now (empty while required, out of range), its range
	// (number, date) and a select's options that can be picked (enabled, with a value).
	Required bool     `json:"required,omitempty"`
	Invalid  bool     `json:"invalid,omitempty"`
	Min      string   `json:"min,omitempty"`
	Max      string   `json:"max,omitempty"`
	Options  []string `json:"options,omitempty"`
	// Value is a radio button's or checkbox's value attribute as the page wrote it: what its
	// form sends when it is checked, which names the choice within its group (Name) whatever
	// its label or id became.
	Value string `json:"value,omitempty"`
}

// Shown is the element's name as a person reads it: its accessible name, or else its visible
// text, with runs of white space as one space.
func (f Fingerprint) Shown() string {
	if n := strings.Join(strings.Fields(f.AccessibleName), " "); n != "" {
		return n
	}
	return strings.Join(strings.Fields(strings.Join(f.VisibleText, " ")), " ")
}

// Rect is an element's box in CSS pixels, relative to the top-left of the page.
type Rect struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}
