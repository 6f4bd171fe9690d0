package gardening_test

import (
	"path/filepath"
	"testing"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// openStore is an embedded store in the test's temporary directory, closed when it ends.
func openStore(t *testing.T) *embedded.Store {
	t.Helper()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "gardener.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// newApp is the application layer over deps, failing the test when it cannot be made.
func newApp(t *testing.T, deps gardening.Deps) *gardening.Service {
	t.Helper()
	app, err := gardening.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	return app
}
