package console

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// field is what one form field may carry: one of values, or any text when values is nil. say
// is how the refusal names what it may be.
type field struct {
	values []string
	say    string
}

var (
	anyText = field{}
	// ticked is a checkbox: a browser sends "on" when it is ticked and nothing when it is not.
	ticked = field{values: []string{"on"}, say: `"on" (ticked) or absent (not ticked)`}
	// yes is a box or a hidden field that says yes, or nothing.
	yes = field{values: []string{"yes"}, say: `"yes" or absent`}
)

// forms are the fields each POST route's form may carry, beside its CSRF token. A field not
// named, a value a field cannot take, or a field given twice is refused before the page acts,
// as the API refuses an unknown key or a wrong value in its JSON: a form that said more than
// the page reads (autoRepair=maybe read as off) would be half-taken without a word.
var forms = map[string]map[string]field{
	"POST " + Prefix + "/signin":                         {"next": anyText, "email": anyText, "projects": anyText},
	"POST " + Prefix + "/signout":                        {},
	"POST " + Prefix + "/projects/{projectId}/settings":  {"version": anyText, "autoRepair": ticked, "radar": ticked, "model": anyText},
	"POST " + Prefix + "/runs/{runId}/repair":            {"rung": anyText},
	"POST " + Prefix + "/proposals/{proposalId}/approve": {"confirm": yes, "propagate": yes},
	"POST " + Prefix + "/proposals/{proposalId}/dismiss": {},
	"POST " + Prefix + "/repairs/{repairId}/revert":      {"confirm": yes},
	"POST " + Prefix + "/repairs/{repairId}/reviewed":    {},
	"POST " + Prefix + "/projects/{projectId}/sweep":     {},
	"POST " + Prefix + "/tests/{testId}/runs":            {},
}

// FormError is a form field the console cannot take, named with why.
type FormError struct {
	Field  string
	Reason string
}

func (e *FormError) Error() string { return fmt.Sprintf("form field %q: %s", e.Field, e.Reason) }

// checkForm refuses a posted form that carries a field the route's form does not have, a value
// its field cannot take, or a field twice. Query parameters of a POST are refused too: no
// console form sends any, and a page must not act on what it did not show.
func checkForm(pattern string, r *http.Request) error {
	spec, ok := forms[pattern]
	if !ok {
		return nil
	}
	if err := r.ParseForm(); err != nil {
		return &FormError{Field: "(body)", Reason: "the form does not parse: " + err.Error()}
	}
	if len(r.URL.RawQuery) > 0 {
		return &FormError{Field: "(query)", Reason: fmt.Sprintf("a form posts its fields in its body, not in the address (%q)", r.URL.RawQuery)}
	}
	names := make([]string, 0, len(r.PostForm))
	for name := range r.PostForm {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		vals := r.PostForm[name]
		if name == "csrf" {
			if len(vals) > 1 {
				return &FormError{Field: name, Reason: fmt.Sprintf("given %d times", len(vals))}
			}
			continue
		}
		f, known := spec[name]
		if !known {
			return &FormError{Field: name, Reason: "unknown field" + knownFields(spec)}
		}
		if len(vals) > 1 {
			return &FormError{Field: name, Reason: fmt.Sprintf("given %d times", len(vals))}
		}
		if f.values != nil && !slices.Contains(f.values, vals[0]) {
			return &FormError{Field: name, Reason: fmt.Sprintf("%q is not %s", vals[0], f.say)}
		}
	}
	return nil
}

// knownFields says which fields a form has, for the refusal of one it does not.
func knownFields(spec map[string]field) string {
	if len(spec) == 0 {
		return " (this form has no field but its CSRF token)"
	}
	names := make([]string, 0, len(spec))
	for n := range spec {
		names = append(names, n)
	}
	slices.Sort(names)
	return " (this form's fields: " + strings.Join(names, ", ") + ")"
}
