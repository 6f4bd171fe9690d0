package handler

// DryRunResult is what the staging machine's dry-run state returns: whether the test still
// passes with no AI (then nothing is proposed), whether it was skipped (the flag re-checked per
// test), and the gate the ladder in propose mode runs under.
type DryRunResult struct {
	Passed  bool   `json:"passed"`
	Skipped bool   `json:"skipped"`
	Reason  string `json:"reason,omitempty"`
	Gate    Gate   `json:"gate"`
}
