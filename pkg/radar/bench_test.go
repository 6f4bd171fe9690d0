package radar

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// BenchmarkSweep is one sweep of the demo project's baseline pages, unchanged app: the
// reported figure is the sweep's wall time per page (pages are visited DefaultConcurrency at a
// time in the one browser).
func BenchmarkSweep(b *testing.B) {
	s := newScene(b, "baseline")
	pages := 0
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := s.radar.Sweep(context.Background(), "demo")
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		pages = len(res.Pages)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N)/float64(pages), "ms/page")
	b.ReportMetric(float64(pages), "pages")
}

// BenchmarkStagingPass10 is a staging pass over ten at-risk tests whose dry-runs pass (the cap
// project under the cookie banner), run with the dry-runs concurrent in one browser, against
// the same ten replays one after another. ratio is concurrent wall time over sequential.
func BenchmarkStagingPass10(b *testing.B) {
	s := newScene(b, "cookie-banner")
	ctx := context.Background()
	var ids []string
	for i := 1; i <= 10; i++ {
		ids = append(ids, fmt.Sprintf("cap-%02d", i))
	}
	opts := gardener.ReplayOptions{BaseURL: s.url, AllowedOrigins: []string{s.url}}
	var pass, seq time.Duration
	for b.Loop() {
		if err := s.store.MarkAtRisk(ctx, capID, ids, time.Now()); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		res, err := s.radar.Pass(ctx, capID)
		if err != nil {
			b.Fatal(err)
		}
		pass += time.Since(start)
		if len(res.DryRuns) != 10 {
			b.Fatalf("%d dry-runs, want 10", len(res.DryRuns))
		}
		start = time.Now()
		for _, id := range ids {
			t, err := s.store.Test(ctx, id)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := runner.Replay(ctx, t, opts); err != nil {
				b.Fatal(err)
			}
		}
		seq += time.Since(start)
	}
	b.ReportMetric(float64(pass.Milliseconds())/float64(b.N), "pass-ms")
	b.ReportMetric(float64(seq.Milliseconds())/float64(b.N), "sequential-ms")
	b.ReportMetric(float64(pass)/float64(seq), "ratio")
}
