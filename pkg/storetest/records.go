package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// recordCases need no multi-record atomicity: every backend runs them.
var recordCases = []testCase{
	{name: "ProjectRoundTrip", run: func(t *testing.T, f *fixture) {
		got, err := f.store.Project(f.ctx, "p-queue")
		if err != nil {
			t.Fatal(err)
		}
		want := gardener.Project{ID: "p-queue", Name: "Queue", Plan: gardener.PlanPro, Model: "builtin", Radar: true, AllowedOrigins: []string{"http://app.test"}, SetupTestID: "t-login"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("project: got %+v, want %+v", got, want)
		}
		got.AutoRepair, got.Radar = true, false
		if err := f.store.PutProject(f.ctx, got); err != nil {
			t.Fatal(err)
		}
		if again, _ := f.store.Project(f.ctx, "p-queue"); !again.AutoRepair || again.Radar {
			t.Fatalf("project after put: %+v", again)
		}
	}},
	{name: "ProjectsListedByID", run: func(t *testing.T, f *fixture) {
		before, err := f.store.Projects(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"p-list-b", "p-list-a"} {
			if err := f.store.PutProject(f.ctx, gardener.Project{ID: id, Name: id, Plan: gardener.PlanPro}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.store.UpdateProject(f.ctx, "p-list-b", func(p *gardener.Project) error { p.Name = "renamed"; return nil }); err != nil {
			t.Fatal(err)
		}
		got, err := f.store.Projects(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range got {
			ids = append(ids, p.ID)
		}
		if len(got) != len(before)+2 || !slices.IsSorted(ids) || !slices.Contains(ids, "p-queue") || !slices.Contains(ids, "p-list-a") {
			t.Fatalf("projects %v after adding two to %d: want every project once, by id", ids, len(before))
		}
		if i := slices.Index(ids, "p-list-b"); i < 0 || got[i].Name != "renamed" {
			t.Fatalf("an updated project is listed as %+v", got)
		}
	}},
	{name: "ProjectUpdatesLoseNothing", run: func(t *testing.T, f *fixture) {
		for round := range 3 {
			before, err := f.store.Project(f.ctx, "p-queue")
			if err != nil {
				t.Fatal(err)
			}
			// Both writers read the settings before either writes, so one of them finds its read
			// overtaken: a store that writes over it loses the other's change.
			var read sync.WaitGroup
			read.Add(2)
			update := func(change func(*gardener.Project)) error {
				first := true
				_, err := f.store.UpdateProject(f.ctx, "p-queue", func(p *gardener.Project) error {
					if first {
						first = false
						read.Done()
						read.Wait()
					}
					change(p)
					return nil
				})
				return err
			}
			name, model := fmt.Sprintf("Queue %d", round), fmt.Sprintf("bedrock:model-%d", round)
			var nameErr, modelErr error
			var wg sync.WaitGroup
			wg.Go(func() { nameErr = update(func(p *gardener.Project) { p.Name = name }) })
			wg.Go(func() { modelErr = update(func(p *gardener.Project) { p.Model = model }) })
			wg.Wait()
			if nameErr != nil || modelErr != nil {
				t.Fatalf("round %d: updates failed: %v, %v", round, nameErr, modelErr)
			}
			after, err := f.store.Project(f.ctx, "p-queue")
			if err != nil {
				t.Fatal(err)
			}
			if after.Name != name || after.Model != model || after.Version != before.Version+2 {
				t.Fatalf("round %d: project %+v; want name %q, model %q and version %d: an update was lost", round, after, name, model, before.Version+2)
			}
		}

		// A replacement written between an update's read and its write is not lost either.
		before, err := f.store.Project(f.ctx, "p-queue")
		if err != nil {
			t.Fatal(err)
		}
		first := true
		got, err := f.store.UpdateProject(f.ctx, "p-queue", func(p *gardener.Project) error {
			if first {
				first = false
				replaced := *p
				replaced.AutoRepair = !before.AutoRepair
				if err := f.store.PutProject(f.ctx, replaced); err != nil {
					return err
				}
			}
			p.Radar = !before.Radar
			return nil
		})
		if err != nil || got.AutoRepair == before.AutoRepair || got.Radar == before.Radar {
			t.Fatalf("update across a put: %+v, %v; want both autoRepair and radar flipped from %+v", got, err, before)
		}
		if again, _ := f.store.Project(f.ctx, "p-queue"); !reflect.DeepEqual(again, got) {
			t.Fatalf("stored %+v, update returned %+v", again, got)
		}

		boom := errors.New("no such model")
		_, err = f.store.UpdateProject(f.ctx, "p-queue", func(p *gardener.Project) error { p.Name = "never"; return boom })
		wantErr(t, "a refused update", err, boom)
		_, err = f.store.UpdateProject(f.ctx, "p-queue", func(p *gardener.Project) error { p.ID = "p-other"; return nil })
		if err == nil || !strings.Contains(err.Error(), "p-other") {
			t.Fatalf("an update changing the id: %v, want an error naming the new id", err)
		}
		if again, _ := f.store.Project(f.ctx, "p-queue"); !reflect.DeepEqual(again, got) {
			t.Fatalf("refused updates wrote: %+v, was %+v", again, got)
		}
		_, err = f.store.Project(f.ctx, "p-other")
		wantAs[*gardener.NotFoundError](t, "the id an update tried to move to", err)
		_, err = f.store.UpdateProject(f.ctx, "nope", func(*gardener.Project) error { return nil })
		wantAs[*gardener.NotFoundError](t, "update of an unknown project", err)
	}},
	{name: "StepsThatDoNotReadBackAreNotStored", run: func(t *testing.T, f *fixture) {
		// A wait of 0 ms built in Go encodes without its ms, which then does not decode: stored,
		// it would fail every read of the test and every listing of its project.
		bad := gardener.Test{ID: "t-unreadable", ProjectID: "p-queue", Name: "wait", Status: gardener.StatusActive, Version: 1,
			Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}, {Kind: gardener.Wait, For: gardener.WaitTime}}}
		err := f.store.CreateTest(f.ctx, bad)
		if se := wantAs[*gardener.StepError](t, "creating a test whose steps do not read back", err); se.Path != "2" || se.Field != "ms" {
			t.Fatalf("refusal names step %s field %q, want step 2 field \"ms\": %v", se.Path, se.Field, err)
		}
		_, err = f.store.Test(f.ctx, bad.ID)
		wantAs[*gardener.NotFoundError](t, "the refused test", err)
		if _, err := f.store.Tests(f.ctx, "p-queue"); err != nil {
			t.Fatalf("the project's tests after the refusal: %v", err)
		}
	}},
	{name: "UnknownIDsAreNotFound", run: func(t *testing.T, f *fixture) {
		reads := map[string]func() error{
			"project":   func() error { _, err := f.store.Project(f.ctx, "nope"); return err },
			"test":      func() error { _, err := f.store.Test(f.ctx, "nope"); return err },
			"run":       func() error { _, err := f.store.Run(f.ctx, "nope"); return err },
			"green run": func() error { _, err := f.store.LastGreenRun(f.ctx, "t-login"); return err },
			"proposal":  func() error { _, err := f.store.Proposal(f.ctx, "nope"); return err },
			"repair":    func() error { _, err := f.store.Repair(f.ctx, "nope"); return err },
			"baseline":  func() error { _, err := f.store.Baseline(f.ctx, "p-queue"); return err },
			"save test": func() error {
				_, err := f.store.SaveTest(f.ctx, loginTest("nope", "p-queue"))
				return err
			},
			"mark reviewed": func() error { _, err := f.store.MarkReviewed(f.ctx, "nope", "ada"); return err },
		}
		for what, read := range reads {
			err := read()
			nf := wantAs[*gardener.NotFoundError](t, what, err)
			if nf.ID == "" || nf.Entity == "" {
				t.Errorf("%s: not-found error names nothing: %+v", what, nf)
			}
		}
	}},
	{name: "BadInputRefusedWritingNothing", run: func(t *testing.T, f *fixture) {
		cases := []struct {
			what string // a word the error must name
			call func() error
		}{
			{"project id", func() error { return f.store.PutProject(f.ctx, gardener.Project{Name: "nameless"}) }},
			{"test id", func() error {
				return f.store.CreateTest(f.ctx, gardener.Test{ProjectID: "p-queue", Steps: loginTest("x", "p-queue").Steps})
			}},
			{"run id", func() error { return f.store.PutRun(f.ctx, gardener.Run{TestID: "t-login"}) }},
			{"triage issue id", func() error { return f.store.PutTriageIssue(f.ctx, gardener.TriageIssue{ProjectID: "p-queue"}) }},
			{"test id", func() error { return f.store.AddModelCall(f.ctx, gardener.ModelCall{Ask: "locator"}) }},
			{"project id", func() error { return f.store.PutBaseline(f.ctx, gardener.Baseline{}) }},
			{"app change id", func() error { return f.store.PutAppChange(f.ctx, gardener.AppChange{ProjectID: "p-queue"}) }},
			{"project id", func() error { return f.store.PutAppChange(f.ctx, gardener.AppChange{ID: "c-1"}) }},
			{"test id", func() error { return f.store.MarkAtRisk(f.ctx, "p-queue", []string{"t-a", "", "t-b"}, epoch) }},
			{"proposal id", func() error { _, err := f.store.StageProposal(f.ctx, gardener.Proposal{TestID: "t-login"}); return err }},
			{"test id", func() error { _, err := f.store.StageProposal(f.ctx, gardener.Proposal{ID: "pr-x"}); return err }},
			{"repair id", func() error {
				_, err := f.store.WriteRepair(f.ctx, gardener.WriteRepair{Repair: gardener.Repair{TestID: "t-login"}})
				return err
			}},
			{`"applied" is not`, func() error {
				_, err := f.store.CloseProposal(f.ctx, gardener.CloseProposal{ProposalID: "pr-x", Status: gardener.ProposalApplied})
				return err
			}},
		}
		for i, c := range cases {
			err := c.call()
			if err == nil || !strings.Contains(err.Error(), c.what) {
				t.Errorf("case %d: error %v, want one naming %s", i, err, c.what)
			}
		}
		if risk, err := f.store.AtRisk(f.ctx, "p-queue"); err != nil || len(risk) != 0 {
			t.Errorf("a refused MarkAtRisk marked %+v, %v", risk, err)
		}
		if tests, err := f.store.Tests(f.ctx, "p-queue"); err != nil || len(tests) != 1 {
			t.Errorf("refused writes left tests: %+v, %v", tests, err)
		}
		if rows, err := f.store.TestProposals(f.ctx, "t-login"); err != nil || len(rows) != 0 {
			t.Errorf("refused writes left proposals: %+v, %v", rows, err)
		}
		if v := f.test(t, "t-login").Version; v != 3 {
			t.Errorf("refused writes moved t-login to version %d", v)
		}
	}},
	{name: "TestsVersionsAndListing", run: func(t *testing.T, f *fixture) {
		if err := f.store.CreateTest(f.ctx, loginTest("t-login", "p-queue")); err == nil {
			t.Fatal("creating an existing test: no error")
		} else {
			wantErr(t, "create existing", err, gardener.ErrConflict)
		}
		second := loginTest("t-checkout", "p-queue")
		second.Status = gardener.StatusPending
		if err := f.store.CreateTest(f.ctx, second); err != nil {
			t.Fatal(err)
		}
		list, err := f.store.Tests(f.ctx, "p-queue")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, tt := range list {
			ids = append(ids, tt.ID)
		}
		if !slices.Equal(ids, []string{"t-checkout", "t-login"}) {
			t.Fatalf("tests of p-queue: %v", ids)
		}
		edit := f.test(t, "t-login")
		if edit.Viewport != (gardener.Viewport{Width: 1024, Height: 768}) {
			t.Fatalf("created with a viewport of 1024x768, read back with %v", edit.Viewport)
		}
		edit.Steps = edit.Steps[:3]
		edit.Name = "Sign in, shorter"
		edit.Viewport = gardener.Viewport{Width: 390, Height: 844}
		saved, err := f.store.SaveTest(f.ctx, edit)
		if err != nil {
			t.Fatal(err)
		}
		if saved.Version != 4 {
			t.Fatalf("saved version %d, want 4", saved.Version)
		}
		got := f.test(t, "t-login")
		if got.Version != 4 || got.Name != "Sign in, shorter" || got.Viewport != edit.Viewport {
			t.Fatalf("after save: version %d name %q viewport %v", got.Version, got.Name, got.Viewport)
		}
		wantSteps(t, "after save", got.Steps, edit.Steps)
		if _, err := f.store.SaveTest(f.ctx, edit); err == nil {
			t.Fatal("saving against an old version: no error")
		} else {
			wantErr(t, "save against old version", err, gardener.ErrConflict)
		}
		wantSteps(t, "after refused save", f.test(t, "t-login").Steps, edit.Steps)
	}},
	{name: "BigTestRoundTrip", run: func(t *testing.T, f *fixture) {
		big := loginTest("t-big", "p-queue")
		big.Steps = BigSteps(1, bigStepCount+100)
		if err := f.store.CreateTest(f.ctx, big); err != nil {
			t.Fatal(err)
		}
		wantSteps(t, "big test", f.test(t, "t-big").Steps, big.Steps)
		big.Steps = BigSteps(2, bigStepCount)
		if _, err := f.store.SaveTest(f.ctx, big); err != nil {
			t.Fatal(err)
		}
		got := f.test(t, "t-big")
		wantSteps(t, "big test after save", got.Steps, big.Steps)
		if got.Viewport != big.Viewport {
			t.Errorf("big test after save: viewport %v, want %v", got.Viewport, big.Viewport)
		}
		if got.Version != big.Version+1 {
			t.Fatalf("version %d, want %d", got.Version, big.Version+1)
		}
	}},
	{name: "RunsAndLastGreen", run: func(t *testing.T, f *fixture) {
		green := func(id string, at time.Time, mut func(*gardener.Run)) {
			r := gardener.Run{ID: id, ProjectID: "p-queue", TestID: "t-login", TestVersion: 3, Trigger: gardener.TriggerSchedule, At: at,
				Result: &gardener.RunResult{TestID: "t-login", TestVersion: 3, Passed: true, FailedIndex: -1,
					Steps: []gardener.StepRecord{{Path: "3", Kind: gardener.Click, Passed: true, Element: &gardener.Fingerprint{Tag: "button", ID: "login", VisibleText: []string{"Sign in"}}}}}}
			if mut != nil {
				mut(&r)
			}
			if err := f.store.PutRun(f.ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		green("r-old", epoch, nil)
		green("r-new", epoch.Add(time.Hour), nil)
		green("r-older-later-written", epoch.Add(-time.Hour), nil)
		green("r-control", epoch.Add(2*time.Hour), func(r *gardener.Run) { r.Control = true })
		green("r-probe", epoch.Add(3*time.Hour), func(r *gardener.Run) { r.Probe = true })
		green("r-red", epoch.Add(4*time.Hour), func(r *gardener.Run) { r.Result.Passed = false })
		last, err := f.store.LastGreenRun(f.ctx, "t-login")
		if err != nil {
			t.Fatal(err)
		}
		if last.ID != "r-new" {
			t.Fatalf("last green run %s, want r-new", last.ID)
		}
		if last.Result == nil || last.Result.Steps[0].Element.ID != "login" || !last.At.Equal(epoch.Add(time.Hour)) {
			t.Fatalf("last green run did not round-trip: %+v", last)
		}
		// Green runs of the same instant order by id, whichever was written last, as in every
		// newest-first listing.
		green("r-same-b", epoch.Add(5*time.Hour), nil)
		green("r-same-a", epoch.Add(5*time.Hour), nil)
		if last, err := f.store.LastGreenRun(f.ctx, "t-login"); err != nil || last.ID != "r-same-b" {
			t.Fatalf("last green run of two at one instant: %s, %v; want r-same-b", last.ID, err)
		}
		ctl, err := f.store.Run(f.ctx, "r-control")
		if err != nil || !ctl.Control || ctl.Trigger != gardener.TriggerSchedule {
			t.Fatalf("control run: %+v, %v", ctl, err)
		}
	}},
	// RunsOfATestNewestFirstByPage: a test's runs of every kind, newest first as every listing
	// orders them, cut into pages by the last run of the previous one.
	{name: "RunsOfATestNewestFirstByPage", run: func(t *testing.T, f *fixture) {
		put := func(id, test string, at time.Time, passed bool) {
			r := gardener.Run{ID: id, ProjectID: "p-queue", TestID: test, TestVersion: 3, Trigger: gardener.TriggerSchedule, At: at,
				Result: &gardener.RunResult{TestID: test, TestVersion: 3, Passed: passed, FailedIndex: -1}}
			if !passed {
				r.Result.FailedStep, r.Result.FailedIndex, r.Result.ErrorKind = "2", 1, gardener.ErrElementNotFound
			}
			if err := f.store.PutRun(f.ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		put("r-1", "t-login", epoch, true)
		put("r-3", "t-login", epoch.Add(2*time.Hour), false)
		put("r-2", "t-login", epoch.Add(time.Hour), true)
		put("r-2b", "t-login", epoch.Add(time.Hour), false)
		put("r-other", "t-other", epoch.Add(3*time.Hour), false)
		ids := func(rs []gardener.Run) (out []string) {
			for _, r := range rs {
				out = append(out, r.ID)
			}
			return out
		}
		first, err := f.store.Runs(f.ctx, "t-login", "", 3)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(first); !slices.Equal(got, []string{"r-3", "r-2b", "r-2"}) {
			t.Fatalf("first page %v, want r-3 r-2b r-2", got)
		}
		if first[0].Result == nil || first[0].Result.FailedStep != "2" || first[0].Result.ErrorKind != gardener.ErrElementNotFound {
			t.Fatalf("red run did not round-trip: %+v", first[0])
		}
		rest, err := f.store.Runs(f.ctx, "t-login", "r-2", 3)
		if err != nil || !slices.Equal(ids(rest), []string{"r-1"}) {
			t.Fatalf("page after r-2: %v, %v; want r-1", ids(rest), err)
		}
		if none, err := f.store.Runs(f.ctx, "t-none", "", 5); err != nil || len(none) != 0 {
			t.Fatalf("runs of a test without any: %v, %v", ids(none), err)
		}
		var nf *gardener.NotFoundError
		if _, err := f.store.Runs(f.ctx, "t-login", "r-other", 3); !errors.As(err, &nf) {
			t.Fatalf("page after another test's run: %v, want *NotFoundError", err)
		}
	}},
	// RecordRunResultOnlyOnARunWithNone: the result a repair reproduced is stored on a run
	// recorded without one, and never over a result a platform delivered.
	{name: "RecordRunResultOnlyOnARunWithNone", run: func(t *testing.T, f *fixture) {
		failed := gardener.RunResult{TestID: "t-login", TestVersion: 3, FailedStep: "4", FailedIndex: 3, ErrorKind: gardener.ErrElementNotFound, Message: "no element matches #login"}
		delivered := gardener.RunResult{TestID: "t-login", TestVersion: 3, FailedStep: "2", FailedIndex: 1, Message: "delivered by the platform"}
		for _, r := range []gardener.Run{
			{ID: "r-none", ProjectID: "p-queue", TestID: "t-login", TestVersion: 3, Trigger: gardener.TriggerManual, At: epoch},
			{ID: "r-has", ProjectID: "p-queue", TestID: "t-login", TestVersion: 3, Trigger: gardener.TriggerSchedule, Result: &delivered, At: epoch},
		} {
			if err := f.store.PutRun(f.ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		cases := []struct {
			run     string
			want    string // the failing step the stored run then has
			errWant error
		}{
			{"r-none", "4", nil},
			{"r-none", "4", gardener.ErrConflict}, // a second delivery keeps the first
			{"r-has", "2", gardener.ErrConflict},
			{"r-unknown", "", gardener.ErrNotFound},
		}
		for _, c := range cases {
			res := failed
			if c.errWant != nil {
				res.FailedStep = "9"
			}
			_, err := f.store.RecordRunResult(f.ctx, c.run, res)
			if (c.errWant == nil && err != nil) || (c.errWant != nil && !errors.Is(err, c.errWant)) {
				t.Fatalf("RecordRunResult(%s): %v, want %v", c.run, err, c.errWant)
			}
			if c.want == "" {
				continue
			}
			got, err := f.store.Run(f.ctx, c.run)
			if err != nil || got.Result == nil || got.Result.FailedStep != c.want || got.Trigger == "" {
				t.Fatalf("run %s after RecordRunResult: %+v, %v; want failing step %s", c.run, got, err, c.want)
			}
		}
	}},
	{name: "HandoffKeptWhole", run: func(t *testing.T, f *fixture) {
		// A handoff is as large as a rung's decision on the longest test: past a DynamoDB item.
		body := map[string]string{"verdict": strings.Repeat("replace step 3: click css=#a > div.b ", 20000)}
		h, err := gardener.NewHandoff("p-auto", "t-auto", body, epoch)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // a retried task puts the same handoff again
			if err := f.store.PutHandoff(f.ctx, h); err != nil {
				t.Fatal(err)
			}
		}
		got, err := f.store.Handoff(f.ctx, h.ID)
		var back map[string]string
		if err != nil || got.Decode(&back) != nil || back["verdict"] != body["verdict"] || got.TestID != "t-auto" {
			t.Fatalf("handoff %s read back as %d bytes (%v)", h.ID, len(got.Body), err)
		}
		if _, err := f.store.Handoff(f.ctx, "handoff-none"); !errors.Is(err, gardener.ErrNotFound) {
			t.Fatalf("a handoff never put: %v", err)
		}
	}},
	{name: "TriageIssuesNewestFirst", run: func(t *testing.T, f *fixture) {
		for i, id := range []string{"i-1", "i-2", "i-3"} {
			issue := gardener.TriageIssue{ID: id, ProjectID: "p-auto", TestID: "t-auto", RunID: "r-" + id, Classification: gardener.AppBug,
				FailedStep: "4", Error: "assertion failed", Evidence: []string{"500 from /api/login"},
				Attempts: []gardener.Attempt{{Rung: gardener.StrategySelfHeal, Outcome: "red at step 4"}}, At: epoch.Add(time.Duration(i) * time.Minute)}
			if err := f.store.PutTriageIssue(f.ctx, issue); err != nil {
				t.Fatal(err)
			}
		}
		got, err := f.store.TriageIssues(f.ctx, "p-auto")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].ID != "i-3" || got[2].ID != "i-1" || got[0].Attempts[0].Rung != gardener.StrategySelfHeal {
			t.Fatalf("triage issues: %+v", got)
		}
		if none, err := f.store.TriageIssues(f.ctx, "p-queue"); err != nil || len(none) != 0 {
			t.Fatalf("triage issues of another project: %+v, %v", none, err)
		}
		if one, err := f.store.TriageIssue(f.ctx, "i-2"); err != nil || !reflect.DeepEqual(one, got[1]) {
			t.Fatalf("triage issue i-2 read by its id: %+v, %v; want %+v", one, err, got[1])
		}
		if _, err := f.store.TriageIssue(f.ctx, "i-none"); !errors.Is(err, gardener.ErrNotFound) {
			t.Fatalf("an unknown triage issue: %v, want not found", err)
		}
	}},
	{name: "BaselineAndAppChanges", run: func(t *testing.T, f *fixture) {
		b := gardener.Baseline{ProjectID: "p-queue", At: epoch,
			Tests: map[string][]string{"t-login": {"http://app.test/login", "http://app.test/dashboard"}},
			Pages: map[string]gardener.PageBaseline{"http://app.test/login": {URL: "http://app.test/login", Fingerprint: "f1",
				Elements: map[string]gardener.Fingerprint{"css=#login": {Tag: "button", ID: "login", ClassList: []string{"btn"}}}}}}
		if err := f.store.PutBaseline(f.ctx, b); err != nil {
			t.Fatal(err)
		}
		got, err := f.store.Baseline(f.ctx, "p-queue")
		if err != nil {
			t.Fatal(err)
		}
		if !got.At.Equal(b.At) || !reflect.DeepEqual(got.Tests, b.Tests) || !reflect.DeepEqual(got.Pages, b.Pages) {
			t.Fatalf("baseline: got %+v, want %+v", got, b)
		}
		for i, id := range []string{"c-1", "c-2", "c-3"} {
			c := change(id, "http://app.test/login", "f"+id)
			c.At = epoch.Add(time.Duration(i) * time.Hour)
			if err := f.store.PutAppChange(f.ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		changes, err := f.store.AppChanges(f.ctx, "p-queue", epoch.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != 2 || changes[0].ID != "c-2" || changes[1].ID != "c-3" || changes[0].Fingerprint != "fc-2" {
			t.Fatalf("app changes since +1h: %+v", changes)
		}
	}},
	{name: "AtRiskLedgerKeepsFirstSeen", run: func(t *testing.T, f *fixture) {
		if err := f.store.MarkAtRisk(f.ctx, "p-queue", []string{"t-b", "t-a"}, epoch); err != nil {
			t.Fatal(err)
		}
		if err := f.store.MarkAtRisk(f.ctx, "p-queue", []string{"t-c", "t-a"}, epoch.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		got, err := f.store.AtRisk(f.ctx, "p-queue")
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, r := range got {
			order = append(order, r.TestID)
		}
		if !slices.Equal(order, []string{"t-a", "t-b", "t-c"}) {
			t.Fatalf("at-risk order %v, want longest at risk first", order)
		}
		if !got[0].FirstSeen.Equal(epoch) || !got[0].LastSeen.Equal(epoch.Add(time.Hour)) {
			t.Fatalf("t-a seen %v..%v, want first seen kept", got[0].FirstSeen, got[0].LastSeen)
		}
		if err := f.store.ClearAtRisk(f.ctx, "p-queue", "t-a"); err != nil {
			t.Fatal(err)
		}
		if left, _ := f.store.AtRisk(f.ctx, "p-queue"); len(left) != 2 {
			t.Fatalf("after clear: %+v", left)
		}
	}},
	{name: "BigRecordsInListings", run: func(t *testing.T, f *fixture) {
		huge := noise(4, 450_000)
		for i, outcome := range []string{"small", huge, "small again"} {
			c := gardener.ModelCall{TestID: "t-auto", Ask: "diagnosis", Model: "builtin", Outcome: outcome, At: epoch.Add(time.Duration(i) * time.Minute)}
			if err := f.store.AddModelCall(f.ctx, c); err != nil {
				t.Fatal(err)
			}
			ch := change(fmt.Sprintf("c-%d", i), "http://app.test/login", "f")
			ch.Detail, ch.At = outcome, epoch.Add(time.Duration(i)*time.Minute)
			if err := f.store.PutAppChange(f.ctx, ch); err != nil {
				t.Fatal(err)
			}
		}
		calls, err := f.store.ModelCalls(f.ctx, "t-auto")
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 3 || calls[1].Outcome != huge || calls[0].Outcome != "small again" {
			t.Fatalf("model calls: %d, the large one intact: %v", len(calls), len(calls) == 3 && calls[1].Outcome == huge)
		}
		changes, err := f.store.AppChanges(f.ctx, "p-queue", epoch)
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != 3 || changes[1].Detail != huge {
			t.Fatalf("app changes: %d, the large one intact: %v", len(changes), len(changes) == 3 && changes[1].Detail == huge)
		}
	}},
	{name: "ModelCallsNewestFirst", run: func(t *testing.T, f *fixture) {
		for i, ask := range []string{"locator", "operations", "diagnosis"} {
			if err := f.svc.RecordModelCall(f.ctx, gardener.ModelCall{TestID: "t-auto", Ask: ask, Model: "builtin", InputTokens: 100 * (i + 1), OutputTokens: 10, Outcome: "answered"}); err != nil {
				t.Fatal(err)
			}
		}
		calls, err := f.store.ModelCalls(f.ctx, "t-auto")
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 3 || calls[0].Ask != "diagnosis" || calls[2].InputTokens != 100 {
			t.Fatalf("model calls: %+v", calls)
		}
		if err := f.svc.RecordModelCall(f.ctx, gardener.ModelCall{Ask: "locator"}); err == nil {
			t.Fatal("a model call without a test: no error")
		}
	}},
}
