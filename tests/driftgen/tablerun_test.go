package driftgen

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
)

var testsFlag = flag.String("driftgen.tests", "", "comma-separated saved tests to keep of the drawn cases (empty: all); the draw itself does not change")

// runTable generates cases from every test of an app, runs up to -driftgen.per-kind of each kind
// through the ladder on env, prints the table and fails on any false heal: the one table run
// every app's table test shares.
func runTable(t *testing.T, env *Env, tests []gardener.Test, app string) {
	t.Helper()
	ctx := context.Background()
	baselines := map[string]*Baseline{}
	var all []Mutation
	for _, tt := range tests {
		b, err := env.Baseline(ctx, tt)
		if err != nil {
			// A test with no green baseline has no cases; the table says how many tests it
			// was drawn from.
			t.Logf("left out: %v", err)
			continue
		}
		baselines[tt.ID] = b
		all = append(all, Generate(tt, b.Green, *seedFlag)...)
	}
	cases := Sample(all, *perKind, *seedFlag)
	if *kindsFlag != "" {
		keep := strings.Split(*kindsFlag, ",")
		cases = slices.DeleteFunc(cases, func(m Mutation) bool { return !slices.Contains(keep, string(m.Kind)) })
	}
	if *testsFlag != "" {
		keep := strings.Split(*testsFlag, ",")
		cases = slices.DeleteFunc(cases, func(m Mutation) bool { return !slices.Contains(keep, m.Test) })
	}
	t.Logf("%d cases generated from %d of %d tests, %d drawn (up to %d per kind, seed %d)", len(all), len(baselines), len(tests), len(cases), *perKind, *seedFlag)
	// The kinds take turns, so a run cut short by -driftgen.budget still has some of each.
	cases = interleave(cases)
	results := make([]CaseResult, len(cases))
	var wg sync.WaitGroup
	next := make(chan int)
	var mu sync.Mutex
	var errs []string
	for w := 0; w < max(1, *workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				m := cases[i]
				res, err := env.Run(ctx, baselines[m.Test], m)
				if err != nil {
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
				}
				results[i] = res
				// Streamed, so a long table shows where it is.
				fmt.Printf("case %d/%d %-50s %-12s %-9s %dms %s\n", i+1, len(cases), m.Name(), res.Verdict, res.Outcome, res.Millis, oneLine(res.Note))
			}
		}()
	}
	start := time.Now()
	sent := 0
	for i := range cases {
		if *budget > 0 && time.Since(start) > *budget {
			break
		}
		next <- i
		sent++
	}
	close(next)
	wg.Wait()
	results = results[:sent]
	left := ""
	if sent < len(cases) {
		left = fmt.Sprintf(" (%d run, %d left when the %s budget ran out)", sent, len(cases)-sent, *budget)
	}
	for _, e := range errs {
		t.Error(e)
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].Mutation.Name() < results[j].Mutation.Name() })
	for _, r := range results {
		if r.Verdict != RepairedIntended && r.Verdict != StillGreen && r.Verdict != NotApplied {
			t.Logf("%-40s %-12s %-9s %s", r.Mutation.Name(), r.Verdict, r.Outcome, oneLine(r.Note))
		}
	}
	var b strings.Builder
	rows := Table(results, all)
	Print(&b, rows)
	applied, counted := Applied(rows)
	share := 0.0
	if counted > 0 {
		share = 100 * float64(applied) / float64(counted)
	}
	fmt.Fprintf(&b, "applied in apply mode with the intended elements and green on a second load: %d of %d counted drift (%.0f%%)\n", applied, counted, share)
	baseline := "the last green run handed to the ladder"
	if env.NoBaseline {
		baseline = "no green run handed to the ladder (a first failure)"
	}
	fmt.Printf("\ngenerated drift on %s: %d cases drawn%s of %d generated from %d of %d tests, up to %d per kind, seed %d, %d at once, %s, %s\n%s",
		app, len(cases), left, len(all), len(baselines), len(tests), *perKind, *seedFlag, *workers, baseline, time.Since(start).Round(time.Second), b.String())
	broke, weak := 0, 0
	for _, r := range results {
		switch {
		case r.Verdict != Unrepairable:
		case strings.HasPrefix(r.Note, BrokeApp):
			broke++
		case strings.HasPrefix(r.Note, WeakReference):
			weak++
		}
	}
	fmt.Printf("unrepairable by the reference fix: %d where %s, %d where %s\n", broke, BrokeApp, weak, WeakReference)
	if n := FalseHeals(results); n > 0 {
		t.Errorf("%d regressions were written green", n)
	}
	for _, r := range results {
		if r.Verdict == StagedIntended && r.Hold == "" {
			t.Errorf("%s was staged in apply mode under no rule the design names: %s", r.Mutation.Name(), oneLine(r.Note))
		}
	}
}

// runOne runs the case -driftgen.case names on env with the ladder's events in the log: how a
// row of a table is looked into. find returns the saved test the case is drawn from.
func runOne(t *testing.T, env *Env, find func(testing.TB, string) gardener.Test) {
	t.Helper()
	test, _, _ := strings.Cut(strings.SplitN(*caseFlag, "/", 2)[1], "@")
	env.Progress = func(e ladder.Event) { t.Logf("[%s %s] %s", e.Stage, e.Rung, e.Message) }
	ctx := context.Background()
	b, err := env.Baseline(ctx, find(t, test))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Generate(b.Test, b.Green, *seedFlag) {
		if m.Name() != *caseFlag {
			continue
		}
		t.Logf("params: %v", m.Params)
		res, err := env.Run(ctx, b, m)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s (%s) in %dms: %s", m.Name(), res.Verdict, res.Outcome, res.Millis, res.Note)
		return
	}
	t.Fatalf("no case %s", *caseFlag)
}
