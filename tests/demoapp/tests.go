package demoapp

import (
	"fmt"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// testsDir holds the saved demo tests, one JSON file a test, named after its id.
const testsDir = "testdata/tests"

// SetupTestID is the saved test that logs in as the demo user: a project's setup test.
const SetupTestID = "login"

// Tests returns the saved demo tests, decoded strictly and sorted by id. All of them pass on the
// baseline; Variant.Breaks says which fail under each other variant and where.
func Tests() ([]gardener.Test, error) {
	return gardener.DecodeTestDir(files, testsDir)
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
