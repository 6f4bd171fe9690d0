package demoapp

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// testsDir holds the saved demo tests, one JSON file a test, named after its id.
const testsDir = "testdata/tests"

// SetupTestID is the saved test that logs in as the demo user: a project's setup test.
const SetupTestID = "login"

// Tests returns the saved demo tests, decoded strictly and sorted by id. All of them pass on the
// baseline; Variant.Breaks says which fail under each other variant and where.
func Tests() ([]gardener.Test, error) {
	names, err := fs.Glob(files, testsDir+"/*.json")
	if err != nil {
		return nil, fmt.Errorf("listing the saved demo tests: %w", err)
	}
	tests := make([]gardener.Test, 0, len(names))
	for _, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("reading saved demo test %s: %w", n, err)
		}
		t, err := gardener.DecodeTest(data)
		if err != nil {
			return nil, fmt.Errorf("decoding saved demo test %s: %w", n, err)
		}
		if want := path.Base(n); want != t.ID+".json" {
			return nil, fmt.Errorf("saved demo test %s has id %q; the file must be named after the id", n, t.ID)
		}
		tests = append(tests, t)
	}
	slices.SortFunc(tests, func(a, b gardener.Test) int { return strings.Compare(a.ID, b.ID) })
	return tests, nil
}

// TestJSON returns a saved demo test as it is stored, for callers that decode it themselves
// (the CLI's run command reads a file, say).
func TestJSON(id string) ([]byte, error) {
	data, err := files.ReadFile(testsDir + "/" + id + ".json")
	if err != nil {
		return nil, fmt.Errorf("no saved demo test %q: %w", id, err)
	}
	return data, nil
}

// Project is the demo project the saved tests belong to, with the login test as its setup test
// and baseURL as its only allowed origin.
func Project(baseURL string) gardener.Project {
	return gardener.Project{
		ID:             "demo",
		Name:           "Seedling Supply (demo)",
		Plan:           gardener.PlanPro,
		Radar:          true,
		AllowedOrigins: []string{baseURL},
		SetupTestID:    SetupTestID,
	}
}
