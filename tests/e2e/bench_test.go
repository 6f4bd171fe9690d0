package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/testkit"
)

// BenchmarkRepair measures, per drift variant, the gardener's wall time for one failing test as
// a ratio to one green replay of the same repaired test in the same run (the floor is about 2:
// reproduce and prove; the proof evaluates the sensitivity probes on its way), the replays the
// repair made, and the model calls and tokens per repair (zero for the built-in engine); per
// regression, the time the climb takes to refuse against one green replay of the test before
// it (a regression repaired stops the benchmark). Run with -benchtime 1x: each iteration is a
// whole climb.
//
//	[GARDENER_BENCH_STEP_LIMIT=10s] go test -run '^$' -bench BenchmarkRepair -benchtime 1x ./tests/e2e/
func BenchmarkRepair(b *testing.B) {
	// The last ratio and replay count of every variant, for the summary after them all.
	figures := &testkit.RepairFigures{Models: true}
	for _, v := range demoapp.Variants() {
		if v.Kind != demoapp.Drift && v.Kind != demoapp.Regression {
			continue
		}
		id := brokenTests(v)[0]
		b.Run(v.Name+"/"+id, func(b *testing.B) {
			figures.Measure(b, func(b *testing.B) testkit.RepairSample {
				b.StopTimer()
				s := newShop(b, builtinModel(), true)
				s.Tender.Ladder.Progress = nil
				tt := s.Test(id)
				rep, _ := s.Replay(tt)
				if !rep.Result.Passed {
					b.Fatalf("%s is not green on the baseline", id)
				}
				s.Record(tt, rep.Result, gardener.TriggerSchedule)
				if err := s.App.SetVariant(v.Name); err != nil {
					b.Fatal(err)
				}
				failing, _ := s.Replay(tt)
				run := s.Record(tt, failing.Result, gardener.TriggerSchedule)
				// The failing run above is the schedule's, under the package's limit; the
				// repair and the replay it is compared with run under the limit asked for.
				if d := testkit.StepLimit(b); d > 0 {
					s.Opts.StepTimeout = d
				}
				b.StartTimer()
				start := time.Now()
				got, err := s.Tender.Tend(context.Background(), tend.Job{TestID: id, Mode: gardener.ModeApply, Run: &run, Options: s.Opts, NoPropagate: true})
				wall := time.Since(start)
				b.StopTimer()
				if v.Kind == demoapp.Regression {
					if err != nil || got.Result.Outcome == gardener.OutcomeRepaired {
						b.Fatalf("%s under %s: %v, outcome %s: a regression was repaired", id, v.Name, err, got.Result.Outcome)
					}
					if err := s.App.SetVariant(demoapp.BaselineName); err != nil {
						b.Fatal(err)
					}
					return testkit.RepairSample{Wall: wall, Replay: s.TimeRepaired(tt, tt.Steps), Result: got.Result, Refused: true}
				}
				if err != nil || got.Result.Proof == nil {
					b.Fatalf("%s under %s: %v, outcome %s", id, v.Name, err, got.Result.Outcome)
				}
				return testkit.RepairSample{Wall: wall, Replay: s.TimeRepaired(tt, got.Result.Steps), Result: got.Result}
			})
		})
	}
	// all is the figure the goal is stated in: the median and the worst ratio over the drift
	// variants (goal: at most 3), and the replays a repair makes.
	figures.ReportAll(b)
}
