package driftgen

import (
	"context"
	"flag"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/testkit"
)

var (
	tableFlag = flag.Bool("driftgen.table", false, "run the generated drift tables (the demo shop, Crewdesk) and print them (slow: minutes)")
	perKind   = flag.Int("driftgen.per-kind", 12, "cases drawn per mutation kind for the table")
	seedFlag  = flag.Uint64("driftgen.seed", 20, "seed of the generated cases")
	workers   = flag.Int("driftgen.parallel", 2, "cases run at once for the table")
	caseFlag  = flag.String("driftgen.case", "", "run one generated case by name (kind/test@step), logging the ladder's events")
	kindsFlag = flag.String("driftgen.kinds", "", "comma-separated kinds to keep of the drawn cases (empty: all); the draw itself does not change")
	budget    = flag.Duration("driftgen.budget", 0, "start no case after this long (0: run them all); the table counts the cases run and says how many were left")
	noGreen   = flag.Bool("driftgen.no-baseline", false, "hand the ladder no green run (a test's first failure before any green run was recorded); the green run stays the ground truth")
)

// runner is one browser for the package.
var runner *browser.Runner

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Chromium{Package: "tests/driftgen", Shared: &runner, Options: browser.Options{StepTimeout: 3 * time.Second}})
}

// demoEnv points the generator at the demo shop, a fresh shop per case.
func demoEnv() *Env {
	return appEnv(func() http.Handler { return demoapp.New().Handler() }, demoapp.Project)
}

// appEnv is the generator on an app: the package's browser, the built-in engine, a fresh app
// per case from newApp, and the origins its project allows.
func appEnv(newApp func() http.Handler, project func(baseURL string) gardener.Project) *Env {
	return &Env{
		Runner:     runner,
		Model:      builtin.Engine{},
		NewApp:     newApp,
		NoBaseline: *noGreen,
		Options: func(base string) gardener.ReplayOptions {
			return gardener.ReplayOptions{AllowedOrigins: project(base).AllowedOrigins}
		},
	}
}

func demoTest(t testing.TB, id string) gardener.Test {
	t.Helper()
	return testkit.SavedTest(t, demoapp.Tests, "demo shop", id)
}

// TestSampleOfGeneratedCases runs a small fixed sample end to end on the demo shop: a renamed
// id is repaired onto the renamed field; a consent banner that returns on every page load is
// dismissed before the first action and again after the navigation the proof then fails at;
// and a login request that fails with a 500 and a login button that does nothing are triaged
// with nothing written.
func TestSampleOfGeneratedCases(t *testing.T) {
	t.Parallel()
	env := demoEnv()
	want := map[string]Verdict{
		"rename-id/login@4":            RepairedIntended,
		"dead-button/login@5":          Triaged,
		"http-500/login@5:POST /login": Triaged,
		"overlay/cart-total@2":         RepairedIntended,
	}
	runSample(t, env, want, []string{"login", "cart-total"}, demoTest, func(t *testing.T, b *Baseline) {
		if b.Test.ID == "login" && len(b.Keys) < 3 {
			t.Fatalf("the baseline saw %v used; want the username, password and login button", b.Keys)
		}
	}, func(t *testing.T, m Mutation, res CaseResult) {
		if m.Kind == Overlay && strings.Count(res.Note, "insert") < 2 {
			t.Errorf("%s: want the banner dismissed on the first page and again after the navigation, got: %s", m.Name(), res.Note)
		}
	})
}

// runSample runs the cases want names, generated from the saved tests ids, each on its own
// app: the tests' baselines in parallel, then each case in parallel with the others. checkBase
// looks at each baseline, checkCase at each case's result beyond its verdict.
func runSample(t *testing.T, env *Env, want map[string]Verdict, ids []string, load func(testing.TB, string) gardener.Test,
	checkBase func(*testing.T, *Baseline), checkCase func(*testing.T, Mutation, CaseResult)) {
	ctx := context.Background()
	var mu sync.Mutex
	ran := map[string]bool{}
	t.Run("cases", func(t *testing.T) {
		for _, id := range ids {
			t.Run(id, func(t *testing.T) {
				t.Parallel()
				b, err := env.Baseline(ctx, load(t, id))
				if err != nil {
					t.Fatal(err)
				}
				checkBase(t, b)
				for _, m := range Generate(b.Test, b.Green, 1) {
					v, ok := want[m.Name()]
					if !ok {
						continue
					}
					mu.Lock()
					ran[m.Name()] = true
					mu.Unlock()
					t.Run(m.Name(), func(t *testing.T) {
						t.Parallel()
						res, err := env.Run(ctx, b, m)
						if err != nil {
							t.Fatal(err)
						}
						t.Logf("%s: %s (%s) %s", m.Name(), res.Verdict, res.Outcome, res.Note)
						if res.Verdict != v {
							t.Errorf("%s: verdict %s, want %s: %s", m.Name(), res.Verdict, v, res.Note)
						}
						checkCase(t, m, res)
					})
				}
			})
		}
	})
	if len(ran) != len(want) {
		t.Errorf("ran %d of the %d sample cases", len(ran), len(want))
	}
}

func names(ms []Mutation) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name()
	}
	return out
}

// TestGeneratedDriftTable generates cases from every saved demo test, runs up to
// -driftgen.per-kind of each kind through the ladder and prints the table. It fails on any
// false heal. Only with -driftgen.table (make bench runs it):
//
//	go test -count=1 -timeout 60m -run '^TestGeneratedDriftTable$' -v ./tests/driftgen/ -args -driftgen.table
func TestGeneratedDriftTable(t *testing.T) {
	if !*tableFlag {
		t.Skip("the generated drift table runs only with -driftgen.table (make bench)")
	}
	tests, err := demoapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	runTable(t, demoEnv(), tests, "the demo shop")
}

// interleave orders cases one of each kind in turn, each kind's cases in their drawn order.
func interleave(cases []Mutation) []Mutation {
	var kinds []Kind
	by := map[Kind][]Mutation{}
	for _, m := range cases {
		if by[m.Kind] == nil {
			kinds = append(kinds, m.Kind)
		}
		by[m.Kind] = append(by[m.Kind], m)
	}
	out := make([]Mutation, 0, len(cases))
	for len(out) < len(cases) {
		for _, k := range kinds {
			if len(by[k]) > 0 {
				out = append(out, by[k][0])
				by[k] = by[k][1:]
			}
		}
	}
	return out
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 240 {
		s = s[:240] + "…"
	}
	return s
}

// TestOneGeneratedCase runs the case -driftgen.case names on the demo shop with the ladder's
// events in the log: how a row of the table is looked into.
//
//	go test -count=1 -run '^TestOneGeneratedCase$' -v ./tests/driftgen/ -args -driftgen.case 'move-menu/login@4'
func TestOneGeneratedCase(t *testing.T) {
	if *caseFlag == "" {
		t.Skip("no -driftgen.case given")
	}
	runOne(t, demoEnv(), demoTest)
}
