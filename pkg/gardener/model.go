package gardener

import "context"

// Model is what the ladder asks of an AI (or of the built-in engine, which answers the same
// four questions without one). Implementations validate their own output — schema, indices in
// range, locators that parse — but the ladder trusts none of it: every answer still passes the
// assertion floor and the green gate.
type Model interface {
	// Name identifies the model in records: "builtin" or "bedrock:MODEL_ID".
	Name() string
	// FixLocator answers rung 1, self-heal: a corrected locator for the failing step.
	FixLocator(ctx context.Context, ask LocatorAsk) (LocatorAnswer, error)
	// SuggestOps answers rung 2, suggest-fix: step operations against the whole test.
	SuggestOps(ctx context.Context, ask OpsAsk) (OpsAnswer, error)
	// Diagnose answers rung 3: is this drift, an app bug or the environment, and on what evidence;
	// for drift it may carry the ops that repair it.
	Diagnose(ctx context.Context, ask DiagnoseAsk) (Diagnosis, error)
	// DeriveIntent re-derives an intent block's steps from its goal and values.
	DeriveIntent(ctx context.Context, ask IntentAsk) (IntentAnswer, error)
}

// Failure is the evidence of a failing run that every ask carries: the test as it is, where it
// failed, and what the page looked like there. Snapshot holds the candidate elements of the page
// at the failing step; PageText is the page's visible text, given to a model only as delimited
// data, never as instructions.
type Failure struct {
	Test      Test          `json:"test"`
	Result    RunResult     `json:"result"`
	LastGreen *RunResult    `json:"lastGreen,omitempty"`
	Snapshot  []Fingerprint `json:"snapshot"`
	PageURL   string        `json:"pageUrl"`
	PageText  string        `json:"pageText,omitempty"`
}

// LocatorAsk asks for a new locator for the step at Path (top-level Index; Inner >= 0 for a step
// inside an intent block).
type LocatorAsk struct {
	Failure
	Index    int          `json:"index"`
	Inner    int          `json:"inner"`
	Step     Step         `json:"step"`
	Recorded *Fingerprint `json:"recorded,omitempty"` // the element on the last green run
}

// Usage is what a model call cost.
type Usage struct {
	Model        string `json:"model"`
	Calls        int    `json:"calls"`
	InputTokens  int    `json:"inputTokens"`
	OutputTokens int    `json:"outputTokens"`
}

// Add sums usage.
func (u Usage) Add(o Usage) Usage {
	if u.Model == "" {
		u.Model = o.Model
	}
	u.Calls += o.Calls
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	return u
}

// LocatorAnswer is a proposed locator; a zero Locator means the model abstained. Alternatives
// are further locators for the same element, in preference order, which the ladder tries at no
// model cost when the first does not resolve to exactly one element on the live page.
type LocatorAnswer struct {
	Locator      Locator   `json:"locator"`
	Alternatives []Locator `json:"alternatives,omitempty"`
	Confidence   float64   `json:"confidence"`
	Reason       string    `json:"reason"`
	Usage        Usage     `json:"usage"`
}

// OpsAsk asks for step operations against the whole test, computed against Test.Version.
type OpsAsk struct {
	Failure
}

// OpsAnswer is a set of proposed ops; empty when the model has none.
type OpsAnswer struct {
	Ops    []Op   `json:"ops"`
	Reason string `json:"reason"`
	Usage  Usage  `json:"usage"`
}

// DiagnoseAsk asks what a failure is.
type DiagnoseAsk struct {
	Failure
}

// Diagnosis is the model's classification with its evidence; Ops repairs drift.
type Diagnosis struct {
	Classification Classification `json:"classification"`
	Evidence       []string       `json:"evidence"`
	Ops            []Op           `json:"ops,omitempty"`
	Usage          Usage          `json:"usage"`
}

// IntentAsk asks for an intent block's steps, re-derived from its goal and values on the current
// page. Index is the block's top-level index.
type IntentAsk struct {
	Failure
	Index int  `json:"index"`
	Block Step `json:"block"`
}

// IntentAnswer is the re-derived steps of the block; goal and values are not the model's to change.
type IntentAnswer struct {
	Steps  []Step `json:"steps"`
	Reason string `json:"reason"`
	Usage  Usage  `json:"usage"`
}
