package ladder

import (
	"context"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// runtimeFailing fails every replay at step 2 as the gardener's own page runtime failing.
type runtimeFailing struct{}

func (runtimeFailing) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	return gardener.Replay{Result: gardener.RunResult{TestID: t.ID, TestVersion: t.Version, FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrRuntime,
		Message: "step 2 (click #go): the gardener's page runtime failed on this page, not the test",
		Steps:   []gardener.StepRecord{{Path: "1", Passed: true}, {Path: "2"}}}}, nil
}

// A failure that is the gardener's own page runtime failing says nothing about the test or the
// app: no rung tries a fix, whatever the model would answer (here: a new locator, operations,
// and a diagnosis of drift with a repair), and the climb ends triaged as the environment's,
// naming the runtime.
func TestRuntimeFailureIsNeverDrift(t *testing.T) {
	tt := gardener.Test{ID: "t", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: loginSteps()}
	fixed := tt.Steps[1].Clone()
	fixed.Locator = loc("css=#user")
	op := gardener.Op{Kind: gardener.OpReplace, Index: 1, Step: &fixed}
	model := scripted{locator: gardener.LocatorAnswer{Locator: fixed.Locator}, ops: gardener.OpsAnswer{Ops: []gardener.Op{op}},
		diag: gardener.Diagnosis{Classification: gardener.TestDrift, Ops: []gardener.Op{op}}}
	for _, m := range []gardener.Model{model, builtin.Engine{}} {
		l := &Ladder{Runner: runtimeFailing{}, Model: m}
		res, err := l.Repair(context.Background(), Request{Test: tt, Mode: gardener.ModeApply, LastGreen: &gardener.RunResult{Passed: true}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != Triaged || res.Diagnosis == nil || res.Diagnosis.Classification != gardener.Environment || res.Facts.Tried != 0 {
			t.Fatalf("%s: outcome %s (%s), diagnosis %+v, %d tried: want triaged as the environment's with nothing tried", m.Name(), res.Outcome, res.Reason, res.Diagnosis, res.Facts.Tried)
		}
		if !strings.Contains(strings.Join(res.Diagnosis.Evidence, " "), "the gardener's page runtime failed") {
			t.Errorf("%s: evidence %q does not name the gardener's runtime", m.Name(), res.Diagnosis.Evidence)
		}
	}
}
