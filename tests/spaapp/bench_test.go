package spaapp_test

import (
	"context"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/tend"
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/spaapp"
	"github.com/driftgardener/gardener/tests/testkit"
)

// BenchmarkRepair measures, per Crewdesk drift variant and the first test it breaks, the
// gardener's wall time for the repair (built-in engine, apply mode, as a scheduled run's repair
// runs: the failing run is reported) as a ratio to one plain replay of the repaired test on the
// drifted app, and the replays the repair made; per regression, the climb's time to refuse
// against one green replay of the test before it (a regression repaired stops the benchmark);
// "all" reports the median and the maximum ratio over the drift variants (goal: at most 3) and
// the refusals' apart. Run with -benchtime 1x: each iteration is a whole repair.
//
//	[GARDENER_BENCH_STEP_LIMIT=10s] go test -run '^$' -bench BenchmarkRepair -benchtime 1x ./tests/spaapp/
func BenchmarkRepair(b *testing.B) {
	figures := &testkit.RepairFigures{}
	for _, v := range spaapp.Variants() {
		if v.Kind != demoapp.Drift && v.Kind != demoapp.Regression {
			continue
		}
		id := broken(v)[0]
		b.Run(v.Name+"/"+id, func(b *testing.B) {
			figures.Measure(b, func(b *testing.B) testkit.RepairSample {
				b.StopTimer()
				l := newLab(b)
				l.Tender.Ladder.Progress = nil
				tt := l.Test(id)
				l.RecordBaseline(tt)
				if err := l.App.SetVariant(v.Name); err != nil {
					b.Fatal(err)
				}
				failing, _ := l.Replay(tt)
				if failing.Result.Passed {
					b.Fatalf("%s passes under %s", id, v.Name)
				}
				run := l.Record(tt, failing.Result, gardener.TriggerSchedule)
				// The failing run above is the schedule's, under the package's limit; the
				// repair and the replay it is compared with run under the limit asked for.
				if d := testkit.StepLimit(b); d > 0 {
					l.Opts.StepTimeout = d
				}
				b.StartTimer()
				start := time.Now()
				got, err := l.Tender.Tend(context.Background(), tend.Job{TestID: id, Mode: gardener.ModeApply, Run: &run, Failure: &failing, Options: l.Opts, NoPropagate: true})
				wall := time.Since(start)
				b.StopTimer()
				if v.Kind == demoapp.Regression {
					if err != nil || got.Result.Outcome == gardener.OutcomeRepaired {
						b.Fatalf("%s under %s: %v, outcome %s: a regression was repaired", id, v.Name, err, got.Result.Outcome)
					}
					if err := l.App.SetVariant(spaapp.BaselineName); err != nil {
						b.Fatal(err)
					}
					return testkit.RepairSample{Wall: wall, Replay: l.TimeRepaired(tt, tt.Steps), Result: got.Result, Refused: true}
				}
				if err != nil || got.Result.Proof == nil {
					b.Fatalf("%s under %s: %v, outcome %s (%s)", id, v.Name, err, got.Result.Outcome, got.Result.Reason)
				}
				return testkit.RepairSample{Wall: wall, Replay: l.TimeRepaired(tt, got.Result.Steps), Result: got.Result}
			})
		})
	}
	figures.ReportAll(b)
}
