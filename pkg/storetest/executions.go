package storetest

import (
	"reflect"
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
}
