package spaapp

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

const testsDir = "testdata/tests"

// ProjectID is the project the saved tests belong to.
const ProjectID = "crewdesk"

// Tests returns the saved tests, decoded strictly and sorted by id. All pass on the baseline;
// Variant.Breaks says which fail under each other variant and where.
func Tests() ([]gardener.Test, error) {
	names, err := fs.Glob(files, testsDir+"/*.json")
	if err != nil {
		return nil, fmt.Errorf("listing the saved Crewdesk tests: %w", err)
	}
	tests := make([]gardener.Test, 0, len(names))
	for _, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("reading saved Crewdesk test %s: %w", n, err)
		}
		t, err := gardener.DecodeTest(data)
		if err != nil {
			return nil, fmt.Errorf("decoding saved Crewdesk test %s: %w", n, err)
		}
		if path.Base(n) != t.ID+".json" {
			return nil, fmt.Errorf("saved Crewdesk test %s has id %q; the file must be named after the id", n, t.ID)
		}
		tests = append(tests, t)
	}
	slices.SortFunc(tests, func(a, b gardener.Test) int { return strings.Compare(a.ID, b.ID) })
	return tests, nil
}

// TestJSON returns a saved test as it is stored.
func TestJSON(id string) ([]byte, error) {
	data, err := files.ReadFile(testsDir + "/" + id + ".json")
	if err != nil {
		return nil, fmt.Errorf("no saved Crewdesk test %q: %w", id, err)
	}
	return data, nil
}

// Project is the project the saved tests belong to, with baseURL as its only allowed origin.
func Project(baseURL string) gardener.Project {
	return gardener.Project{
		ID:             ProjectID,
		Name:           "Crewdesk (second demo)",
		Plan:           gardener.PlanPro,
		AllowedOrigins: []string{baseURL},
	}
}
