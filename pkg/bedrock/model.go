package bedrock

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// SpecPrefix starts a project's model setting when the model is on Bedrock: "bedrock:MODEL_ID".
const SpecPrefix = "bedrock:"

// Defaults. Two attempts let the SDK absorb a single blip; a model that stays busy is reported
// as a ThrottlingError for the state machine to retry with its own backoff, rather than
// waited out invisibly inside a Lambda that pays for the wait and may time out.
const (
	DefaultMaxAttempts   = 2
	DefaultMaxTokens     = 4096
	DefaultMaxCandidates = 150
	DefaultMaxPageText   = 12000 // characters of visible page text
)

// Model is gardener.Model on Bedrock Converse. Each ask is one Converse call with one tool and
// the tool choice forced onto it, so every answer is a tool call whose input is checked against
// the domain's strict decoders before it is returned. Safe for concurrent use.
type Model struct {
	client        *bedrockruntime.Client
	modelID       string
	maxTokens     int32
	temperature   float32
	maxAttempts   int
	maxCandidates int
	maxPageText   int
	tools         map[string]tool
}

var _ gardener.Model = (*Model)(nil)

// Option adjusts a Model.
type Option func(*Model)

// WithMaxTokens bounds the answer; an operations answer with a few steps needs about a thousand.
func WithMaxTokens(n int32) Option { return func(m *Model) { m.maxTokens = n } }

// WithTemperature sets the sampling temperature; the default 0 keeps answers repeatable.
func WithTemperature(t float32) Option { return func(m *Model) { m.temperature = t } }

// WithMaxAttempts sets how many times the SDK tries one call before a throttling or service
// error is returned (1: no SDK retry). Keep it small: see DefaultMaxAttempts.
func WithMaxAttempts(n int) Option { return func(m *Model) { m.maxAttempts = n } }

// WithPageLimits bounds what of the page is sent: the first candidates elements of the snapshot
// and the first textChars characters of its visible text. The rest is counted, not sent.
func WithPageLimits(candidates, textChars int) Option {
	return func(m *Model) { m.maxCandidates, m.maxPageText = candidates, textChars }
}

// New builds a Model on a Bedrock runtime client, whose region and endpoint it uses.
func New(client *bedrockruntime.Client, modelID string, opts ...Option) (*Model, error) {
	if client == nil {
		return nil, errors.New("bedrock: no client given")
	}
	if strings.TrimSpace(modelID) == "" {
		return nil, errors.New("bedrock: no model id given")
	}
	m := &Model{
		client: client, modelID: modelID,
		maxTokens: DefaultMaxTokens, maxAttempts: DefaultMaxAttempts,
		maxCandidates: DefaultMaxCandidates, maxPageText: DefaultMaxPageText,
	}
	for _, o := range opts {
		o(m)
	}
	switch {
	case m.maxTokens < 1:
		return nil, fmt.Errorf("bedrock: max tokens %d must be at least 1", m.maxTokens)
	case m.temperature < 0 || m.temperature > 1:
		return nil, fmt.Errorf("bedrock: temperature %g must be within [0, 1]", m.temperature)
	case m.maxAttempts < 1:
		return nil, fmt.Errorf("bedrock: max attempts %d must be at least 1", m.maxAttempts)
	case m.maxCandidates < 1 || m.maxPageText < 0:
		return nil, fmt.Errorf("bedrock: page limits (%d candidates, %d characters) must be at least 1 candidate and no negative text", m.maxCandidates, m.maxPageText)
	}
	tools, err := buildTools()
	if err != nil {
		return nil, fmt.Errorf("bedrock: building the tool schemas: %w", err)
	}
	m.tools = tools
	return m, nil
}

// NewFromConfig builds a Model from an AWS config; its Region is where the model is called.
func NewFromConfig(cfg aws.Config, modelID string, opts ...Option) (*Model, error) {
	if cfg.Region == "" {
		return nil, fmt.Errorf("bedrock: model %s: the AWS config names no region", modelID)
	}
	return New(bedrockruntime.NewFromConfig(cfg), modelID, opts...)
}

// Name is "bedrock:MODEL_ID", the form a project's model setting and the records use.
func (m *Model) Name() string { return SpecPrefix + m.modelID }

// call is one Converse call forced onto the ask's tool. It returns the tool input as JSON and
// what the call cost; a refusal or an unusable stop comes back as an error carrying the usage.
func (m *Model) call(ctx context.Context, ask, user string) ([]byte, gardener.Usage, error) {
	t := m.tools[ask]
	in := &bedrockruntime.ConverseInput{
		ModelId: aws.String(m.modelID),
		System:  []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: systemPrompt(ask)}},
		Messages: []types.Message{{
			Role:    types.ConversationRoleUser,
			Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: user}},
		}},
		ToolConfig: &types.ToolConfiguration{
			Tools: []types.Tool{&types.ToolMemberToolSpec{Value: types.ToolSpecification{
				Name:        aws.String(t.name),
				Description: aws.String(t.description),
				InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(t.schema)},
			}}},
			ToolChoice: &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(t.name)}},
		},
		InferenceConfig: &types.InferenceConfiguration{
			MaxTokens:   aws.Int32(m.maxTokens),
			Temperature: aws.Float32(m.temperature),
		},
	}
	out, err := m.client.Converse(ctx, in, func(o *bedrockruntime.Options) { o.RetryMaxAttempts = m.maxAttempts })
	if err != nil {
		return nil, gardener.Usage{}, classify(ctx, m.Name(), ask, err)
	}
	usage := gardener.Usage{Model: m.Name(), Calls: 1}
	if u := out.Usage; u != nil {
		usage.InputTokens = int(aws.ToInt32(u.InputTokens))
		usage.OutputTokens = int(aws.ToInt32(u.OutputTokens))
	}
	// What the response says it used is what Bedrock bills, whatever becomes of the answer.
	gardener.MeterOf(ctx).Model(usage)
	var text []string
	var input []byte
	var other string // a tool the model called that it was not given
	found := false
	if msg, ok := out.Output.(*types.ConverseOutputMemberMessage); ok {
		for _, c := range msg.Value.Content {
			switch c := c.(type) {
			case *types.ContentBlockMemberText:
				text = append(text, c.Value)
			case *types.ContentBlockMemberToolUse:
				if name := aws.ToString(c.Value.Name); name != t.name {
					other = name
					continue
				}
				if found {
					continue
				}
				found = true
				if c.Value.Input != nil {
					if input, err = c.Value.Input.MarshalSmithyDocument(); err != nil {
						return nil, usage, m.invalid(ask, usage, "", "the tool input is not a JSON document", err)
					}
				}
			}
		}
	}
	reason := string(out.StopReason)
	said := strings.TrimSpace(strings.Join(text, "\n"))
	switch out.StopReason {
	case types.StopReasonContentFiltered, types.StopReasonGuardrailIntervened:
		return nil, usage, &RefusalError{Model: m.Name(), Ask: ask, StopReason: reason, Text: said, Usage: usage}
	case types.StopReasonToolUse, types.StopReasonEndTurn, types.StopReasonStopSequence:
		if !found && other != "" {
			return nil, usage, m.invalid(ask, usage, "", fmt.Sprintf("the model called %q, not %s", other, t.name), nil)
		}
		if !found {
			// The tool choice was forced; a model that writes prose instead has declined.
			return nil, usage, &RefusalError{Model: m.Name(), Ask: ask, StopReason: reason, Text: said, Usage: usage}
		}
		if len(input) == 0 {
			return nil, usage, m.invalid(ask, usage, "", fmt.Sprintf("the %s call carries no input", t.name), nil)
		}
		return input, usage, nil
	}
	// max_tokens, malformed output or tool use, an exceeded context window, a reason added
	// after this was written: whatever was produced is not a whole answer.
	return nil, usage, m.invalid(ask, usage, string(input), fmt.Sprintf("the model stopped with reason %q before a complete %s call", reason, t.name), nil)
}

// inputLimit bounds the raw answer kept in an InvalidOutputError; the start shows the problem.
const inputLimit = 4096

func (m *Model) invalid(ask string, usage gardener.Usage, input, reason string, err error) *InvalidOutputError {
	if len(input) > inputLimit {
		input = strings.ToValidUTF8(input[:inputLimit], "") + "…"
	}
	if err != nil {
		reason += ": " + err.Error()
	}
	return &InvalidOutputError{Model: m.Name(), Ask: ask, Reason: reason, Input: input, Usage: usage, Err: err}
}
