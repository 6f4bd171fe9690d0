package gardening

import (
	"context"
	"fmt"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/tend"
)

// HandOff keeps a rung's decision in the store and returns its brief, which is what the repair
// machine passes on: a decision carries the verdict, the attempts and the refusals, which grow
// with the test past what Step Functions passes between states (256 KiB).
func (s *Service) HandOff(ctx context.Context, dec tend.Decision) (tend.Decision, error) {
	h, err := gardener.NewHandoff(dec.ProjectID, dec.TestID, dec, s.now())
	if err != nil {
		return tend.Decision{}, err
	}
	if err := s.d.Store.PutHandoff(ctx, h); err != nil {
		return tend.Decision{}, fmt.Errorf("handing on the decision on test %s: %w", dec.TestID, err)
	}
	return dec.Brief(h.ID), nil
}

// Received is the decision a brief stands for, read from the store; a decision passed whole
// (the ladder in one process) is itself. A brief whose handoff is of another test or run is a
// bad event.
func (s *Service) Received(ctx context.Context, brief tend.Decision) (tend.Decision, error) {
	if brief.Handoff == "" {
		return brief, nil
	}
	if err := CheckEventIDs("handoff", brief.Handoff); err != nil {
		return tend.Decision{}, err
	}
	h, err := s.d.Store.Handoff(ctx, brief.Handoff)
	if err != nil {
		return tend.Decision{}, fmt.Errorf("the decision on test %s: %w", brief.TestID, err)
	}
	var full tend.Decision
	if err := h.Decode(&full); err != nil {
		return tend.Decision{}, err
	}
	if full.TestID != brief.TestID || full.RunID != brief.RunID || full.ProofID != brief.ProofID || full.Outcome != brief.Outcome {
		return tend.Decision{}, &BadEventError{Reason: fmt.Sprintf("handoff %s is not the decision on test %s, run %s", brief.Handoff, brief.TestID, brief.RunID)}
	}
	return full, nil
}
