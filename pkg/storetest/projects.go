package storetest

import (
	"slices"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// projectCases are the listings of projects: the radar's schedule sweeps those whose radar is
// on, so the listing must follow every write of the setting.
var projectCases = []testCase{
	{name: "RadarProjectsFollowTheSetting", run: func(t *testing.T, f *fixture) {
		ids := func() []string {
			t.Helper()
			ps, err := f.store.Projects(f.ctx)
			if err != nil {
				t.Fatalf("projects: %v", err)
			}
			var out []string
			for _, p := range ps {
				if p.Radar {
					out = append(out, p.ID)
				}
			}
			return out
		}
		if got := ids(); !slices.Equal(got, []string{"p-queue"}) {
			t.Fatalf("radar projects of the fixture: %v, want [p-queue]", got)
		}
		// Switched on by an update, by a replace, and off again by an update: each write of a
		// project decides whether the schedule sees it.
		if _, err := f.store.UpdateProject(f.ctx, "p-auto", func(p *gardener.Project) error { p.Radar = true; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := f.store.PutProject(f.ctx, gardener.Project{ID: "p-a-new", Plan: gardener.PlanFree, Radar: true}); err != nil {
			t.Fatal(err)
		}
		if got := ids(); !slices.Equal(got, []string{"p-a-new", "p-auto", "p-queue"}) {
			t.Fatalf("radar projects after switching two on: %v, want [p-a-new p-auto p-queue] (by id)", got)
		}
		if _, err := f.store.UpdateProject(f.ctx, "p-queue", func(p *gardener.Project) error { p.Radar = false; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := f.store.PutProject(f.ctx, gardener.Project{ID: "p-a-new", Plan: gardener.PlanFree}); err != nil {
			t.Fatal(err)
		}
		if got := ids(); !slices.Equal(got, []string{"p-auto"}) {
			t.Fatalf("radar projects after switching two off: %v, want [p-auto]", got)
		}
	}},
}
