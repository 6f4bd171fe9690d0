package spaapp_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/spaapp"
)

// BenchmarkRepair measures, per Crewdesk drift variant and the first test it breaks, the
// gardener's wall time for the repair (built-in engine, apply mode, as a scheduled run's repair
// runs: the failing run is reported) as a ratio to one plain replay of the repaired test on the
// drifted app, and the replays the repair made; "all" reports the median and the maximum ratio
// over the variants (goal: at most 3). Run with -benchtime 1x: each iteration is a whole repair.
//
//	go test -run '^$' -bench BenchmarkRepair -benchtime 1x ./tests/spaapp/
func BenchmarkRepair(b *testing.B) {
	var ratios, replayCounts []float64
	for _, v := range spaapp.Variants() {
		if v.Kind != demoapp.Drift {
			continue
		}
		id := broken(v)[0]
		b.Run(v.Name+"/"+id, func(b *testing.B) {
			var ratio, replays, total, reproduce, proofs float64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				l := newLab(b)
				l.tender.Ladder.Progress = nil
				tt := l.test(id)
				l.recordBaseline(tt)
				if err := l.app.SetVariant(v.Name); err != nil {
					b.Fatal(err)
				}
				failing, _ := l.replay(tt)
				if failing.Result.Passed {
					b.Fatalf("%s passes under %s", id, v.Name)
				}
				run := l.record(tt, failing.Result)
				b.StartTimer()
				start := time.Now()
				got, err := l.tender.Tend(context.Background(), tend.Job{TestID: id, Mode: gardener.ModeApply, Run: &run, Failure: &failing, Options: l.opts, NoPropagate: true})
				wall := time.Since(start)
				b.StopTimer()
				if err != nil || got.Result.Proof == nil {
					b.Fatalf("%s under %s: %v, outcome %s (%s)", id, v.Name, err, got.Result.Outcome, got.Result.Reason)
				}
				fixed := tt
				fixed.Steps = got.Result.Steps
				t0 := time.Now()
				green, _ := l.replay(fixed)
				one := time.Since(t0)
				if !green.Result.Passed {
					b.Fatalf("the repaired %s is not green", id)
				}
				ratio += float64(wall) / float64(one)
				replays += float64(got.Result.Timings.Replays)
				reproduce += float64(got.Result.Timings.Reproduce)
				proofs += float64(got.Result.Timings.Proofs)
				total += float64(wall.Milliseconds())
			}
			n := float64(b.N)
			ratios = append(ratios, ratio/n)
			replayCounts = append(replayCounts, replays/n)
			b.ReportMetric(ratio/n, "x-replay")
			b.ReportMetric(replays/n, "replays")
			// Where the time went: the reproduction (zero when the failing replay is handed
			// over) and the proofs, sensitivity probes included.
			b.ReportMetric(reproduce/n, "reproduce-ms")
			b.ReportMetric(proofs/n, "proofs-ms")
			b.ReportMetric(total/n, "ms/repair")
		})
	}
	b.Run("all", func(b *testing.B) {
		if len(ratios) == 0 {
			b.Skip("no variant was measured (filtered out by -bench, or a repair failed)")
		}
		b.ReportMetric(median(ratios), "median-x-replay")
		b.ReportMetric(slices.Max(ratios), "max-x-replay")
		b.ReportMetric(median(replayCounts), "median-replays")
		b.ReportMetric(slices.Max(replayCounts), "max-replays")
	})
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
