package storetest

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// radarStatusCases hold the last sweep and the last staging pass of a project: read back as
// written, per project, and never replaced by an older one (a redelivered step, a slow pass).
var radarStatusCases = []testCase{
	{name: "LastSweepAndPassKeepTheNewer", run: func(t *testing.T, f *fixture) {
		_, err := f.store.SweepSummary(f.ctx, "p-queue")
		wantAs[*gardener.NotFoundError](t, "the last sweep of a project never swept", err)
		_, err = f.store.PassSummary(f.ctx, "p-queue")
		wantAs[*gardener.NotFoundError](t, "the last pass of a project never staged", err)

		sweep := func(at time.Time, unreached ...string) gardener.SweepSummary {
			s := gardener.SweepSummary{ProjectID: "p-queue", At: at, Pages: 3, Changes: 2, AtRisk: 1, Unreached: []gardener.UnreachedPage{}}
			for _, u := range unreached {
				s.Unreached = append(s.Unreached, gardener.UnreachedPage{URL: u, Why: "net::ERR_CONNECTION_REFUSED at " + u})
			}
			return s
		}
		first, second := sweep(epoch, "http://app.test/cart"), sweep(epoch.Add(time.Hour))
		for _, s := range []gardener.SweepSummary{first, second, first} {
			if err := f.store.PutSweepSummary(f.ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		got, err := f.store.SweepSummary(f.ctx, "p-queue")
		if err != nil {
			t.Fatal(err)
		}
		if !got.At.Equal(second.At) || len(got.Unreached) != 0 || got.Pages != 3 || got.AtRisk != 1 {
			t.Fatalf("last sweep %+v, want the newer one (%v, every page reached)", got, second.At)
		}
		third := sweep(epoch.Add(2*time.Hour), "http://app.test/cart", "http://app.test/login")
		if err := f.store.PutSweepSummary(f.ctx, third); err != nil {
			t.Fatal(err)
		}
		if got, _ = f.store.SweepSummary(f.ctx, "p-queue"); !got.At.Equal(third.At) || !reflect.DeepEqual(got.Unreached, third.Unreached) {
			t.Fatalf("last sweep %+v, want %+v", got, third)
		}
		if _, err := f.store.SweepSummary(f.ctx, "p-auto"); err == nil {
			t.Fatal("p-auto has the last sweep of p-queue")
		}

		pass := gardener.NewPassSummary("p-queue", epoch.Add(time.Hour), []string{"t-k"})
		pass.Add("t-a", gardener.PassPassing, "")
		pass.Add("t-b", gardener.PassStaged, "")
		pass.Add("t-c", gardener.PassNotStaged, "")
		pass.Add("t-d", gardener.PassFailed, "replay of t-d: context deadline exceeded")
		older := gardener.NewPassSummary("p-queue", epoch, nil)
		older.Skipped = "this project repairs itself"
		for _, p := range []gardener.PassSummary{pass, older} {
			if err := f.store.PutPassSummary(f.ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		gotPass, err := f.store.PassSummary(f.ctx, "p-queue")
		if err != nil {
			t.Fatal(err)
		}
		if !gotPass.At.Equal(pass.At) || !reflect.DeepEqual(gotPass, withUTC(pass)) {
			t.Fatalf("last pass %+v, want %+v", gotPass, pass)
		}
	}},
	{name: "RadarStatusNamesItsProject", run: func(t *testing.T, f *fixture) {
		for what, err := range map[string]error{
			"sweep": f.store.PutSweepSummary(f.ctx, gardener.SweepSummary{At: epoch}),
			"pass":  f.store.PutPassSummary(f.ctx, gardener.NewPassSummary("", epoch, nil)),
		} {
			if err == nil || !strings.Contains(err.Error(), "project id") {
				t.Errorf("a %s summary with no project: %v, want an error naming the project id", what, err)
			}
		}
	}},
}

// withUTC is p as a store reads it back: its time in UTC.
func withUTC(p gardener.PassSummary) gardener.PassSummary {
	p.At = p.At.UTC()
	return p
}

// suiteCursorCases hold where the suite plan stopped reading: read back as written and never
// moved back by an older plan's cursor.
var suiteCursorCases = []testCase{
	{name: "SuiteCursorKeepsTheNewer", run: func(t *testing.T, f *fixture) {
		_, err := f.store.SuiteCursor(f.ctx)
		wantAs[*gardener.NotFoundError](t, "the cursor of a suite whose plan never stopped short", err)
		older := gardener.SuiteCursor{ProjectID: "p-queue", TestID: "t-b", At: epoch}
		newer := gardener.SuiteCursor{ProjectID: "p-auto", At: epoch.Add(time.Hour)}
		for _, c := range []gardener.SuiteCursor{older, newer, older} {
			if err := f.store.PutSuiteCursor(f.ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		got, err := f.store.SuiteCursor(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got.ProjectID != newer.ProjectID || got.TestID != "" || !got.At.Equal(newer.At) {
			t.Fatalf("suite cursor %+v, want the newer %+v", got, newer)
		}
		if _, err := f.store.SweepSummary(f.ctx, ""); err == nil {
			t.Fatal("the suite cursor reads as the last sweep of a project with no id")
		}
	}},
}
