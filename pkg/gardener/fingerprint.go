package gardener

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
}

// Rect is an element's box in CSS pixels, relative to the top-left of the page.
type Rect struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}
