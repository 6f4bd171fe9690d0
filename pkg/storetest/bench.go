package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// BenchmarkStage measures conditional staging through the lifecycle (read the test, check the
// dismissal memory, the conditional write) on a driver: "new" stages the first proposal of a
// fresh test (the guard write), "restate" records proposals on one open row, "restate-parallel"
// does so from GOMAXPROCS×4 goroutines at once, the contended case. Besides ns/op it reports
// stages/s and the p50 and p99 latency of one stage.
func BenchmarkStage(b *testing.B, newStore NewStore) {
	b.Run("new", func(b *testing.B) {
		f := newFixture(b, newStore(b))
		for i := range b.N {
			tt := loginTest(fmt.Sprintf("t-bench-%d", i), "p-queue")
			if err := f.store.CreateTest(f.ctx, tt); err != nil {
				b.Fatal(err)
			}
		}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			p := proposal(fmt.Sprintf("pr-%d", i), 3)
			p.TestID = fmt.Sprintf("t-bench-%d", i)
			start := time.Now()
			if st, err := f.svc.Stage(f.ctx, p); err != nil || st.Outcome != gardener.StagedNew {
				b.Fatalf("stage %d: %+v, %v", i, st.Outcome, err)
			}
			lat = append(lat, time.Since(start))
		}
		reportAs(b, lat, "stages/s")
	})
	b.Run("restate", func(b *testing.B) {
		f := newFixture(b, newStore(b))
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			start := time.Now()
			if _, err := f.svc.Stage(f.ctx, proposal(fmt.Sprintf("pr-%d", i), 3, change(fmt.Sprintf("c-%d", i%8), "http://app.test/login", "f"))); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		reportAs(b, lat, "stages/s")
	})
	b.Run("restate-parallel", func(b *testing.B) {
		f := newFixture(b, newStore(b))
		b.SetParallelism(4)
		b.ResetTimer()
		var mu sync.Mutex
		var lat []time.Duration
		var n int
		b.RunParallel(func(pb *testing.PB) {
			var mine []time.Duration
			for pb.Next() {
				mu.Lock()
				n++
				i := n
				mu.Unlock()
				start := time.Now()
				if _, err := f.svc.Stage(f.ctx, proposal(fmt.Sprintf("pr-%d", i), 3, change(fmt.Sprintf("c-%d", i%8), "http://app.test/login", "f"))); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
		reportAs(b, lat, "stages/s")
	})
}

// BenchmarkSaveTest measures the one conditional single-item write every driver and backend
// supports, a person's save conditional on the test's version (no transaction): the baseline
// staging adds its reads and its transaction to, and the only conditional write a backend
// without TransactWriteItems (dynalite) can be measured on. It reports saves/s and the p50
// and p99 latency of one save.
func BenchmarkSaveTest(b *testing.B, newStore NewStore) {
	f := newFixture(b, newStore(b))
	t, err := f.store.Test(f.ctx, "t-login")
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t.Name = fmt.Sprintf("Sign in %d", i)
		start := time.Now()
		saved, err := f.store.SaveTest(f.ctx, t)
		if err != nil {
			b.Fatalf("save %d: %v", i, err)
		}
		lat = append(lat, time.Since(start))
		t = saved
	}
	reportAs(b, lat, "saves/s")
}

// reportAs reports the p50 and p99 of lat in milliseconds and the rate of operations per
// second of the benchmark's timed run.
func reportAs(b *testing.B, lat []time.Duration, rate string) {
	if len(lat) == 0 {
		return
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), rate)
}
