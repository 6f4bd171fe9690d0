// Package storetest is the conformance suite every gardener.Store driver runs: one set of
// cases, so DynamoDB and the embedded store are proven to keep the same promises (one open
// proposal per test, stale, approve records who, revert restores exactly, no partial writes,
// typed errors) under the same races. Drivers call Run from their own tests.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// Options adapts the suite to what a driver's backend implements.
type Options struct {
	// NoAtomic, when set, is why the backend cannot run the cases that need multi-record atomic
	// writes (dynalite has no TransactWriteItems); those cases are skipped with that reason.
	NoAtomic string
	// PutRawTest stores body as the record of test id in project, bypassing the driver's
	// encoder, so that a case can plant a test that does not decode. Every driver gives it.
	PutRawTest func(t testing.TB, s gardener.Store, id, project string, body []byte)
	// NotIsolated, when set, is why concurrent writers on the backend prove nothing about the
	// driver's atomicity (a local emulator that does not isolate transactions, say); the race
	// suite is skipped with that reason, and runs only where the driver is truly atomic.
	NotIsolated string
}

// NewStore returns an empty store for one case; the driver cleans it up with t.Cleanup.
type NewStore func(t testing.TB) gardener.Store

type testCase struct {
	name   string
	atomic bool // needs multi-record atomic writes
	race   bool // runs writers at once and counts the winners
	run    func(t *testing.T, f *fixture)
}

// Run runs every case against fresh stores from newStore.
func Run(t *testing.T, newStore NewStore, opts Options) {
	var cases []testCase
	cases = append(cases, recordCases...)
	cases = append(cases, projectCases...)
	cases = append(cases, lifecycleCases...)
	for _, c := range raceCases {
		c.race = true
		cases = append(cases, c)
	}
	cases = append(cases, corruptCases...)
	cases = append(cases, executionCases...)
	cases = append(cases, eventCases...)
	cases = append(cases, radarStatusCases...)
	cases = append(cases, idCases...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.race && opts.NotIsolated != "" {
				t.Skipf("SKIP race suite, %s: %s", c.name, opts.NotIsolated)
			}
			if c.atomic && opts.NoAtomic != "" {
				t.Skipf("SKIP %s: %s", c.name, opts.NoAtomic)
			}
			t.Parallel()
			f := newFixture(t, newStore(t))
			f.opts = opts
			c.run(t, f)
		})
	}
}

// fixture is a store seeded with a project per mode and a small test in each, and a lifecycle
// service with a clock that ticks a second per reading, so histories order deterministically.
type fixture struct {
	ctx   context.Context
	store gardener.Store
	svc   *lifecycle.Service
	clock atomic.Int64
	opts  Options
}

var epoch = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func newFixture(t testing.TB, s gardener.Store) *fixture {
	f := &fixture{ctx: context.Background(), store: s}
	f.svc = lifecycle.New(s, f.now)
	for _, p := range []gardener.Project{
		{ID: "p-queue", Name: "Queue", Plan: gardener.PlanPro, Model: "builtin", Radar: true, AllowedOrigins: []string{"http://app.test"}, SetupTestID: "t-login"},
		{ID: "p-auto", Name: "Auto", Plan: gardener.PlanPro, AutoRepair: true, Model: "bedrock:anthropic.claude", AllowedOrigins: []string{"http://app.test"}},
	} {
		if err := s.PutProject(f.ctx, p); err != nil {
			t.Fatalf("put project %s: %v", p.ID, err)
		}
	}
	for _, tt := range []gardener.Test{loginTest("t-login", "p-queue"), loginTest("t-auto", "p-auto")} {
		if err := s.CreateTest(f.ctx, tt); err != nil {
			t.Fatalf("create test %s: %v", tt.ID, err)
		}
	}
	return f
}

func (f *fixture) now() time.Time { return epoch.Add(time.Duration(f.clock.Add(1)) * time.Second) }

func loginTest(id, project string) gardener.Test {
	return gardener.Test{
		ID: id, ProjectID: project, Name: "Sign in", Status: gardener.StatusActive, Version: 3,
		// A viewport, so that every driver is seen to keep a test's viewport through its writes.
		Viewport: gardener.Viewport{Width: 1024, Height: 768},
		Steps: []gardener.Step{
			{Kind: gardener.Goto, URL: "/login"},
			{Kind: gardener.Fill, Locator: gardener.MustLocator("#email"), Value: "ada@example.com"},
			{Kind: gardener.Click, Locator: gardener.MustLocator("#login")},
			{Kind: gardener.Assert, Subject: gardener.SubjectURL, Condition: gardener.Contains, Expected: "/dashboard"},
		},
	}
}

// fixOps moves the click of step 3 to a new locator: the canonical drift repair.
func fixOps(loc string) []gardener.Op {
	s := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator(loc)}
	return []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: &s}}
}

func verdict(loc string) gardener.Verdict {
	return gardener.Verdict{Strategy: gardener.StrategySelfHeal, Ops: fixOps(loc), IntentConfirmed: true,
		Sensitivity: gardener.Sensitivity{Sensitive: 1, Total: 1}}
}

func change(id, url, fp string) gardener.AppChange {
	return gardener.AppChange{ID: id, ProjectID: "p-queue", URL: url, Kind: "changed", Detail: "#login became #signin", At: epoch, Fingerprint: fp}
}

func proposal(id string, base int, triggers ...gardener.AppChange) gardener.Proposal {
	return gardener.Proposal{ID: id, TestID: "t-login", BaseVersion: base, Verdict: verdict("#signin"),
		Triggers: triggers, FailedStep: "3", Error: "element-not-found: #login"}
}

func (f *fixture) test(t *testing.T, id string) gardener.Test {
	t.Helper()
	tt, err := f.store.Test(f.ctx, id)
	if err != nil {
		t.Fatalf("read test %s: %v", id, err)
	}
	return tt
}

func (f *fixture) proposal(t *testing.T, id string) gardener.Proposal {
	t.Helper()
	p, err := f.store.Proposal(f.ctx, id)
	if err != nil {
		t.Fatalf("read proposal %s: %v", id, err)
	}
	return p
}

// failedRun records an unattended failed run of a test and returns its id.
func (f *fixture) failedRun(t *testing.T, id, testID string, mut func(*gardener.Run)) string {
	t.Helper()
	tt := f.test(t, testID)
	r := gardener.Run{ID: id, ProjectID: tt.ProjectID, TestID: testID, TestVersion: tt.Version, Trigger: gardener.TriggerSchedule, At: f.now(),
		Result: &gardener.RunResult{TestID: testID, TestVersion: tt.Version, FailedStep: "3", FailedIndex: 2, ErrorKind: gardener.ErrElementNotFound, Message: "no element matches #login"}}
	if mut != nil {
		mut(&r)
	}
	if err := f.store.PutRun(f.ctx, r); err != nil {
		t.Fatalf("put run %s: %v", id, err)
	}
	return id
}

func wantSteps(t *testing.T, what string, got, want []gardener.Step) {
	t.Helper()
	if !slices.EqualFunc(got, want, gardener.Step.Equal) {
		t.Fatalf("%s: steps differ:\n got %d steps %v\nwant %d steps %v", what, len(got), abbreviate(got), len(want), abbreviate(want))
	}
}

func abbreviate(steps []gardener.Step) string {
	var parts []string
	for i, s := range steps {
		if i == 6 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, s.String())
	}
	return strings.Join(parts, " | ")
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want one matching %v", what, err, target)
	}
}

func wantAs[E error](t *testing.T, what string, err error) E {
	t.Helper()
	var e E
	if !errors.As(err, &e) {
		t.Fatalf("%s: got error %v (%T), want %T", what, err, err, e)
	}
	return e
}

// bigStepCount is the size of the big tests of the suite: the smallest BigSteps that no
// compression fits in one DynamoDB item.
const bigStepCount = 600

// BigSteps is a step list of n fill steps with 1000-byte values, seeded, whose JSON compresses
// poorly: from n = 600 on, its gzip-compressed JSON is over DynamoDB's 400 KB item limit (a test
// of this package checks it), so a driver cannot store it in one item by compression alone.
func BigSteps(seed uint64, n int) []gardener.Step {
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/form"}}
	for i := range n {
		steps = append(steps, gardener.Step{Kind: gardener.Fill, Locator: gardener.MustLocator(fmt.Sprintf("#field-%d", i)), Value: noise(seed+uint64(i), 1000)})
	}
	return append(steps, gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator("#login")})
}

// noise is n bytes of seeded printable randomness: text that gzip barely shrinks.
func noise(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,;:!?"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}
