package testkit

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/ladder"
)

// RepairFigures gathers the repair benchmarks' figures over the variants of an app, for the
// summary after them all: the repairs of drift and, apart, the refusals of regressions.
type RepairFigures struct {
	// Models adds the model calls and tokens per repair to each variant's figures.
	Models bool

	ratios, replays []float64
	refusals        []float64
}

// RepairSample is one measured climb: its wall time, the wall time of one green replay of the
// repaired test on the same app (of a refused test, of the test on the app before the
// regression), and what the ladder did. Refused marks a regression's climb, which must not
// repair.
type RepairSample struct {
	Wall, Replay time.Duration
	Result       ladder.Result
	Refused      bool
}

// Measure runs b.N repairs, each one measured by repair (which times what it means to time), and
// reports their means: the repair's wall time as a ratio to one green replay, the replays it
// made, where the time went, and the model calls and tokens when f.Models is set.
func (f *RepairFigures) Measure(b *testing.B, repair func(b *testing.B) RepairSample) {
	var ratio, replays, calls, tokens, total, reproduce, proofs float64
	refused := false
	for i := 0; i < b.N; i++ {
		s := repair(b)
		refused = s.Refused
		ratio += float64(s.Wall) / float64(s.Replay)
		replays += float64(s.Result.Timings.Replays)
		reproduce += float64(s.Result.Timings.Reproduce)
		proofs += float64(s.Result.Timings.Proofs)
		calls += float64(len(s.Result.ModelCalls))
		tokens += float64(s.Result.Usage.InputTokens + s.Result.Usage.OutputTokens)
		total += float64(s.Wall.Milliseconds())
	}
	n := float64(b.N)
	if refused {
		f.refusals = append(f.refusals, ratio/n)
	} else {
		f.ratios = append(f.ratios, ratio/n)
		f.replays = append(f.replays, replays/n)
	}
	b.ReportMetric(ratio/n, "x-replay")
	b.ReportMetric(replays/n, "replays")
	// Where the time went: the reproduction (zero when the failing replay is handed over) and
	// the proofs, sensitivity probes included.
	b.ReportMetric(reproduce/n, "reproduce-ms")
	b.ReportMetric(proofs/n, "proofs-ms")
	if f.Models {
		b.ReportMetric(calls/n, "model-calls")
		b.ReportMetric(tokens/n, "tokens")
	}
	b.ReportMetric(total/n, "ms/repair")
}

// ReportAll reports the figure the goal is stated in: the median and the worst ratio over the
// drift variants measured (goal: at most 3), and the replays a repair makes; and the worst
// ratio of a regression's refusal, a climb a team waits on as well.
func (f *RepairFigures) ReportAll(b *testing.B) {
	b.Run("all", func(b *testing.B) {
		if len(f.ratios) == 0 {
			b.Skip("no variant was measured (filtered out by -bench, or a repair failed)")
		}
		b.ReportMetric(median(f.ratios), "median-x-replay")
		b.ReportMetric(slices.Max(f.ratios), "max-x-replay")
		b.ReportMetric(median(f.replays), "median-replays")
		b.ReportMetric(slices.Max(f.replays), "max-replays")
		if len(f.refusals) > 0 {
			b.ReportMetric(median(f.refusals), "median-refusal-x-replay")
			b.ReportMetric(slices.Max(f.refusals), "max-refusal-x-replay")
		}
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

// StepLimitEnv names the step limit the repair benchmarks repair and replay with, as a Go
// duration ("5s", "10s"): users set limits well above the test packages' three seconds, and a
// repair that waits out a limit somewhere shows only under such a limit. Unset, the package's
// runner limit stands.
const StepLimitEnv = "GARDENER_BENCH_STEP_LIMIT"

// StepLimit is the step limit StepLimitEnv names, zero when it is unset; a value that is not a
// positive duration stops the benchmark, naming the variable.
func StepLimit(b *testing.B) time.Duration {
	v := os.Getenv(StepLimitEnv)
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a positive duration such as 5s", StepLimitEnv, v)
	}
	return d
}
