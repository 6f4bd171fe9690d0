package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/tests/demoapp"
)

// BenchmarkSuiteMachineVsRun replays the demo suite both ways against the same app: the suite
// state machine on the local stack (its schedule fired, Plan, the Map of at most 4 replays, the
// Report) and `gardener run --parallel 4` over the same tests as files. It reports each one's
// wall time, their ratio, and the suite's cost per test in replays.
func BenchmarkSuiteMachineVsRun(b *testing.B) {
	if _, err := browser.ChromePath(); err != nil {
		b.Skipf("SKIP: no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	ctx := context.Background()
	app := demoapp.New()
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()
	dir := b.TempDir()
	tests, err := demoapp.Tests()
	if err != nil {
		b.Fatal(err)
	}
	files := filepath.Join(dir, "tests")
	if err := os.MkdirAll(files, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, t := range tests {
		if err := writeTest(filepath.Join(files, t.ID+".json"), t); err != nil {
			b.Fatal(err)
		}
	}
	l, err := startLocal(ctx, localOptions{template: "../../template.yaml", state: filepath.Join(dir, "state"), baseURLs: map[string]string{"demo": srv.URL}, stepTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer l.close()
	if err := seedDemo(ctx, l, srv.URL); err != nil {
		b.Fatal(err)
	}
	var machine, run time.Duration
	replays, redMachine, redRun := 0, 0, 0
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := l.Scheduler.FireNow(ctx, "SuiteStateMachine.Suite"); err != nil {
			b.Fatal(err)
		}
		l.Wait()
		machine += time.Since(start)
		execs := l.Executions("SuiteStateMachine")
		var out struct {
			Results []handler.SuiteRunResult `json:"results"`
		}
		if err := json.Unmarshal(execs[len(execs)-1].Output, &out); err != nil {
			b.Fatal(err)
		}
		for _, r := range out.Results {
			if r.RunID != "" {
				replays++
			}
			if !r.Passed {
				// A red test waits out its step limit, so the times compare only when the
				// red counts do; on a starved machine both go red.
				redMachine++
				b.Logf("the suite machine failed %s at step %s: %s", r.TestID, r.FailedStep, r.Error)
			}
		}

		start = time.Now()
		var sum runSummary
		var report bytes.Buffer
		code := dispatch([]string{"run", "--json", "--base-url", srv.URL, "--parallel", "4", "--step-timeout", "5s", files}, nil, &report, io.Discard)
		if err := json.Unmarshal(report.Bytes(), &sum); err != nil || code == exitBadInput || code == exitFailure {
			b.Fatalf("gardener run --parallel 4 exited %d: %v", code, err)
		}
		redRun += sum.Failed
		run += time.Since(start)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(machine.Seconds()/n, "machine-s/op")
	b.ReportMetric(run.Seconds()/n, "run-s/op")
	b.ReportMetric(machine.Seconds()/run.Seconds(), "machine/run")
	b.ReportMetric(float64(replays)/(n*float64(len(tests))), "replays/test")
	b.ReportMetric(float64(redMachine)/n, "red-machine/op")
	b.ReportMetric(float64(redRun)/n, "red-run/op")
}
