package storetest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// executionCases: the record of an execution is what the API authorizes a read of it on, so it
// must read back exactly, be written once, and list under its run only.
var executionCases = []testCase{
	{name: "ExecutionsRecordedOnceAndListedByRun", run: func(t *testing.T, f *fixture) {
		first := gardener.Execution{ID: "arn:x:1", ProjectID: "p-queue", TestID: "t-login", RunID: "r-1", By: "ada@example.com", At: epoch}
		second := gardener.Execution{ID: "arn:x:2", ProjectID: "p-queue", TestID: "t-login", RunID: "r-1", By: "bob@example.com", At: epoch.Add(time.Minute)}
		other := gardener.Execution{ID: "arn:x:3", ProjectID: "p-auto", TestID: "t-auto", RunID: "r-2", By: "ada@example.com", At: epoch}
		for _, x := range []gardener.Execution{first, second, other} {
			if err := f.store.PutExecution(f.ctx, x); err != nil {
				t.Fatalf("put execution %s: %v", x.ID, err)
			}
		}
		got, err := f.store.Execution(f.ctx, first.ID)
		if err != nil || !reflect.DeepEqual(got, first) {
			t.Fatalf("execution %s reads back %+v, %v; want %+v", first.ID, got, err, first)
		}
		again := first
		again.ProjectID = "p-auto"
		wantAs[*gardener.ConflictError](t, "recording an execution id twice", f.store.PutExecution(f.ctx, again))
		if got, _ := f.store.Execution(f.ctx, first.ID); got.ProjectID != first.ProjectID {
			t.Fatalf("a refused second record changed the first: %+v", got)
		}
		_, err = f.store.Execution(f.ctx, "arn:x:none")
		wantAs[*gardener.NotFoundError](t, "an execution never recorded", err)
		list, err := f.store.RunExecutions(f.ctx, "r-1")
		if err != nil || len(list) != 2 || list[0].ID != second.ID || list[1].ID != first.ID {
			t.Fatalf("executions of r-1: %+v, %v; want %s then %s", list, err, second.ID, first.ID)
		}
		if list, err := f.store.RunExecutions(f.ctx, "r-none"); err != nil || len(list) != 0 {
			t.Fatalf("executions of a run without any: %+v, %v", list, err)
		}
	}},
	{name: "ExecutionClaimHeldUntilSuperseded", run: func(t *testing.T, f *fixture) {
		first := claim("r-1", "ada@example.com", "manual-1")
		if held, err := f.store.ClaimExecution(f.ctx, first, ""); err != nil || !reflect.DeepEqual(held, first) {
			t.Fatalf("the first claim: %+v, %v; want it held", held, err)
		}
		// A second claim loses to the held one, and so does one superseding a claim that is
		// not the held one (it saw an older execution end, and another request took over).
		for _, supersede := range []string{"", "manual-0"} {
			held, err := f.store.ClaimExecution(f.ctx, claim("r-1", "ada@example.com", "manual-2"), supersede)
			wantAs[*gardener.ConflictError](t, "a claim while manual-1 holds ("+supersede+")", err)
			if !reflect.DeepEqual(held, first) {
				t.Fatalf("a lost claim returned %+v, want the holder %+v", held, first)
			}
		}
		// Another asker, or another run, has a claim of their own.
		for _, c := range []gardener.ExecutionClaim{claim("r-1", "bob@example.com", "manual-3"), claim("r-2", "ada@example.com", "manual-4")} {
			if _, err := f.store.ClaimExecution(f.ctx, c, ""); err != nil {
				t.Fatalf("claim of %s for %s beside ada's on r-1: %v", c.RunID, c.By, err)
			}
		}
		// Once manual-1 ended, a claim superseding it wins, and the next loses to it.
		next := claim("r-1", "ada@example.com", "manual-5")
		if held, err := f.store.ClaimExecution(f.ctx, next, first.Name); err != nil || !reflect.DeepEqual(held, next) {
			t.Fatalf("superseding the ended manual-1: %+v, %v", held, err)
		}
		held, err := f.store.ClaimExecution(f.ctx, claim("r-1", "ada@example.com", "manual-6"), first.Name)
		wantAs[*gardener.ConflictError](t, "a second claim superseding manual-1", err)
		if held.Name != next.Name {
			t.Fatalf("a claim superseding manual-1 lost to %q, want manual-5", held.Name)
		}
		_, err = f.store.ClaimExecution(f.ctx, claim("r-1", "ada@example.com", ""), "")
		if err == nil || !strings.Contains(err.Error(), "name") {
			t.Fatalf("a claim without an execution name: %v, want an error naming it", err)
		}
	}},
}

// claim is the claim of run for by on execution name, with an input naming them.
func claim(run, by, name string) gardener.ExecutionClaim {
	return gardener.ExecutionClaim{RunID: run, By: by, Name: name, At: epoch,
		Input: json.RawMessage(fmt.Sprintf(`{"detail":{"runId":%q},"manual":{"by":%q}}`, run, by))}
}
