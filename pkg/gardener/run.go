package gardener

import "time"

// ErrorKind classifies why a run failed; the ladder and diagnosis route on it.
type ErrorKind string

// Run error kinds.
const (
	ErrElementNotFound   ErrorKind = "element-not-found"
	ErrAmbiguousElement  ErrorKind = "ambiguous-element"
	ErrAssertionFailed   ErrorKind = "assertion-failed"
	ErrTimeout           ErrorKind = "timeout"
	ErrNavigation        ErrorKind = "navigation-error"
	ErrHTTP              ErrorKind = "http-error"
	ErrBrowserCrash      ErrorKind = "browser-crash"
	ErrNavigationBlocked ErrorKind = "navigation-blocked"
	ErrBadStep           ErrorKind = "bad-step"
	// ErrRuntime: the gardener's own page runtime failed on the page (it answered something
	// the runner could not read). It says nothing about the test or the app: no rung repairs
	// it as drift, and diagnosis files it as neither drift nor an app bug.
	ErrRuntime ErrorKind = "runtime-error"
)

// Network reports whether a failure of this kind is the network's: a page could not be loaded
// at all (the connection refused, reset or timed out, the name not resolved). The app was not
// reached, so the run says nothing about the test: it is neither drift nor a bug, and a door
// reports it as a failure to run (the CLI's exit 3), not as a failing test.
func (k ErrorKind) Network() bool { return k == ErrNavigation }

// FailureCause says what a failure was down to where the error kind alone does not tell: a
// timeout may be the page's (an element that never showed) or the browser's own.
type FailureCause string

// Failure causes.
const (
	// CauseBrowserSlow: the browser itself did not answer in time (a script call, a mouse
	// event or typing that did not finish), not anything the page showed. On a loaded machine
	// this is what the load decided; the run is worth judging again rather than as the app's.
	CauseBrowserSlow FailureCause = "browser-slow"
	// CauseHidden: the step's locator still matches an element, but none is visible. The
	// element is on the page, not gone: moved behind a control that shows it (a menu, a tab,
	// a disclosure) or left unshown by a defect, and the run alone cannot tell which.
	CauseHidden FailureCause = "element-hidden"
)

// LocatorTrouble reports whether the run failed finding an element, for the page's reasons: a
// timeout the browser itself caused (CauseBrowserSlow) says nothing about the page, and no
// repair may be built on it.
func (r RunResult) LocatorTrouble() bool {
	return r.Cause != CauseBrowserSlow && r.ErrorKind.LocatorTrouble()
}

// LocatorTrouble reports whether a failure is about finding an element: the only failures a
// new locator can fix.
func (k ErrorKind) LocatorTrouble() bool {
	switch k {
	case ErrElementNotFound, ErrAmbiguousElement, ErrTimeout:
		return true
	}
	return false
}

// Element returns a copy of the fingerprint the run recorded for the step at path, or nil.
func (r *RunResult) Element(path string) *Fingerprint {
	if r == nil {
		return nil
	}
	for _, s := range r.Steps {
		if s.Path == path && s.Element != nil {
			fp := *s.Element
			return &fp
		}
	}
	return nil
}

// ConsoleMessage is one message the page wrote to its console.
type ConsoleMessage struct {
	Level string `json:"level"`
	Text  string `json:"text"`
}

// Request is one network request the page made, with the status it got (0: no response).
type Request struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Status int    `json:"status"`
	Failed string `json:"failed,omitempty"` // the network error when there was no response
}

// StepRecord is what a run saw while one step ran: the evidence the ladder, the sensitivity
// check and the requirement contract read. Path is the step's number as a person counts it.
type StepRecord struct {
	Path      string       `json:"step"`
	Kind      StepKind     `json:"kind"`
	URLBefore string       `json:"urlBefore"`
	URLAfter  string       `json:"urlAfter"`
	Element   *Fingerprint `json:"element,omitempty"` // the element the step targeted
	Values    []string     `json:"values,omitempty"`  // values entered or picked
	Requests  []Request    `json:"requests,omitempty"`
	Observed  string       `json:"observed,omitempty"` // what a check read
	Passed    bool         `json:"passed"`
	Skipped   bool         `json:"skipped,omitempty"` // an intent block's own record
	// Hidden counts the elements an action's locator still matched, none of them visible,
	// when the step failed for want of a visible one: its element is on the page, out of
	// sight (in a closed menu, a collapsed section), not gone.
	Hidden int   `json:"hidden,omitempty"`
	Millis int64 `json:"ms"`
}

// RunResult is the outcome of one replay of a test.
type RunResult struct {
	TestID      string    `json:"testId"`
	TestVersion int       `json:"testVersion"`
	Passed      bool      `json:"passed"`
	FailedStep  string    `json:"failedStep,omitempty"` // the path of the failing step: "4" or "3.2"
	FailedIndex int       `json:"failedIndex"`          // 0-based top-level index; -1 when passed
	ErrorKind   ErrorKind `json:"errorKind,omitempty"`
	// Cause narrows ErrorKind where it can (a timeout that was the browser's, not the page's);
	// empty when the kind says all there is.
	Cause   FailureCause `json:"cause,omitempty"`
	Message string       `json:"message,omitempty"`
	// CoveredBy is what stood over the failing step's element and would have taken its action
	// (a consent overlay, a banner), when that is why the step failed: the outermost element
	// around the spot the pointer reached that does not also hold the step's element.
	CoveredBy   *Fingerprint     `json:"coveredBy,omitempty"`
	Steps       []StepRecord     `json:"steps"`
	Console     []ConsoleMessage `json:"console,omitempty"`
	Requests    []Request        `json:"requests,omitempty"`
	Navigations []string         `json:"navigations,omitempty"`
	FinalURL    string           `json:"finalUrl,omitempty"`
	Started     time.Time        `json:"started"`
	Millis      int64            `json:"ms"`
}

// TriggerKind says what started a run; only unattended runs are repaired automatically.
type TriggerKind string

// Run triggers.
const (
	TriggerSchedule TriggerKind = "schedule" // a scheduled suite
	TriggerWorker   TriggerKind = "worker"   // a run finished by the worker
	TriggerManual   TriggerKind = "manual"
	TriggerCI       TriggerKind = "ci"
	TriggerRadar    TriggerKind = "radar" // a staging pass dry-run
	// TriggerProof is a green gate re-run of an in-memory copy with a fix applied. Stored as a
	// probe, so it never counts as the test's last green run; persist looks it up by id.
	TriggerProof TriggerKind = "proof"
)

// Run is a recorded run of a test.
type Run struct {
	ID          string      `json:"id"`
	ProjectID   string      `json:"projectId"`
	TestID      string      `json:"testId"`
	TestVersion int         `json:"testVersion"`
	Trigger     TriggerKind `json:"trigger"`
	// Control marks a negative control run: a sensitivity check against a deliberately falsified
	// expectation, required to fail. Never repaired.
	Control bool `json:"control,omitempty"`
	// Probe marks a throwaway scenario run: nothing to keep green. Never repaired.
	Probe  bool       `json:"probe,omitempty"`
	Result *RunResult `json:"result,omitempty"`
	At     time.Time  `json:"at"`
}

// Unattended reports whether nobody was watching the run: a scheduled suite or a worker run,
// the only runs whose failure starts the applying gardener.
func (r Run) Unattended() bool {
	return r.Trigger == TriggerSchedule || r.Trigger == TriggerWorker
}
