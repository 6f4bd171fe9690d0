package workspace_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/workspace"
)

func openStore(t *testing.T) *embedded.Store {
	t.Helper()
	s, err := embedded.Open(filepath.Join(t.TempDir(), "gardener.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ptr[T any](v T) *T { return &v }

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestEnsureProject(t *testing.T) {
	stored := gardener.Project{ID: "p", Name: "Shop", Plan: gardener.PlanFree, AutoRepair: true, Model: "builtin", Radar: true, AllowedOrigins: []string{"http://a"}, SetupTestID: "login"}
	cases := []struct {
		name   string
		stored *gardener.Project
		set    workspace.Settings
		want   gardener.Project
	}{
		{
			name: "missing: created named after its id on the pro plan",
			set:  workspace.Settings{AutoRepair: ptr(true), Model: ptr("builtin"), Origins: []string{"http://a"}},
			want: gardener.Project{ID: "p", Name: "p", Plan: gardener.PlanPro, AutoRepair: true, Model: "builtin", AllowedOrigins: []string{"http://a"}},
		},
		{
			name: "missing: created from New before the settings apply",
			set:  workspace.Settings{Model: ptr(""), New: gardener.Project{ID: "ignored", Name: "Shop", Radar: true, Model: "builtin"}, Origins: []string{"http://a"}},
			want: gardener.Project{ID: "p", Name: "Shop", Plan: gardener.PlanPro, Radar: true, AllowedOrigins: []string{"http://a"}},
		},
		{
			name:   "stored: nil settings keep everything",
			stored: &stored,
			want:   stored,
		},
		{
			name:   "stored: settings replace, the rest is kept, New is ignored",
			stored: &stored,
			set:    workspace.Settings{AutoRepair: ptr(false), Model: ptr("bedrock:m"), SetupTestID: ptr(""), New: gardener.Project{Radar: false, Name: "other"}},
			want:   gardener.Project{ID: "p", Name: "Shop", Plan: gardener.PlanFree, Model: "bedrock:m", Radar: true, AllowedOrigins: []string{"http://a"}},
		},
		{
			name:   "stored: a new origin is added once, the old ones kept",
			stored: &stored,
			set:    workspace.Settings{Origins: []string{"http://b", "http://a", "http://b"}},
			want:   func() gardener.Project { p := stored; p.AllowedOrigins = []string{"http://a", "http://b"}; return p }(),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			store := openStore(t)
			if c.stored != nil {
				p := *c.stored
				p.AllowedOrigins = slices.Clone(p.AllowedOrigins)
				if err := store.PutProject(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			ws := &workspace.Service{Store: store}
			got, err := ws.EnsureProject(ctx, "p", c.set)
			if err != nil {
				t.Fatal(err)
			}
			read, err := store.Project(ctx, "p")
			if err != nil {
				t.Fatal(err)
			}
			for what, p := range map[string]gardener.Project{"returned": got, "stored": read} {
				if !equalProjects(p, c.want) {
					t.Errorf("%s project\n %+v, want\n %+v", what, p, c.want)
				}
			}
		})
	}
	if _, err := (&workspace.Service{Store: openStore(t)}).EnsureProject(context.Background(), "", workspace.Settings{}); err == nil {
		t.Error("a project with no id was written")
	}
}

func equalProjects(a, b gardener.Project) bool {
	if !slices.Equal(a.AllowedOrigins, b.AllowedOrigins) {
		return false
	}
	a.AllowedOrigins, b.AllowedOrigins = nil, nil
	return reflect.DeepEqual(a, b)
}

func steps(locators ...string) []gardener.Step {
	out := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}}
	for _, l := range locators {
		loc, err := gardener.ParseLocator(l)
		if err != nil {
			panic(err)
		}
		out = append(out, gardener.Step{Kind: gardener.Click, Locator: loc})
	}
	return out
}

func TestSyncTest(t *testing.T) {
	base := gardener.Test{ID: "login", ProjectID: "p", Name: "Log in", Status: gardener.StatusActive, Version: 1, Steps: steps("#go")}
	with := func(f func(*gardener.Test)) gardener.Test {
		c := base.Clone()
		f(&c)
		return c
	}
	cases := []struct {
		name   string
		stored []gardener.Test // written in order: the first created, the rest saved over it
		give   gardener.Test
		// unfinished, when set, is the test whose mark SyncTest is given as an unfinished write's.
		unfinished *gardener.Test
		outcome    workspace.SyncOutcome
		version    int
		moved      bool
		steps      []gardener.Step
		// refused is set when the sync must write nothing and answer *workspace.MovedError.
		refused bool
	}{
		{name: "new test keeps the caller's version", give: base, outcome: workspace.SyncCreated, version: 1, steps: base.Steps},
		{name: "new test with no version is created at 1", give: with(func(t *gardener.Test) { t.Version = 0 }), outcome: workspace.SyncCreated, version: 1, steps: base.Steps},
		{name: "same steps change nothing", stored: []gardener.Test{base}, give: base, outcome: workspace.SyncUnchanged, version: 1, steps: base.Steps},
		{name: "a new name alone changes nothing", stored: []gardener.Test{base}, give: with(func(t *gardener.Test) { t.Name = "Sign in" }), outcome: workspace.SyncUnchanged, version: 1, steps: base.Steps},
		{name: "changed steps are a new version", stored: []gardener.Test{base}, give: with(func(t *gardener.Test) { t.Steps = steps("#go", "#next") }), outcome: workspace.SyncSaved, version: 2, steps: steps("#go", "#next")},
		{name: "a changed status is a new version", stored: []gardener.Test{base}, give: with(func(t *gardener.Test) { t.Status = gardener.StatusArchived }), outcome: workspace.SyncSaved, version: 2, steps: base.Steps},
		{
			name:    "the caller holds the store's latest version: nothing written",
			stored:  []gardener.Test{base, with(func(t *gardener.Test) { t.Steps = steps("#renamed") })},
			give:    with(func(t *gardener.Test) { t.Version, t.Steps = 2, steps("#renamed") }),
			outcome: workspace.SyncUnchanged, version: 2, steps: steps("#renamed"),
		},
		{
			name:    "the store moved on since the caller's copy: refused, nothing written over the store's",
			stored:  []gardener.Test{base, with(func(t *gardener.Test) { t.Steps = steps("#renamed") })},
			give:    base,
			refused: true, version: 2, steps: steps("#renamed"),
		},
		{
			name:    "a copy that names no version is a copy of version 1: refused too",
			stored:  []gardener.Test{base, with(func(t *gardener.Test) { t.Steps = steps("#renamed") })},
			give:    with(func(t *gardener.Test) { t.Version = 0 }),
			refused: true, version: 2, steps: steps("#renamed"),
		},
		{
			name:    "a copy of the store's version with other steps is an edit: saved",
			stored:  []gardener.Test{base, with(func(t *gardener.Test) { t.Steps = steps("#renamed") })},
			give:    with(func(t *gardener.Test) { t.Version, t.Steps = 2, steps("#edited") }),
			outcome: workspace.SyncSaved, version: 3, steps: steps("#edited"),
		},
		{
			name:    "the store moved on to the caller's steps: reported, nothing written",
			stored:  []gardener.Test{base, with(func(t *gardener.Test) { t.Steps = steps("#renamed") })},
			give:    with(func(t *gardener.Test) { t.Version, t.Steps = 1, steps("#renamed") }),
			outcome: workspace.SyncUnchanged, version: 2, moved: true, steps: steps("#renamed"),
		},
		{
			name:       "an unfinished write left the copy behind the store: the store's test, nothing written",
			stored:     []gardener.Test{base, with(func(t *gardener.Test) { t.Steps = steps("#renamed") })},
			give:       base,
			unfinished: &base,
			outcome:    workspace.SyncBehind, version: 2, moved: true, steps: steps("#renamed"),
		},
		{
			name:       "a copy edited since its unfinished write is a person's edit of version 1: refused, not saved over the store's",
			stored:     []gardener.Test{base, with(func(t *gardener.Test) { t.Steps = steps("#renamed") })},
			give:       with(func(t *gardener.Test) { t.Steps = steps("#edited") }),
			unfinished: &base,
			refused:    true, version: 2, steps: steps("#renamed"),
		},
		{
			name:       "a copy whose status changed since its unfinished write is refused too",
			stored:     []gardener.Test{base, with(func(t *gardener.Test) { t.Steps = steps("#renamed") })},
			give:       with(func(t *gardener.Test) { t.Status = gardener.StatusArchived }),
			unfinished: &base,
			refused:    true, version: 2, steps: steps("#renamed"),
		},
		{
			name:       "an unfinished write the store did not make: the copy is synced as usual",
			stored:     []gardener.Test{base},
			give:       with(func(t *gardener.Test) { t.Steps = steps("#edited") }),
			unfinished: ptr(with(func(t *gardener.Test) { t.Steps = steps("#edited") })),
			outcome:    workspace.SyncSaved, version: 2, steps: steps("#edited"),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			store := openStore(t)
			for i, s := range c.stored {
				if i == 0 {
					if err := store.CreateTest(ctx, s); err != nil {
						t.Fatal(err)
					}
					continue
				}
				s.Version = base.Version + i - 1
				if _, err := store.SaveTest(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			var unfinished *workspace.Mark
			if c.unfinished != nil {
				m, err := workspace.MarkOf(*c.unfinished)
				noErr(t, err)
				unfinished = &m
			}
			ws := &workspace.Service{Store: store}
			got, err := ws.SyncTest(ctx, c.give, unfinished)
			var moved *workspace.MovedError
			switch {
			case c.refused && !errors.As(err, &moved):
				t.Fatalf("got %+v, %v; want it refused with a MovedError", got, err)
			case !c.refused && err != nil:
				t.Fatal(err)
			case c.refused:
			case got.Outcome != c.outcome || got.Test.Version != c.version || got.Moved != c.moved:
				t.Errorf("outcome %s, version %d, moved %v; want %s, %d, %v", got.Outcome, got.Test.Version, got.Moved, c.outcome, c.version, c.moved)
			}
			read, err := store.Test(ctx, "login")
			if err != nil {
				t.Fatal(err)
			}
			if read.Version != c.version || !slices.EqualFunc(read.Steps, c.steps, gardener.Step.Equal) {
				t.Errorf("stored version %d steps %v; want %d %v", read.Version, read.Steps, c.version, c.steps)
			}
			if !c.refused && !slices.EqualFunc(got.Test.Steps, read.Steps, gardener.Step.Equal) {
				t.Errorf("returned steps %v, stored %v", got.Test.Steps, read.Steps)
			}
		})
	}
}

// lateStore reads a test one version behind the stored one, as if another writer saved it
// between SyncTest's read and its save.
type lateStore struct{ *embedded.Store }

func (s lateStore) Test(ctx context.Context, id string) (gardener.Test, error) {
	t, err := s.Store.Test(ctx, id)
	t.Version--
	return t, err
}

func TestSyncTestDoesNotOverwriteAWriteInBetween(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	orig := gardener.Test{ID: "login", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps("#go")}
	if err := store.CreateTest(ctx, orig); err != nil {
		t.Fatal(err)
	}
	repaired := orig.Clone()
	repaired.Steps = steps("#repaired")
	if _, err := store.SaveTest(ctx, repaired); err != nil {
		t.Fatal(err)
	}
	edited := orig.Clone()
	edited.Steps = steps("#edited")
	_, err := (&workspace.Service{Store: lateStore{store}}).SyncTest(ctx, edited, nil)
	if !errors.Is(err, gardener.ErrConflict) {
		t.Fatalf("SyncTest over a write in between: %v, want a conflict", err)
	}
	read, _ := store.Test(ctx, "login")
	if read.Version != 2 || !slices.EqualFunc(read.Steps, repaired.Steps, gardener.Step.Equal) {
		t.Errorf("the write in between was overwritten: version %d %v", read.Version, read.Steps)
	}
}

// replayer answers every replay with the next result, and counts the replays.
type replayer struct {
	results []bool
	calls   int
}

func (r *replayer) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	passed := r.results[r.calls]
	r.calls++
	return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, TestVersion: t.Version, Passed: passed}}, nil
}

func TestRecordGreen(t *testing.T) {
	test := gardener.Test{ID: "login", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps("#go")}
	cases := []struct {
		name     string
		results  []bool // what each replay answers
		versions []int  // the test's version at each call
		replayed []bool // whether each call replayed
	}{
		{name: "green once is known after", results: []bool{true}, versions: []int{1, 1}, replayed: []bool{true, false}},
		{name: "red is stored but is no green run", results: []bool{false, true}, versions: []int{1, 1, 1}, replayed: []bool{true, true, false}},
		{name: "a new version needs its own green run", results: []bool{true, true}, versions: []int{1, 2, 2}, replayed: []bool{true, true, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			store := openStore(t)
			runner := &replayer{results: c.results}
			var announced []int
			ws := &workspace.Service{Store: store, OnReplay: func(t gardener.Test) { announced = append(announced, t.Version) }}
			var ids []string
			for i, v := range c.versions {
				tt := test.Clone()
				tt.Version = v
				rec, err := ws.RecordGreen(ctx, runner, tt, gardener.ReplayOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if rec.Replayed != c.replayed[i] {
					t.Fatalf("call %d replayed %v, want %v", i+1, rec.Replayed, c.replayed[i])
				}
				if !rec.Replayed {
					continue
				}
				run, err := store.Run(ctx, rec.Run.ID)
				if err != nil {
					t.Fatalf("call %d: the run is not stored: %v", i+1, err)
				}
				if run.TestVersion != v || run.Trigger != gardener.TriggerManual || run.Result == nil || run.Result.Passed != rec.Replay.Result.Passed {
					t.Errorf("call %d stored %+v", i+1, run)
				}
				if !strings.HasPrefix(run.ID, "manual-login-") {
					t.Errorf("run id %q does not say what started it and which test", run.ID)
				}
				ids = append(ids, run.ID)
			}
			if runner.calls != len(c.results) || len(announced) != runner.calls {
				t.Errorf("%d replays, %d announced; want %d", runner.calls, len(announced), len(c.results))
			}
			if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
				t.Errorf("run ids repeat: %v", ids)
			}
		})
	}
}

func TestRecordRunWithoutResult(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	ws := &workspace.Service{Store: store}
	test := gardener.Test{ID: "login", ProjectID: "p", Version: 3, Steps: steps("#go")}
	run, err := ws.RecordRun(ctx, test, gardener.TriggerManual, nil)
	if err != nil {
		t.Fatal(err)
	}
	read, err := store.Run(ctx, run.ID)
	if err != nil || read.TestVersion != 3 || read.ProjectID != "p" || read.Result != nil {
		t.Errorf("stored %+v, %v", read, err)
	}
	if known, err := ws.GreenKnown(ctx, test); err != nil || known {
		t.Errorf("a run without a result counts as green: %v %v", known, err)
	}
}

func TestNewRunIDIsUniqueWithinAMillisecond(t *testing.T) {
	at := time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	for range 1000 {
		id := gardener.NewRunID(gardener.TriggerSchedule, "cart", at)
		if seen[id] {
			t.Fatalf("run id %s repeats", id)
		}
		seen[id] = true
		if !strings.HasPrefix(id, "schedule-cart-") {
			t.Fatalf("run id %s", id)
		}
	}
}

func TestMarkOf(t *testing.T) {
	base := gardener.Test{ID: "login", ProjectID: "p", Name: "Log in", Status: gardener.StatusActive, Version: 1, Steps: steps("#go")}
	mark := func(tt gardener.Test) workspace.Mark {
		m, err := workspace.MarkOf(tt)
		noErr(t, err)
		return m
	}
	renamed := base.Clone()
	renamed.Name, renamed.ProjectID = "Sign in", "q"
	if mark(renamed) != mark(base) {
		t.Error("the name or project changed the mark; a sync does not compare them")
	}
	for name, f := range map[string]func(*gardener.Test){
		"version": func(t *gardener.Test) { t.Version = 2 },
		"steps":   func(t *gardener.Test) { t.Steps = steps("#next") },
		"status":  func(t *gardener.Test) { t.Status = gardener.StatusArchived },
	} {
		c := base.Clone()
		f(&c)
		if mark(c) == mark(base) {
			t.Errorf("a changed %s left the mark as it was", name)
		}
	}
}
