package gardener

import (
	"context"
	"time"
)

// Runner replays a test in a browser. A test that fails is not an error: it is a Replay whose
// Result did not pass. The error return is for what stops a replay from happening at all (no
// browser could be started, the context ended).
type Runner interface {
	Replay(ctx context.Context, t Test, opts ReplayOptions) (Replay, error)
}

// ReplayOptions configures one replay.
type ReplayOptions struct {
	// BaseURL resolves relative goto URLs ("/login").
	BaseURL string
	// AllowedOrigins are the origins navigation may reach; empty means BaseURL's origin only.
	// Anything else, link-local and metadata addresses included, is blocked.
	AllowedOrigins []string
	// StepTimeout bounds each step that sets no timeoutMs of its own; zero takes the runner's default.
	StepTimeout time.Duration
	// Probes asks, for top-level step index i, that the given checks be evaluated against the
	// page just before step i runs, without failing the run: the sensitivity check.
	Probes map[int][]Step
	// Screenshot adds a PNG to the snapshot.
	Screenshot bool
	// Variables seeds the values extract steps would set (a setup test's output, say).
	Variables map[string]string
	// Views asks, for top-level step index i (len(steps): after the last step), for a view of
	// the page just before step i runs: its URL, a snapshot, and each locator resolved. A radar
	// visits several pages in one replay this way, paying for one browser context and one login
	// instead of one per page. A run that fails before step i has no view i.
	Views map[int][]Locator
	// QuietFail is for top-level step index i: a step that is still waiting gives up as soon as
	// the page is quiet (nothing loading, no request started, the document unchanged for a short
	// window) and nothing matches its element instead of waiting out its timeout. A
	// reproduction uses it on every step; a proof with Patient set. See QuietFail.
	QuietFail map[int]QuietFail
	// OnStep, when set, is called with each step's record as soon as the step has run (an
	// intent block's own record after its inner steps), on the goroutine that called Replay:
	// a proof is reported step by step while it runs. A runner that calls it calls it once for
	// every record of the result's Steps.
	OnStep func(StepRecord) `json:"-"`
}

// QuietFail says when a quiet page ends a step early. A step a run already reported failing
// ends on a quiet page whatever it finds: the run waited out the whole timeout there. Any
// other step ends only when its locator matches no visible element. The element may be there
// under another name (its label, its role and name): on a settled page the locator will not come
// to match it, and the snapshot shows it as well now as after the step limit.
//
// Patient is for a proof: a step that may end early waits on while a request the page did not
// repeat is open, however long it has been, or while the page shows it is busy (a progress bar,
// an aria-busy region). A reproduction gives up on a slow answer, since the snapshot is what it
// is for; a proof that did would call a fix red whose element was only late.
//
// A step that checks where the page is (Step.PlaceCheck: the URL or the title) names no element
// to look for: it ends on a quiet page whatever it reads, since only a navigation changes either
// and a quiet page has none loading or about to; patiently unless Reported, as a slow call the
// flow waits on (a sign-in taking seconds) may still move the page. Inside an intent block the
// block's QuietFail applies to each inner step so.
type QuietFail struct {
	Reported bool `json:"reported,omitempty"`
	Patient  bool `json:"patient,omitempty"`
}

// View is the page as one ReplayOptions.Views entry saw it.
type View struct {
	URL      string    `json:"url"`
	Snapshot *Snapshot `json:"snapshot,omitempty"`
	// Resolved is keyed by Locator.String(); a locator the page gave no answer for (it hung)
	// is absent.
	Resolved map[string]ResolvedLocator `json:"resolved,omitempty"`
}

// Replay is what one replay produced.
type Replay struct {
	Result   RunResult             `json:"result"`
	Snapshot *Snapshot             `json:"snapshot,omitempty"`
	Probes   map[int][]ProbeResult `json:"probes,omitempty"`
	// Views answers ReplayOptions.Views, by step index.
	Views map[int]View `json:"views,omitempty"`
	// Ahead is, for a replay that failed at a top-level step that does not change the page,
	// what the targets of the later top-level actions still on that page (up to and including
	// the first that may change it, Step.MayChangePage) match on the page the failure left,
	// keyed by Locator.String(): a repair sees at once every later element on that page that
	// is gone too, instead of finding each by a proof that waits for it.
	Ahead map[string]ResolvedLocator `json:"ahead,omitempty"`
}

// MaxResolvedElements caps the fingerprints a ResolvedLocator carries: two are enough to show a
// locator became ambiguous, three to show what it now matches.
const MaxResolvedElements = 3

// ResolvedLocator is what one locator matched on the live page at the end of a replay.
type ResolvedLocator struct {
	Count   int `json:"count"`   // elements matched, visible or not
	Visible int `json:"visible"` // of which visible
	// Elements are the fingerprints of the first visible matches, at most MaxResolvedElements.
	Elements []Fingerprint `json:"elements,omitempty"`
	// CoveredBy describes the element that covers the centre of the one visible match (an
	// overlay, a banner), so a click there would land on it instead.
	CoveredBy string `json:"coveredBy,omitempty"`
	// Error says why the locator could not be evaluated on the page (a selector the browser
	// rejects).
	Error string `json:"error,omitempty"`
}

// Snapshot is the page's candidate elements (visible; interactive or text-bearing) with their
// fingerprints, capped by count and bytes.
type Snapshot struct {
	URL        string        `json:"url"`
	Title      string        `json:"title"`
	Candidates []Fingerprint `json:"candidates"`
	Text       string        `json:"text"` // the page's visible text, capped
	Truncated  bool          `json:"truncated,omitempty"`
	Screenshot []byte        `json:"screenshot,omitempty"`
}

// ProbeResult is one check evaluated by a probe.
type ProbeResult struct {
	Check    Step   `json:"check"`
	Path     string `json:"step"`
	Passed   bool   `json:"passed"`
	Observed string `json:"observed,omitempty"`
	Error    string `json:"error,omitempty"` // the check could not run there (counts as sensitive)
	// Shown is, for an absence check that found nothing there, the control the page showed
	// whose name starts with the name the check gives (NamedByStart), as a locator: the check
	// names it by the start of its name and holds on any page.
	Shown string `json:"shown,omitempty"`
}
