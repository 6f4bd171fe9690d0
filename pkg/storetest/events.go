package storetest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// eventCases: an execution's event log is read incrementally while functions of the execution
// append to it, so it must number events without gaps or repeats across writers, keep each
// event exactly, return only what lies past the reader's cursor, in order, a bounded page at a
// time, and keep executions apart.
var eventCases = []testCase{
	{name: "EventsAppendedInOrderAndReadIncrementally", run: func(t *testing.T, f *fixture) {
		pass, fail := true, false
		want := []gardener.LadderEvent{
			{Seq: 9, Stage: gardener.EventReproduce, TestID: "t-login", Step: "4", Passed: &fail, Reason: "element-not-found", Message: "fails at step 4"},
			{Stage: gardener.EventCandidate, Rung: gardener.StrategySelfHeal, Ops: []string{`~ step 4  click css=#login`, `+ step 4  click testid=login`}, Message: "trying"},
			{Stage: gardener.EventSensitivity, Sensitivity: &gardener.Sensitivity{Sensitive: 2, Total: 3, Insensitive: []string{"6"}}, Message: "2 of 3"},
			{Stage: gardener.EventProofStep, Step: "3.2", Kind: gardener.Click, Passed: &pass, Message: "step 3.2 click: passed"},
		}
		for i := range want {
			want[i].At = epoch.Add(time.Duration(i) * time.Second)
			got, err := f.store.AppendEvent(f.ctx, "manual-1", want[i])
			if err != nil {
				t.Fatalf("append event %d: %v", i, err)
			}
			want[i].Seq = i + 1
			if !reflect.DeepEqual(got, want[i]) {
				t.Fatalf("append returned %+v, want %+v (numbered by the log, not the event)", got, want[i])
			}
		}
		if _, err := f.store.AppendEvent(f.ctx, "manual-2", gardener.LadderEvent{Stage: gardener.EventOutcome, Message: "other"}); err != nil {
			t.Fatalf("append to another execution: %v", err)
		}
		all, err := f.store.Events(f.ctx, "manual-1", 0, 0)
		if err != nil || !reflect.DeepEqual(all, want) {
			t.Fatalf("events of manual-1: %+v, %v; want %+v", all, err, want)
		}
		page, err := f.store.Events(f.ctx, "manual-1", 1, 2)
		if err != nil || len(page) != 2 || page[0].Seq != 2 || page[1].Seq != 3 {
			t.Fatalf("events after 1, two at most: %+v, %v", page, err)
		}
		if rest, err := f.store.Events(f.ctx, "manual-1", 4, 10); err != nil || len(rest) != 0 {
			t.Fatalf("events past the last: %+v, %v", rest, err)
		}
		if other, err := f.store.Events(f.ctx, "manual-2", 0, 10); err != nil || len(other) != 1 || other[0].Seq != 1 {
			t.Fatalf("events of manual-2 numbered on their own: %+v, %v", other, err)
		}
		if none, err := f.store.Events(f.ctx, "manual-none", 0, 10); err != nil || len(none) != 0 {
			t.Fatalf("events of an execution never recorded: %+v, %v", none, err)
		}
		if _, err := f.store.AppendEvent(f.ctx, "", gardener.LadderEvent{Message: "x"}); err == nil {
			t.Fatal("an event without an execution was stored")
		}
	}},
	{name: "EventsOfConcurrentWritersNumberedOnce", run: func(t *testing.T, f *fixture) {
		const writers, each = 4, 5
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if _, err := f.store.AppendEvent(f.ctx, "manual-race", gardener.LadderEvent{Stage: gardener.EventCandidate, Message: fmt.Sprintf("w%d-%d", w, i), At: epoch}); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("concurrent append: %v", err)
		}
		got, err := f.store.Events(f.ctx, "manual-race", 0, 0)
		if err != nil || len(got) != writers*each {
			t.Fatalf("%d events read back, %v; want %d", len(got), err, writers*each)
		}
		seen := map[string]bool{}
		for i, e := range got {
			if e.Seq != i+1 || seen[e.Message] {
				t.Fatalf("event %d is %+v: numbers must run 1..%d, each event once", i, e, writers*each)
			}
			seen[e.Message] = true
		}
	}},
	{name: "EventsReadAPageAtATime", run: func(t *testing.T, f *fixture) {
		n := gardener.MaxEventPage + 5
		for i := range n {
			if _, err := f.store.AppendEvent(f.ctx, "manual-long", gardener.LadderEvent{Stage: gardener.EventProofStep, Step: fmt.Sprint(i + 1), At: epoch}); err != nil {
				t.Fatalf("append %d: %v", i, err)
			}
		}
		first, err := f.store.Events(f.ctx, "manual-long", 0, n)
		if err != nil || len(first) != gardener.MaxEventPage || first[len(first)-1].Seq != gardener.MaxEventPage {
			t.Fatalf("a read asking for %d got %d events (last %+v), %v; want the page bound %d", n, len(first), first[len(first)-1], err, gardener.MaxEventPage)
		}
		rest, err := f.store.Events(f.ctx, "manual-long", first[len(first)-1].Seq, 0)
		if err != nil || len(rest) != 5 || rest[0].Seq != gardener.MaxEventPage+1 {
			t.Fatalf("the next page: %d events, %v", len(rest), err)
		}
	}},
}
