package similo

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// benchDir is where the development benchmark lives: outside the repository, beside it, unless
// SIMILO_BENCH_DIR says otherwise.
func benchDir() string {
	if d := os.Getenv("SIMILO_BENCH_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "bench")
}

type benchLine struct {
	App        string                 `json:"app"`
	Targets    []gardener.Fingerprint `json:"targets"`
	Candidates []gardener.Fingerprint `json:"candidates"`
	Expected   []int                  `json:"expected"`
}

func loadBench(t testing.TB, name string) []benchLine {
	t.Helper()
	path := filepath.Join(benchDir(), name)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("benchmark data %s not found; set SIMILO_BENCH_DIR to the directory holding %s", path, name)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []benchLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l benchLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// TestSimiloBench prints the shipped engine's figures on the development benchmark (run it with
// -v to see them), through Engine as callers use it. It runs only when the data is present.
// These are figures on the websites the weights were fitted to; TestSimiloCV gives the
// estimate for websites never seen. It guards that the engine computes the posterior the
// weights were fitted for, and that the shipped model reaches the shipping goals at least on
// its own data.
func TestSimiloBench(t *testing.T) {
	dev, removed := loadBench(t, "similo-dev.jsonl"), loadBench(t, "similo-dev-removed.jsonl")
	// The engine must compute the posterior the weights were fitted for; checking that on the
	// small websites keeps the test quick.
	d := extract(subset(dev), subset(removed))
	p := d.asParams(weights, absentScore)
	var shipped, always tally
	ci := 0
	for _, lines := range [][]benchLine{dev, removed} {
		for _, l := range lines {
			page := NewPage(l.Candidates)
			for i, tg := range l.Targets {
				m := Engine{}.LocateOn(page, tg)
				v := verdict{site: l.App, removed: l.Expected[i] < 0, right: m.Best >= 0 && m.Best == l.Expected[i],
					confidence: m.Confidence, margin: m.Margin}
				if m.Best >= 0 {
					pt := page.target(&tg)
					_, v.twin = page.twin(&pt, m.Best)
				}
				if cvSubset[l.App] {
					if want := d.predict(p, &d.cases[ci]); math.Abs(want.confidence-v.confidence) > 1e-6 || want.right != v.right {
						t.Fatalf("%s target %d: engine says confidence %v (right %v), the fitted model %v (right %v)",
							l.App, i, v.confidence, v.right, want.confidence, want.right)
					}
					ci++
				}
				if m.Abstained() != !(rule{threshold: ShippingThreshold, margin: ShippingMargin}).chooses(v) {
					t.Fatalf("%s target %d: engine abstained %v at confidence %v margin %v", l.App, i, m.Abstained(), m.Confidence, m.Margin)
				}
				shipped.add(v, rule{threshold: ShippingThreshold, margin: ShippingMargin})
				always.add(v, rule{threshold: math.Inf(-1), margin: math.Inf(-1)})
			}
		}
	}
	t.Logf("shipping rule (threshold %.2f, margin %.2f): %v", ShippingThreshold, ShippingMargin, shipped)
	t.Logf("never abstaining:                          %v", always)
	if !shipped.meetsGoals() {
		t.Errorf("the shipped model misses the shipping goals on the very websites it was fitted to: %v", shipped)
	}
}
