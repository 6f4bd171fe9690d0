package handler_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/workspace"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// TestRadarEnrolsBySettingAndRefreshesItsBaseline: the schedule's event sweeps every project
// whose radar is on and no other, with no list configured anywhere; a test added after the
// baseline (and gone green) is covered by the baseline the next sweep records after it, and a
// sweep with nothing added or edited leaves the baseline as it was.
func TestRadarEnrolsBySettingAndRefreshesItsBaseline(t *testing.T) {
	if _, err := browser.ChromePath(); err != nil {
		t.Skip("SKIP: no Chromium; install it with: apt-get install -y chromium")
	}
	srv := httptest.NewServer(demoapp.New().Handler())
	t.Cleanup(srv.Close)
	s := fullServices(t)
	ctx := context.Background()
	p := demoapp.Project(srv.URL)
	p.SetupTestID = ""
	quiet := gardener.Project{ID: "quiet", Plan: gardener.PlanPro, AllowedOrigins: []string{srv.URL}}
	for _, pr := range []gardener.Project{p, quiet} {
		if err := s.Store.PutProject(ctx, pr); err != nil {
			t.Fatal(err)
		}
	}
	ws := &workspace.Service{Store: s.Store}
	opts := gardener.ReplayOptions{BaseURL: srv.URL, AllowedOrigins: p.AllowedOrigins}
	add := func(id, project string) {
		t.Helper()
		b, err := demoapp.TestJSON(id)
		if err != nil {
			t.Fatal(err)
		}
		tt, err := gardener.DecodeTest(b)
		if err != nil {
			t.Fatal(err)
		}
		tt.ProjectID = project
		if _, err := ws.SyncTest(ctx, tt, nil); err != nil {
			t.Fatal(err)
		}
		rec, err := ws.RecordGreen(ctx, s.Runner, tt, opts)
		if err != nil || !rec.Run.Green() {
			t.Fatalf("green run of %s: %+v %v", id, rec.Run.Result, err)
		}
	}
	add("product-search", "demo")
	h, err := handler.RadarFunction.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	radar := h.(func(context.Context, handler.RadarEvent) (handler.RadarReport, error))
	sweep := func() handler.RadarReport {
		t.Helper()
		rep, err := radar(ctx, handler.RadarEvent{})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := sweep()
	if _, ok := rep.Skipped["demo"]; !ok || len(rep.Sweeps) != 0 {
		t.Fatalf("first scheduled sweep: %+v, want demo's baseline recorded", rep)
	}
	if _, ok := rep.Skipped["quiet"]; ok {
		t.Errorf("a project whose radar is off was looked at: %+v", rep)
	}
	covered := func() map[string]gardener.Covered {
		t.Helper()
		b, err := s.Store.Baseline(ctx, "demo")
		if err != nil {
			t.Fatal(err)
		}
		return b.Covered
	}
	if c := covered(); len(c) != 1 || c["product-search"].Green != 1 {
		t.Fatalf("baseline covers %+v, want product-search green at version 1", c)
	}
	first, _ := s.Store.Baseline(ctx, "demo")
	if rep := sweep(); len(rep.Sweeps) != 1 || rep.Sweeps[0].ProjectID != "demo" {
		t.Fatalf("second scheduled sweep: %+v", rep)
	}
	if again, _ := s.Store.Baseline(ctx, "demo"); !again.At.Equal(first.At) {
		t.Errorf("a sweep with no test added or edited recorded a new baseline at %v", again.At)
	}
	add("cart-total", "demo")
	if rep := sweep(); len(rep.Sweeps) != 1 {
		t.Fatalf("sweep after a test was added: %+v", rep)
	}
	if c := covered(); c["cart-total"].Green != 1 {
		b, _ := json.Marshal(c)
		t.Fatalf("the baseline after a test was added covers %s, want cart-total", b)
	}
	if _, err := s.Store.UpdateProject(ctx, "quiet", func(p *gardener.Project) error { p.Radar = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if rep := sweep(); !strings.Contains(rep.Skipped["quiet"], "no baseline yet") {
		t.Errorf("a project switched on is not enrolled: %+v", rep)
	}
}
