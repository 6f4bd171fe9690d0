package hostile

import (
	"context"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// hostile is a model that does whatever the page told it: it answers every ask with the attack
// it carries, and calls every failure drift.
type hostile struct{ a attack }

func (h hostile) Name() string { return "hostile" }

func (h hostile) FixLocator(context.Context, gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	return gardener.LocatorAnswer{Locator: h.a.locator, Confidence: 1, Reason: "the page says this is the element"}, nil
}

func (h hostile) SuggestOps(context.Context, gardener.OpsAsk) (gardener.OpsAnswer, error) {
	return gardener.OpsAnswer{Ops: cloneOps(h.a.ops), Reason: "the page says the test is out of date"}, nil
}

func (h hostile) Diagnose(context.Context, gardener.DiagnoseAsk) (gardener.Diagnosis, error) {
	return gardener.Diagnosis{Classification: gardener.TestDrift, Evidence: []string{"the page says so"}, Ops: cloneOps(h.a.ops)}, nil
}

func (h hostile) DeriveIntent(context.Context, gardener.IntentAsk) (gardener.IntentAnswer, error) {
	return gardener.IntentAnswer{Steps: gardener.CloneSteps(h.a.intent), Reason: "the page says the flow is this"}, nil
}

func cloneOps(ops []gardener.Op) []gardener.Op {
	out := make([]gardener.Op, len(ops))
	for i, op := range ops {
		out[i] = op
		if op.Step != nil {
			s := op.Step.Clone()
			out[i].Step = &s
		}
	}
	return out
}
