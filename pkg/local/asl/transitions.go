package asl

// Transitions is what Step Functions bills a standard workflow's execution for: a state
// transition each time a state is entered (in a Map's iterations too), and each retry as one
// more.
func (e *Execution) Transitions() int {
	n := 0
	for _, ev := range e.History {
		if ev.Type == EventStateEntered || ev.Type == EventRetryScheduled {
			n++
		}
	}
	return n
}
