package spaapp

import (
	"fmt"

	"github.com/driftgardener/gardener/pkg/gardener"
)

const testsDir = "testdata/tests"

// ProjectID is the project the saved tests belong to.
const ProjectID = "crewdesk"

// Tests returns the saved tests, decoded strictly and sorted by id. All pass on the baseline;
// Variant.Breaks says which fail under each other variant and where.
func Tests() ([]gardener.Test, error) {
	return gardener.DecodeTestDir(files, testsDir)
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
