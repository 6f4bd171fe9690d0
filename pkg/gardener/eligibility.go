package gardener

import "fmt"

// Mode is which gardener is asking: the applying one (failure-driven, auto-repair on) or the
// proposing one (change-driven, auto-repair off).
type Mode string

// Modes.
const (
	ModeApply   Mode = "apply"
	ModePropose Mode = "propose"
)

// Eligible is the run-selection gate both gardeners ask (spec "Three things the gardener will not
// touch"): a Pro project that opted into this mode and has a model; a saved, active test; and,
// when there is a run, neither a negative control run nor a scenario probe, and for the applying
// gardener an unattended one. run may be nil for the proposing gardener, which starts from a
// radar sweep rather than a run.
func Eligible(mode Mode, p Project, t Test, run *Run) error {
	// What is asked about comes first: a control run or a probe is never a target, whatever
	// the project, and is refused in those words.
	if err := RunGate(run, t); err != nil {
		return err
	}
	if err := projectGate(p); err != nil {
		return err
	}
	switch mode {
	case ModeApply:
		if !p.AutoRepair {
			return &IneligibleError{fmt.Sprintf("project %s has auto-repair off: its fixes are proposed, not applied", p.ID)}
		}
	case ModePropose:
		if p.AutoRepair {
			return &IneligibleError{fmt.Sprintf("project %s repairs itself (auto-repair on): the staging pass skips it", p.ID)}
		}
	default:
		return &IneligibleError{fmt.Sprintf("unknown mode %q", mode)}
	}
	if t.Status != StatusActive {
		return &IneligibleError{fmt.Sprintf("test %s is %s, not in service: the gardener only tends active tests", t.ID, t.Status)}
	}
	if mode == ModeApply {
		if run == nil {
			return &IneligibleError{"the applying gardener starts from a failed run, and none was given"}
		}
		if !run.Unattended() {
			return &IneligibleError{fmt.Sprintf("run %s was %s, not an unattended scheduled or worker run", run.ID, run.Trigger)}
		}
	}
	return nil
}

// Gate is the one run-selection gate of a repair for actor: the manual target's for a person or
// an agent (a pending or draft test may be repaired by hand), the automatic one's (Eligible) for
// the gardeners.
func Gate(actor Actor, mode Mode, p Project, t Test, run *Run) error {
	if actor == ActorSchedule {
		return Eligible(mode, p, t, run)
	}
	return EligibleManual(p, t, run)
}

// EligibleManual is the gate of the manual path (suggest-fix, diagnose, the whole ladder on one
// failed run): Pro-gated like the gardeners and refusing control runs and probes, but serving a
// pending or draft test so a reviewer can get a fix before approving it.
func EligibleManual(p Project, t Test, run *Run) error {
	if err := RunGate(run, t); err != nil {
		return err
	}
	if err := projectGate(p); err != nil {
		return err
	}
	if t.Status == StatusArchived {
		return &IneligibleError{fmt.Sprintf("test %s is archived", t.ID)}
	}
	return nil
}

func projectGate(p Project) error {
	if p.Plan != PlanPro {
		return &IneligibleError{fmt.Sprintf("project %s is on the %s plan: repair is a Pro feature", p.ID, p.Plan)}
	}
	if p.Model == "" {
		return &IneligibleError{fmt.Sprintf("project %s has no AI configured: writing a repair needs a key", p.ID)}
	}
	return nil
}

// RunGate is the part of both gates that judges the run asked about: never a negative control
// run, a scenario probe or a run that passed; a run of the test, of its current version.
func RunGate(run *Run, t Test) error {
	if run == nil {
		return nil
	}
	if run.Control {
		return &IneligibleError{fmt.Sprintf("run %s is a negative control run: it is required to fail, and a repair there would teach a sentinel to pass", run.ID)}
	}
	if run.Probe {
		return &IneligibleError{fmt.Sprintf("run %s is a scenario probe: only saved tests are tended", run.ID)}
	}
	if run.Result != nil && run.Result.Passed {
		return &IneligibleError{fmt.Sprintf("run %s passed: there is nothing to repair", run.ID)}
	}
	if run.TestID != "" && run.TestID != t.ID {
		return &IneligibleError{fmt.Sprintf("run %s is of test %s, not %s", run.ID, run.TestID, t.ID)}
	}
	if run.TestVersion != 0 && run.TestVersion != t.Version {
		// The failure was of a version that is gone (a repair or a person's edit wrote another):
		// the test's next run says whether the new version needs a repair.
		return &IneligibleError{fmt.Sprintf("run %s failed on version %d of test %s, which is at version %d now", run.ID, run.TestVersion, t.ID, t.Version)}
	}
	return nil
}
