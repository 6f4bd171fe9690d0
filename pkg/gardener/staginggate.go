package gardener

import "fmt"

// StagingSkip names why the proposing gardener's staging pass does nothing for a whole project.
// The staging pass skips on it and the staged queue explains its emptiness by it: both read this
// one rule, so the queue never promises a pass that skips the project, nor blames a skip on
// tests that pass.
type StagingSkip string

// Why a staging pass skips a project, in the order StagingGate asks.
const (
	// SkipRepairsItself: auto-repair is on, so the applying gardener owns the project's tests
	// (one gardener per project).
	SkipRepairsItself StagingSkip = "repairs-itself"
	// SkipNotPro: repair, staged or applied, is a Pro plan feature.
	SkipNotPro StagingSkip = "not-pro"
	// SkipNoKey: no AI key; the radar works without one, writing a repair does not.
	SkipNoKey StagingSkip = "no-key"
	// SkipRadarOff: the proposing gardener is change-driven and works from what the radar
	// noticed, so with the radar off it has nothing to do (spec "The two modes").
	SkipRadarOff StagingSkip = "radar-off"
)

// StagingGate is the project half of the staging pass's gate; each test then passes
// Eligible(ModePropose, …). It returns "" and "" when the pass runs, else why not and the
// sentence the pass summary and its log line carry. Auto-repair is asked first because the spec
// states an auto-repair project's empty queue as "handled elsewhere" whatever else holds.
func StagingGate(p Project) (StagingSkip, string) {
	switch {
	case p.AutoRepair:
		return SkipRepairsItself, fmt.Sprintf("project %s repairs itself (auto-repair on): fixes are applied, not staged", p.ID)
	case p.Plan != PlanPro:
		return SkipNotPro, fmt.Sprintf("project %s is on the %s plan: repair is a Pro feature", p.ID, p.Plan)
	case p.Model == "":
		return SkipNoKey, fmt.Sprintf("project %s has no AI configured: writing a repair needs a key", p.ID)
	case !p.Radar:
		return SkipRadarOff, fmt.Sprintf("project %s has the radar off: the proposing gardener works from what the radar notices", p.ID)
	}
	return "", ""
}
