package gardening

import (
	"regexp"

	"github.com/driftgardener/gardener/pkg/gardener"
)

var pathWildcard = regexp.MustCompile(`\{(\w+)\}`)

// CheckPathIDs checks every id a route's path names (pattern is its net/http pattern, value
// reads a wildcard of the request) against the id rule, before anything is looked up: the API
// and the console ask it alike. The id of a test or a project, which people name, is checked with
// gardener.CheckID; any other (a minted run, proposal or repair id, an execution's name) with
// gardener.CheckAnyID. The error is a *gardener.IDError naming the wildcard.
func CheckPathIDs(pattern string, value func(name string) string) error {
	for _, m := range pathWildcard.FindAllStringSubmatch(pattern, -1) {
		if err := CheckIDOf(m[1], value(m[1])); err != nil {
			return err
		}
	}
	return nil
}

// CheckIDOf checks the id a door was given in field (a path wildcard, a tool's argument, an
// event's detail): a test's or a project's with gardener.CheckID, any other with
// gardener.CheckAnyID.
func CheckIDOf(field, id string) error {
	switch field {
	case "testId", "projectId", "project":
		return gardener.CheckID(field, id)
	}
	return gardener.CheckAnyID(field, id)
}

// CheckIDs checks the ids a door was given as field, id pairs (CheckIDOf), in order; an empty
// id was not given and is the caller's to require. The error is the first *gardener.IDError.
func CheckIDs(fieldIDs ...string) error {
	for i := 0; i+1 < len(fieldIDs); i += 2 {
		if id := fieldIDs[i+1]; id != "" {
			if err := CheckIDOf(fieldIDs[i], id); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckEventIDs is CheckIDs for the ids an event from the bus names. The error is a
// *BadEventError naming the field: the event is refused, as one missing a field is.
func CheckEventIDs(fieldIDs ...string) error {
	if err := CheckIDs(fieldIDs...); err != nil {
		return &BadEventError{Reason: err.Error()}
	}
	return nil
}
