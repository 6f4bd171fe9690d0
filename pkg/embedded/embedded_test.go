package embedded_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/storetest"
)

func open(t testing.TB) *embedded.Store {
	s, err := embedded.Open(filepath.Join(t.TempDir(), "gardener.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t testing.TB) gardener.Store { return open(t) }, storetest.Options{
		PutRawTest: func(t testing.TB, s gardener.Store, id, _ string, body []byte) {
			if err := embedded.PutRawTest(s.(*embedded.Store), id, body); err != nil {
				t.Fatalf("plant test %s: %v", id, err)
			}
		},
	})
}

func TestReopenKeepsState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gardener.db")
	s, err := embedded.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutProject(t.Context(), gardener.Project{ID: "p", Plan: gardener.PlanPro}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = embedded.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if p, err := s.Project(t.Context(), "p"); err != nil || p.Plan != gardener.PlanPro {
		t.Fatalf("after reopen: %+v, %v", p, err)
	}
}

func TestOpenBadPath(t *testing.T) {
	_, err := embedded.Open(filepath.Join(t.TempDir(), "missing-dir", "x", "gardener.db"))
	if err == nil {
		t.Fatal("opening a store in a missing directory: no error")
	}
}

func BenchmarkStage(b *testing.B) {
	storetest.BenchmarkStage(b, func(t testing.TB) gardener.Store { return open(t) })
}

func BenchmarkSaveTest(b *testing.B) {
	storetest.BenchmarkSaveTest(b, func(t testing.TB) gardener.Store { return open(t) })
}

// TestOpenHeldSaysByWhom: a state another process holds open (an MCP client keeps gardener mcp
// running on the same --state the CLI uses) is refused naming that cause, not bbolt's bare
// "timeout". A second open of the same file in this process is refused the same way, as the
// file lock belongs to the open file, not the process.
func TestOpenHeldSaysByWhom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gardener.db")
	held, err := embedded.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	second, err := embedded.Open(path)
	if err == nil {
		second.Close()
		t.Fatal("a second open of a held store succeeded")
	}
	if !strings.Contains(err.Error(), "another process has it open") || !strings.Contains(err.Error(), "gardener mcp") {
		t.Errorf("opening a held store: %v; want it to say another process holds it", err)
	}
}
