package asl

import "github.com/driftgardener/gardener/pkg/gardener"

// Transitions is what Step Functions bills a standard workflow's execution for, counted from
// its history by the one rule that counts an execution's history on AWS too.
func (e *Execution) Transitions() int {
	evs := make([]gardener.HistoryEvent, len(e.History))
	for i, ev := range e.History {
		evs[i] = gardener.HistoryEvent{Type: string(ev.Type)}
	}
	return gardener.Transitions(evs)
}
