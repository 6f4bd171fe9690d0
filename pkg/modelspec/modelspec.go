// Package modelspec turns a project's model setting ("builtin" or "bedrock:MODEL_ID") into a
// gardener.Model, so the CLI, the local stack and every Lambda read the setting the same way.
package modelspec

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/driftgardener/gardener/pkg/bedrock"
	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// Options configures the Bedrock model; the built-in engine needs none.
type Options struct {
	Region string
	// Endpoint overrides the Bedrock runtime endpoint (a recorded-response server in tests).
	Endpoint string
	// Allowed are the Bedrock model ids the deployment may call (in AWS its IAM policy allows
	// the one of the ModelId parameter, passed as BEDROCK_MODEL_ID); a setting naming another is
	// refused when it is opened, so it is refused when it is saved, not when a repair first
	// calls it. Empty allows any.
	Allowed []string
	// AllowedFrom names where Allowed was set, for the refusal to say (e.g. "ModelId").
	AllowedFrom string
}

// NotAllowedError is a Bedrock model setting naming a model the deployment does not allow.
type NotAllowedError struct {
	Model   string
	Allowed []string
	From    string
}

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("Bedrock model %q is not one this deployment may call: its %s setting allows %s only (give %s%s, or deploy with that setting changed)",
		e.Model, e.From, strings.Join(e.Allowed, ", "), bedrock.SpecPrefix, e.Allowed[0])
}

// Open returns the model a spec names. An empty spec is an error: with no model configured the
// gardener writes no repair ("Staged repairs need an AI key").
func Open(ctx context.Context, spec string, o Options) (gardener.Model, error) {
	switch {
	case spec == builtin.Name:
		return builtin.Engine{}, nil
	case strings.HasPrefix(spec, bedrock.SpecPrefix):
		id := strings.TrimPrefix(spec, bedrock.SpecPrefix)
		if len(o.Allowed) > 0 && !slices.Contains(o.Allowed, id) {
			return nil, &NotAllowedError{Model: id, Allowed: o.Allowed, From: cmp.Or(o.AllowedFrom, "allowed-model")}
		}
		var opts []func(*config.LoadOptions) error
		if o.Region != "" {
			opts = append(opts, config.WithRegion(o.Region))
		}
		cfg, err := config.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("model %s: loading the AWS configuration: %w", spec, err)
		}
		if o.Endpoint != "" {
			cfg.BaseEndpoint = aws.String(o.Endpoint)
		}
		return bedrock.NewFromConfig(cfg, id)
	case spec == "":
		return nil, fmt.Errorf("no model configured: give builtin or %sMODEL_ID", bedrock.SpecPrefix)
	}
	return nil, fmt.Errorf("model %q: give builtin or %sMODEL_ID", spec, bedrock.SpecPrefix)
}
