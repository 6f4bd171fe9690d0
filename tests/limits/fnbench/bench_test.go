// Package fnbench measures the browser functions of template.yaml (the ones in the Chromium
// image) against their template settings: the peak resident memory of the process and the
// Chromium it drives, as a share of MemorySize, and the wall time of one invocation, as a share
// of Timeout, on the demo shop and on Crewdesk. It is a benchmark (make bench), not a test:
// docs/limits.md gives the figures with the load they were taken at.
package fnbench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/template"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/spaapp"
	"github.com/driftgardener/gardener/tests/testkit/appkit"
)

// app is one laboratory app as the benchmark drives it.
type app struct {
	name     string
	serve    func() (url string, setVariant func(string) error, stop func())
	project  func(string) gardener.Project
	tests    func() ([]gardener.Test, error)
	variants []appkit.Variant
	// shared names the drift variant whose heal is a locator other saved tests use too, and
	// the test healed (the propagation case); "" when the app has none, and Propagate is then
	// not measured on it.
	shared, healed string
}

// propagateTargets is how many other tests the propagation case makes use the healed locator:
// the saved tests that use it, and copies of them (new ids, the same steps) up to this number,
// standing for a project where many tests sign in the same way. 50 (gardener.MaxPropagated) is
// extrapolated from the per-test cost measured here.
const propagateTargets = 10

func apps() []app {
	return []app{
		{name: "demo", project: demoapp.Project, tests: demoapp.Tests, variants: demoapp.Variants(), shared: "label-renamed", healed: "login", serve: func() (string, func(string) error, func()) {
			a := demoapp.New()
			s := httptest.NewServer(a.Handler())
			return s.URL, a.SetVariant, s.Close
		}},
		{name: "crewdesk", project: spaapp.Project, tests: spaapp.Tests, variants: spaapp.Variants(), serve: func() (string, func(string) error, func()) {
			a := spaapp.New()
			s := httptest.NewServer(a.Handler())
			return s.URL, a.SetVariant, s.Close
		}},
	}
}

// treeRSS is the resident memory of this process and every process under it (the Chromium the
// runner started), read from /proc.
func treeRSS() int64 {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold spaces: the fields after it are fixed.
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	self := os.Getpid()
	in := func(pid int) bool {
		for p := pid; p > 1; p = parent[p] {
			if p == self {
				return true
			}
		}
		return false
	}
	var total int64
	for pid := range parent {
		if !in(pid) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "statm"))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 1 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			total += pages * int64(os.Getpagesize())
		}
	}
	return total
}

// peak runs fn while reading treeRSS every 20 ms, and returns its highest reading and fn's
// wall time.
func peak(fn func()) (int64, time.Duration) {
	var top atomic.Int64
	top.Store(treeRSS())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if r := treeRSS(); r > top.Load() {
					top.Store(r)
				}
			}
		}
	}()
	start := time.Now()
	fn()
	wall := time.Since(start)
	close(stop)
	wg.Wait()
	if r := treeRSS(); r > top.Load() {
		top.Store(r)
	}
	return top.Load(), wall
}

// invoke calls a function of handler.Functions as Lambda does, through JSON.
func invoke(b *testing.B, f handler.Function, s handler.Services, in any) json.RawMessage {
	b.Helper()
	h, err := f.Build(s)
	if err != nil {
		b.Fatal(err)
	}
	payload, _ := json.Marshal(in)
	out, err := lambda.NewHandler(h).Invoke(context.Background(), payload)
	if err != nil {
		b.Fatalf("%s: %v", f.ID, err)
	}
	return out
}

// BenchmarkBrowserFunctions runs each browser function once per app and reports its peak
// memory as a share of the template's MemorySize (mem/limit) and its wall time as a share of
// Timeout (time/limit), beside the figures themselves.
func BenchmarkBrowserFunctions(b *testing.B) {
	tpl, err := template.Load("../../../template.yaml", nil)
	if err != nil {
		b.Fatal(err)
	}
	// The package has no test: make test compiles it and starts no browser.
	if _, err := browser.ChromePath(); err != nil {
		b.Skipf("no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	runner := browser.New(browser.Options{})
	defer runner.Close()
	for _, a := range apps() {
		b.Run(a.name, func(b *testing.B) {
			url, setVariant, stop := a.serve()
			defer stop()
			store, err := embedded.Open(filepath.Join(b.TempDir(), "state.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer store.Close()
			ctx := context.Background()
			p := a.project(url)
			p.Model, p.AutoRepair, p.Radar = "builtin", false, true
			if err := store.PutProject(ctx, p); err != nil {
				b.Fatal(err)
			}
			tests, err := a.tests()
			if err != nil {
				b.Fatal(err)
			}
			for _, tt := range tests {
				tt.ProjectID = p.ID
				if err := store.CreateTest(ctx, tt); err != nil {
					b.Fatal(err)
				}
			}
			s := handler.Services{Store: store, Runner: runner, Events: bus{}, BaseURLs: map[string]string{p.ID: url},
				Models: func(ctx context.Context, spec string) (gardener.Model, error) {
					return modelspec.Open(ctx, spec, modelspec.Options{})
				}}
			report := func(name string, f handler.Function, rss int64, wall time.Duration) {
				fn, ok := tpl.Functions[f.ID]
				if !ok {
					b.Fatalf("template.yaml has no %s", f.ID)
				}
				mem, timeout := fn.MemorySize, fn.Timeout
				b.Logf("%s %s: peak %d MiB of %d MiB (%.2f), %.1f s of %d s (%.3f)", a.name, name, rss>>20, mem, float64(rss>>20)/float64(mem), wall.Seconds(), timeout, wall.Seconds()/float64(timeout))
				b.ReportMetric(float64(rss>>20)/float64(mem), name+"-mem/limit")
				b.ReportMetric(wall.Seconds()/float64(timeout), name+"-time/limit")
			}
			measure := func(name string, f handler.Function, in any) json.RawMessage {
				var out json.RawMessage
				rss, wall := peak(func() { out = invoke(b, f, s, in) })
				report(name, f, rss, wall)
				return out
			}
			// Every saved test replayed once by the suite, green (the radar's baseline and the
			// rungs' last green run); the largest peak and the longest replay are reported.
			var suiteRSS int64
			var suiteWall time.Duration
			for _, tt := range tests {
				rss, wall := peak(func() {
					invoke(b, handler.SuiteRunFunction, s, handler.SuiteItem{ProjectID: p.ID, TestID: tt.ID, TestVersion: 1, Trigger: gardener.TriggerSchedule})
				})
				suiteRSS, suiteWall = max(suiteRSS, rss), max(suiteWall, wall)
			}
			report("suiterun", handler.SuiteRunFunction, suiteRSS, suiteWall)
			// The radar's first sweep records the baseline, the second compares with it.
			invoke(b, handler.RadarFunction, s, map[string]any{"detail": map[string]string{"projectId": p.ID}})
			measure("radar", handler.RadarFunction, map[string]any{"detail": map[string]string{"projectId": p.ID}})
			// Every saved test replayed by the suite; the longest is reported.
			var drift appkit.Variant
			for _, v := range a.variants {
				if v.Kind == appkit.Drift && len(v.Breaks) > 0 {
					drift = v
					break
				}
			}
			broken := slices.Sorted(func(yield func(string) bool) {
				for id := range drift.Breaks {
					if !yield(id) {
						return
					}
				}
			})[0]
			item := handler.SuiteItem{ProjectID: p.ID, TestID: broken, TestVersion: 1, Trigger: gardener.TriggerSchedule}
			if err := setVariant(drift.Name); err != nil {
				b.Fatal(err)
			}
			// A sweep of the drifted app puts its tests at risk, which the dry-run replays.
			invoke(b, handler.RadarFunction, s, map[string]any{"detail": map[string]string{"projectId": p.ID}})
			var failed handler.SuiteRunResult
			if err := json.Unmarshal(invoke(b, handler.SuiteRunFunction, s, item), &failed); err != nil || failed.Passed {
				b.Fatalf("%s under %s: %+v (%v)", broken, drift.Name, failed, err)
			}
			gate := handler.Gate{Eligible: true, RunID: failed.RunID, ProjectID: p.ID, TestID: broken, Mode: gardener.ModePropose, Actor: gardener.ActorSchedule}
			for _, r := range []handler.Function{handler.SelfHealFunction, handler.SuggestFixFunction, handler.DiagnoseFunction} {
				measure(strings.ToLower(strings.TrimSuffix(r.ID, "Function")), r, gate)
			}
			measure("dryrun", handler.DryRunFunction, handler.Item{ProjectID: p.ID, TestID: broken})
			measure("propose", handler.ProposeFunction, gate)
			if a.shared == "" {
				b.Logf("%s propagate: not measured, no drift of this app heals a locator another test uses", a.name)
				return
			}
			measurePropagate(b, a, p, tests, s, setVariant, measure)
		})
	}
}

// measurePropagate is the propagation case: a drift heals a locator that propagateTargets other
// tests use, the heal is made in apply mode and persisted as the repair machine does, and
// Propagate replays every other test with the healed locator. It fails when the heal reaches no
// other test, or when one of them does not go green with it.
func measurePropagate(b *testing.B, a app, p gardener.Project, tests []gardener.Test, s handler.Services, setVariant func(string) error, measure func(string, handler.Function, any) json.RawMessage) {
	ctx := context.Background()
	var v appkit.Variant
	for _, c := range a.variants {
		if c.Name == a.shared {
			v = c
		}
	}
	byID := map[string]gardener.Test{}
	for _, t := range tests {
		stored, err := s.Store.Test(ctx, t.ID)
		if err != nil {
			b.Fatal(err)
		}
		byID[t.ID] = stored
	}
	healed := a.healed
	if _, ok := v.Breaks[healed]; !ok {
		b.Fatalf("%s does not break %s", v.Name, healed)
	}
	var sharers []gardener.Test
	for _, id := range slices.Sorted(maps.Keys(v.Breaks)) {
		t, ok := byID[id]
		switch {
		case !ok:
			b.Fatalf("%s breaks %s, which is not a saved test", v.Name, id)
		case id != healed:
			sharers = append(sharers, t)
		}
	}
	if len(sharers) == 0 {
		b.Fatalf("%s breaks only %s: no other test uses what it heals", v.Name, healed)
	}
	// Copies of the tests that share the locator, up to propagateTargets other tests.
	if err := setVariant(appkit.BaselineName); err != nil {
		b.Fatal(err)
	}
	others := slices.Clone(sharers)
	for i := 0; len(others) < propagateTargets; i++ {
		c := sharers[i%len(sharers)]
		c.ID, c.Name = fmt.Sprintf("%s-copy%d", c.ID, i+1), fmt.Sprintf("%s (copy %d)", c.Name, i+1)
		c.Steps = slices.Clone(c.Steps)
		if err := s.Store.CreateTest(ctx, c); err != nil {
			b.Fatal(err)
		}
		stored, err := s.Store.Test(ctx, c.ID)
		if err != nil {
			b.Fatal(err)
		}
		others = append(others, stored)
	}
	// Each has a green run of its version, the record its propagated fix is judged against.
	for _, t := range others {
		var r handler.SuiteRunResult
		if err := json.Unmarshal(invoke(b, handler.SuiteRunFunction, s, handler.SuiteItem{ProjectID: p.ID, TestID: t.ID, TestVersion: t.Version, Trigger: gardener.TriggerSchedule}), &r); err != nil || !r.Passed {
			b.Fatalf("%s is not green on the baseline: %+v (%v)", t.ID, r, err)
		}
	}
	if err := setVariant(v.Name); err != nil {
		b.Fatal(err)
	}
	var failed handler.SuiteRunResult
	if err := json.Unmarshal(invoke(b, handler.SuiteRunFunction, s, handler.SuiteItem{ProjectID: p.ID, TestID: healed, TestVersion: byID[healed].Version, Trigger: gardener.TriggerSchedule}), &failed); err != nil || failed.Passed {
		b.Fatalf("%s under %s: %+v (%v)", healed, v.Name, failed, err)
	}
	// Propagate carries a written heal, so the fix is made in apply mode and persisted first,
	// as the repair machine does.
	p.AutoRepair = true
	if err := s.Store.PutProject(ctx, p); err != nil {
		b.Fatal(err)
	}
	gate := handler.Gate{Eligible: true, RunID: failed.RunID, ProjectID: p.ID, TestID: healed, Mode: gardener.ModeApply, Actor: gardener.ActorSchedule}
	winner := invoke(b, handler.SelfHealFunction, s, gate)
	var rung handler.RungResult
	if err := json.Unmarshal(winner, &rung); err != nil || !rung.Green {
		b.Fatalf("self-heal of %s under %s in apply mode is not green (%v): propagate has nothing to carry", healed, v.Name, err)
	}
	invoke(b, handler.PersistFunction, s, winner)
	if t, err := s.Store.Test(ctx, healed); err != nil || t.Version == byID[healed].Version {
		b.Fatalf("the heal of %s was not written (version %d, %v): propagate carries only a written heal", healed, t.Version, err)
	}
	// The brief of each test written (handler.PropagateResult) carries no steps, which a
	// gardener.Test refuses to decode from: only what the check reads is decoded.
	var carried struct {
		Propagated []struct {
			TestID string `json:"testId"`
			Green  bool   `json:"green"`
			Reason string `json:"reason"`
		} `json:"propagated"`
	}
	start := time.Now()
	if err := json.Unmarshal(measure("propagate", handler.PropagateFunction, map[string]json.RawMessage{"winner": winner}), &carried); err != nil {
		b.Fatal(err)
	}
	wall := time.Since(start)
	green := 0
	for _, c := range carried.Propagated {
		if c.Green {
			green++
		} else {
			b.Errorf("%s propagate: %s not green with the healed locator: %s", a.name, c.TestID, c.Reason)
		}
	}
	if len(carried.Propagated) == 0 {
		b.Fatalf("%s propagate: the heal of %s under %s reached no other test, %d use its locator", a.name, healed, v.Name, len(others))
	}
	if len(carried.Propagated) != len(others) {
		b.Errorf("%s propagate: the heal reached %d other tests, %d use its locator", a.name, len(carried.Propagated), len(others))
	}
	per := wall.Seconds() / float64(len(carried.Propagated))
	b.Logf("%s propagate: the heal of %s under %s reached %d other tests, %d green, %.2f s each; at %d (gardener.MaxPropagated) about %.0f s", a.name, healed, v.Name, len(carried.Propagated), green, per, gardener.MaxPropagated, per*gardener.MaxPropagated)
	b.ReportMetric(float64(len(carried.Propagated)), "propagate-tests")
	b.ReportMetric(per, "propagate-s/test")
}

// bus is the event bus the radar announces its sweeps on; it keeps nothing.
type bus struct{}

func (bus) PutEvent(context.Context, string, any) error { return nil }
